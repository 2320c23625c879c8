package client

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// Operation is a paid or long-running piece of work (register, transfer, renew, DNSSEC) the API
// answered 202 for.
type Operation struct {
	ID          string         `json:"id"`
	Type        string         `json:"type"`
	Status      string         `json:"status"`
	Domain      string         `json:"domain"`
	Result      map[string]any `json:"result"`
	Error       *OperationErr  `json:"error"`
	CompletedAt *string        `json:"completed_at"`
}

// OperationErr is why an operation failed.
type OperationErr struct {
	Code   string `json:"code"`
	Detail string `json:"detail"`
}

// Finished is true once the operation can change no more.
func (o *Operation) Finished() bool {
	return o.Status == "succeeded" || o.Status == "failed" || o.Status == "cancelled"
}

// OperationFailed is an operation that ended other than `succeeded`.
type OperationFailed struct{ Operation Operation }

func (e *OperationFailed) Error() string {
	if e.Operation.Error != nil {
		return fmt.Sprintf("operation %s (%s of %s) %s: %s %s", e.Operation.ID, e.Operation.Type, e.Operation.Domain, e.Operation.Status, e.Operation.Error.Code, e.Operation.Error.Detail)
	}
	return fmt.Sprintf("operation %s (%s of %s) ended %s", e.Operation.ID, e.Operation.Type, e.Operation.Domain, e.Operation.Status)
}

// WaitForOperation polls the operation, as often as its Retry-After says (else every 2 s), until it
// has finished or ctx ends; an operation that did not succeed is an *OperationFailed.
func (c *Client) WaitForOperation(ctx context.Context, id string) (*Operation, error) {
	for {
		res, err := c.Do(ctx, Request{Method: http.MethodGet, Path: c.OrgPath("operations", id)})
		if err != nil {
			return nil, err
		}
		var op Operation
		if err := res.Decode(&op); err != nil {
			return nil, err
		}
		if op.Finished() {
			if op.Status != "succeeded" {
				return &op, &OperationFailed{Operation: op}
			}
			return &op, nil
		}
		wait := parseRetryAfter(res.Header.Get("Retry-After"))
		if wait <= 0 {
			wait = 2 * time.Second
		}
		select {
		case <-ctx.Done():
			return &op, fmt.Errorf("operation %s still %s: %w", id, op.Status, ctx.Err())
		case <-time.After(wait):
		}
	}
}

// RunOperation sends a request the API may answer 202 with an operation, and waits for that
// operation; an answer of 200 (done within the request, as a quick renewal is) needs no wait.
func (c *Client) RunOperation(ctx context.Context, req Request) (*Operation, error) {
	res, err := c.Do(ctx, req)
	if err != nil || res.Status != http.StatusAccepted {
		return nil, err
	}
	var op Operation
	if err := res.Decode(&op); err != nil {
		return nil, err
	}
	return c.WaitForOperation(ctx, op.ID)
}
