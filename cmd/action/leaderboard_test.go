package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
)

// standinRuns declares runs against the stand-in simulator
// (leaderboardtest.StandinRuns).
const standinRuns = leaderboardtest.StandinRuns

type lbEnv struct {
	t                       *testing.T
	repo                    harnesstest.Standin
	harnessDir, cache, runs string
	results                 string
}

func newLBEnv(t *testing.T) *lbEnv {
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs.yaml")
	if err := os.WriteFile(runs, []byte(standinRuns), 0o644); err != nil {
		t.Fatal(err)
	}
	return &lbEnv{t: t, repo: repo, harnessDir: hdir, cache: t.TempDir(), runs: runs, results: filepath.Join(dir, "results")}
}

func (e *lbEnv) cmd(args ...string) (string, error) {
	e.t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"leaderboard"}, args...), fakeEnv(map[string]string{"HOME": e.t.TempDir()}), &out, &errb)
	return out.String() + errb.String(), err
}

func (e *lbEnv) simArgs(extra ...string) []string {
	return append([]string{"--runs", e.runs, "--sim-repo", e.repo.Dir, "--cache-dir", e.cache, "--quiet", "--jobs", "2", "--timeout", "20s"}, extra...)
}

// result reads and parses the result file name of the results directory.
func (e *lbEnv) result(name string) *leaderboard.Result {
	e.t.Helper()
	raw, err := os.ReadFile(filepath.Join(e.results, name))
	if err != nil {
		e.t.Fatal(err)
	}
	r, err := leaderboard.ParseResult(raw, name)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func TestLeaderboardRunRenderValidateVerify(t *testing.T) {
	e := newLBEnv(t)
	out, err := e.cmd(append([]string{"run", "--sim", "v0.2.0", "--harness-dir", e.harnessDir}, e.simArgs()...)...)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if !strings.Contains(out, "wrote 8 results") || !strings.Contains(out, "(3 failed)") {
		t.Errorf("run output:\n%s", out)
	}
	read := e.result
	ok := read("chat/h100.json")
	if ok.Status != leaderboard.StatusOK || ok.BLIS.Completed != 40 || ok.Provenance.Simulator.Commit != e.repo.V020 || ok.Provenance.Simulator.Tag != "v0.2.0" {
		t.Errorf("chat/h100: %+v", ok)
	}
	if got := strings.Join(ok.Command, " "); !strings.Contains(got, "--workload-spec {run}/workload-spec.yaml") || !strings.Contains(ok.Inputs[lbrun.WorkloadSpecFile], `"process": "poisson"`) {
		t.Errorf("Poisson run command %q, inputs %v", got, ok.Inputs)
	}
	if c := strings.Join(read("chat/a100-tp2.json").Command, " "); !strings.Contains(c, "--tp 2") || !strings.Contains(c, "--max-num-seqs 128") {
		t.Errorf("engine settings not passed: %s", c)
	}
	if c := strings.Join(read("sweep/h100--rate-8.json").Command, " "); !strings.Contains(c, "--rate 8") || !strings.Contains(c, "--num-instances 2") {
		t.Errorf("constant-rate sweep command: %s", c)
	}
	for name, reason := range map[string]string{
		"chat/crash.json": "simulator-run-error", "chat/h200.json": "hardware-unknown-to-simulator", "chat/nomodel.json": "model-unknown-to-simulator",
	} {
		r := read(name)
		if r.Status != leaderboard.StatusFailed || r.Failure.Reason != reason || r.BLIS != nil || r.Failure.Message == "" {
			t.Errorf("%s: status %s, failure %+v, figures %v; want failed with %s and a message", name, r.Status, r.Failure, r.BLIS, reason)
		}
	}
	if m := read("chat/crash.json").Failure.Message; m != "exit status 2: panic: simulated crash in the stand-in (at main.(*sim).load, standin-blis/main.go:163)" {
		t.Errorf("crash message %q, want the panic line and its first frame", m)
	}
	if d := read("chat/flaky.json").Disqualification(); d != "completed 20 of 40 offered requests; 20 still running at the horizon" {
		t.Errorf("flaky disqualification = %q", d)
	}

	// Same declaration, same build: byte-identical files.
	again := filepath.Join(t.TempDir(), "again")
	if out, err := e.cmd(append([]string{"run", "--sim", e.repo.V020, "--harness-dir", e.harnessDir, "--out", again}, e.simArgs("--jobs", "1")...)...); err != nil {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	filepath.WalkDir(e.results, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(e.results, p)
		a, _ := os.ReadFile(p)
		b, _ := os.ReadFile(filepath.Join(again, rel))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs of the same declaration and build", rel)
		}
		return nil
	})

	out, err = e.cmd("render", "--runs", e.runs, "--out", filepath.Dir(e.runs))
	if err != nil {
		t.Fatalf("render: %v\n%s", err, out)
	}
	for _, want := range []string{"## chat (`chat`)", "[#", "**Disqualified**", "hardware-unknown-to-simulator", "### Capacity", "GPUs†"} {
		if !strings.Contains(out, want) {
			t.Errorf("render lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.runs), "index.html")); err != nil {
		t.Error(err)
	}

	if out, err := e.cmd("validate", "--runs", e.runs, "--sim", e.repo.V020); err != nil || !strings.Contains(out, "ok: 8 results in 2 groups") {
		t.Fatalf("validate: %v\n%s", err, out)
	}
	if out, err := e.cmd(append([]string{"verify", "--only", "chat/h100,sweep"}, e.simArgs()...)...); err != nil || !strings.Contains(out, "verified: 3 results reproduce exactly") {
		t.Fatalf("verify: %v\n%s", err, out)
	}

	// Drift: the pinned simulator is another commit.
	if out, err := e.cmd("validate", "--runs", e.runs, "--sim", e.repo.V010); err == nil || !strings.Contains(err.Error(), "simulator-drift: chat/h100.json: ran on simulator commit "+e.repo.V020) {
		t.Errorf("drift: %v\n%s", err, out)
	}
	// Tampered: a figure edited by hand fails validate (digest) ...
	path := filepath.Join(e.results, "chat", "h100.json")
	orig, _ := os.ReadFile(path)
	tampered := strings.Replace(string(orig), `"completed_requests": 40`, `"completed_requests": 41`, 1)
	os.WriteFile(path, []byte(tampered), 0o644)
	if _, err := e.cmd("validate", "--runs", e.runs); err == nil || !strings.Contains(err.Error(), "tampered: chat/h100.json: digest") {
		t.Errorf("tampered: %v", err)
	}
	// ... re-sealed, fails validate as inconsistent (its computed values
	// no longer follow from its figures) ...
	var r leaderboard.Result
	if err := json.Unmarshal([]byte(tampered), &r); err != nil {
		t.Fatal(err)
	}
	if err := r.Seal(); err != nil {
		t.Fatal(err)
	}
	raw, _ := r.Encode()
	os.WriteFile(path, raw, 0o644)
	if _, err := e.cmd("validate", "--runs", e.runs); err == nil || !strings.Contains(err.Error(), "invalid: chat/h100.json: computed.output_tokens_per_served_request.value: recorded") {
		t.Errorf("re-sealed with stale computed values: %v", err)
	}
	// ... and with its computed values made to follow, fails verify,
	// naming the field with its old and new value.
	resealAs(t, path, &r, func(*leaderboard.Result) {})
	out, err = e.cmd(append([]string{"verify", "--only", "chat/h100"}, e.simArgs()...)...)
	if err == nil || exitCode(err) != 1 || !strings.Contains(out, "DIFF: "+path+": blis.completed_requests: 41 → 40") {
		t.Errorf("verify of a re-sealed tampered result: %v\n%s", err, out)
	}
	os.WriteFile(path, orig, 0o644)
	// Misfiled.
	os.Rename(path, filepath.Join(e.results, "sweep", "h100.json"))
	if _, err := e.cmd("validate", "--runs", e.runs); err == nil || !strings.Contains(err.Error(), "misfiled: sweep/h100.json: holds the result of chat/h100") {
		t.Errorf("misfiled: %v", err)
	}
	os.Rename(filepath.Join(e.results, "sweep", "h100.json"), path)
	// A group mixing offered loads: the declaration now offers 5 req/s to
	// one candidate only; decoding refuses it.
	mixed := strings.Replace(standinRuns, "{id: h100, model: org/test-model-7b, hardware: H100, tp: 1}", "{id: h100, model: org/test-model-7b, hardware: H100, tp: 1, load: {arrival: poisson, rate: 5}}", 1)
	os.WriteFile(e.runs, []byte(mixed), 0o644)
	if _, err := e.cmd("validate", "--runs", e.runs); err == nil || !strings.Contains(err.Error(), "groups[0].candidates[0].load: offers 5 req/s, the group 4 req/s") {
		t.Errorf("mixed loads: %v", err)
	}
}

func TestLeaderboardRunRefusals(t *testing.T) {
	e := newLBEnv(t)
	if _, err := e.cmd(append([]string{"run", "--sim", "feature", "--harness-dir", e.harnessDir}, e.simArgs()...)...); err == nil || !strings.Contains(err.Error(), "is a branch") {
		t.Errorf("a branch as --sim: %v", err)
	}
	os.WriteFile(e.runs, []byte(strings.Replace(standinRuns, ", hardware: H100, tp: 1, replicas: 2}", ", replicas: 2}", 1)), 0o644)
	if _, err := e.cmd(append([]string{"run", "--sim", "v0.2.0", "--harness-dir", e.harnessDir}, e.simArgs()...)...); err == nil || !strings.Contains(err.Error(), "runs.yaml:25: groups[1].candidates[0]: missing properties 'hardware', 'tp'") {
		t.Errorf("missing hardware and TP: %v", err)
	}
}

// A hanging simulator is killed at --timeout and its result fails with the reason.
func TestLeaderboardRunTimeout(t *testing.T) {
	e := newLBEnv(t)
	os.WriteFile(e.runs, []byte(strings.Replace(standinRuns, "org/fault-crash", "org/fault-hang", 1)), 0o644)
	out, err := e.cmd(append([]string{"run", "--sim", "v0.2.0", "--harness-dir", e.harnessDir, "--only", "chat/crash"}, e.simArgs("--timeout", "1s")...)...)
	if err != nil || !strings.Contains(out, "chat/crash: simulator-timeout: no result within 1s; the simulator was killed") {
		t.Errorf("hang: %v\n%s", err, out)
	}
}

// writeTraceV2 writes a small TraceV2 pair: n independent requests, one
// every 250 ms, 200 tokens in and 40 out.
func writeTraceV2(t *testing.T, dir string, n int) {
	t.Helper()
	header := "trace_version: 2\ntime_unit: microseconds\nmode: generated\nwarm_up_requests: 0\n"
	var b strings.Builder
	b.WriteString("request_id,client_id,tenant_id,slo_class,session_id,round_index,prefix_group,prefix_length,streaming,input_tokens,output_tokens,text_tokens,image_tokens,audio_tokens,video_tokens,reason_ratio,model,deadline_us,server_input_tokens,arrival_time_us,send_time_us,first_chunk_time_us,last_chunk_time_us,num_chunks,status,error_message,finish_reason\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%d,c,,,,0,,0,true,200,40,200,0,0,0,0,,0,0,%d,0,0,0,0,ok,,stop\n", i, i*250000)
	}
	if err := os.WriteFile(filepath.Join(dir, "trace.yaml"), []byte(header), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "trace.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

const traceRuns = `version: 1
groups:
  - id: recorded
    workload: {trace: {format: tracev2, header: trace.yaml, data: trace.csv}}
    load: {arrival: recorded}
    candidates:
      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1}
      - {id: a100, model: org/test-model-7b, hardware: A100-80, tp: 1}
  - id: sessions
    workload: {trace: {format: tracev2, header: trace.yaml, data: trace.csv}}
    load: {concurrency: 4}
    candidates:
      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1}
  - id: agentic
    workload: {trace: {format: otel, file: agent.json}}
    load: {arrival: recorded}
    candidates:
      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1}
`

// copyTrace copies a test trace of internal/leaderboard into dir as name.
func copyTrace(t *testing.T, src, dir, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "internal", "leaderboard", "testdata", "traces", src))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestLeaderboardTraceWorkloads(t *testing.T) {
	e := newLBEnv(t)
	writeTraceV2(t, filepath.Dir(e.runs), 12)
	copyTrace(t, "otel-one-node.json", filepath.Dir(e.runs), "agent.json")
	os.WriteFile(e.runs, []byte(traceRuns), 0o644)
	out, err := e.cmd(append([]string{"run", "--sim", "v0.2.0", "--harness-dir", e.harnessDir}, e.simArgs()...)...)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	raw, _ := os.ReadFile(filepath.Join(e.results, "recorded", "h100.json"))
	r, err := leaderboard.ParseResult(raw, "recorded/h100.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := r.Declaration.Workload.Trace.SHA256
	if r.Status != leaderboard.StatusOK || r.BLIS.Completed != 12 || r.BLIS.Injected != 12 || len(sum) != 64 {
		t.Fatalf("recorded trace: %+v %+v", r, r.BLIS)
	}
	if c := strings.Join(r.Command, " "); !strings.Contains(c, "replay") || !strings.Contains(c, "--trace-header {traces}/"+sum+"/header.yaml") {
		t.Errorf("trace command: %s", c)
	}
	stored, err := os.ReadFile(filepath.Join(e.results, "traces", sum, "data.csv"))
	want, _ := os.ReadFile(filepath.Join(filepath.Dir(e.runs), "trace.csv"))
	if err != nil || !bytes.Equal(stored, want) {
		t.Errorf("trace not stored by hash: %v", err)
	}
	for name, reason := range map[string]string{"sessions/h100.json": "--concurrent-sessions", "agentic/h100.json": "must be converted by `blis convert otel` before replay; this build cannot: it has no `blis convert`"} {
		raw, _ := os.ReadFile(filepath.Join(e.results, name))
		r, err := leaderboard.ParseResult(raw, name)
		if err != nil || r.Status != leaderboard.StatusFailed || !strings.Contains(r.Failure.Message, reason) {
			t.Errorf("%s: %v %+v, want a failed result naming %s", name, err, r.Failure, reason)
		}
	}
	if out, err := e.cmd("validate", "--runs", e.runs); err != nil {
		t.Fatalf("validate: %v\n%s", err, out)
	}
	if out, err := e.cmd(append([]string{"verify", "--only", "recorded"}, e.simArgs()...)...); err != nil || !strings.Contains(out, "verified: 2 results") {
		t.Fatalf("verify: %v\n%s", err, out)
	}
	// The same trace with another byte is another workload: the results no
	// longer match the declaration, and a removed stored trace is named.
	os.RemoveAll(filepath.Join(e.results, "traces", sum))
	if _, err := e.cmd("validate", "--runs", e.runs); err == nil || !strings.Contains(err.Error(), "trace: recorded/h100.json: its trace is not stored under traces/"+sum) {
		t.Errorf("removed trace: %v", err)
	}
	writeTraceV2(t, filepath.Dir(e.runs), 13)
	if _, err := e.cmd("validate", "--runs", e.runs); err == nil || !strings.Contains(err.Error(), "declaration-changed: recorded/h100.json") {
		t.Errorf("changed trace: %v", err)
	}
}

// --reuse keeps a result whose declaration and build are unchanged (a
// planted figure a re-run could not give survives byte for byte) and runs
// again one whose declaration changed, and everything on another build.
func TestLeaderboardRunReuse(t *testing.T) {
	e := newLBEnv(t)
	runArgs := func(sim string, extra ...string) []string {
		return append([]string{"run", "--sim", sim, "--harness-dir", e.harnessDir}, e.simArgs(extra...)...)
	}
	if out, err := e.cmd(runArgs("v0.2.0")...); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	kept := plantTTFT(t, filepath.Join(e.results, "chat", "h100.json"))
	plantTTFT(t, filepath.Join(e.results, "chat", "a100-tp2.json"))
	// a100-tp2's declaration changes; everything else stays.
	os.WriteFile(e.runs, []byte(strings.Replace(standinRuns, "max_num_seqs: 128", "max_num_seqs: 64", 1)), 0o644)

	out := filepath.Join(t.TempDir(), "out")
	log, err := e.cmd(append(runArgs("v0.2.0", "--out", out, "--reuse", e.results), "--quiet=false")...)
	if err != nil {
		t.Fatalf("run --reuse: %v\n%s", err, log)
	}
	// Reused: h100, flaky, crash and h200 (failed in the simulator, as it
	// would again) and the two sweep runs. Run: a100-tp2 (declaration) and
	// nomodel (fails before simulating: nothing to save).
	if !strings.Contains(log, "reused 6 unchanged results from "+e.results+", ran 2") || !strings.Contains(log, "wrote 8 results into "+out+" (3 failed)") {
		t.Errorf("run --reuse output:\n%s", log)
	}
	if !strings.Contains(log, `run=chat/a100-tp2 because="the declaration changed (candidate.engine.max_num_seqs: 128 → 64)"`) {
		t.Errorf("the log does not say why a100-tp2 ran again:\n%s", log)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "chat", "h100.json")); !bytes.Equal(got, kept) {
		t.Error("chat/h100.json was run again, not reused")
	}
	raw, _ := os.ReadFile(filepath.Join(out, "chat", "a100-tp2.json"))
	r, err := leaderboard.ParseResult(raw, "chat/a100-tp2.json")
	if err != nil || r.BLIS.TTFTMeanMs == 12345 || !strings.Contains(strings.Join(r.Command, " "), "--max-num-seqs 64") {
		t.Errorf("chat/a100-tp2.json was not run again with its new declaration: %v %+v", err, r)
	}
	if o, err := e.cmd("validate", "--runs", e.runs, "--results", out); err != nil {
		t.Errorf("validate of the reused and new results: %v\n%s", err, o)
	}

	// Another build: nothing is reused.
	log, err = e.cmd(runArgs("v0.1.0", "--out", filepath.Join(t.TempDir(), "v010"), "--reuse", e.results)...)
	if err != nil || !strings.Contains(log, "reused 0 unchanged results") || !strings.Contains(log, "ran 8") {
		t.Errorf("run --reuse on another build: %v\n%s", err, log)
	}
}

const agenticRuns = `version: 1
groups:
  - id: otel-recorded
    workload: {trace: {format: otel, file: agent.json}}
    load: {arrival: recorded}
    candidates:
      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1}
      - {id: a100, model: org/test-model-7b, hardware: A100-80, tp: 1}
  - id: otel-pool
    workload: {trace: {format: otel, file: copy-of-agent.json}}
    load: {concurrencies: [1, 2]}
    keep_up: {ttft_p99_ms: 10000}
    candidates:
      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1}
  - id: weka-pool
    workload: {trace: {format: weka, file: sessions.jsonl}}
    load: {concurrency: 2}
    candidates:
      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1}
  - id: tracev2-pool
    workload: {trace: {format: tracev2, header: trace.yaml, data: trace.csv}}
    load: {concurrency: 4}
    candidates:
      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1}
  - id: two-nodes
    workload: {trace: {format: otel, file: two-nodes.json}}
    load: {arrival: recorded}
    candidates:
      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1}
`

// On a build that offers `blis convert otel|weka` and `replay
// --concurrent-sessions` (the stand-in's agentic variant): the build's
// converters are probed, an otel or weka trace is converted in the run's
// directory and replayed, at its recorded arrivals or as a pool of
// sessions; its bytes are stored once by content hash whatever its file
// name; a trace recorded on two nodes is refused, naming them; and verify
// reproduces convert and replay.
func TestLeaderboardAgenticTraces(t *testing.T) {
	e := newLBEnv(t)
	dir := filepath.Dir(e.runs)
	writeTraceV2(t, dir, 8)
	otel := copyTrace(t, "otel-one-node.json", dir, "agent.json")
	copyTrace(t, "otel-one-node.json", dir, "copy-of-agent.json")
	weka := copyTrace(t, "weka.jsonl", dir, "sessions.jsonl")
	copyTrace(t, "otel-two-nodes.json", dir, "two-nodes.json")
	os.WriteFile(e.runs, []byte(agenticRuns), 0o644)
	out, err := e.cmd(append([]string{"run", "--sim", e.repo.Agentic, "--harness-dir", e.harnessDir}, e.simArgs()...)...)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	read := e.result
	otelSum := (leaderboard.TraceFiles{Format: "otel", Source: otel}).Hash()
	wekaSum := (leaderboard.TraceFiles{Format: "weka", Source: weka}).Hash()
	for _, tt := range []struct {
		file, sum, convert, replay string
		injected                   int
	}{
		// 5 LLM calls of 2 agent sessions (the root span is no call).
		{"otel-recorded/h100.json", otelSum, "blis convert otel --input {traces}/" + otelSum + "/otel.json --trace-output {run}/converted --context-growth accumulate",
			"--trace-header {run}/converted.yaml --trace-data {run}/converted.csv", 5},
		{"otel-recorded/a100.json", otelSum, "blis convert otel", "--trace-data {run}/converted.csv", 5},
		{"otel-pool/h100--conc-1.json", otelSum, "blis convert otel --input {traces}/" + otelSum + "/otel.json", "--concurrent-sessions 1 ", 5},
		{"otel-pool/h100--conc-2.json", otelSum, "blis convert otel", "--concurrent-sessions 2 ", 5},
		// 5 main requests of 2 sessions (the subagent entry is skipped).
		{"weka-pool/h100.json", wekaSum, "blis convert weka --input {traces}/" + wekaSum + "/weka.jsonl", "--concurrent-sessions 2 ", 5},
		{"tracev2-pool/h100.json", "", "", "--concurrent-sessions 4 --trace-header {traces}/", 8},
	} {
		r := read(tt.file)
		if r.Status != leaderboard.StatusOK || r.BLIS.Injected != tt.injected || r.BLIS.Completed != tt.injected {
			t.Errorf("%s: status %s, failure %+v, figures %+v; want ok with %d requests", tt.file, r.Status, r.Failure, r.BLIS, tt.injected)
			continue
		}
		if tt.sum != "" && r.Declaration.Workload.Trace.SHA256 != tt.sum {
			t.Errorf("%s: trace hash %s, want %s", tt.file, r.Declaration.Workload.Trace.SHA256, tt.sum)
		}
		if c := strings.Join(r.Convert, " "); (tt.convert == "") != (c == "") || !strings.HasPrefix(c, tt.convert) {
			t.Errorf("%s: convert %q, want %q…", tt.file, c, tt.convert)
		}
		if c := strings.Join(r.Command, " "); !strings.HasPrefix(c, "blis replay ") || !strings.Contains(c, tt.replay) {
			t.Errorf("%s: command %q, want a replay with %q", tt.file, c, tt.replay)
		}
	}
	// A pool of one session at a time is a lighter load than two.
	if one, two := read("otel-pool/h100--conc-1.json"), read("otel-pool/h100--conc-2.json"); one.BLIS.TTFTMeanMs >= two.BLIS.TTFTMeanMs {
		t.Errorf("TTFT at 1 session %v, at 2 sessions %v: the pool size is not applied", one.BLIS.TTFTMeanMs, two.BLIS.TTFTMeanMs)
	}
	refused := read("two-nodes/h100.json")
	if refused.Status != leaderboard.StatusFailed || refused.Failure.Reason != leaderboard.ReasonTraceRefused ||
		!strings.Contains(refused.Failure.Message, "more than one node: host.name has 2 values (node-a, node-b)") || len(refused.Convert) != 0 {
		t.Errorf("two-node trace: %+v, convert %q; want refused naming host.name node-a, node-b before converting", refused.Failure, refused.Convert)
	}
	// Each trace is stored once, by content hash: the two names of the
	// one-node otel trace are one directory holding the source's bytes.
	entries, err := os.ReadDir(filepath.Join(e.results, "traces"))
	if err != nil || len(entries) != 4 {
		t.Fatalf("traces/: %d entries (%v), want 4 (otel one node, otel two nodes, weka, tracev2)", len(entries), err)
	}
	for sum, want := range map[string][]byte{otelSum + "/otel.json": otel, wekaSum + "/weka.jsonl": weka} {
		got, err := os.ReadFile(filepath.Join(e.results, "traces", sum))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("traces/%s: %v, not the source's bytes", sum, err)
		}
	}
	if out, err := e.cmd("validate", "--runs", e.runs); err != nil {
		t.Fatalf("validate: %v\n%s", err, out)
	}
	if out, err := e.cmd(append([]string{"verify", "--only", "otel-recorded,weka-pool,two-nodes"}, e.simArgs()...)...); err != nil || !strings.Contains(out, "verified: 4 results") {
		t.Fatalf("verify: %v\n%s", err, out)
	}
	// A stored source whose bytes changed no longer hashes to its name.
	os.WriteFile(filepath.Join(e.results, "traces", wekaSum, "weka.jsonl"), append(weka, '\n'), 0o644)
	if _, err := e.cmd("validate", "--runs", e.runs); err == nil || !strings.Contains(err.Error(), "weka-pool/h100.json: the trace stored under traces/"+wekaSum+"/ does not hash to its name") {
		t.Errorf("tampered stored trace: %v", err)
	}
}

var plantTTFT = leaderboardtest.PlantTTFT

// resealAs rewrites the result file at path as edit leaves it, sealed
// again (a digest is no signature), with its computed values made
// consistent: what someone who can write results but not run them can do.
func resealAs(t *testing.T, path string, from *leaderboard.Result, edit func(*leaderboard.Result)) {
	t.Helper()
	c := *from
	edit(&c)
	comp := leaderboard.Compute(c.Declaration, *c.BLIS)
	c.Computed = &comp
	if err := c.Seal(); err != nil {
		t.Fatal(err)
	}
	raw, err := c.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The tamperings of issue #22: validate, verify and render are not fooled
// by a result that records a command its declaration does not plan, and
// verify never runs such a command; a declaration changed since its result
// ran is verify's problem too.
func TestLeaderboardTampering(t *testing.T) {
	e := newLBEnv(t)
	if out, err := e.cmd(append([]string{"run", "--sim", "v0.2.0", "--harness-dir", e.harnessDir, "--only", "chat/h100,chat/a100-tp2"}, e.simArgs()...)...); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	// The other runs are declared but have no result: validate says so
	// for each; only chat/ is looked at below.
	os.WriteFile(e.runs, []byte(strings.Split(standinRuns, "      - {id: flaky")[0]), 0o644)
	h100File := filepath.Join(e.results, "chat", "h100.json")
	orig, _ := os.ReadFile(h100File)
	h100, a100 := e.result("chat/h100.json"), e.result("chat/a100-tp2.json")
	verify := func() (string, error) {
		return e.cmd(append([]string{"verify", "--only", "chat/h100"}, e.simArgs()...)...)
	}
	if out, err := e.cmd("validate", "--runs", e.runs); err != nil {
		t.Fatalf("validate before tampering: %v\n%s", err, out)
	}

	// 1. The A100 TP 2 result copied as the H100 TP 1 candidate's: ids,
	// declaration and computed values edited, the command left as it ran.
	resealAs(t, h100File, a100, func(r *leaderboard.Result) {
		r.Group, r.Run, r.Declaration = h100.Group, h100.Run, h100.Declaration
	})
	want := `unplanned-command: chat/h100.json: the recorded command is not the one its declaration plans (command[5]: planned "H100", recorded "A100-80")`
	if out, err := e.cmd("validate", "--runs", e.runs); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("validate of a copied result: %v\n%s", err, out)
	}
	if out, err := e.cmd("render", "--runs", e.runs); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("render of a copied result: %v\n%s", err, out)
	}
	if out, err := verify(); err == nil || exitCode(err) != 1 || !strings.Contains(out, "PROBLEM: "+want) || !strings.Contains(out, "; it was not run") {
		t.Errorf("verify of a copied result: %v\n%s", err, out)
	}

	// 2. A command that writes its metrics elsewhere: refused, never run.
	elsewhere := filepath.Join(t.TempDir(), "somewhere", "else.json")
	resealAs(t, h100File, h100, func(r *leaderboard.Result) {
		r.Command = append([]string(nil), r.Command...)
		r.Command[len(r.Command)-1] = elsewhere
	})
	want = `(command[31]: planned "{run}/metrics.json", recorded "` + elsewhere + `")`
	if out, err := e.cmd("validate", "--runs", e.runs); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("validate of a command writing elsewhere: %v\n%s", err, out)
	}
	if out, err := verify(); err == nil || !strings.Contains(out, want) {
		t.Errorf("verify of a command writing elsewhere: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Dir(elsewhere)); err == nil {
		t.Errorf("verify ran the recorded command: %s exists", filepath.Dir(elsewhere))
	}

	// 3. The declaration changed since the result ran (H100 → L40S).
	os.WriteFile(h100File, orig, 0o644)
	decl, _ := os.ReadFile(e.runs)
	os.WriteFile(e.runs, []byte(strings.Replace(string(decl), "{id: h100, model: org/test-model-7b, hardware: H100", "{id: h100, model: org/test-model-7b, hardware: L40S", 1)), 0o644)
	want = "declaration-changed: chat/h100.json: ran another declaration than runs.yaml's; re-run it"
	if out, err := e.cmd("validate", "--runs", e.runs); err == nil || !strings.Contains(err.Error(), want+` (candidate.hardware: "L40S" → "H100")`) {
		t.Errorf("validate of a changed declaration: %v\n%s", err, out)
	}
	if out, err := verify(); err == nil || !strings.Contains(out, "PROBLEM: "+want+`, nothing was verified (candidate.hardware: "L40S" → "H100")`) || strings.Contains(out, "verified:") {
		t.Errorf("verify of a changed declaration: %v\n%s", err, out)
	}
}

// Results whose runs left runs.yaml are listed by run and removed by
// run --prune (render and validate refuse them as undeclared).
func TestLeaderboardRunPrune(t *testing.T) {
	e := newLBEnv(t)
	runArgs := func(extra ...string) []string {
		return append([]string{"run", "--sim", "v0.2.0", "--harness-dir", e.harnessDir, "--only", "chat/h100", "--reuse", e.results}, e.simArgs(extra...)...)
	}
	if out, err := e.cmd(append(runArgs(), "--only", "chat/h100,sweep")...); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	os.WriteFile(e.runs, []byte(strings.Split(standinRuns, "  - id: sweep")[0]), 0o644)
	out, err := e.cmd(runArgs()...)
	want := "2 results in " + e.results + " that no run of the declaration asks for (removed or renamed; --prune removes them):\n  sweep/h100--rate-2.json\n  sweep/h100--rate-8.json\n"
	if err != nil || !strings.Contains(out, want) {
		t.Fatalf("run listing undeclared results: %v\n%s\nwant %q", err, out, want)
	}
	if _, err := os.Stat(filepath.Join(e.results, "sweep", "h100--rate-2.json")); err != nil {
		t.Errorf("listed results were removed without --prune: %v", err)
	}
	out, err = e.cmd(runArgs("--prune")...)
	if err != nil || !strings.Contains(out, "pruned 2 results that no run of the declaration asks for:\n  sweep/h100--rate-2.json\n  sweep/h100--rate-8.json\n") {
		t.Fatalf("run --prune: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(e.results, "sweep")); err == nil {
		t.Error("run --prune left sweep/")
	}
	if _, err := os.Stat(filepath.Join(e.results, "chat", "h100.json")); err != nil {
		t.Errorf("run --prune removed a declared result: %v", err)
	}
}
