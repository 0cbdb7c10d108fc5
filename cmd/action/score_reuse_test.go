package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// TestScoreReuse: 'score --reuse DIR' takes every prediction of an
// earlier result directory whose replay digest is unchanged: the files are
// those of a run without reuse but for the reuse record (reused_from, the
// reused count and its line in the table's provenance).
func TestScoreReuse(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	cache := t.TempDir()
	earlier, later := filepath.Join(t.TempDir(), "snapshot-1"), t.TempDir()
	args := []string{"--harness-dir", hdir, "--sim-repo", repo.Dir, "--sim", "v0.2.0", "--ledger", testLedger,
		"--catalog", "none", "--cache-dir", cache, "--jobs", "2", "--quiet"}
	if _, stderr, err := runScoreCmd(t, append(args, "--out", earlier)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	stdout, stderr, err := runScoreCmd(t, append(args, "--out", later, "--reuse", earlier)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "- Simulated in this run: 0 of the 9 scored points; 9 reused from an earlier run") {
		t.Errorf("the table does not count the reused points:\n%s", stdout)
	}
	rr, err := runresult.Read(later)
	s, pts := rr.Summary, rr.Points
	if err != nil {
		t.Fatal(err)
	}
	if s.Coverage.Reused != 9 {
		t.Errorf("coverage %+v, want 9 reused", s.Coverage)
	}
	for _, p := range pts {
		if p.Scored != (p.ReusedFrom == "snapshot-1") {
			t.Errorf("%s: scored %v, reused from %q", p.ID, p.Scored, p.ReusedFrom)
		}
	}
	raw := func(dir, f string) string {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	strip := strings.NewReplacer(`    "reused_from": "snapshot-1",`+"\n", "", `,`+"\n"+`    "reused": 9`, "")
	if a, b := raw(earlier, runresult.PointsFile), strip.Replace(raw(later, runresult.PointsFile)); a != b {
		t.Errorf("points.json with reuse, the reuse record taken out, differs from the run without")
	}
	if a, b := raw(earlier, runresult.SummaryFile), strip.Replace(raw(later, runresult.SummaryFile)); a != b {
		t.Errorf("summary.json with reuse, the reuse count taken out, differs:\n%s\n---\n%s", a, b)
	}

	// A directory that is no result, and a prebuilt binary, are refused.
	if _, _, err := runScoreCmd(t, append(args, "--reuse", t.TempDir())...); err == nil || !strings.Contains(err.Error(), "--reuse") {
		t.Errorf("--reuse of an empty directory: %v", err)
	}
	if _, _, err := runScoreCmd(t, "--sim-bin", "/bin/true", "--reuse", earlier); cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), "--reuse needs a build") {
		t.Errorf("--reuse with --sim-bin: %v, want a usage error", err)
	}
}
