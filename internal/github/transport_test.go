package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// stub is a RoundTripper that answers from a function and tracks how many
// requests are in flight at once.
type stub struct {
	answer   func(n int, req *http.Request) (*http.Response, error)
	calls    atomic.Int32
	inFlight atomic.Int32
	maxSeen  atomic.Int32
	hold     time.Duration
}

func (s *stub) RoundTrip(req *http.Request) (*http.Response, error) {
	n := int(s.calls.Add(1))
	cur := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxSeen.Load()
		if cur <= m || s.maxSeen.CompareAndSwap(m, cur) {
			break
		}
	}
	if s.hold > 0 {
		time.Sleep(s.hold)
	}
	return s.answer(n, req)
}

func answer(status int, header http.Header, body string) *http.Response {
	if header == nil {
		header = http.Header{}
	}
	return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(strings.NewReader(body))}
}

func roundTrip(t *testing.T, rt http.RoundTripper, method string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest(method, "http://127.0.0.1:1/x", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	return rt.RoundTrip(req)
}

func TestRetryTransportClassifies(t *testing.T) {
	for _, tc := range []struct {
		name   string
		first  func() (*http.Response, error)
		calls  int32
		sleeps []time.Duration
		method string // default POST
	}{
		{"connection error is transient", func() (*http.Response, error) { return nil, errors.New("connection reset") }, 2, []time.Duration{time.Second}, http.MethodGet},
		{"a POST is not repeated after a lost response", func() (*http.Response, error) { return nil, errors.New("connection reset") }, 1, nil, ""},
		{"nor after a 502", func() (*http.Response, error) { return answer(502, nil, ""), nil }, 1, nil, ""},
		{"a refused dial sent nothing", func() (*http.Response, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
		}, 2, []time.Duration{time.Second}, ""},
		{"429 with Retry-After", func() (*http.Response, error) {
			return answer(429, http.Header{"Retry-After": {"4"}}, ""), nil
		}, 2, []time.Duration{4 * time.Second}, ""},
		{"secondary limit without Retry-After waits a minute", func() (*http.Response, error) {
			return answer(403, nil, `{"message":"You have exceeded a secondary rate limit"}`), nil
		}, 2, []time.Duration{time.Minute}, ""},
		{"plain 403 is final", func() (*http.Response, error) {
			return answer(403, nil, `{"message":"Resource not accessible by integration"}`), nil
		}, 1, nil, ""},
		{"404 is final", func() (*http.Response, error) { return answer(404, nil, ""), nil }, 1, nil, ""},
		{"501 is final", func() (*http.Response, error) { return answer(501, nil, ""), nil }, 1, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock()
			s := &stub{answer: func(n int, req *http.Request) (*http.Response, error) {
				if b, _ := io.ReadAll(req.Body); string(b) != `{"a":1}` {
					t.Errorf("attempt %d sent body %q", n, b)
				}
				if n == 1 {
					return tc.first()
				}
				return answer(200, nil, "ok"), nil
			}}
			rt := newRetryTransport(s, RetryPolicy{Now: clk.Now, Sleep: clk.Sleep})
			method := tc.method
			if method == "" {
				method = http.MethodPost
			}
			if _, err := roundTrip(t, rt, method); err != nil && tc.calls > 1 {
				t.Fatal(err)
			}
			if got := s.calls.Load(); got != tc.calls {
				t.Errorf("calls = %d, want %d", got, tc.calls)
			}
			if diff := cmp.Diff(tc.sleeps, clk.Slept()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
		})
	}
}

// Issue 11, defect 6: a POST that creates git objects is repeated after a
// lost response (the objects are content-addressed); other POSTs are not.
func TestIdempotentRequests(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         bool
	}{
		{http.MethodPost, "/repos/o/r/git/trees", true},
		{http.MethodPost, "/api/v3/repos/o/r/git/commits", true},
		{http.MethodPost, "/repos/o/r/git/blobs", true},
		{http.MethodPost, "/app/installations/7/access_tokens", true},
		{http.MethodPost, "/repos/o/r/git/refs", false},
		{http.MethodPost, "/repos/o/r/pulls", false},
		{http.MethodPost, "/repos/o/r/issues/1/comments", false},
		{http.MethodPost, "/repos/o/r/commits/abc/comments", false},
		{http.MethodPatch, "/repos/o/r/git/refs/heads/main", true},
		{http.MethodGet, "/repos/o/r", true},
	} {
		req, _ := http.NewRequest(tc.method, "https://api.github.com"+tc.path, nil)
		if got := idempotent(req); got != tc.want {
			t.Errorf("idempotent(%s %s) = %v, want %v", tc.method, tc.path, got, tc.want)
		}
	}
}

func TestRetryTransportBackoffIsCapped(t *testing.T) {
	clk := newClock()
	s := &stub{answer: func(int, *http.Request) (*http.Response, error) { return answer(502, nil, ""), nil }}
	rt := newRetryTransport(s, RetryPolicy{MaxAttempts: 6, BaseDelay: time.Second, MaxDelay: 5 * time.Second, Now: clk.Now, Sleep: clk.Sleep})
	resp, err := roundTrip(t, rt, http.MethodGet)
	if err != nil || resp.StatusCode != 502 {
		t.Fatalf("final answer %v, %v; want the last 502", resp, err)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	if diff := cmp.Diff(want, clk.Slept()); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}
}

func TestRetryTransportStopsWhenContextEnds(t *testing.T) {
	s := &stub{answer: func(int, *http.Request) (*http.Response, error) { return answer(503, nil, ""), nil }}
	ctx, cancel := context.WithCancel(context.Background())
	rt := newRetryTransport(s, RetryPolicy{Sleep: func(context.Context, time.Duration) error { cancel(); return context.Canceled }})
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:1/x", nil)
	if _, err := rt.RoundTrip(req); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if n := s.calls.Load(); n != 1 {
		t.Errorf("calls = %d after cancel, want 1", n)
	}
}

func TestMutatingCallsAreSerialized(t *testing.T) {
	for _, tc := range []struct {
		method     string
		serialized bool
	}{{http.MethodPost, true}, {http.MethodPatch, true}, {http.MethodGet, false}} {
		s := &stub{hold: 50 * time.Millisecond, answer: func(int, *http.Request) (*http.Response, error) { return answer(200, nil, ""), nil }}
		rt := newRetryTransport(s, RetryPolicy{})
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if _, err := roundTrip(t, rt, tc.method); err != nil {
					t.Error(err)
				}
			}()
		}
		close(start)
		wg.Wait()
		got := s.maxSeen.Load()
		if tc.serialized && got != 1 {
			t.Errorf("%s: %d requests in flight at once, want 1", tc.method, got)
		}
		if !tc.serialized && got < 2 {
			t.Errorf("%s: serialized too (%d in flight at most)", tc.method, got)
		}
	}
}

// TestRememberedRateLimitIsWaitedOut covers go-github's own memory of an
// exhausted limit: after a 200 that says no requests remain, go-github fails
// the next call without sending it; Client waits for the reset and retries.
// The reset is one second away and the wait is real (go-github reads the
// wall clock), so this test takes about two seconds.
func TestRememberedRateLimitIsWaitedOut(t *testing.T) {
	var calls atomic.Int32
	reset := time.Now().Add(time.Second).Unix()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
		if n == 1 {
			w.Header().Set("X-RateLimit-Remaining", "0")
		} else {
			w.Header().Set("X-RateLimit-Remaining", "4999")
		}
		fmt.Fprintf(w, `{"number":%d}`, n)
	}))
	defer srv.Close()
	c, err := New(Options{Token: "t", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	r := ident.Repo{Owner: "o", Name: "r"}
	if _, err := c.GetPullRequest(context.Background(), r, 1); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetPullRequest(context.Background(), r, 1)
	if err != nil || got.Number != 2 {
		t.Fatalf("second call = %+v, %v; want it sent after the reset", got, err)
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
	if time.Now().Unix() < reset {
		t.Error("the second request went out before the reset")
	}
}
