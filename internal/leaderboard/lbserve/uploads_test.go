package lbserve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
)

// newUploadServer is newTestServer with a workloads file and a user-model
// store.
func newUploadServer(t *testing.T) (*testServer, string) {
	t.Helper()
	models := filepath.Join(t.TempDir(), "user-models")
	ts := newTestServerWith(t, 1, 4, func(c *Config) {
		c.Workloads = filepath.Join(filepath.Dir(c.Results), leaderboard.WorkloadsFile)
		c.Sim.UserModels = models
	})
	ts.start()
	return ts, models
}

// body is v as a JSON request body.
func body(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// testTraceV2 is leaderboardtest.WriteTraceV2's pair of n requests.
func testTraceV2(t *testing.T, n int) (header, data string) {
	t.Helper()
	dir := t.TempDir()
	leaderboardtest.WriteTraceV2(t, dir, n)
	h, err := os.ReadFile(filepath.Join(dir, "trace.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := os.ReadFile(filepath.Join(dir, "trace.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return string(h), string(d)
}

const tinyConfig = `{"model_type": "llama", "num_hidden_layers": 4, "hidden_size": 512, "num_attention_heads": 8, "torch_dtype": "bfloat16"}`

// A model config uploaded into the user-model store: refused without the
// token, when it lacks what BLIS needs, for a model the build has or the
// store has otherwise; stored once; then a candidate of that model is
// declared, runs with the config handed over from its run directory, and
// its result checks (validate's rules).
func TestUploadModelAndRunIt(t *testing.T) {
	ts, models := newUploadServer(t)
	up := func(model, config string) string { return body(t, map[string]string{"model": model, "config": config}) }
	for _, tt := range []struct {
		name, auth, body string
		status           int
		want             string
	}{
		{"no token", "", up("acme/tiny-7b", tinyConfig), http.StatusUnauthorized, "needs Authorization: Bearer"},
		{"no org", "Bearer " + token, up("tiny-7b", tinyConfig), http.StatusBadRequest, `model: "tiny-7b"; give it as candidates do`},
		{"not a config", "Bearer " + token, up("acme/tiny-7b", `{"hidden_size": 512}`), http.StatusBadRequest, "config.json: "},
		{"no heads", "Bearer " + token, up("acme/tiny-7b", `{"num_hidden_layers": 4, "hidden_size": 512, "torch_dtype": "bfloat16"}`), http.StatusBadRequest, "num_attention_heads: missing (the simulator needs it)"},
		{"the build has it", "Bearer " + token, up("org/test-model-7b", tinyConfig), http.StatusConflict, "the simulator build or its catalog has this model: org/test-model-7b"},
		{"a key twice", "Bearer " + token, `{"model": "acme/tiny-7b", "model": "x", "config": "{}"}`, http.StatusBadRequest, "body: model: the key is given twice"},
	} {
		status, b, _ := ts.do("POST", "/api/model", tt.auth, tt.body)
		if msg, _ := b["error"].(string); status != tt.status || !strings.Contains(msg, tt.want) {
			t.Errorf("%s: %d %q; want %d %q", tt.name, status, msg, tt.status, tt.want)
		}
	}
	if status, b, _ := ts.declare("chat", `{"id": "tiny", "model": "acme/tiny-7b", "hardware": "H100", "tp": 1}`); status != http.StatusBadRequest {
		t.Errorf("a model not yet uploaded: %d %v; want 400", status, b)
	}
	if status, b, _ := ts.do("POST", "/api/model", "Bearer "+token, up("acme/tiny-7b", tinyConfig)); status != http.StatusCreated || b["folder"] != "tiny-7b" {
		t.Fatalf("upload: %d %v", status, b)
	}
	if raw, err := os.ReadFile(filepath.Join(models, "tiny-7b", "config.json")); err != nil || string(raw) != tinyConfig {
		t.Fatalf("stored config: %q %v", raw, err)
	}
	if status, _, _ := ts.do("POST", "/api/model", "Bearer "+token, up("acme/tiny-7b", tinyConfig)); status != http.StatusOK {
		t.Errorf("the same config again: %d; want 200", status)
	}
	if status, b, _ := ts.do("POST", "/api/model", "Bearer "+token, up("other/tiny-7b", strings.Replace(tinyConfig, "512", "1024", 1))); status != http.StatusConflict ||
		!strings.Contains(b["error"].(string), "holds another config for this model") {
		t.Errorf("another config for the same folder: %d %v; want 409", status, b)
	}
	ts.runDone("chat", `{"id": "tiny", "model": "acme/tiny-7b", "hardware": "H100", "tp": 1}`)
	res := leaderboardtest.ReadResult(t, ts.results, "chat/tiny.json")
	if i := slices.Index(res.Command, "--model-config-folder"); i < 0 || res.Command[i+1] != leaderboard.RunDirPlaceholder || res.Inputs[leaderboard.UserModelConfigFile] != tinyConfig {
		t.Errorf("the result's command %v and inputs %v: want the config handed over from the run directory", res.Command, res.Inputs)
	}
	d, err := lbrun.MergeDeclared(ts.base, ts.results)
	if err != nil {
		t.Fatal(err)
	}
	if _, probs, err := lbrun.Check(d, ts.results, ""); err != nil || len(probs) > 0 && !onlyMissing(probs) {
		t.Errorf("the results do not check: %v %v", err, probs)
	}
}

func onlyMissing(probs []leaderboard.Problem) bool {
	for _, p := range probs {
		if p.Kind != leaderboard.ProblemMissing {
			return false
		}
	}
	return true
}

// A trace uploaded and saved as a workload: refusals first (the token, a
// bad pair, a multi-node trace, a format or a session pool the build
// cannot replay, naming the build, an id taken); then a TraceV2 pair at
// its recorded arrivals is stored by content hash, a candidate declared
// for it runs, and the declarations file reads back (validate's rules)
// with the trace resolved from the store.
func TestUploadTraceAndRunIt(t *testing.T) {
	ts, _ := newUploadServer(t)
	header, data := testTraceV2(t, 6)
	otelTwo, err := os.ReadFile("../testdata/traces/otel-two-nodes.json")
	if err != nil {
		t.Fatal(err)
	}
	otelOne, err := os.ReadFile("../testdata/traces/otel-one-node.json")
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]any{"arrival": "recorded"}
	wl := func(id, format string, files map[string]string, load map[string]any) string {
		m := map[string]any{"id": id, "format": format, "load": load}
		for k, v := range files {
			m[k] = v
		}
		return body(t, m)
	}
	pair := map[string]string{"header": header, "data": data}
	for _, tt := range []struct {
		name, auth, body string
		status           int
		want             string
	}{
		{"no token", "", wl("up", "tracev2", pair, recorded), http.StatusUnauthorized, "needs Authorization: Bearer"},
		{"no data", "Bearer " + token, wl("up", "tracev2", map[string]string{"header": header}, recorded), http.StatusBadRequest, "trace: format tracev2 takes header and data"},
		{"a header without its version", "Bearer " + token, wl("up", "tracev2", map[string]string{"header": "mode: real\n", "data": data}, recorded), http.StatusBadRequest, "trace: header: trace_version: missing"},
		{"ragged data", "Bearer " + token, wl("up", "tracev2", map[string]string{"header": header, "data": data + "1,2\n"}, recorded), http.StatusBadRequest, "trace: data: record on line 8: wrong number of fields"},
		{"two nodes", "Bearer " + token, wl("up", "otel", map[string]string{"file": string(otelTwo)}, recorded), http.StatusBadRequest, "trace: file: the trace's source spanned more than one node: host.name has 2 values"},
		{"a rate", "Bearer " + token, wl("up", "tracev2", pair, map[string]any{"rate": 4}), http.StatusBadRequest, "load: a trace is offered at its recorded arrivals"},
		{"a bad id", "Bearer " + token, wl("Up!", "tracev2", pair, recorded), http.StatusBadRequest, "id: "},
		{"no converter", "Bearer " + token, wl("up", "otel", map[string]string{"file": string(otelOne)}, recorded), http.StatusUnprocessableEntity,
			"the simulator build v0.2.0 (" + ts.commit[:12] + ") cannot run this workload (the trace's recorded arrivals): the otel trace must be converted by `blis convert otel` before replay; this build cannot"},
		{"no session pool", "Bearer " + token, wl("up", "tracev2", pair, map[string]any{"concurrency": 2}), http.StatusUnprocessableEntity, "`blis replay` has no --concurrent-sessions"},
		{"a group's id", "Bearer " + token, wl("chat", "tracev2", pair, recorded), http.StatusConflict, "id: chat is a group already"},
		{"too large", "Bearer " + token, wl("up", "tracev2", map[string]string{"header": header, "data": strings.Repeat("x", MaxTraceUploadBytes)}, recorded), http.StatusRequestEntityTooLarge, "larger than"},
	} {
		status, b, _ := ts.do("POST", "/api/workload", tt.auth, tt.body)
		if msg, _ := b["error"].(string); status != tt.status || !strings.Contains(msg, tt.want) {
			t.Errorf("%s: %d %q; want %d %q", tt.name, status, msg, tt.status, tt.want)
		}
	}
	status, b, _ := ts.do("POST", "/api/workload", "Bearer "+token, wl("uploaded-chat", "tracev2", pair, recorded))
	if status != http.StatusCreated {
		t.Fatalf("upload: %d %v", status, b)
	}
	sum := b["sha256"].(string)
	if sum != (leaderboard.TraceFiles{Format: "tracev2", Header: []byte(header), Data: []byte(data)}).Hash() {
		t.Errorf("sha256 %s is not the pair's content hash", sum)
	}
	if raw, err := os.ReadFile(filepath.Join(ts.results, "traces", sum, "data.csv")); err != nil || string(raw) != data {
		t.Errorf("the stored data: %v", err)
	}
	if status, _, _ := ts.do("POST", "/api/workload", "Bearer "+token, wl("uploaded-chat", "tracev2", pair, recorded)); status != http.StatusConflict {
		t.Errorf("the same id again: %d; want 409", status)
	}
	if status, page, _ := ts.do("GET", "/", "", ""); status != http.StatusOK || !strings.Contains(page["body"].(string), `<option value="uploaded-chat">`) {
		t.Errorf("the form does not offer the saved workload: %d", status)
	}
	ts.runDone("uploaded-chat", `{"id": "h100", "model": "org/test-model-7b", "hardware": "H100", "tp": 1}`)
	res := leaderboardtest.ReadResult(t, ts.results, "uploaded-chat/h100.json")
	if res.Declaration.Workload.Trace.SHA256 != sum || res.BLIS == nil || res.BLIS.Completed != 6 {
		t.Errorf("the result: trace %+v, figures %+v", res.Declaration.Workload.Trace, res.BLIS)
	}
	d, err := lbrun.MergeDeclared(ts.base, ts.results)
	if err != nil {
		t.Fatal(err)
	}
	if g := d.Group("uploaded-chat"); g == nil || g.Workload.Trace.SHA256 != sum {
		t.Fatalf("the declarations file read back: %+v", g)
	}
	if _, probs, err := lbrun.Check(d, ts.results, ""); err != nil || !onlyMissing(probs) {
		t.Errorf("the results do not check: %v %v", err, probs)
	}
	// The saved workloads survive a restart: the file reads back.
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(ts.results), leaderboard.WorkloadsFile))
	if err != nil {
		t.Fatal(err)
	}
	saved, err := leaderboard.DecodeSavedWorkloads(raw)
	if err != nil || len(saved) != 1 || saved[0].Workload.Trace.Data != fmt.Sprintf("results/traces/%s/data.csv", sum) {
		t.Errorf("workloads file: %v %+v", err, saved)
	}
}
