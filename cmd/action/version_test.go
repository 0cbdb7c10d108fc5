package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// An installed binary (built as a release builds it, with its commit and
// version linked in, into a directory of its own) runs the leaderboard
// commands from a directory outside any checkout: run records the
// binary's own identity, validate and render accept what it wrote.
func TestInstalledBinaryRunsOutsideACheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/action")
	}
	const stated = "0123456789abcdef0123456789abcdef01234567"
	bin := filepath.Join(t.TempDir(), "action")
	build := exec.Command("go", "build", "-buildvcs=false", "-ldflags", "-X main.commit="+stated+" -X main.version=v9.8.7", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	e := newLBEnv(t)
	work := t.TempDir() // no go.mod at or above it
	os.WriteFile(filepath.Join(work, "runs.yaml"), []byte(strings.Split(standinRuns, "      - {id: a100-tp2")[0]), 0o644)
	// The simulator is built with the test's Go caches (a HOME of its
	// own would start them empty).
	goenv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	caches := strings.Fields(string(goenv))
	action := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"leaderboard"}, args...)...)
		cmd.Dir = work
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GOCACHE=" + caches[0], "GOMODCACHE=" + caches[1]}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := action("run", "--runs", "runs.yaml", "--sim", "v0.2.0", "--sim-repo", e.repo.Dir, "--cache-dir", e.cache, "--quiet", "--jobs", "2"); err != nil {
		t.Fatalf("run outside a checkout: %v\n%s", err, out)
	}
	res := leaderboardtest.ReadResult(t, filepath.Join(work, "results"), "chat/h100.json")
	if want := (runresult.Harness{Commit: stated, Source: runresult.HarnessAssertion, Version: "v9.8.7"}); res.Provenance.Harness != want || res.Status != leaderboard.StatusOK {
		t.Errorf("the result records the tool %+v (status %s); want the binary's own %+v", res.Provenance.Harness, res.Status, want)
	}
	if out, err := action("validate", "--runs", "runs.yaml", "--sim", e.repo.V020); err != nil || !strings.Contains(out, "ok: 1 results") {
		t.Errorf("validate outside a checkout: %v\n%s", err, out)
	}
	if out, err := action("render", "--runs", "runs.yaml", "--out", "page"); err != nil {
		t.Errorf("render outside a checkout: %v\n%s", err, out)
	} else if _, err := os.Stat(filepath.Join(work, "page", "index.html")); err != nil {
		t.Errorf("render wrote no page: %v", err)
	}
}
