package ghaction

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// TestNightlyReusesTheLastSnapshot: mode nightly with reuse (the last
// snapshot, as the shipped workflow passes it) takes every prediction whose
// replay digest is unchanged; a snapshot without points reuses nothing and
// says so; reuse outside mode nightly is refused.
func TestNightlyReusesTheLastSnapshot(t *testing.T) {
	hdir, hcommit := harnessRepo(t)
	dash, plan := nightlyDashboard(t, hdir, hcommit)
	cache := t.TempDir()
	fake := githubfake.New(t, githubfake.Options{Token: "test-token"})
	snap1 := filepath.Join(dash, "data", "snapshots", "snap-1")
	nightlyRun := func(reuse string) (head string, s runresult.Summary, points []runresult.Point, log string) {
		t.Helper()
		out, log, err := runNightlyAction(t, fake, dash, cache, map[string]string{"INPUT_MODE": "nightly", "INPUT_PLAN": string(plan.Encode()), "INPUT_REUSE": reuse})
		if err != nil {
			t.Fatalf("nightly (reuse %q): %v\n%s", reuse, err, log)
		}
		head = filepath.Join(out, "head")
		r, err := runresult.Read(head)
		if err != nil {
			t.Fatal(err)
		}
		s, points = r.Summary, r.Points
		return head, s, points, log
	}

	// No snapshot there yet: every point simulated, with a notice.
	head, s, _, log := nightlyRun("data/snapshots/snap-1")
	if s.Coverage.Reused != 0 || !strings.Contains(log, "has no points.json: every point is simulated") {
		t.Fatalf("a missing snapshot: %+v\n%s", s.Coverage, log)
	}
	// That run published as snap-1: the next nightly reuses all of it.
	if err := os.CopyFS(snap1, os.DirFS(head)); err != nil {
		t.Fatal(err)
	}
	_, s, points, _ := nightlyRun("data/snapshots/snap-1")
	if s.Coverage.Scored == 0 || s.Coverage.Reused != s.Coverage.Scored {
		t.Errorf("coverage %+v: want every scored point reused", s.Coverage)
	}
	for _, p := range points {
		if p.Scored && p.ReusedFrom != "snap-1" {
			t.Errorf("%s: reused from %q, want snap-1", p.ID, p.ReusedFrom)
		}
	}

	// Mode merge takes reuse too (the last snapshot, for the bisect hint);
	// the pull-request flow keeps its result cache and refuses it.
	if _, _, err := runNightlyAction(t, fake, dash, cache, map[string]string{"INPUT_MODE": "pr",
		"INPUT_REUSE": "data/snapshots/snap-1"}); err == nil || !strings.Contains(err.Error(), "reuse") {
		t.Errorf("reuse with mode pr: %v", err)
	}
}
