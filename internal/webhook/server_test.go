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
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/bump"
	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/publish"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

var testSecret = []byte("test secret")

// example returns the first real payload (npm @octokit/webhooks-examples)
// of event with action ("" for events without one) whose fields satisfy keep
// (nil keeps all).
func example(t testing.TB, event, action string, keep func(map[string]any) bool) []byte {
	t.Helper()
	for _, ex := range githubfake.WebhookExamples(t, event, action) {
		// The examples' release tag, 0.0.1, is not a release tag (the
		// bot ignores such a release): the harness's are vX.Y.Z.
		if r, ok := ex["release"].(map[string]any); ok && r["tag_name"] == "0.0.1" {
			r["tag_name"] = "v0.0.1"
		}
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

// The harness and the publishing workflow the recorder serves: those of
// the real payloads (npm @octokit/webhooks-examples).
var (
	testHarness     = ident.Repo{Owner: "Codertocat", Name: "Hello-World"}
	testPublishRepo = ident.Repo{Owner: "octo-org", Name: "octo-repo"}
)

const testPublishWorkflow = ".github/workflows/test.yml"

// recorder is a hand-written Bumper and Publisher that records calls and
// fails the test on a call it was not told to expect. Its decisions are the
// core's (bump.ReleaseDecision, publish.RunDecision) for testHarness and
// testPublishWorkflow. hold, when set, makes each bump wait for it; bumps
// run one at a time, as bump.Bumper's do.
type recorder struct {
	t        testing.TB
	mu       sync.Mutex
	allow    bool
	releases []ghmodel.Release
	runs     []publish.WorkflowRun
	err      error
	hold     chan struct{}
	bumping  sync.Mutex
	// bumpsStarted counts BumpRelease calls that got past the bump lock.
	bumpsStarted int
}

func (r *recorder) SkipRelease(rel ghmodel.Release) string {
	return bump.ReleaseDecision(rel, testHarness, false)
}

// SkipTag takes the release tags of testHarness's repository as the
// simulator's (the real create payloads are of that repository).
func (r *recorder) SkipTag(repo ident.Repo, tag string) string {
	return bump.SimulatorReleaseDecision(ghmodel.Release{Repo: repo, Tag: tag}, testHarness)
}

func (r *recorder) SkipRun(run publish.WorkflowRun) string {
	return publish.RunDecision(run, testPublishRepo, testPublishWorkflow)
}

func (r *recorder) BumpRelease(ctx context.Context, rel ghmodel.Release, _ *slog.Logger) ([]bump.RepoOutcome, error) {
	r.bumping.Lock()
	defer r.bumping.Unlock()
	r.mu.Lock()
	r.bumpsStarted++
	r.mu.Unlock()
	if r.hold != nil {
		select {
		case <-r.hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.allow {
		r.t.Errorf("unexpected BumpRelease(%+v)", rel)
	}
	r.releases = append(r.releases, rel)
	return nil, r.err
}

func (r *recorder) PublishRun(_ context.Context, run publish.WorkflowRun, _ *slog.Logger) (publish.PublishResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.allow {
		r.t.Errorf("unexpected PublishRun(%+v)", run)
	}
	r.runs = append(r.runs, run)
	return publish.PublishResult{Outcome: publish.PublishPublished}, r.err
}

// queueAll is a Handler that queues every delivery as a job running f.
type queueAll func(ctx context.Context, d Delivery) error

func (f queueAll) Accept(d Delivery) (*Job, string, error) {
	return &Job{Run: func(ctx context.Context) error { return f(ctx, d) }}, "", nil
}

type harness struct {
	srv  *Server
	rec  *recorder
	done chan result
	logs *testkit.SyncBuffer
}

type result struct {
	d   Delivery
	err error
}

func newHarness(t testing.TB, edit func(*Options)) *harness {
	t.Helper()
	h := &harness{rec: &recorder{t: t}, done: make(chan result, 100), logs: &testkit.SyncBuffer{}}
	opts := Options{
		Secret: testSecret, MaxBodyBytes: 1 << 20, QueueSize: 8, Workers: 2,
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

// noneHandled fails the test when a delivery is handled within 50 ms;
// what names what should not have been.
func (h *harness) noneHandled(t *testing.T, what string) {
	t.Helper()
	select {
	case r := <-h.done:
		t.Errorf("%s: %s", what, r.d.ID)
	case <-time.After(50 * time.Millisecond):
	}
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

// A bad limit is refused by name, with its value.
func TestNewRefusesBadLimitsByName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.QueueSize = 0 }, "QueueSize is 0"},
		{func(o *Options) { o.MaxBodyBytes = -5 }, "MaxBodyBytes is -5"},
		{func(o *Options) { o.MaxConnsPerAddr = -1 }, "MaxConnsPerAddr is -1"},
	} {
		o := Options{Secret: testSecret, MaxBodyBytes: 1, QueueSize: 1, Workers: 1}
		tc.edit(&o)
		if _, err := New(o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New = %v, want it to say %s", err, tc.want)
		}
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
	// Installation and ping deliveries are logged on the request, not queued.
	inst := example(t, "installation", "created", nil)
	if w := h.post("installation", "d-inst", inst); w.Code != http.StatusOK || w.Body.String() != "ignored: installation logged\n" {
		t.Fatalf("installation: %d %q", w.Code, w.Body)
	}
	ping := example(t, "ping", "", nil)
	if w := h.post("ping", "d-ping", ping); w.Code != http.StatusOK {
		t.Fatalf("ping: %d", w.Code)
	}

	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	if len(h.rec.releases) != 1 || h.rec.releases[0].Tag != "v0.0.1" || h.rec.releases[0].Repo.String() != "Codertocat/Hello-World" {
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
	// Every delivery was logged once, as handled or ignored, with its event
	// and the installation and repository its payload names.
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
		if m["msg"] != "delivery handled" && m["msg"] != "webhook ignored" {
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
	if w := h.post("workflow_run", "d-run", run); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "publishing is not configured") {
		t.Fatalf("workflow_run with publishing off: %d %q", w.Code, w.Body)
	}
	if !strings.Contains(h.logs.String(), "publishing is not configured") {
		t.Errorf("the ignored run was not logged:\n%s", h.logs)
	}
}

func TestIgnoredActionsCallNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil) // recorder fails on any call
	for i, p := range []struct{ event, action string }{{"release", "created"}, {"release", "deleted"}, {"workflow_run", "requested"}} {
		if w := h.post(p.event, fmt.Sprint("d", i), example(t, p.event, p.action, nil)); w.Code != http.StatusOK ||
			w.Body.String() != "ignored: "+p.event+" action "+p.action+"\n" {
			t.Fatalf("%s/%s: %d %q", p.event, p.action, w.Code, w.Body)
		}
	}
	// Ignored deliveries are not queued.
	if q := h.srv.Queued(); q != 0 {
		t.Errorf("%d queued", q)
	}
	h.noneHandled(t, "an ignored delivery was handled")
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
	h.noneHandled(t, "a refused request was handled")
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
	h.noneHandled(t, "replayed delivery handled")
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
	block := queueAll(func(ctx context.Context, d Delivery) error {
		started.Add(1)
		<-release
		return nil
	})
	h := newHarness(t, func(o *Options) {
		o.Workers, o.QueueSize = 1, 1
		o.Handlers = map[string]Handler{"ping": block}
	})
	defer close(release)
	ping := example(t, "ping", "", nil)
	// Three distinct deliveries (distinct bodies: bodies are de-duplicated too).
	body := func(i int) []byte { return append(append([]byte{}, ping...), bytes.Repeat([]byte(" "), i)...) }
	if w := h.post("ping", "1", body(1)); w.Code != http.StatusAccepted {
		t.Fatal(w.Code)
	}
	for started.Load() == 0 { // the worker holds delivery 1
		time.Sleep(time.Millisecond)
	}
	if w := h.post("ping", "2", body(2)); w.Code != http.StatusAccepted { // queued
		t.Fatal(w.Code)
	}
	if w := h.post("ping", "2", body(2)); w.Code != http.StatusOK { // queued already: a duplicate
		t.Fatalf("in-flight duplicate: %d", w.Code)
	}
	if w := h.post("ping", "2b", body(2)); w.Code != http.StatusOK { // its body under another id: a duplicate
		t.Fatalf("in-flight duplicate body: %d", w.Code)
	}
	w := h.post("ping", "3", body(3))
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Fatalf("full queue: %d, Retry-After %q", w.Code, w.Header().Get("Retry-After"))
	}
}

// panicAccept is a Handler whose Accept panics.
type panicAccept struct{}

func (panicAccept) Accept(Delivery) (*Job, string, error) { panic("accept boom") }

func TestHandlerPanicIsAFailure(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(o *Options) {
		o.Handlers = map[string]Handler{
			"ping":    queueAll(func(context.Context, Delivery) error { panic("boom") }),
			"release": panicAccept{},
		}
	})
	h.post("ping", "p", example(t, "ping", "", nil))
	if r := h.wait(t); r.err == nil || !strings.Contains(r.err.Error(), "boom") {
		t.Errorf("panic: %v", r.err)
	}
	if w := h.post("release", "r", example(t, "release", "published", nil)); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "accept boom") {
		t.Errorf("panic in Accept: %d %q", w.Code, w.Body)
	}
}

func TestMalformedPayloadIsRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	for _, body := range []string{`{"action": "published", "release": 7}`, `{"action": "published"}`,
		`{"action": "published", "release": {"tag_name": "v1.0.0"}, "repository": {"full_name": "no slash"}}`, `[`} {
		w := h.post("release", "m", []byte(body))
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "release payload") {
			t.Errorf("malformed payload %s: %d %q", body, w.Code, w.Body)
		}
	}
}

// Issue 18: /healthz says the server is up and nothing else (the version
// and the queue are the operator's, on /metrics).
func TestHealthz(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	w := httptest.NewRecorder()
	h.srv.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if got := strings.TrimSpace(w.Body.String()); w.Code != 200 || got != `{"status":"ok"}` {
		t.Errorf("healthz: %d %s, want 200 {\"status\":\"ok\"} alone", w.Code, got)
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
