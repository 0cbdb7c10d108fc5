package lbserve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		os.Exit(children[name]()) // a child process of a test (runChild)
	}
	code := m.Run()
	harnesstest.Cleanup()
	os.Exit(code)
}

const testRuns = `version: 1
groups:
  - id: chat
    workload:
      requests: 20
      seed: 3
      prompt_tokens: {mean: 128, stdev: 16, min: 16, max: 256}
      output_tokens: {mean: 32, stdev: 8, min: 8, max: 64}
    load: {arrival: poisson, rate: 4}
    candidates:
      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1}
  - id: sweep
    workload:
      requests: 10
      seed: 1
      prompt_tokens: {mean: 64, stdev: 0, min: 64, max: 64}
      output_tokens: {mean: 16, stdev: 0, min: 16, max: 16}
    load: {arrival: constant, rates: [2, 4]}
    keep_up: {ttft_p99_ms: 10000}
    candidates:
      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1}
`

const token = "0123456789abcdef-test"

type testServer struct {
	t              *testing.T
	url, results   string
	commit         string
	declarations   string
	cancel         func()
	stopped        chan struct{}
	srv            *Server
	base, declared *leaderboard.Declaration
}

// newTestServer serves testRuns over HTTP on the stand-in simulator.
func newTestServer(t *testing.T, workers, queue int) *testServer {
	t.Helper()
	ts := newTestServerWith(t, workers, queue, nil)
	ts.start()
	return ts
}

// newTestServerWith is newTestServer with its Config edited by edit (when
// not nil), serving HTTP but not yet running jobs: start does.
func newTestServerWith(t *testing.T, workers, queue int, edit func(*Config)) *testServer {
	t.Helper()
	dir := t.TempDir()
	results := filepath.Join(dir, "results")
	repo := harnesstest.StandinRepo(t)
	sim, err := lbrun.Prepare(context.Background(), &harness.Builder{CacheDir: t.TempDir()}, repo.Dir, repo.V020,
		lbrun.Setup{Harness: runresult.Harness{Commit: strings.Repeat("a", 40), Source: "checkout"}, Timeout: time.Minute, ResultsDir: results})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	d, err := leaderboard.Decode([]byte(testRuns), "runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	names, err := sim.Names()
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{t: t, commit: sim.Build.Commit, results: results, declarations: filepath.Join(dir, leaderboard.DeclarationsFile), base: d}
	cfg := Config{Declaration: d, Base: d, Results: results, Declarations: ts.declarations, Sim: sim, Token: token, Workers: workers, Queue: queue, Names: &names,
		Version: Version{Simulator: SimulatorVersion{Repository: repo.Dir, Tag: sim.Build.Tag, Commit: sim.Build.Commit}}}
	if edit != nil {
		edit(&cfg)
	}
	ts.srv, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(ts.srv.Handler())
	t.Cleanup(hs.Close)
	ts.url = hs.URL
	return ts
}

// start runs the server's jobs until the test ends (or cancel).
func (ts *testServer) start() {
	ctx, cancel := context.WithCancel(context.Background())
	ts.cancel, ts.stopped = cancel, make(chan struct{})
	go func() { ts.srv.Run(ctx); close(ts.stopped) }()
	ts.t.Cleanup(func() { cancel(); <-ts.stopped })
}

// do sends a request and returns the status and the decoded JSON body.
func (ts *testServer) do(method, path, auth, body string) (int, map[string]any, http.Header) {
	ts.t.Helper()
	req, _ := http.NewRequest(method, ts.url+path, strings.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &out); err != nil {
			ts.t.Fatalf("%s %s: %v: %s", method, path, err, raw)
		}
	} else {
		out = map[string]any{"body": string(raw)}
	}
	return resp.StatusCode, out, resp.Header
}

func (ts *testServer) declare(group, candidate string) (int, map[string]any, http.Header) {
	return ts.do("POST", "/api/run", "Bearer "+token, `{"group": "`+group+`", "candidate": `+candidate+`}`)
}

// runDone declares candidate in group, wants it accepted, waits for its
// job and wants it done.
func (ts *testServer) runDone(group, candidate string) {
	ts.t.Helper()
	status, body, _ := ts.declare(group, candidate)
	if status != http.StatusAccepted {
		ts.t.Fatalf("declare %s in %s: %d %v", candidate, group, status, body)
	}
	if j := ts.wait(body["job"].(string)); j["status"] != JobDone {
		ts.t.Fatalf("the job of %s in %s: %v", candidate, group, j)
	}
}

// wait polls a job until it is no longer queued or running.
func (ts *testServer) wait(job string) map[string]any {
	ts.t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		status, j, _ := ts.do("GET", "/api/jobs/"+job, "", "")
		if status != http.StatusOK {
			ts.t.Fatalf("GET /api/jobs/%s: %d %v", job, status, j)
		}
		if s := j["status"]; s != JobQueued && s != JobRunning {
			return j
		}
	}
	ts.t.Fatalf("job %s did not end", job)
	return nil
}

// The API over HTTP on the stand-in simulator: versions, the token, a bad
// candidate named by field, an id declared already, then a candidate
// declared, run, filed, on the page and in the declarations file.
func TestServeDeclareAndRun(t *testing.T) {
	ts := newTestServer(t, 2, 4)
	if status, v, _ := ts.do("GET", "/api/version", "", ""); status != http.StatusOK || v["simulator"].(map[string]any)["tag"] != "v0.2.0" {
		t.Errorf("GET /api/version: %d %v", status, v)
	}
	good := `{"id": "a100-tp2", "model": "org/test-model-7b", "hardware": "A100-80", "tp": 2, "engine": {"max_num_seqs": 64}}`
	for _, tt := range []struct {
		name, auth, body string
		status           int
		want             string
	}{
		{"no token", "", `{"group": "chat", "candidate": ` + good + `}`, http.StatusUnauthorized, "needs Authorization: Bearer"},
		{"wrong token", "Bearer nope-nope-nope-nope", `{"group": "chat", "candidate": ` + good + `}`, http.StatusUnauthorized, "Bearer"},
		{"no TP", "Bearer " + token, `{"group": "chat", "candidate": {"id": "x", "model": "org/test-model-7b", "hardware": "H100"}}`, http.StatusBadRequest, "candidate: missing property 'tp'"},
		{"TP 0", "Bearer " + token, `{"group": "chat", "candidate": {"id": "x", "model": "org/test-model-7b", "hardware": "H100", "tp": 0}}`, http.StatusBadRequest, "candidate.tp: minimum: got 0, want 1"},
		{"TP too large", "Bearer " + token, `{"group": "chat", "candidate": {"id": "x", "model": "org/test-model-7b", "hardware": "H100", "tp": 4096}}`, http.StatusBadRequest, "candidate.tp: maximum: got 4,096, want 128"},
		{"unknown field", "Bearer " + token, `{"group": "chat", "candidate": {"id": "x", "model": "org/test-model-7b", "hardware": "H100", "tp": 1, "colour": "red"}}`, http.StatusBadRequest, "candidate.colour: unknown field"},
		{"another load", "Bearer " + token, `{"group": "chat", "candidate": {"id": "x", "model": "org/test-model-7b", "hardware": "H100", "tp": 1, "load": {"rate": 8}}}`, http.StatusBadRequest, "candidate.load: offers 8 req/s, the group 4 req/s"},
		{"unknown group", "Bearer " + token, `{"group": "nope", "candidate": ` + good + `}`, http.StatusBadRequest, `group: "nope" is not a group of runs.yaml`},
		{"not JSON", "Bearer " + token, `{"group": `, http.StatusBadRequest, "body: "},
		{"trailing data", "Bearer " + token, `{"group": "chat", "candidate": ` + good + `} {"group": "sweep"}`, http.StatusBadRequest, "body: trailing data after the JSON value"},
		{"extra top-level field", "Bearer " + token, `{"group": "chat", "candidate": ` + good + `, "x": 1}`, http.StatusBadRequest, `unknown field "x"`},
		{"too large", "Bearer " + token, `{"group": "chat", "candidate": {"id": "` + strings.Repeat("x", MaxBodyBytes) + `"}}`, http.StatusRequestEntityTooLarge, "larger than"},
		{"declared in runs.yaml", "Bearer " + token, `{"group": "chat", "candidate": {"id": "h100", "model": "org/test-model-7b", "hardware": "H100", "tp": 1}}`, http.StatusConflict, "candidate.id: h100 is declared in group chat already"},
	} {
		status, body, _ := ts.do("POST", "/api/run", tt.auth, tt.body)
		if msg, _ := body["error"].(string); status != tt.status || !strings.Contains(msg, tt.want) {
			t.Errorf("%s: %d %q; want %d %q", tt.name, status, msg, tt.status, tt.want)
		}
	}
	if _, err := os.Stat(ts.declarations); err == nil {
		t.Fatal("a refused candidate was filed in the declarations file")
	}

	status, body, _ := ts.declare("chat", good)
	if status != http.StatusAccepted || body["job"] == "" {
		t.Fatalf("POST /api/run: %d %v", status, body)
	}
	j := ts.wait(body["job"].(string))
	if j["status"] != JobDone || j["result"] != "chat/a100-tp2.json" {
		t.Fatalf("job: %v", j)
	}
	if res := leaderboardtest.ReadResult(t, ts.results, "chat/a100-tp2.json"); res.Status != leaderboard.StatusOK || !strings.Contains(strings.Join(res.Command, " "), "--tp 2 --max-num-seqs 64") {
		t.Fatalf("filed result: %+v", res)
	}
	if _, page, _ := ts.do("GET", "/", "", ""); !strings.Contains(page["body"].(string), `<tr data-run="a100-tp2">`) || !strings.Contains(page["body"].(string), `id="declare-form"`) {
		t.Errorf("the page lacks the new row or the form")
	}
	if _, all, _ := ts.do("GET", "/api/results", "", ""); all["results"].(map[string]any)["chat/a100-tp2"] == nil {
		t.Errorf("GET /api/results lacks chat/a100-tp2: %v", all)
	}
	// The declarations file holds the candidate with its group's offered
	// work, merges into runs.yaml, and the result checks against it.
	src, err := os.ReadFile(ts.declarations)
	if err != nil {
		t.Fatal(err)
	}
	extra, err := leaderboard.Decode(src, ts.declarations)
	if err != nil {
		t.Fatalf("declarations file: %v\n%s", err, src)
	}
	merged, err := leaderboard.Merge(ts.base, extra)
	if err != nil {
		t.Fatal(err)
	}
	res2, probs, err := lbrun.Check(merged, ts.results, "")
	if err != nil || res2["chat/a100-tp2"] == nil {
		t.Fatalf("results against the merged declaration: %v %v", probs, err)
	}
	for _, p := range probs { // the 3 runs of runs.yaml, not run here
		if p.Kind != leaderboard.ProblemMissing {
			t.Errorf("results against the merged declaration: %v", p)
		}
	}
	if status, body, _ := ts.declare("chat", good); status != http.StatusConflict {
		t.Errorf("the same candidate again: %d %v", status, body)
	}

	// A sweep candidate runs at every load of the group.
	status, body, _ = ts.declare("sweep", `{"id": "a100", "model": "org/test-model-7b", "hardware": "A100-80", "tp": 1}`)
	if status != http.StatusAccepted {
		t.Fatalf("sweep: %d %v", status, body)
	}
	if j := ts.wait(body["job"].(string)); j["status"] != JobDone || len(j["results"].([]any)) != 2 {
		t.Errorf("sweep job: %v", j)
	}
}

// A full queue answers 503 with Retry-After; shutting down stops the run
// under way without filing it, fails the waiting job, and leaves no file
// half-written.
func TestServeQueueAndShutdown(t *testing.T) {
	ts := newTestServer(t, 1, 1)
	hang := func(id string) string {
		return `{"id": "` + id + `", "model": "org/fault-hang", "hardware": "H100", "tp": 1}`
	}
	_, first, _ := ts.declare("chat", hang("hang-1"))
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) { // the worker takes it
		if _, j, _ := ts.do("GET", "/api/jobs/"+first["job"].(string), "", ""); j["status"] == JobRunning || time.Now().After(deadline) {
			break
		}
	}
	_, second, _ := ts.declare("chat", hang("hang-2"))
	status, body, hdr := ts.declare("chat", hang("hang-3"))
	if status != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" || !strings.Contains(body["error"].(string), "the queue is full") {
		t.Errorf("a full queue: %d %v, Retry-After %q", status, body, hdr.Get("Retry-After"))
	}
	ts.cancel()
	select {
	case <-ts.stopped:
	case <-time.After(time.Minute):
		t.Fatal("Run did not return after cancel")
	}
	for job, want := range map[string]string{first["job"].(string): "the server shut down while it ran", second["job"].(string): "the server shut down before the job ran"} {
		if _, j, _ := ts.do("GET", "/api/jobs/"+job, "", ""); j["status"] != JobFailed || !strings.Contains(j["reason"].(string), want) {
			t.Errorf("job %s after shutdown: %v; want failed, %q", job, j, want)
		}
	}
	if status, body, _ := ts.declare("chat", hang("late")); status != http.StatusServiceUnavailable {
		t.Errorf("declaring after shutdown: %d %v", status, body)
	}
	filepath.WalkDir(filepath.Dir(ts.results), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.Contains(d.Name(), ".tmp") || strings.HasPrefix(d.Name(), ".")) {
			t.Errorf("left behind: %s", p)
		}
		if err == nil && strings.HasSuffix(p, ".json") && strings.Contains(p, "hang") {
			t.Errorf("a run cut short was filed: %s", p)
		}
		return nil
	})
	// Both declarations were filed (they were accepted); the file decodes.
	if src, err := os.ReadFile(ts.declarations); err != nil || !bytes.Contains(src, []byte("hang-2")) {
		t.Errorf("declarations file: %v\n%s", err, src)
	}
}

// A candidate whose declaration cannot be filed is refused and never run:
// no result of it appears, not even after a later job has run.
func TestServeUnfiledCandidateNotRun(t *testing.T) {
	ts := newTestServer(t, 1, 4)
	if err := os.MkdirAll(ts.declarations, 0o755); err != nil { // not a file: filing fails
		t.Fatal(err)
	}
	status, body, _ := ts.declare("chat", `{"id": "unfiled", "model": "org/test-model-7b", "hardware": "A100-80", "tp": 1}`)
	if msg, _ := body["error"].(string); status != http.StatusInternalServerError || !strings.Contains(msg, "could not be filed") {
		t.Fatalf("declaring with an unwritable declarations file: %d %v", status, body)
	}
	if err := os.Remove(ts.declarations); err != nil {
		t.Fatal(err)
	}
	status, body, _ = ts.declare("chat", `{"id": "filed", "model": "org/test-model-7b", "hardware": "A100-80", "tp": 1}`)
	if status != http.StatusAccepted {
		t.Fatalf("declaring: %d %v", status, body)
	}
	if j := ts.wait(body["job"].(string)); j["status"] != JobDone {
		t.Fatalf("job: %v", j)
	}
	// One worker takes jobs in order: a queued unfiled job would have run.
	if _, err := os.Stat(filepath.Join(ts.results, "chat", "unfiled.json")); err == nil {
		t.Error("the candidate whose declaration was not filed was run and its result filed")
	}
}
