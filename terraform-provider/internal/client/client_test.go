package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// A create retried after 429 and 503 waits as long as Retry-After says and sends the same
// Idempotency-Key each time, so the API answers the retry from the first attempt.
func TestRetriesKeepTheIdempotencyKeyAndWaitRetryAfter(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	var times []time.Time
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		times = append(times, time.Now())
		switch len(keys) {
		case 1:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"detail":"Rate limit exceeded","code":"RATE_LIMITED"}`))
		case 2:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"detail":"down","code":"UPSTREAM_UNAVAILABLE"}`))
		default:
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"id":"ct_1"}`))
		}
	}))
	defer server.Close()
	c := New(server.URL, "svc_test_x", "org_1", "test")
	res, err := c.Do(context.Background(), Request{Method: http.MethodPost, Path: "/api/v1/orgs/org_1/contacts", Body: map[string]any{}, IdempotencyKey: "k-1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != http.StatusCreated || len(keys) != 3 {
		t.Fatalf("status %d after %d attempts", res.Status, len(keys))
	}
	for _, k := range keys {
		if k != "k-1" {
			t.Fatalf("attempts sent keys %v", keys)
		}
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < 950*time.Millisecond {
			t.Fatalf("retry %d came %v after the previous attempt; Retry-After said 1 s", i, gap)
		}
	}
}

// A POST without an Idempotency-Key is never sent twice on a 503: it might have been applied.
func TestNoBlindRetryOfAnUnkeyedPost(t *testing.T) {
	attempts := 0
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		attempts++
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"detail":"down","code":"DNS_PROVIDER_UNAVAILABLE"}`))
	}))
	defer server.Close()
	_, err := New(server.URL, "svc_test_x", "org_1", "test").Do(context.Background(), Request{Method: http.MethodPost, Path: "/x", Body: map[string]any{}})
	if !HasCode(err, "DNS_PROVIDER_UNAVAILABLE") || attempts != 1 {
		t.Fatalf("err %v after %d attempts", err, attempts)
	}
}

// Validation errors read as their fields and messages.
func TestFieldErrorsReadAsText(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req_1")
		w.WriteHeader(http.StatusUnprocessableEntity)
		_, _ = w.Write([]byte(`{"detail":[{"loc":["body","line","3"],"msg":"A: Must be an IPv4 address","type":"ipv4_invalid"}],"code":"ZONE_FILE_INVALID"}`))
	}))
	defer server.Close()
	_, err := New(server.URL, "svc_test_x", "org_1", "test").Do(context.Background(), Request{Method: http.MethodGet, Path: "/x"})
	want := "GET /x answered 422 ZONE_FILE_INVALID: body.line.3: A: Must be an IPv4 address (request req_1)"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}
