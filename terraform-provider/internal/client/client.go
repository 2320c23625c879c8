// Package client speaks the domain service's HTTP API (/api/v1): bearer authentication, JSON bodies,
// Retry-After on 429 and 503, an Idempotency-Key kept across its own retries, and operation polling.
// The API's conventions are described in docs/api-guide.md of this repository.
package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Client calls one deployment of the API as one API key, for one organisation.
type Client struct {
	BaseURL   string
	APIKey    string
	OrgID     string
	UserAgent string
	HTTP      *http.Client
	// MaxAttempts bounds the tries of one request (429, 502, 503, 409 IDEMPOTENCY_KEY_IN_USE, network errors).
	MaxAttempts int
	// MaxWait caps one Retry-After wait; a longer one ends the retries with the API's error.
	MaxWait time.Duration

	requests atomic.Int64
}

// New makes a client with the defaults a plan or apply needs.
func New(baseURL, apiKey, orgID, userAgent string) *Client {
	return &Client{
		BaseURL:     strings.TrimRight(baseURL, "/"),
		APIKey:      apiKey,
		OrgID:       orgID,
		UserAgent:   userAgent,
		HTTP:        &http.Client{Timeout: 60 * time.Second},
		MaxAttempts: 8,
		MaxWait:     2 * time.Minute,
	}
}

// Requests is how many HTTP requests this client has sent, retries included.
func (c *Client) Requests() int64 { return c.requests.Load() }

// Request is one call: the body is JSON unless RawBody is set.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Body   any
	// RawBody is sent as is with ContentType (a zone file).
	RawBody     []byte
	ContentType string
	Accept      string
	// IdempotencyKey is sent on every attempt, so a retried create never makes a second object.
	IdempotencyKey string
	DryRun         bool
	IfMatch        string
}

// Response is a successful answer (2xx).
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Decode reads the JSON body into out.
func (r *Response) Decode(out any) error {
	if err := json.Unmarshal(r.Body, out); err != nil {
		return fmt.Errorf("reading the API's answer: %w", err)
	}
	return nil
}

// NewIdempotencyKey is a random key for one create, reused by every retry of it.
func NewIdempotencyKey(purpose string) string {
	buf := make([]byte, 16)
	_, _ = rand.Read(buf)
	return "tf-" + purpose + "-" + hex.EncodeToString(buf)
}

// OrgPath is /api/v1/orgs/{org}/ followed by the parts, each escaped.
func (c *Client) OrgPath(parts ...string) string {
	escaped := make([]string, 0, len(parts)+1)
	escaped = append(escaped, url.PathEscape(c.OrgID))
	for _, p := range parts {
		escaped = append(escaped, url.PathEscape(p))
	}
	return "/api/v1/orgs/" + strings.Join(escaped, "/")
}

// Do sends the request, retrying what the API says may be retried, and answers the 2xx or an *APIError.
func (c *Client) Do(ctx context.Context, req Request) (*Response, error) {
	var body []byte
	contentType := req.ContentType
	if req.RawBody != nil {
		body = req.RawBody
	} else if req.Body != nil {
		encoded, err := json.Marshal(req.Body)
		if err != nil {
			return nil, err
		}
		body = encoded
		contentType = "application/json"
	}
	target := c.BaseURL + req.Path
	if len(req.Query) > 0 {
		target += "?" + req.Query.Encode()
	}
	attempts := c.MaxAttempts
	if attempts < 1 {
		attempts = 1
	}
	var last error
	for attempt := 1; attempt <= attempts; attempt++ {
		res, wait, err := c.once(ctx, req, target, body, contentType)
		if err == nil {
			return res, nil
		}
		last = err
		if wait < 0 || attempt == attempts {
			break
		}
		if wait == 0 {
			wait = backoff(attempt)
		}
		if wait > c.MaxWait {
			break
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (gave up waiting to retry: %v)", last, ctx.Err())
		case <-time.After(wait):
		}
	}
	return nil, last
}

// once sends one attempt. wait < 0: do not retry; 0: retry after a back-off; > 0: retry after that long.
func (c *Client) once(ctx context.Context, req Request, target string, body []byte, contentType string) (*Response, time.Duration, error) {
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	httpReq, err := http.NewRequestWithContext(ctx, req.Method, target, reader)
	if err != nil {
		return nil, -1, err
	}
	httpReq.Header.Set("Authorization", "Bearer "+c.APIKey)
	httpReq.Header.Set("User-Agent", c.UserAgent)
	accept := req.Accept
	if accept == "" {
		accept = "application/json"
	}
	httpReq.Header.Set("Accept", accept)
	if contentType != "" {
		httpReq.Header.Set("Content-Type", contentType)
	}
	if req.IdempotencyKey != "" {
		httpReq.Header.Set("Idempotency-Key", req.IdempotencyKey)
	}
	if req.DryRun {
		httpReq.Header.Set("Dry-Run", "true")
	}
	if req.IfMatch != "" {
		httpReq.Header.Set("If-Match", req.IfMatch)
	}
	c.requests.Add(1)
	httpRes, err := c.HTTP.Do(httpReq)
	if err != nil {
		if ctx.Err() != nil {
			return nil, -1, err
		}
		// The request may or may not have arrived: safe to send again only when it is idempotent.
		if retriableMethod(req) {
			return nil, 0, fmt.Errorf("%s %s: %w", req.Method, req.Path, err)
		}
		return nil, -1, fmt.Errorf("%s %s: %w", req.Method, req.Path, err)
	}
	defer httpRes.Body.Close()
	resBody, err := io.ReadAll(io.LimitReader(httpRes.Body, 64<<20))
	if err != nil {
		return nil, 0, fmt.Errorf("%s %s: reading the answer: %w", req.Method, req.Path, err)
	}
	if httpRes.StatusCode < 300 {
		return &Response{Status: httpRes.StatusCode, Header: httpRes.Header, Body: resBody}, -1, nil
	}
	apiErr := newAPIError(req, httpRes, resBody)
	retryAfter := parseRetryAfter(httpRes.Header.Get("Retry-After"))
	switch {
	case httpRes.StatusCode == http.StatusTooManyRequests:
		return nil, maxDuration(retryAfter, time.Second), apiErr
	case httpRes.StatusCode == http.StatusConflict && apiErr.Code == "IDEMPOTENCY_KEY_IN_USE":
		return nil, maxDuration(retryAfter, time.Second), apiErr
	case (httpRes.StatusCode == http.StatusBadGateway || httpRes.StatusCode == http.StatusServiceUnavailable) && retriableMethod(req):
		return nil, retryAfter, apiErr
	default:
		return nil, -1, apiErr
	}
}

// A request is safe to send twice when it reads, or when its Idempotency-Key makes the API answer a
// repeat from the first attempt; PATCH and DELETE name their target and set absolute values.
func retriableMethod(req Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodPatch, http.MethodDelete, http.MethodPut:
		return true
	}
	return req.IdempotencyKey != "" || req.DryRun
}

func backoff(attempt int) time.Duration {
	d := time.Duration(math.Min(float64(500*time.Millisecond)*math.Pow(2, float64(attempt-1)), float64(15*time.Second)))
	return d
}

func maxDuration(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}

// parseRetryAfter reads seconds or an HTTP date; 0 when absent or unreadable.
func parseRetryAfter(value string) time.Duration {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0
	}
	if seconds, err := strconv.Atoi(value); err == nil && seconds >= 0 {
		return time.Duration(seconds) * time.Second
	}
	if at, err := http.ParseTime(value); err == nil {
		if d := time.Until(at); d > 0 {
			return d
		}
	}
	return 0
}

// APIError is an answer of 3xx or more: its status, `code` and `detail`, and the request id to quote.
type APIError struct {
	Method    string
	Path      string
	Status    int
	Code      string
	Detail    string
	RequestID string
}

func (e *APIError) Error() string {
	code := ""
	if e.Code != "" {
		code = " " + e.Code
	}
	id := ""
	if e.RequestID != "" {
		id = " (request " + e.RequestID + ")"
	}
	return fmt.Sprintf("%s %s answered %d%s: %s%s", e.Method, e.Path, e.Status, code, e.Detail, id)
}

func newAPIError(req Request, res *http.Response, body []byte) *APIError {
	out := &APIError{Method: req.Method, Path: req.Path, Status: res.StatusCode, RequestID: res.Header.Get("X-Request-Id")}
	var parsed struct {
		Detail json.RawMessage `json:"detail"`
		Code   string          `json:"code"`
	}
	if json.Unmarshal(body, &parsed) != nil {
		out.Detail = strings.TrimSpace(string(body))
		return out
	}
	out.Code = parsed.Code
	var text string
	if json.Unmarshal(parsed.Detail, &text) == nil {
		out.Detail = text
		return out
	}
	var fields []struct {
		Loc []any  `json:"loc"`
		Msg string `json:"msg"`
	}
	if json.Unmarshal(parsed.Detail, &fields) == nil {
		parts := make([]string, 0, len(fields))
		for _, f := range fields {
			loc := make([]string, 0, len(f.Loc))
			for _, l := range f.Loc {
				loc = append(loc, fmt.Sprint(l))
			}
			parts = append(parts, strings.Join(loc, ".")+": "+f.Msg)
		}
		out.Detail = strings.Join(parts, "; ")
		return out
	}
	out.Detail = string(parsed.Detail)
	return out
}

// IsNotFound is true for a 404: the object is gone (or was never visible to this key).
func IsNotFound(err error) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound
}

// HasCode is true when the API answered that error code.
func HasCode(err error, code string) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.Code == code
}

// Fetch sends the request and reads its JSON answer into a T.
func Fetch[T any](ctx context.Context, c *Client, req Request) (*T, error) {
	res, err := c.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	var out T
	if err := res.Decode(&out); err != nil {
		return nil, err
	}
	return &out, nil
}
