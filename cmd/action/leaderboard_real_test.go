package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
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
		raw, err := os.ReadFile(filepath.Join(dir, "qwen3-14b-chat-8rps", run+".json"))
		if err != nil {
			t.Fatal(err)
		}
		r, err := leaderboard.ParseResult(raw, run)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != want || r.Provenance.Simulator.Tag != "v0.7.15" {
			t.Errorf("v0.7.15 %s: status %s (want %s), tag %q, failure %+v", run, r.Status, want, r.Provenance.Simulator.Tag, r.Failure)
		}
		if run == "h100-tp1" {
			t.Logf("v0.7.15 h100-tp1: TTFT mean %.2f ms, output %.1f tok/s, completed %d", r.BLIS.TTFTMeanMs, r.BLIS.OutputTokensPerS, r.BLIS.Completed)
		}
	}
}
