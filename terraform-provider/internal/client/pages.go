package client

import (
	"context"
	"net/http"
	"net/url"
)

// ListAll reads every page of a list route (100 a page, the most the API gives), stopping early
// when found says so.
func ListAll[T any](ctx context.Context, c *Client, path string, found func(T) bool) ([]T, error) {
	var all []T
	cursor := ""
	for {
		query := url.Values{"limit": {"100"}}
		if cursor != "" {
			query.Set("cursor", cursor)
		}
		res, err := c.Do(ctx, Request{Method: http.MethodGet, Path: path, Query: query})
		if err != nil {
			return nil, err
		}
		var page Page[T]
		if err := res.Decode(&page); err != nil {
			return nil, err
		}
		for _, item := range page.Data {
			all = append(all, item)
			if found != nil && found(item) {
				return all, nil
			}
		}
		if page.NextCursor == nil || *page.NextCursor == "" {
			return all, nil
		}
		cursor = *page.NextCursor
	}
}

// Must is for tests and set-up code: the value, or a panic with the error.
func Must[T any](value T, err error) T {
	if err != nil {
		panic(err)
	}
	return value
}
