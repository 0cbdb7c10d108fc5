package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/bot"
	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
)

var testSecret = []byte("test secret")

// example returns the first real payload (npm @octokit/webhooks-examples)
// of event with action ("" for events without one) whose fields satisfy keep
// (nil keeps all).
func example(t testing.TB, event, action string, keep func(map[string]any) bool) []byte {
	t.Helper()
	for _, ex := range githubfake.WebhookExamples(t, event, action) {
		if keep == nil || keep(ex) {
			b, err := json.Marshal(ex)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatalf("no %s/%s example to keep", event, action)
	return nil
}

// recorder is a hand-written Bumper and Publisher that records calls and
// fails the test on a call it was not told to expect.
type recorder struct {
	t        testing.TB
	mu       sync.Mutex
	allow    bool
	releases []bot.Release
	runs     []bot.Run
	err      error
}

func (r *recorder) BumpRelease(_ context.Context, rel bot.Release, _ *slog.Logger) ([]bot.RepoOutcome, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.allow {
		r.t.Errorf("unexpected BumpRelease(%+v)", rel)
	}
	r.releases = append(r.releases, rel)
	return nil, r.err
}

func (r *recorder) PublishRun(_ context.Context, run bot.Run, _ *slog.Logger) (bot.PublishResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.allow {
		r.t.Errorf("unexpected PublishRun(%+v)", run)
	}
	r.runs = append(r.runs, run)
	return bot.PublishResult{Outcome: bot.PublishPublished}, r.err
}

type harness struct {
	srv  *Server
	rec  *recorder
	done chan result
	logs *syncBuffer
}

type result struct {
	d   Delivery
	err error
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newHarness(t *testing.T, edit func(*Options)) *harness {
	t.Helper()
	h := &harness{rec: &recorder{t: t}, done: make(chan result, 100), logs: &syncBuffer{}}
	opts := Options{
		Secret: testSecret, Version: "v1.2.3-test", MaxBodyBytes: 1 << 20, QueueSize: 8, Workers: 2,
		Handlers: Events(h.rec, h.rec),
		Logger:   slog.New(slog.NewJSONHandler(h.logs, nil)),
		Done:     func(d Delivery, err error) { h.done <- result{d, err} },
	}
	if edit != nil {
		edit(&opts)
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	ctx, cancel := context.WithCancel(context.Background())
	srv.Start(ctx)
	t.Cleanup(func() { srv.Close(); cancel() })
	return h
}

func request(event, delivery string, body []byte, sig string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/webhook", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(HeaderEvent, event)
	r.Header.Set(HeaderDelivery, delivery)
	if sig != "" {
		r.Header.Set(HeaderSignature, sig)
	}
	return r
}

func (h *harness) post(event, delivery string, body []byte) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.srv.ServeHTTP(w, request(event, delivery, body, Sign(testSecret, body)))
	return w
}

func (h *harness) wait(t *testing.T) result {
	t.Helper()
	select {
	case r := <-h.done:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("delivery was never handled")
		return result{}
	}
}

func TestVerifyGitHubTestVector(t *testing.T) {
	t.Parallel()
	// https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries#testing-the-webhook-payload-validation
	secret, body := []byte("It's a Secret to Everybody"), []byte("Hello, World!")
	const want = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
	if got := Sign(secret, body); got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
	if err := Verify(secret, body, want); err != nil {
		t.Errorf("Verify(test vector) = %v", err)
	}
	for _, bad := range []string{
		"",
		"sha1=01dc10d0c83e72ed246219cdd91669667fe2ca59", // the SHA-1 form GitHub also sends
		"sha256=" + strings.Repeat("0", 64),
		"sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e1", // short
		"SHA256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
	} {
		if err := Verify(secret, body, bad); err == nil {
			t.Errorf("Verify accepted %q", bad)
		}
	}
	if err := Verify([]byte("another secret"), body, want); err == nil {
		t.Error("Verify accepted a signature made with another secret")
	}
}

func TestNewRefusesEmptySecret(t *testing.T) {
	t.Parallel()
	if _, err := New(Options{MaxBodyBytes: 1, QueueSize: 1, Workers: 1}); !errors.Is(err, ErrNoSecret) {
		t.Errorf("New without secret = %v, want ErrNoSecret", err)
	}
}

func TestRealPayloads(t *testing.T) {
	t.Parallel()
	success := func(m map[string]any) bool {
		r, _ := m["workflow_run"].(map[string]any)
		return r["conclusion"] == "success"
	}
	h := newHarness(t, nil)
	h.rec.allow = true

	rel := example(t, "release", "published", nil)
	if w := h.post("release", "d-release", rel); w.Code != http.StatusAccepted {
		t.Fatalf("release: %d %s", w.Code, w.Body)
	}
	if r := h.wait(t); r.err != nil {
		t.Fatalf("release handled with %v", r.err)
	}
	run := example(t, "workflow_run", "completed", success)
	if w := h.post("workflow_run", "d-run", run); w.Code != http.StatusAccepted {
		t.Fatalf("workflow_run: %d %s", w.Code, w.Body)
	}
	if r := h.wait(t); r.err != nil {
		t.Fatalf("workflow_run handled with %v", r.err)
	}
	inst := example(t, "installation", "created", nil)
	if w := h.post("installation", "d-inst", inst); w.Code != http.StatusAccepted {
		t.Fatalf("installation: %d", w.Code)
	}
	r := h.wait(t)
	if r.err != nil || r.d.Installation == 0 {
		t.Fatalf("installation handled: %+v", r)
	}
	ping := example(t, "ping", "", nil)
	if w := h.post("ping", "d-ping", ping); w.Code != http.StatusAccepted {
		t.Fatalf("ping: %d", w.Code)
	}
	if r := h.wait(t); r.err != nil {
		t.Fatalf("ping handled with %v", r.err)
	}

	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	if len(h.rec.releases) != 1 || h.rec.releases[0].Tag != "0.0.1" || h.rec.releases[0].Repo.String() != "Codertocat/Hello-World" {
		t.Errorf("releases = %+v", h.rec.releases)
	}
	if len(h.rec.runs) != 1 {
		t.Fatalf("runs = %+v", h.rec.runs)
	}
	got := h.rec.runs[0]
	if got.Conclusion != "success" || got.ID != 289782451 || got.WorkflowPath != ".github/workflows/test.yml" ||
		got.HeadSHA != "3484a3fb816e0859fd6e1cea078d76385ff50625" || got.UpdatedAt.IsZero() || got.HeadRepo.String() == "/" ||
		got.HeadBranch != "master" || got.DefaultBranch != "master" {
		t.Errorf("run = %+v", got)
	}
	// Every handled delivery was logged once, with its event and the
	// installation and repository its payload names.
	want := map[string]map[string]any{}
	for id, d := range map[string]struct {
		event string
		body  []byte
	}{"d-release": {"release", rel}, "d-run": {"workflow_run", run}, "d-inst": {"installation", inst}, "d-ping": {"ping", ping}} {
		var head payloadHead
		if err := json.Unmarshal(d.body, &head); err != nil {
			t.Fatal(err)
		}
		w := map[string]any{"event": d.event, "installation": float64(0), "repository": ""}
		if head.Installation != nil {
			w["installation"] = float64(head.Installation.ID)
		}
		if head.Repository != nil {
			w["repository"] = head.Repository.FullName
		}
		want[id] = w
	}
	if want["d-inst"]["installation"] == float64(0) || want["d-run"]["repository"] == "" {
		t.Fatalf("the payloads name no installation or repository: %v", want)
	}
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(h.logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if m["msg"] != "delivery handled" {
			continue
		}
		id, _ := m["delivery"].(string)
		seen[id]++
		for k, v := range want[id] {
			if m[k] != v {
				t.Errorf("delivery %s logged %s = %v, want %v", id, k, m[k], v)
			}
		}
	}
	if len(seen) != len(want) {
		t.Errorf("handled deliveries logged: %v, want each of %d once", seen, len(want))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("delivery %s logged %d times", id, n)
		}
	}
}

func TestPublishingOffIgnoresRuns(t *testing.T) {
	t.Parallel()
	// No publisher; the bumper fails the test on any call.
	h := newHarness(t, func(o *Options) { o.Handlers = Events(&recorder{t: t}, nil) })
	run := example(t, "workflow_run", "completed", nil)
	if w := h.post("workflow_run", "d-run", run); w.Code != http.StatusAccepted {
		t.Fatalf("workflow_run: %d", w.Code)
	}
	if r := h.wait(t); r.err != nil {
		t.Fatalf("workflow_run with publishing off: %v", r.err)
	}
	if !strings.Contains(h.logs.String(), "publishing is not configured") {
		t.Errorf("the ignored run was not logged:\n%s", h.logs)
	}
}

func TestIgnoredActionsCallNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil) // recorder fails on any call
	for i, p := range []struct{ event, action string }{{"release", "created"}, {"release", "deleted"}, {"workflow_run", "requested"}} {
		if w := h.post(p.event, fmt.Sprint("d", i), example(t, p.event, p.action, nil)); w.Code != http.StatusAccepted {
			t.Fatalf("%s/%s: %d", p.event, p.action, w.Code)
		}
		if r := h.wait(t); r.err != nil {
			t.Errorf("%s/%s: %v", p.event, p.action, r.err)
		}
	}
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	body := example(t, "ping", "", nil)
	h := newHarness(t, func(o *Options) { o.MaxBodyBytes = int64(len(body)) })
	for _, tc := range []struct {
		name string
		req  func() *http.Request
		code int
	}{
		{"no signature", func() *http.Request { return request("ping", "a", body, "") }, http.StatusUnauthorized},
		{"bad signature", func() *http.Request { return request("ping", "a", body, Sign([]byte("wrong"), body)) }, http.StatusUnauthorized},
		{"valid sha1 only", func() *http.Request {
			r := request("ping", "a", body, "")
			mac := hmac.New(sha1.New, testSecret)
			mac.Write(body)
			r.Header.Set("X-Hub-Signature", "sha1="+hex.EncodeToString(mac.Sum(nil)))
			return r
		}, http.StatusUnauthorized},
		{"body changed after signing", func() *http.Request {
			return request("ping", "a", append([]byte(" "), body[1:]...), Sign(testSecret, body))
		}, http.StatusUnauthorized},
		{"oversized body", func() *http.Request {
			big := append(append([]byte{}, body...), ' ')
			return request("ping", "a", big, Sign(testSecret, big))
		}, http.StatusRequestEntityTooLarge},
		{"oversized body without length", func() *http.Request {
			big := append(append([]byte{}, body...), ' ')
			r := request("ping", "a", big, Sign(testSecret, big))
			r.ContentLength = -1
			r.Body = io.NopCloser(bytes.NewReader(big))
			return r
		}, http.StatusRequestEntityTooLarge},
		{"no delivery id", func() *http.Request { return request("ping", "", body, Sign(testSecret, body)) }, http.StatusBadRequest},
		{"form encoded", func() *http.Request {
			r := request("ping", "a", body, Sign(testSecret, body))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		}, http.StatusUnsupportedMediaType},
		{"unsubscribed event", func() *http.Request { return request("star", "a", body, Sign(testSecret, body)) }, http.StatusNoContent},
		{"GET webhook", func() *http.Request { return httptest.NewRequest(http.MethodGet, "/webhook", nil) }, http.StatusMethodNotAllowed},
	} {
		w := httptest.NewRecorder()
		h.srv.ServeHTTP(w, tc.req())
		if w.Code != tc.code {
			t.Errorf("%s: %d, want %d", tc.name, w.Code, tc.code)
		}
	}
	select {
	case r := <-h.done:
		t.Errorf("a refused request was handled: %+v", r.d)
	case <-time.After(50 * time.Millisecond):
	}
}

func TestDedupRecordedAfterSuccess(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.rec.allow = true
	rel := example(t, "release", "published", nil)

	h.rec.err = errors.New("GitHub is down")
	if w := h.post("release", "same", rel); w.Code != http.StatusAccepted {
		t.Fatal(w.Code)
	}
	if r := h.wait(t); r.err == nil {
		t.Fatal("want the failure")
	}
	// A redelivery of a failed delivery runs again …
	h.rec.mu.Lock()
	h.rec.err = nil
	h.rec.mu.Unlock()
	if w := h.post("release", "same", rel); w.Code != http.StatusAccepted {
		t.Fatalf("redelivery after failure: %d", w.Code)
	}
	if r := h.wait(t); r.err != nil {
		t.Fatal(r.err)
	}
	// … a redelivery of a successful one does not.
	if w := h.post("release", "same", rel); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "duplicate") {
		t.Fatalf("replayed delivery: %d %s", w.Code, w.Body)
	}
	select {
	case r := <-h.done:
		t.Fatalf("replayed delivery handled: %+v", r.d)
	case <-time.After(50 * time.Millisecond):
	}
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	if len(h.rec.releases) != 2 {
		t.Errorf("BumpRelease called %d times, want 2", len(h.rec.releases))
	}
}

func TestQueueFull(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var started atomic.Int32
	block := HandlerFunc(func(ctx context.Context, d Delivery) error {
		started.Add(1)
		<-release
		return nil
	})
	h := newHarness(t, func(o *Options) {
		o.Workers, o.QueueSize = 1, 1
		o.Handlers = map[string]Handler{"ping": block}
	})
	defer close(release)
	body := example(t, "ping", "", nil)
	if w := h.post("ping", "1", body); w.Code != http.StatusAccepted {
		t.Fatal(w.Code)
	}
	for started.Load() == 0 { // the worker holds delivery 1
		time.Sleep(time.Millisecond)
	}
	if w := h.post("ping", "2", body); w.Code != http.StatusAccepted { // queued
		t.Fatal(w.Code)
	}
	if w := h.post("ping", "2", body); w.Code != http.StatusOK { // queued already: a duplicate
		t.Fatalf("in-flight duplicate: %d", w.Code)
	}
	w := h.post("ping", "3", body)
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Fatalf("full queue: %d, Retry-After %q", w.Code, w.Header().Get("Retry-After"))
	}
}

func TestHandlerPanicIsAFailure(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(o *Options) {
		o.Handlers = map[string]Handler{"ping": HandlerFunc(func(context.Context, Delivery) error { panic("boom") })}
	})
	h.post("ping", "p", example(t, "ping", "", nil))
	if r := h.wait(t); r.err == nil || !strings.Contains(r.err.Error(), "boom") {
		t.Errorf("panic: %v", r.err)
	}
}

func TestMalformedPayloadIsAFailure(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.post("release", "m", []byte(`{"action": "published", "release": 7}`))
	if r := h.wait(t); r.err == nil || !strings.Contains(r.err.Error(), "release payload") {
		t.Errorf("malformed payload: %v", r.err)
	}
}

func TestHealthz(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	w := httptest.NewRecorder()
	h.srv.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	var got struct{ Status, Version string }
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != 200 || got.Version != "v1.2.3-test" || got.Status != "ok" {
		t.Errorf("healthz: %d %s", w.Code, w.Body)
	}
}

// BenchmarkWebhookBurst measures the acknowledgement path (read, verify,
// dedup, enqueue) under a parallel burst of distinct signed deliveries
// while workers drain the queue. ns/op is the ack latency; rejected/op is
// the share answered 503 because the queue was full.
func BenchmarkWebhookBurst(b *testing.B) {
	body := example(b, "release", "published", nil)
	sig := Sign(testSecret, body)
	srv, err := New(Options{
		Secret: testSecret, MaxBodyBytes: 1 << 20, QueueSize: 4096, Workers: 2, Remember: 1 << 20,
		Handlers: map[string]Handler{"release": HandlerFunc(func(context.Context, Delivery) error { return nil })},
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv.Start(ctx)
	defer func() { cancel(); srv.Close() }()
	var seq, rejected atomic.Int64
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := strconv.FormatInt(seq.Add(1), 10)
			r := request("release", id, body, sig)
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, r)
			switch w.Code {
			case http.StatusAccepted:
			case http.StatusServiceUnavailable:
				rejected.Add(1)
			default:
				b.Errorf("status %d", w.Code)
			}
		}
	})
	b.ReportMetric(float64(rejected.Load())/float64(b.N), "rejected/op")
}
