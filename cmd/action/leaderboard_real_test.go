package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
)

const exampleRuns = "../../docs/examples/leaderboard/runs.yaml"

// TestLeaderboardExampleWithRealBLIS is opt-in: BLIS_SOURCE names a clone of
// the simulator. It validates the committed example against the commit it
// pins, verifies that every committed result reproduces exactly at
// f90a1e3a, and runs one group at v0.7.15.
//
//	BLIS_SOURCE=../inference-sim go test ./cmd/action -run RealBLIS -v -timeout 30m
func TestLeaderboardExampleWithRealBLIS(t *testing.T) {
	src := os.Getenv("BLIS_SOURCE")
	if src == "" {
		t.Skip("BLIS_SOURCE not set")
	}
	e := &lbEnv{t: t, cache: t.TempDir(), runs: exampleRuns}
	if out, err := e.cmd("validate", "--runs", exampleRuns, "--sim", "f90a1e3a6787da17c2cd463dab6fb2660b1b1760"); err != nil {
		t.Fatalf("validate: %v\n%s", err, out)
	}
	out, err := e.cmd("verify", "--runs", exampleRuns, "--sim-repo", src, "--cache-dir", e.cache, "--jobs", "2", "--quiet")
	if err != nil || !strings.Contains(out, "verified: 17 results reproduce exactly") {
		t.Fatalf("verify: %v\n%s", err, out)
	}

	hdir, _ := harnesstest.HarnessCheckout(t)
	dir := t.TempDir()
	out, err = e.cmd("run", "--runs", exampleRuns, "--sim-repo", src, "--sim", "v0.7.15", "--only", "qwen3-14b-chat-8rps",
		"--harness-dir", hdir, "--cache-dir", e.cache, "--jobs", "2", "--quiet", "--out", dir)
	if err != nil {
		t.Fatalf("run at v0.7.15: %v\n%s", err, out)
	}
	for run, want := range map[string]string{"h100-tp1": leaderboard.StatusOK, "h100-tp1-len1k": leaderboard.StatusOK, "h200-tp1": leaderboard.StatusFailed} {
		r := leaderboardtest.ReadResult(t, dir, "qwen3-14b-chat-8rps/"+run+".json")
		if r.Status != want || r.Provenance.Simulator.Tag != "v0.7.15" {
			t.Errorf("v0.7.15 %s: status %s (want %s), tag %q, failure %+v", run, r.Status, want, r.Provenance.Simulator.Tag, r.Failure)
		}
		if run == "h100-tp1" {
			t.Logf("v0.7.15 h100-tp1: TTFT mean %.2f ms, output %.1f tok/s, completed %d", r.BLIS.TTFTMeanMs, r.BLIS.OutputTokensPerS, r.BLIS.Completed)
		}
	}
}

// otelPRBuild is the simulator's pull request build with `blis convert
// otel` (inference-sim #1485, refs/pull/1485/merge).
const otelPRBuild = "0e5805d754e4edc8af9625b3c98644313e5ffadc"

const otelRealRuns = `version: 1
groups:
  - id: otel-recorded
    workload: {trace: {format: otel, file: traces/agent.json}}
    load: {arrival: recorded}
    candidates:
      - {id: h100-tp1, model: qwen/qwen3-14b, hardware: H100, tp: 1}
      - {id: a100-tp1, model: qwen/qwen3-14b, hardware: A100-80, tp: 1}
`

// TestLeaderboardOTelWithRealBLIS is opt-in (BLIS_SOURCE, a clone that has
// the pull request commit otelPRBuild): an OpenTelemetry agentic trace of
// this repository's making (internal/leaderboard/testdata, 5 LLM calls in
// 2 sessions) is converted by that build's own `blis convert otel`,
// replayed at its recorded arrivals, ranked and verified.
//
//	BLIS_SOURCE=../inference-sim go test ./cmd/action -run OTelWithRealBLIS -v -timeout 30m
func TestLeaderboardOTelWithRealBLIS(t *testing.T) {
	src := os.Getenv("BLIS_SOURCE")
	if src == "" {
		t.Skip("BLIS_SOURCE not set")
	}
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs.yaml")
	os.WriteFile(runs, []byte(otelRealRuns), 0o644)
	os.MkdirAll(filepath.Join(dir, "traces"), 0o755)
	leaderboardtest.CopyTrace(t, "otel-one-node.json", filepath.Join(dir, "traces"), "agent.json")
	e := &lbEnv{t: t, cache: t.TempDir(), runs: runs, results: filepath.Join(dir, "results")}
	hdir, _ := harnesstest.HarnessCheckout(t)
	sim := []string{"--sim-repo", src, "--cache-dir", e.cache, "--jobs", "2", "--quiet", "--timeout", "30m"}
	if out, err := e.cmd(append([]string{"run", "--runs", runs, "--sim", otelPRBuild, "--harness-dir", hdir}, sim...)...); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	h100, a100 := leaderboardtest.ReadResult(t, e.results, "otel-recorded/h100-tp1.json"), leaderboardtest.ReadResult(t, e.results, "otel-recorded/a100-tp1.json")
	for _, r := range []*leaderboard.Result{h100, a100} {
		if r.Status != leaderboard.StatusOK || r.BLIS.Injected != 5 || r.BLIS.Completed != 5 || r.Computed.OutputTokensPerServedRequest.Value != 124 {
			t.Fatalf("%s: %s %+v %+v; want ok, 5 of 5 calls, 124 output tokens per call (the trace's 620 / 5)", r.Run, r.Status, r.Failure, r.BLIS)
		}
		if c := strings.Join(r.Convert, " "); !strings.HasPrefix(c, "blis convert otel --input {traces}/") || !strings.HasSuffix(c, "--context-growth accumulate") {
			t.Errorf("%s: convert %q", r.Run, c)
		}
	}
	t.Logf("H100 TTFT mean %.2f ms, E2E mean %.1f ms; A100-80 %.2f ms, %.1f ms", h100.BLIS.TTFTMeanMs, h100.BLIS.E2EMeanMs, a100.BLIS.TTFTMeanMs, a100.BLIS.E2EMeanMs)
	if h100.BLIS.TTFTMeanMs >= a100.BLIS.TTFTMeanMs {
		t.Errorf("H100 TTFT %.2f ms not below A100-80's %.2f ms", h100.BLIS.TTFTMeanMs, a100.BLIS.TTFTMeanMs)
	}
	out, err := e.cmd("render", "--runs", runs)
	if err != nil || !strings.Contains(out, "| h100-tp1 | qwen/qwen3-14b | H100 | 1 | default | 1 | 33.1 (#1)") {
		t.Errorf("render: %v\n%s", err, out)
	}
	if out, err := e.cmd(append([]string{"verify", "--runs", runs}, sim...)...); err != nil || !strings.Contains(out, "verified: 2 results reproduce exactly") {
		t.Errorf("verify: %v\n%s", err, out)
	}
}
