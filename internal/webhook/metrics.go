package webhook

import (
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the bot's Prometheus metrics, in a registry of their own
// (with the Go runtime's and the process's): webhook deliveries by event
// and outcome, HTTP responses by status class, connections held and
// closed, the queue's length, jobs by event, outcome and duration, GitHub
// API requests by status class and the rate limit GitHub reported left.
// Every label takes one of a few fixed values, never a caller's text. The
// methods of a nil *Metrics record nothing.
type Metrics struct {
	reg         *prometheus.Registry
	deliveries  *prometheus.CounterVec
	responses   *prometheus.CounterVec
	jobs        *prometheus.HistogramVec
	conns       prometheus.Gauge
	connsClosed *prometheus.CounterVec
	github      *prometheus.CounterVec
	rateLimit   *prometheus.GaugeVec
	queue       atomic.Pointer[func() int]
}

// NewMetrics returns the bot's metrics; version is reported as
// accuracy_bot_build_info{version}.
func NewMetrics(version string) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "accuracy_bot_webhook_deliveries_total",
			Help: "Webhook deliveries by event (of a signed delivery the bot subscribes to; else other, or unverified before the signature check) and outcome."},
			[]string{"event", "outcome"}),
		responses: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "accuracy_bot_http_responses_total",
			Help: "HTTP responses of the webhook server by status class (2xx, 3xx, 4xx, 5xx)."}, []string{"class"}),
		jobs: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "accuracy_bot_job_duration_seconds",
			Help:    "Queued jobs by event and outcome (ok, failed, expired: its deadline passed while it waited), and how long each ran.",
			Buckets: []float64{0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600}}, []string{"event", "outcome"}),
		conns: prometheus.NewGauge(prometheus.GaugeOpts{Name: "accuracy_bot_connections_open",
			Help: "Client connections the webhook server holds."}),
		connsClosed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "accuracy_bot_connections_closed_total",
			Help: "Client connections closed over a bound (per_address, total): refused when new, evicted when idle to make room."},
			[]string{"bound", "how"}),
		github: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "accuracy_bot_github_requests_total",
			Help: "Requests to the GitHub API (every attempt, token requests included) by status class (2xx … 5xx, error: no answer)."},
			[]string{"class"}),
		rateLimit: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "accuracy_bot_github_rate_limit_remaining",
			Help: "X-RateLimit-Remaining of the last GitHub API answer that had one, by X-RateLimit-Resource."},
			[]string{"resource"}),
	}
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "accuracy_bot_build_info",
		Help: "The running bot's version (always 1)."}, []string{"version"})
	build.WithLabelValues(version).Set(1)
	queue := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "accuracy_bot_queue_length",
		Help: "Jobs waiting for a worker."}, func() float64 {
		if f := m.queue.Load(); f != nil {
			return float64((*f)())
		}
		return 0
	})
	m.reg.MustRegister(m.deliveries, m.responses, m.jobs, m.conns, m.connsClosed, m.github, m.rateLimit, build, queue,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in Prometheus's text format (GET /metrics).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Delivery outcomes (the outcome label of accuracy_bot_webhook_deliveries_total).
const (
	outcomeQueued       = "queued"
	outcomeIgnored      = "ignored"
	outcomeDuplicate    = "duplicate"
	outcomeUnsubscribed = "unsubscribed"
	outcomeBadSignature = "bad_signature"
	outcomeBadRequest   = "bad_request"
	outcomeTooLarge     = "too_large"
	outcomeBusy         = "busy"
	outcomeQueueFull    = "queue_full"
	outcomeShutdown     = "shutting_down"
	outcomeUnrecorded   = "unrecorded"
)

func (m *Metrics) delivery(event, outcome string) {
	if m != nil {
		m.deliveries.WithLabelValues(event, outcome).Inc()
	}
}

func (m *Metrics) response(code int) {
	if m != nil {
		m.responses.WithLabelValues(statusClass(code)).Inc()
	}
}

func (m *Metrics) job(event string, err error, took time.Duration) {
	if m == nil {
		return
	}
	outcome := "ok"
	switch {
	case errors.Is(err, ErrExpired):
		outcome = "expired"
	case err != nil:
		outcome = "failed"
	}
	m.jobs.WithLabelValues(event, outcome).Observe(took.Seconds())
}

func (m *Metrics) connsOpen(n int) {
	if m != nil {
		m.conns.Set(float64(n))
	}
}

func (m *Metrics) connRefused(bound string) {
	if m != nil {
		m.connsClosed.WithLabelValues(bound, "refused").Inc()
	}
}

func (m *Metrics) connEvicted(bound string) {
	if m != nil {
		m.connsClosed.WithLabelValues(bound, "evicted").Inc()
	}
}

func (m *Metrics) setQueue(f func() int) {
	if m != nil {
		m.queue.Store(&f)
	}
}

// statusClass is "2xx" for 200–299, and so on.
func statusClass(code int) string {
	if code < 100 || code > 599 {
		return "other"
	}
	return strconv.Itoa(code/100) + "xx"
}

// GitHubTransport wraps next, the transport under the bot's GitHub
// clients, to count the requests to the API at apiHost ("api.github.com",
// or a GitHub Enterprise Server's host) by status class and keep the
// rate limit its answers report; requests to other hosts (artifact
// downloads redirected to storage) pass uncounted.
func (m *Metrics) GitHubTransport(next http.RoundTripper, apiHost string) http.RoundTripper {
	if m == nil {
		return next
	}
	return &githubTransport{next: next, host: apiHost, m: m}
}

type githubTransport struct {
	next http.RoundTripper
	host string
	m    *Metrics
}

// resourceRe is what a rate-limit resource name may be ("core", "search",
// "graphql", "integration_manifest", …).
var resourceRe = regexp.MustCompile(`^[a-z_]{1,40}$`)

func (t *githubTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if req.URL.Host != t.host {
		return resp, err
	}
	if err != nil {
		t.m.github.WithLabelValues("error").Inc()
		return resp, err
	}
	t.m.github.WithLabelValues(statusClass(resp.StatusCode)).Inc()
	if n, perr := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining")); perr == nil {
		resource := resp.Header.Get("X-RateLimit-Resource")
		if !resourceRe.MatchString(resource) {
			resource = "core"
		}
		t.m.rateLimit.WithLabelValues(resource).Set(float64(n))
	}
	return resp, err
}

// statusWriter records the status of a response.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
