// Package leaderboardtest holds the leaderboard fixtures several packages'
// tests share: one result file read (ReadResult), the results of a results
// directory (the repository's example, docs/examples/leaderboard/results)
// re-sealed as a given simulator build produced them, the declarations of runs
// against the stand-in simulator (StandinRuns), a result re-sealed with a
// figure the stand-in does not give (PlantTTFT) or as someone who can write
// results but not run them leaves it (Reseal), and the traces runs replay
// (WriteTraceV2, CopyTrace), and a repository whose results ran on a pinned
// simulator/catalog pair (PairFixture, WritePairPin). Only tests import it.
package leaderboardtest

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// Results reads every result file under dir (keyed by its slash path
// there, e.g. "chat/h100-tp1.json"), gives each the simulator sim, passes
// it to edit (with its group/run key, the path without ".json"; nil edits
// nothing), recomputes its computed values from its BLIS metrics as a run
// would, and seals and encodes it again.
func Results(t testing.TB, dir string, sim leaderboard.Simulator, edit func(key string, r *leaderboard.Result)) map[string][]byte {
	t.Helper()
	files := testkit.ReadTree(t, dir)
	out := make(map[string][]byte, len(files))
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		r, err := leaderboard.ParseResult(files[rel], rel)
		if err != nil {
			t.Fatal(err)
		}
		r.Provenance.Simulator = sim
		if edit != nil {
			edit(strings.TrimSuffix(rel, ".json"), r)
		}
		if r.BLIS != nil {
			c := leaderboard.Compute(r.Declaration, *r.BLIS)
			r.Computed = &c
		}
		if err := r.Seal(); err != nil {
			t.Fatal(err)
		}
		if out[rel], err = r.Encode(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// ReadResult reads and parses the result file name (a slash path, e.g.
// "chat/h100.json") of the results directory dir.
func ReadResult(t testing.TB, dir, name string) *leaderboard.Result {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := leaderboard.ParseResult(raw, name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// StandinRuns declares runs against the stand-in simulator: a group at one
// Poisson rate with a qualified, a disqualified (half its requests time
// out), a crashing, an unknown-GPU and an unknown-model candidate; and a
// constant-rate sweep.
const StandinRuns = `version: 1
groups:
  - id: chat
    workload:
      requests: 40
      seed: 3
      prompt_tokens: {mean: 256, stdev: 64, min: 16, max: 1024}
      output_tokens: {mean: 64, stdev: 16, min: 8, max: 256}
    load: {arrival: poisson, rate: 4}
    candidates:
      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1}
      - {id: a100-tp2, model: org/test-model-7b, hardware: A100-80, tp: 2, engine: {max_num_seqs: 128}}
      - {id: flaky, model: org/fault-incomplete, hardware: H100, tp: 1}
      - {id: crash, model: org/fault-crash, hardware: H100, tp: 1}
      - {id: h200, model: org/test-model-7b, hardware: H200, tp: 1}
      - {id: nomodel, model: org/no-such-model, hardware: H100, tp: 1}
  - id: sweep
    workload:
      requests: 30
      seed: 1
      prompt_tokens: {mean: 128, stdev: 0, min: 128, max: 128}
      output_tokens: {mean: 32, stdev: 0, min: 32, max: 32}
    load: {arrival: constant, rates: [2, 8]}
    candidates:
      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1, replicas: 2}
    keep_up: {ttft_p99_ms: 10000}
`

// PlantTTFT re-seals the result at path with a mean TTFT of 12345 ms, a
// figure the stand-in simulator does not give: a result reused keeps it, a
// result run again loses it. It returns the new file.
func PlantTTFT(t testing.TB, path string) []byte {
	t.Helper()
	r := ReadResult(t, filepath.Dir(path), filepath.Base(path))
	r.BLIS.TTFTMeanMs = 12345
	return writeSealed(t, path, r)
}

// Reseal rewrites the result file at path as edit leaves a copy of from,
// sealed again (a digest is no signature), with its computed values made
// consistent: what someone who can write results but not run them can do.
func Reseal(t testing.TB, path string, from *leaderboard.Result, edit func(*leaderboard.Result)) {
	t.Helper()
	c := *from
	edit(&c)
	comp := leaderboard.Compute(c.Declaration, *c.BLIS)
	c.Computed = &comp
	writeSealed(t, path, &c)
}

// writeSealed seals r and writes it to path; it returns the file.
func writeSealed(t testing.TB, path string, r *leaderboard.Result) []byte {
	t.Helper()
	if err := r.Seal(); err != nil {
		t.Fatal(err)
	}
	raw, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return raw
}

// WriteTraceV2 writes a small TraceV2 pair into dir, trace.yaml and
// trace.csv: n independent requests, one every 250 ms, 200 tokens in and 40
// out.
func WriteTraceV2(t testing.TB, dir string, n int) {
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

// CopyTrace copies src, a test trace of internal/leaderboard/testdata/traces
// (e.g. otel-one-node.json), into dir as name and returns its bytes.
func CopyTrace(t testing.TB, src, dir, name string) []byte {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "testdata", "traces", src))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return raw
}

// PairFixture writes a leaderboard (runs.yaml, a catalog directory, one
// failed result per declared run, run on simulator sim with that catalog)
// into a temporary repository root and returns the root and the catalog's
// digest.
func PairFixture(t testing.TB, sim string) (string, string) {
	t.Helper()
	root := t.TempDir()
	_, here, _, _ := runtime.Caller(0)
	runsSrc, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "testdata", "runs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	lb := filepath.Join(root, "leaderboard")
	catDir := filepath.Join(lb, "catalog", "models", "m")
	for _, dir := range []string{catDir, filepath.Join(root, ".github")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(lb, "runs.yaml"), runsSrc, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(catDir, "config.json"), []byte(`{"num_hidden_layers": 40}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := harness.DirVersion(context.Background(), "catalog", filepath.Join(lb, "catalog"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := leaderboard.Decode(runsSrc, "runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Runs() {
		res := &leaderboard.Result{Group: r.Group, Run: r.ID, Declaration: r, Command: []string{"blis", "run"},
			Provenance: leaderboard.Provenance{Simulator: leaderboard.Simulator{Commit: sim}, Catalog: &cat,
				Harness: runresult.Harness{Commit: strings.Repeat("a", 40), Source: "checkout", Version: "dev"}},
			Status: leaderboard.StatusFailed, Failure: &leaderboard.Failure{Reason: "simulator-crash", Message: "exit status 2"}}
		dir := filepath.Join(lb, "results", r.Group)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeSealed(t, filepath.Join(dir, r.ID+".json"), res)
	}
	return root, cat.Digest
}

// WritePairPin writes root's .github/accuracy-harness.yaml pinning the
// leaderboard pair of simulator sim and the catalog leaderboard/catalog at
// digest.
func WritePairPin(t testing.TB, root, sim, digest string) {
	t.Helper()
	src := "harness:\n  repository: inference-sim/accuracy-dashboard\n  tag: v1.0.0\n  commit: " + strings.Repeat("0", 40) + "\n" +
		"leaderboard:\n  simulator:\n    repository: inference-sim/inference-sim\n    commit: " + sim + "\n" +
		"  catalog:\n    source: leaderboard/catalog\n    digest: " + digest + "\n"
	if err := os.WriteFile(filepath.Join(root, ".github", "accuracy-harness.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}
