package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
)

// TestCompareCommand scores two releases of the stand-in simulator and
// compares them: as result directories, and as snapshots of a dashboard
// checkout.
func TestCompareCommand(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	cache := t.TempDir()
	dash := t.TempDir()
	dirs := map[string]string{}
	for _, tag := range []string{"v0.1.0", "v0.2.0"} {
		dirs[tag] = filepath.Join(dash, "data", "snapshots", tag+"_run-1")
		if _, _, err := runScoreCmd(t, "--harness-dir", hdir, "--sim-repo", repo.Dir, "--sim", tag, "--ledger", testLedger,
			"--catalog", "none", "--cache-dir", cache, "--jobs", "2", "--quiet", "--out", dirs[tag]); err != nil {
			t.Fatal(err)
		}
	}
	compare := func(args ...string) (string, error) {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"compare"}, args...), fakeEnv(nil), &out, &errb)
		return out.String() + errb.String(), err
	}
	byDir, err := compare(dirs["v0.1.0"], dirs["v0.2.0"])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Simulator accuracy: v0.1.0_run-1 → v0.2.0_run-1", "| Δ MAPE |", "model × hardware rows whose MAPE moved", "Scored by both:"} {
		if !strings.Contains(byDir, want) {
			t.Errorf("comparison lacks %q:\n%s", want, byDir)
		}
	}
	byID, err := compare("--dashboard", dash, "v0.1.0_run-1", "v0.2.0_run-1")
	if err != nil || byID != byDir {
		t.Errorf("by snapshot id (%v): differs from by directory:\n%s", err, byID)
	}

	// A run whose points are not its summary's, a snapshot without
	// points.json, an unknown run, one argument.
	if err := os.WriteFile(filepath.Join(dirs["v0.1.0"], "points.json"), []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := compare("--dashboard", dash, "v0.1.0_run-1", "v0.2.0_run-1"); err == nil || !strings.HasPrefix(err.Error(), "compare: run v0.1.0_run-1: ") || !strings.Contains(err.Error(), "holds 0 points") {
		t.Errorf("points not the summary's: %v", err)
	}
	os.Remove(filepath.Join(dirs["v0.1.0"], "points.json"))
	if _, err := compare("--dashboard", dash, "v0.1.0_run-1", "v0.2.0_run-1"); err == nil || !strings.Contains(err.Error(), "has no points.json") {
		t.Errorf("snapshot without points: %v", err)
	}
	if _, err := compare("--dashboard", dash, "nope", "v0.2.0_run-1"); err == nil || !strings.Contains(err.Error(), `run "nope" is neither a result directory`) {
		t.Errorf("unknown run: %v", err)
	}
	if _, err := compare(dirs["v0.2.0"]); !errors.Is(err, cli.ErrUsageShown) {
		t.Errorf("one run: %v, want a usage error", err)
	}
}
