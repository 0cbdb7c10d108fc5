package lbrun

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

const resumeRuns = `version: 1
groups:
  - id: chat
    workload:
      requests: 20
      seed: 3
      prompt_tokens: {mean: 128, stdev: 16, min: 16, max: 256}
      output_tokens: {mean: 32, stdev: 8, min: 8, max: 64}
    load: {arrival: constant, rate: 4}
    candidates:
      - {id: fast, model: org/test-model-7b, hardware: H100, tp: 1}
      - {id: also-fast, model: org/test-model-7b, hardware: A100-80, tp: 1}
      - {id: hang, model: org/fault-hang, hardware: H100, tp: 1}
`

// standinSim is the stand-in simulator at v0.2.0, built and probed, with
// the runs of decl.
func standinSim(t *testing.T, decl, results string) (*Sim, []leaderboard.DeclaredRun) {
	t.Helper()
	repo := harnesstest.StandinRepo(t)
	s, err := Prepare(context.Background(), &harness.Builder{CacheDir: t.TempDir()}, repo.Dir, repo.V020,
		Setup{Harness: runresult.Harness{Commit: strings.Repeat("a", 40), Source: "checkout"}, Timeout: time.Minute, ResultsDir: results})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	d, err := leaderboard.Decode([]byte(decl), "runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s, d.Runs()
}

// An interrupted Run keeps the results it finished, files none of the
// runs it cut short, and a second Run reusing its directory resumes: it
// keeps them byte for byte and runs only the rest.
func TestRunInterruptedResumes(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	s, runs := standinSim(t, resumeRuns, out)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sum, err := SimulateAll(ctx, s, runs, Options{Out: out, Jobs: 3, Progress: func(done, _ int, _ *leaderboard.Result) {
		if done == 2 { // both fast runs are filed; the hanging one is still running
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel: %v, want context.Canceled", err)
	}
	if sum.Ran != 2 || sum.Results[2] != nil {
		t.Errorf("interrupted: ran %d, hang %v; want the 2 fast runs and no result for the one cut short", sum.Ran, sum.Results[2])
	}
	if _, err := os.Stat(ResultFile(out, "chat", "hang")); err == nil {
		t.Error("the run cut short was filed")
	}
	kept, err := os.ReadFile(ResultFile(out, "chat", "fast"))
	if err != nil {
		t.Fatalf("a finished run was not filed before the interruption: %v", err)
	}

	// Resume: the hanging run times out this time (a result, filed).
	s.Timeout = time.Second
	sum, err = SimulateAll(context.Background(), s, runs, Options{Out: out, Reuse: out, Jobs: 3})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Reused != 2 || sum.Ran != 1 || sum.Results[2].Failure == nil || sum.Results[2].Failure.Reason != harness.ReasonTimeout {
		t.Errorf("resumed: reused %d, ran %d, hang %+v; want 2 reused and the hanging run timed out", sum.Reused, sum.Ran, sum.Results[2])
	}
	if again, _ := os.ReadFile(ResultFile(out, "chat", "fast")); !bytes.Equal(again, kept) {
		t.Error("a finished result was not kept byte for byte on resuming")
	}
	if _, err := os.Stat(ResultFile(out, "chat", "hang")); err != nil {
		t.Errorf("the resumed run was not filed: %v", err)
	}
}

// Undeclared lists the results whose runs left runs.yaml; Prune removes
// them and the group directory they leave empty, and nothing else.
func TestUndeclaredAndPrune(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := reuseSim(strings.Repeat("c", 40), runFlags("workload-spec", "concurrency", "max-num-seqs"))
	s.Harness = runresult.Harness{Commit: strings.Repeat("a", 40), Source: "checkout"}
	runs := testRuns(t)
	for _, r := range runs {
		if err := FileResult(dir, s.Simulate(context.Background(), r)); err != nil {
			t.Fatal(err)
		}
	}
	src, _ := os.ReadFile("../testdata/runs.yaml")
	// Without the sweep group and without chat-4rps/h100-tp2.
	cut := strings.Split(string(src), "  - id: sweep")[0]
	cut = strings.Replace(cut, "      - id: h100-tp2\n        model: test/test-model-7b\n        hardware: H100\n        tp: 2\n", "", 1)
	d, err := leaderboard.Decode([]byte(cut), "runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gone, err := Undeclared(dir, d)
	if err != nil {
		t.Fatal(err)
	}
	want := "chat-4rps/h100-tp2.json sweep/h100--conc-1.json sweep/h100--conc-16.json sweep/h100--conc-4.json"
	if got := strings.Join(gone, " "); got != want {
		t.Fatalf("Undeclared = %s\nwant %s", got, want)
	}
	if err := Prune(dir, gone); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sweep")); err == nil {
		t.Error("the emptied group directory stays")
	}
	res, probs, err := leaderboard.ReadResults(os.DirFS(dir))
	if err != nil || len(probs) > 0 || len(res) != 2 || res["chat-4rps/h100-tp1"] == nil || res["chat-4rps/a100-tp1"] == nil {
		t.Errorf("after pruning: %d results %v %v; want the 2 declared ones", len(res), probs, err)
	}
	if left, _ := Undeclared(dir, d); len(left) != 0 {
		t.Errorf("still undeclared after pruning: %v", left)
	}
}

// Results and traces are written below the results directory only: a
// group directory or a trace's directory linked out of it is refused, and
// nothing is written where the link points.
func TestWritesStayBelowTheResultsDirectory(t *testing.T) {
	t.Parallel()
	dir, outside := t.TempDir(), t.TempDir()
	tf := leaderboard.TraceFiles{Format: leaderboard.TraceFormatOTel, Source: []byte(`{"spans": []}`)}
	sum := tf.Hash()
	os.MkdirAll(filepath.Join(dir, "traces"), 0o755)
	os.Symlink(outside, filepath.Join(dir, "traces", sum))
	os.Symlink(outside, filepath.Join(dir, "chat"))
	if err := StoreTraces(filepath.Join(dir, "traces"), map[string]leaderboard.TraceFiles{sum: tf}); err == nil || !strings.Contains(err.Error(), "path escapes from parent") {
		t.Errorf("StoreTraces through a link out: %v", err)
	}
	s := reuseSim(strings.Repeat("c", 40), runFlags())
	s.Harness = runresult.Harness{Commit: strings.Repeat("a", 40), Source: "checkout"}
	r := testRuns(t)[0]
	r.Group = "chat"
	if err := FileResult(dir, s.Simulate(context.Background(), r)); err == nil || !strings.Contains(err.Error(), "path escapes from parent") {
		t.Errorf("FileResult through a link out: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("written outside the results directory: %v", entries)
	}
	// Without links both are written, atomically (no temporary file left).
	clean := t.TempDir()
	if err := StoreTraces(filepath.Join(clean, "traces"), map[string]leaderboard.TraceFiles{sum: tf}); err != nil {
		t.Fatal(err)
	}
	if err := FileResult(clean, s.Simulate(context.Background(), r)); err != nil {
		t.Fatal(err)
	}
	files := slices.Sorted(maps.Keys(testkit.ReadTree(t, clean)))
	if got := strings.Join(files, " "); got != "chat/"+r.ID+".json traces/"+sum+"/otel.json" {
		t.Errorf("files written: %s", got)
	}
}
