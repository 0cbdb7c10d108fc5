package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
)

// Defaults of RetryPolicy.
const (
	DefaultMaxAttempts = 5
	DefaultBaseDelay   = time.Second
	DefaultMaxDelay    = 30 * time.Second
	DefaultMaxWait     = 2 * time.Minute
	// secondaryFloor is the least wait after a secondary rate limit that
	// names no Retry-After: GitHub asks for at least a minute.
	secondaryFloor = time.Minute
)

// RetryPolicy says which failures are retried and how long to wait.
//
// Transient failures (connection errors, 500, 502, 503, 504) are retried
// with exponential backoff from BaseDelay, doubling, capped at MaxDelay. A
// 403 or 429 with Retry-After waits that long; one with X-RateLimit-Remaining
// 0 waits until X-RateLimit-Reset; a secondary rate limit without either
// backs off exponentially from one minute. A wait longer than MaxWait, or
// past the context's deadline, is not made: the answer is returned and
// becomes ErrRateLimited. At most MaxAttempts requests are sent per call.
//
// A request that is not idempotent (a POST other than creating git objects
// or an installation token: a pull request, a comment, a ref) is not sent
// again after a lost response (a connection error once the request may have
// been sent, or a 5xx): GitHub may have acted, and a repeat would comment
// twice or fail with 422. Its error goes to the caller, whose flow re-reads
// before it acts again. Rate-limit refusals are retried for every method:
// GitHub refused before acting.
type RetryPolicy struct {
	MaxAttempts int
	BaseDelay   time.Duration
	MaxDelay    time.Duration
	MaxWait     time.Duration
	// Sleep waits d or until ctx ends (then returns ctx.Err()). Tests inject
	// one that records the wait and returns at once. Default a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock rate-limit resets are measured against. Default time.Now.
	Now func() time.Time
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = DefaultMaxAttempts
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = DefaultBaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = DefaultMaxDelay
	}
	if p.MaxWait <= 0 {
		p.MaxWait = DefaultMaxWait
	}
	if p.Sleep == nil {
		p.Sleep = sleepTimer
	}
	if p.Now == nil {
		p.Now = time.Now
	}
	return p
}

func sleepTimer(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// canWait reports whether a wait of d fits MaxWait and the context's deadline.
func (p RetryPolicy) canWait(ctx context.Context, d time.Duration) bool {
	if d > p.MaxWait {
		return false
	}
	if deadline, ok := ctx.Deadline(); ok && p.Now().Add(d).After(deadline) {
		return false
	}
	return true
}

func (p RetryPolicy) backoff(attempt int, floor time.Duration) time.Duration {
	d := max(p.BaseDelay, floor)
	for i := 1; i < attempt && d < p.MaxDelay*64; i++ {
		d *= 2
	}
	if floor == 0 && d > p.MaxDelay {
		d = p.MaxDelay
	}
	return d
}

// retryTransport applies a RetryPolicy and serializes mutating requests.
type retryTransport struct {
	next   http.RoundTripper
	policy RetryPolicy
	// writeMu serializes every request other than GET and HEAD, retries
	// included: GitHub asks integrations not to make concurrent writes.
	writeMu sync.Mutex
}

func newRetryTransport(next http.RoundTripper, p RetryPolicy) *retryTransport {
	return &retryTransport{next: next, policy: p.withDefaults()}
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		t.writeMu.Lock()
		defer t.writeMu.Unlock()
	}
	ctx := req.Context()
	for attempt := 1; ; attempt++ {
		r := req
		if attempt > 1 {
			var err error
			if r, err = rewind(req); err != nil {
				return nil, err
			}
		}
		resp, err := t.next.RoundTrip(r)
		wait, retry := t.classify(ctx, attempt, resp, err)
		if retry && !idempotent(req) && lostResponse(resp, err) {
			return resp, err
		}
		if !retry || attempt >= t.policy.MaxAttempts || !t.policy.canWait(ctx, wait) {
			return resp, err
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
		}
		if serr := t.policy.Sleep(ctx, wait); serr != nil {
			if err != nil {
				return nil, fmt.Errorf("%w (while retrying after: %v)", serr, err)
			}
			return nil, serr
		}
	}
}

// gitObjectPath is a POST that creates a git object (blob, tree, commit):
// objects are content-addressed, so a repeat creates nothing new.
var gitObjectPath = regexp.MustCompile(`/repos/[^/]+/[^/]+/git/(blobs|trees|commits)$|/app/installations/[0-9]+/access_tokens$`)

// idempotent reports whether req may be sent twice with the effect of once.
func idempotent(req *http.Request) bool {
	switch req.Method {
	case http.MethodPost:
		return gitObjectPath.MatchString(req.URL.Path)
	case http.MethodConnect:
		return false
	}
	return true // GET, HEAD, PUT, PATCH (set fields, move a ref to a given commit), DELETE
}

// lostResponse reports whether an answer leaves it unknown whether GitHub
// acted: a connection error after dialing, or a 5xx. A refused dial sent
// nothing.
func lostResponse(resp *http.Response, err error) bool {
	if err != nil {
		var op *net.OpError
		return !(errors.As(err, &op) && op.Op == "dial")
	}
	return resp.StatusCode >= 500
}

// rewind returns a copy of req with a fresh body.
func rewind(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.Body == nil || req.Body == http.NoBody {
		return r, nil
	}
	if req.GetBody == nil {
		return nil, errors.New("github: cannot retry a request whose body cannot be replayed")
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, fmt.Errorf("github: replay request body: %w", err)
	}
	r.Body = body
	return r, nil
}

// classify decides whether an answer is retried and after how long.
func (t *retryTransport) classify(ctx context.Context, attempt int, resp *http.Response, err error) (time.Duration, bool) {
	p := t.policy
	if err != nil {
		if ctx.Err() != nil {
			return 0, false
		}
		var he *ghinstallation.HTTPError
		if errors.As(err, &he) && he.Response != nil {
			// The installation-token request failed: retry only a 5xx.
			return p.backoff(attempt, 0), he.Response.StatusCode >= 500
		}
		return p.backoff(attempt, 0), true
	}
	switch resp.StatusCode {
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return p.backoff(attempt, 0), true
	case http.StatusForbidden, http.StatusTooManyRequests:
	default:
		return 0, false
	}
	if wait, ok := limitWait(resp.Header, p.Now()); ok {
		return wait, true
	}
	if rateLimited(resp.StatusCode, resp.Header, peekBody(resp)) {
		return p.backoff(attempt, secondaryFloor), true
	}
	return 0, false // a plain 403: permission denied
}

// limitWait reads how long a rate-limit answer asks to wait: Retry-After
// (seconds or a date), else until X-RateLimit-Reset (plus a second) when
// X-RateLimit-Remaining is 0. ok is false when the headers name no wait.
func limitWait(h http.Header, now time.Time) (wait time.Duration, ok bool) {
	if s := h.Get("Retry-After"); s != "" {
		if secs, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && secs >= 0 {
			return time.Duration(secs) * time.Second, true
		}
		if when, err := http.ParseTime(s); err == nil {
			return max(0, when.Sub(now)), true
		}
	}
	if h.Get("X-RateLimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return max(0, time.Unix(reset, 0).Sub(now)) + time.Second, true
		}
	}
	return 0, false
}

// peekBody returns the start of resp's body, leaving the body readable.
func peekBody(resp *http.Response) string {
	if resp.Body == nil {
		return ""
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	if err != nil {
		return ""
	}
	return string(b)
}
