package lbrun

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// flowEnv runs the commands' flows against the stand-in simulator: a
// runs.yaml (leaderboardtest.StandinRuns) with results/ beside it.
type flowEnv struct {
	t                       *testing.T
	repo                    harnesstest.Standin
	harnessDir, cache, runs string
	results                 string
	log                     testkit.SyncBuffer
}

func newFlowEnv(t *testing.T) *flowEnv {
	t.Helper()
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs.yaml")
	if err := os.WriteFile(runs, []byte(leaderboardtest.StandinRuns), 0o644); err != nil {
		t.Fatal(err)
	}
	return &flowEnv{t: t, repo: repo, harnessDir: hdir, cache: t.TempDir(), runs: runs, results: filepath.Join(dir, "results")}
}

// builds are the stand-in's builds, 20 s a simulation, logging into e.log.
func (e *flowEnv) builds() Builds {
	return Builds{Repo: e.repo.Dir, CacheDir: e.cache, Timeout: 20 * time.Second, Log: slog.New(slog.NewTextHandler(&e.log, nil))}
}

// run is `leaderboard run` of ref into results/ beside runs.yaml, two at
// once; edit changes the configuration first.
func (e *flowEnv) run(ref string, edit func(*RunConfig)) (RunReport, error) {
	e.t.Helper()
	c := RunConfig{Runs: e.runs, Ref: ref, HarnessDir: e.harnessDir, Jobs: 2, Builds: e.builds()}
	if edit != nil {
		edit(&c)
	}
	return RunDeclaration(context.Background(), c)
}

// mustRun is run, failing the test on an error.
func (e *flowEnv) mustRun(ref string, edit func(*RunConfig)) RunReport {
	e.t.Helper()
	rep, err := e.run(ref, edit)
	if err != nil {
		e.t.Fatalf("run: %v\n%s", err, e.log.String())
	}
	return rep
}

// verify is `leaderboard verify --only only...` of results/.
func (e *flowEnv) verify(only ...string) (Verification, error) {
	return VerifyDeclaration(context.Background(), VerifyConfig{Runs: e.runs, Results: e.results, Only: only, Jobs: 2, Builds: e.builds()})
}

// validate is `leaderboard validate` of results (results/ when "").
func (e *flowEnv) validate(results string) error {
	if results == "" {
		results = e.results
	}
	_, err := Validate(context.Background(), ValidateConfig{Runs: e.runs, Results: results, RepoRoot: "."})
	return err
}

// reproduced says whether every verdict of v reproduced, as `verify`
// reports "verified: N results reproduce exactly" (exit 0).
func reproduced(v Verification) bool { return v.Unrun() == 0 && v.Differing() == 0 }

// A branch is no simulator ref; a declaration the schema refuses is named
// by file, line and field, as a DeclarationError.
func TestRunDeclarationRefusals(t *testing.T) {
	t.Parallel()
	e := newFlowEnv(t)
	if _, err := e.run("feature", nil); err == nil || !strings.Contains(err.Error(), "is a branch") {
		t.Errorf("a branch as the ref: %v", err)
	}
	if _, err := e.run("v0.2.0", func(c *RunConfig) { c.Only = []string{"nosuch"} }); err == nil || err.Error() != `--only "nosuch": no such run in the declaration` {
		t.Errorf("--only naming no run: %v", err)
	}
	os.WriteFile(e.runs, []byte(strings.Replace(leaderboardtest.StandinRuns, ", hardware: H100, tp: 1, replicas: 2}", ", replicas: 2}", 1)), 0o644)
	_, err := e.run("v0.2.0", nil)
	var de *DeclarationError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "runs.yaml:25: groups[1].candidates[0]: missing properties 'hardware', 'tp'") {
		t.Errorf("missing hardware and TP: %v", err)
	}
}

// A hanging simulator is killed at the timeout and its result fails with
// the reason.
func TestRunDeclarationTimeout(t *testing.T) {
	t.Parallel()
	e := newFlowEnv(t)
	os.WriteFile(e.runs, []byte(strings.Replace(leaderboardtest.StandinRuns, "org/fault-crash", "org/fault-hang", 1)), 0o644)
	rep := e.mustRun("v0.2.0", func(c *RunConfig) { c.Only = []string{"chat/crash"}; c.Builds.Timeout = time.Second })
	failed := rep.Failed()
	if len(failed) != 1 || failed[0].Group != "chat" || failed[0].Run != "crash" || failed[0].Failure.Reason != "simulator-timeout" ||
		!strings.HasPrefix(failed[0].Failure.Message, "no result within 1s; the simulator was killed") {
		t.Errorf("hang: failed %+v", failed)
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

func TestRunDeclarationTraceWorkloads(t *testing.T) {
	t.Parallel()
	e := newFlowEnv(t)
	leaderboardtest.WriteTraceV2(t, filepath.Dir(e.runs), 12)
	leaderboardtest.CopyTrace(t, "otel-one-node.json", filepath.Dir(e.runs), "agent.json")
	os.WriteFile(e.runs, []byte(traceRuns), 0o644)
	e.mustRun("v0.2.0", nil)
	r := leaderboardtest.ReadResult(t, e.results, "recorded/h100.json")
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
		r := leaderboardtest.ReadResult(t, e.results, name)
		if r.Status != leaderboard.StatusFailed || !strings.Contains(r.Failure.Message, reason) {
			t.Errorf("%s: %+v, want a failed result naming %s", name, r.Failure, reason)
		}
	}
	if err := e.validate(""); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if v, err := e.verify("recorded"); err != nil || !reproduced(v) || len(v.Verdicts) != 2 {
		t.Fatalf("verify: %v %v", err, v.Lines())
	}
	// The same trace with another byte is another workload: the results no
	// longer match the declaration, and a removed stored trace is named.
	os.RemoveAll(filepath.Join(e.results, "traces", sum))
	if err := e.validate(""); err == nil || !strings.Contains(err.Error(), "trace: recorded/h100.json: its trace is not stored under traces/"+sum) {
		t.Errorf("removed trace: %v", err)
	}
	leaderboardtest.WriteTraceV2(t, filepath.Dir(e.runs), 13)
	if err := e.validate(""); err == nil || !strings.Contains(err.Error(), "declaration-changed: recorded/h100.json") {
		t.Errorf("changed trace: %v", err)
	}
}

// Reuse keeps a result whose declaration and build are unchanged (a
// planted figure a re-run could not give survives byte for byte) and runs
// again one whose declaration changed, and everything on another build.
func TestRunDeclarationReuse(t *testing.T) {
	t.Parallel()
	e := newFlowEnv(t)
	e.mustRun("v0.2.0", nil)
	kept := leaderboardtest.PlantTTFT(t, filepath.Join(e.results, "chat", "h100.json"))
	leaderboardtest.PlantTTFT(t, filepath.Join(e.results, "chat", "a100-tp2.json"))
	// a100-tp2's declaration changes; everything else stays.
	os.WriteFile(e.runs, []byte(strings.Replace(leaderboardtest.StandinRuns, "max_num_seqs: 128", "max_num_seqs: 64", 1)), 0o644)

	out := filepath.Join(t.TempDir(), "out")
	rep := e.mustRun("v0.2.0", func(c *RunConfig) { c.Out, c.Reuse = out, e.results })
	// Reused: h100, flaky, crash and h200 (failed in the simulator, as it
	// would again) and the two sweep runs. Run: a100-tp2 (declaration) and
	// nomodel (fails before simulating: nothing to save).
	if rep.Reused != 6 || rep.Ran != 2 || len(rep.Results) != 8 || len(rep.Failed()) != 3 || rep.Out != out {
		t.Errorf("run with reuse: reused %d, ran %d, %d results (%d failed) into %s; want 6, 2, 8 (3) into %s", rep.Reused, rep.Ran, len(rep.Results), len(rep.Failed()), rep.Out, out)
	}
	if log := e.log.String(); !strings.Contains(log, `run=chat/a100-tp2 because="the declaration changed (candidate.engine.max_num_seqs: 128 → 64)"`) {
		t.Errorf("the log does not say why a100-tp2 ran again:\n%s", log)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "chat", "h100.json")); !bytes.Equal(got, kept) {
		t.Error("chat/h100.json was run again, not reused")
	}
	if r := leaderboardtest.ReadResult(t, out, "chat/a100-tp2.json"); r.BLIS.TTFTMeanMs == 12345 || !strings.Contains(strings.Join(r.Command, " "), "--max-num-seqs 64") {
		t.Errorf("chat/a100-tp2.json was not run again with its new declaration: %+v", r)
	}
	if err := e.validate(out); err != nil {
		t.Errorf("validate of the reused and new results: %v", err)
	}

	// Another build: nothing is reused.
	rep, err := e.run("v0.1.0", func(c *RunConfig) { c.Out, c.Reuse = filepath.Join(t.TempDir(), "v010"), e.results })
	if err != nil || rep.Reused != 0 || rep.Ran != 8 {
		t.Errorf("run with reuse on another build: %v, reused %d, ran %d; want 0 and 8", err, rep.Reused, rep.Ran)
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
func TestRunDeclarationAgenticTraces(t *testing.T) {
	t.Parallel()
	e := newFlowEnv(t)
	dir := filepath.Dir(e.runs)
	leaderboardtest.WriteTraceV2(t, dir, 8)
	otel := leaderboardtest.CopyTrace(t, "otel-one-node.json", dir, "agent.json")
	leaderboardtest.CopyTrace(t, "otel-one-node.json", dir, "copy-of-agent.json")
	weka := leaderboardtest.CopyTrace(t, "weka.jsonl", dir, "sessions.jsonl")
	leaderboardtest.CopyTrace(t, "otel-two-nodes.json", dir, "two-nodes.json")
	os.WriteFile(e.runs, []byte(agenticRuns), 0o644)
	e.mustRun(e.repo.Agentic, nil)
	read := func(name string) *leaderboard.Result { return leaderboardtest.ReadResult(t, e.results, name) }
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
	if err := e.validate(""); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if v, err := e.verify("otel-recorded", "weka-pool", "two-nodes"); err != nil || !reproduced(v) || len(v.Verdicts) != 4 {
		t.Fatalf("verify: %v %v", err, v.Lines())
	}
	// A stored source whose bytes changed no longer hashes to its name.
	os.WriteFile(filepath.Join(e.results, "traces", wekaSum, "weka.jsonl"), append(weka, '\n'), 0o644)
	if err := e.validate(""); err == nil || !strings.Contains(err.Error(), "weka-pool/h100.json: the trace stored under traces/"+wekaSum+"/ does not hash to its name") {
		t.Errorf("tampered stored trace: %v", err)
	}
}

// lines is v's lines, one a line, as `verify` prints them.
func lines(v Verification) string { return strings.Join(v.Lines(), "\n") }

// The tamperings of issue #22: validate, verify and render are not fooled
// by a result that records a command its declaration does not plan, and
// verify never runs such a command; a declaration changed since its result
// ran is verify's problem too.
func TestFlowsRefuseTamperedResults(t *testing.T) {
	t.Parallel()
	e := newFlowEnv(t)
	e.mustRun("v0.2.0", func(c *RunConfig) { c.Only = []string{"chat/h100", "chat/a100-tp2"} })
	// Every run selected, some without a result: an error naming one, not
	// a problem of the results, and nothing runs.
	var pe *leaderboard.ProblemsError
	if v, err := e.verify(); err == nil || errors.As(err, &pe) || !strings.Contains(err.Error(), ".json: no result to verify") || v.Verdicts != nil {
		t.Errorf("verify of runs without a result: %v, %v", err, v.Lines())
	}
	// The other runs are declared but have no result: validate says so
	// for each; only chat/ is looked at below.
	os.WriteFile(e.runs, []byte(strings.Split(leaderboardtest.StandinRuns, "      - {id: flaky")[0]), 0o644)
	h100File := filepath.Join(e.results, "chat", "h100.json")
	orig, _ := os.ReadFile(h100File)
	h100, a100 := leaderboardtest.ReadResult(t, e.results, "chat/h100.json"), leaderboardtest.ReadResult(t, e.results, "chat/a100-tp2.json")
	verify := func() (Verification, error) { return e.verify("chat/h100") }
	if err := e.validate(""); err != nil {
		t.Fatalf("validate before tampering: %v", err)
	}

	// 1. The A100 TP 2 result copied as the H100 TP 1 candidate's: ids,
	// declaration and computed values edited, the command left as it ran.
	leaderboardtest.Reseal(t, h100File, a100, func(r *leaderboard.Result) {
		r.Group, r.Run, r.Declaration = h100.Group, h100.Run, h100.Declaration
	})
	want := `unplanned-command: chat/h100.json: the recorded command is not the one its declaration plans (command[5]: planned "H100", recorded "A100-80")`
	if err := e.validate(""); !errors.As(err, &pe) || !strings.Contains(err.Error(), want) {
		t.Errorf("validate of a copied result: %v", err)
	}
	if _, err := Render(e.runs, e.results, ""); !errors.As(err, &pe) || !strings.Contains(err.Error(), want) {
		t.Errorf("render of a copied result: %v", err)
	}
	// verify exits 1 (a result not run) and prints the problem.
	if v, err := verify(); err != nil || v.Unrun() != 1 || !strings.Contains(lines(v), "PROBLEM: "+want) || !strings.Contains(lines(v), "; it was not run") {
		t.Errorf("verify of a copied result: %v\n%s", err, lines(v))
	}

	// 2. A command that writes its metrics elsewhere: refused, never run.
	elsewhere := filepath.Join(t.TempDir(), "somewhere", "else.json")
	leaderboardtest.Reseal(t, h100File, h100, func(r *leaderboard.Result) {
		r.Command = append([]string(nil), r.Command...)
		r.Command[len(r.Command)-1] = elsewhere
	})
	want = `(command[31]: planned "{run}/metrics.json", recorded "` + elsewhere + `")`
	if err := e.validate(""); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("validate of a command writing elsewhere: %v", err)
	}
	if v, err := verify(); err != nil || v.Unrun() != 1 || !strings.Contains(lines(v), want) {
		t.Errorf("verify of a command writing elsewhere: %v\n%s", err, lines(v))
	}
	if _, err := os.Stat(filepath.Dir(elsewhere)); err == nil {
		t.Errorf("verify ran the recorded command: %s exists", filepath.Dir(elsewhere))
	}

	// 3. The declaration changed since the result ran (H100 → L40S).
	os.WriteFile(h100File, orig, 0o644)
	decl, _ := os.ReadFile(e.runs)
	os.WriteFile(e.runs, []byte(strings.Replace(string(decl), "{id: h100, model: org/test-model-7b, hardware: H100", "{id: h100, model: org/test-model-7b, hardware: L40S", 1)), 0o644)
	want = "declaration-changed: chat/h100.json: ran another declaration than runs.yaml's; re-run it"
	if err := e.validate(""); err == nil || !strings.Contains(err.Error(), want+` (candidate.hardware: "L40S" → "H100")`) {
		t.Errorf("validate of a changed declaration: %v", err)
	}
	// Not "verified:": a result was not run.
	if v, err := verify(); err != nil || reproduced(v) || !strings.Contains(lines(v), "PROBLEM: "+want+`, nothing was verified (candidate.hardware: "L40S" → "H100")`) {
		t.Errorf("verify of a changed declaration: %v\n%s", err, lines(v))
	}
}

// Without a ref the newest release tag runs, and the log says so; render
// draws the board with declared runs still missing, writes README.md (the
// Markdown it returns) and index.html; the declarations file beside the
// results is merged into what validate checks, and one that does not
// decode is a DeclarationError naming it.
func TestRenderAndTheDeclarationsFile(t *testing.T) {
	t.Parallel()
	e := newFlowEnv(t)
	rep := e.mustRun("", func(c *RunConfig) { c.Only = []string{"chat/h100", "sweep"} })
	log := e.log.String()
	if !strings.Contains(log, `msg="no --sim given; using the newest release tag" tag=v0.2.0`) ||
		!strings.Contains(log, `msg="simulator ready" commit=`+e.repo.V020+" tag=v0.2.0 runs=3") {
		t.Errorf("the log does not name the newest release tag and the build:\n%s", log)
	}
	if len(rep.Results) != 3 || rep.Results[0].Provenance.Simulator.Tag != "v0.2.0" {
		t.Fatalf("run without a ref: %d results, first %+v", len(rep.Results), rep.Results[0].Provenance)
	}

	out := t.TempDir()
	md, err := Render(e.runs, e.results, out)
	if err != nil {
		t.Fatalf("render with runs missing: %v", err)
	}
	readme, _ := os.ReadFile(filepath.Join(out, "README.md"))
	if !strings.Contains(string(md), "## chat (`chat`)") || !bytes.Equal(readme, md) {
		t.Errorf("render: README.md is not the Markdown returned, or lacks the chat group:\n%s", md)
	}
	if page, err := os.ReadFile(filepath.Join(out, "index.html")); err != nil || !bytes.Contains(page, []byte("<html")) {
		t.Errorf("render wrote no index.html: %v", err)
	}

	// A candidate declared through serve: the chat group's offered work
	// restated, the new candidate only.
	chat := leaderboardtest.StandinRuns[:strings.Index(leaderboardtest.StandinRuns, "      - {id: h100")]
	declared := chat + "      - {id: extra, model: org/test-model-7b, hardware: A100-80, tp: 1}\n"
	if err := os.WriteFile(DeclarationsFile(e.results), []byte(declared), 0o644); err != nil {
		t.Fatal(err)
	}
	var pe *leaderboard.ProblemsError
	if err := e.validate(""); !errors.As(err, &pe) || !strings.Contains(err.Error(), "missing-result: chat/extra.json") {
		t.Errorf("validate with a declared candidate: %v, want its result missing", err)
	}
	if err := os.WriteFile(DeclarationsFile(e.results), []byte(strings.Replace(declared, "id: chat", "id: no-such-group", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	var de *DeclarationError
	if err := e.validate(""); !errors.As(err, &de) || !strings.Contains(err.Error(), "no-such-group") {
		t.Errorf("a declarations file naming a group runs.yaml lacks: %v, want a DeclarationError", err)
	}
}

// WriteBoardFiles writes README.md and index.html both or neither: with
// index.html a directory, README.md is not written either.
func TestWriteBoardFilesAllOrNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string][]byte{"README.md": []byte("# board\n"), "index.html": []byte("<html>")}
	if err := os.Mkdir(filepath.Join(dir, "index.html"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteBoardFiles(dir, files); err == nil {
		t.Fatal("index.html written over a directory")
	}
	if _, err := os.Lstat(filepath.Join(dir, "README.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("README.md after a failed write: %v, want none", err)
	}
	if err := os.Remove(filepath.Join(dir, "index.html")); err != nil {
		t.Fatal(err)
	}
	if err := WriteBoardFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Files(t, os.DirFS(dir)); len(got) != 2 || got["README.md"] != "# board\n" || got["index.html"] != "<html>" {
		t.Errorf("board files %v", got)
	}
}
