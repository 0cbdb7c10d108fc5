package webhook

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// scrape returns m's exposition (GET /metrics).
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	w := httptest.NewRecorder()
	m.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if w.Code != http.StatusOK {
		t.Fatalf("metrics: %d", w.Code)
	}
	return w.Body.String()
}

// wantLines fails for every line of want missing from the exposition.
func wantLines(t *testing.T, exposition string, want ...string) {
	t.Helper()
	have := map[string]bool{}
	for _, l := range strings.Split(exposition, "\n") {
		have[l] = true
	}
	for _, l := range want {
		if !have[l] {
			t.Errorf("metrics lack %q", l)
		}
	}
}

// Issue 18, item 8: the operator's metrics, in Prometheus's text format.
func TestMetrics(t *testing.T) {
	t.Parallel()
	m := NewMetrics("v1.2.3-test")
	clock := newFakeClock()
	h := newHarness(t, func(o *Options) { o.Metrics, o.Clock = m, clock })
	h.rec.allow = true
	release := h.holdBumps(t)
	rel := example(t, "release", "published", nil)
	h.post("release", "rel-1", rel)                               // queued, runs (held)
	<-clock.armed                                                 // a worker took it: the queue is empty again
	h.post("release", "rel-1", rel)                               // duplicate
	h.post("ping", "p", example(t, "ping", "", nil))              // ignored
	h.post("issues", "i", []byte(`{}`))                           // not subscribed
	h.post("release", "rel-2", []byte(`{"action": "published"}`)) // malformed
	h.srv.ServeHTTP(httptest.NewRecorder(), request("release", "f", rel, Sign([]byte("guess"), rel)))
	h.srv.ServeHTTP(httptest.NewRecorder(), request("made-up-event", "f2", rel, ""))
	h.srv.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/healthz", nil))
	second := strings.Replace(string(rel), `"tag_name":"v0.0.1"`, `"tag_name":"v0.0.2"`, 1)
	h.post("release", "rel-3", []byte(second)) // waits behind rel-1
	wantLines(t, scrape(t, m),
		`accuracy_bot_build_info{version="v1.2.3-test"} 1`,
		`accuracy_bot_queue_length 1`,
		`accuracy_bot_webhook_deliveries_total{event="release",outcome="queued"} 2`,
		`accuracy_bot_webhook_deliveries_total{event="release",outcome="duplicate"} 1`,
		`accuracy_bot_webhook_deliveries_total{event="release",outcome="bad_request"} 1`,
		`accuracy_bot_webhook_deliveries_total{event="ping",outcome="ignored"} 1`,
		`accuracy_bot_webhook_deliveries_total{event="other",outcome="unsubscribed"} 1`,
		// Before the signature holds, the caller's event name is not a label.
		`accuracy_bot_webhook_deliveries_total{event="unverified",outcome="bad_signature"} 2`,
		`accuracy_bot_http_responses_total{class="2xx"} 6`,
		`accuracy_bot_http_responses_total{class="4xx"} 3`,
	)
	release()
	for range 2 {
		h.wait(t)
	}
	// A job that fails.
	h.rec.mu.Lock()
	h.rec.err = errors.New("GitHub said no")
	h.rec.mu.Unlock()
	h.post("release", "rel-4", []byte(strings.Replace(second, "0.0.2", "0.0.3", 1)))
	h.wait(t)
	wantLines(t, scrape(t, m),
		`accuracy_bot_queue_length 0`,
		`accuracy_bot_job_duration_seconds_count{event="release",outcome="ok"} 2`,
		`accuracy_bot_job_duration_seconds_count{event="release",outcome="failed"} 1`,
	)
}

// roundTripper is an http.RoundTripper made of a function.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The GitHub transport counts the API's answers by status class and keeps
// the rate limit they report; other hosts pass uncounted.
func TestGitHubTransportMetrics(t *testing.T) {
	t.Parallel()
	m := NewMetrics("v")
	answers := []*http.Response{
		{StatusCode: 200, Header: http.Header{"X-Ratelimit-Remaining": {"4999"}, "X-Ratelimit-Resource": {"core"}}},
		{StatusCode: 201, Header: http.Header{"X-Ratelimit-Remaining": {"4998"}}},
		{StatusCode: 403, Header: http.Header{"X-Ratelimit-Remaining": {"29"}, "X-Ratelimit-Resource": {"search"}}},
		{StatusCode: 502, Header: http.Header{"X-Ratelimit-Resource": {"Made Up {label}"}}},
		nil, // no answer
	}
	i := 0
	tr := m.GitHubTransport(roundTripper(func(r *http.Request) (*http.Response, error) {
		resp := answers[i%len(answers)]
		i++
		if resp == nil {
			return nil, errors.New("connection reset")
		}
		resp.Body = io.NopCloser(strings.NewReader(""))
		return resp, nil
	}), "api.github.com")
	for range answers {
		req, _ := http.NewRequest(http.MethodGet, "https://api.github.com/repos/o/r", nil)
		if resp, err := tr.RoundTrip(req); err == nil {
			resp.Body.Close()
		}
	}
	req, _ := http.NewRequest(http.MethodGet, "https://storage.example.com/artifact.zip", nil)
	tr.RoundTrip(req)
	wantLines(t, scrape(t, m),
		`accuracy_bot_github_requests_total{class="2xx"} 2`,
		`accuracy_bot_github_requests_total{class="4xx"} 1`,
		`accuracy_bot_github_requests_total{class="5xx"} 1`,
		`accuracy_bot_github_requests_total{class="error"} 1`,
		`accuracy_bot_github_rate_limit_remaining{resource="core"} 4998`,
		`accuracy_bot_github_rate_limit_remaining{resource="search"} 29`,
	)
	if m.GitHubTransport(http.DefaultTransport, "x") == http.DefaultTransport {
		t.Error("GitHubTransport returned its base unwrapped")
	}
	var none *Metrics
	if none.GitHubTransport(http.DefaultTransport, "x") != http.DefaultTransport {
		t.Error("a nil Metrics wrapped the transport")
	}
}
