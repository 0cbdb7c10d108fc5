package lbrun

import (
	"os"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
)

// reuseSim is a probed build as Plan sees it, without running anything:
// the stand-in's source tree holds the model configs.
func reuseSim(commit string, flags simcli.Flags) *Sim {
	return &Sim{Build: &harness.Build{Commit: commit, DataDir: harnesstest.Dir()}, RunFlags: flags}
}

func runFlags(extra ...string) simcli.Flags {
	f := simcli.Flags{}
	for _, n := range append(append([]string{}, leaderboard.RunNeeds...), extra...) {
		f[n] = true
	}
	return f
}

func TestReuse(t *testing.T) {
	t.Parallel()
	commit := strings.Repeat("c", 40)
	flags := runFlags("workload-spec", "concurrency", "num-instances", "max-num-seqs")
	s := reuseSim(commit, flags)
	runs := testRuns(t)
	a100 := runs[1] // chat-4rps/a100-tp1: Poisson (a workload spec input), max_num_seqs 64
	if a100.ID != "a100-tp1" {
		t.Fatalf("test declaration changed: %s", a100.ID)
	}
	// prev is what running a100 on s would file (failed or ok alike:
	// reuse looks at what ran, not at the figures).
	filed := func(s *Sim, r leaderboard.DeclaredRun) *leaderboard.Result {
		inv, err := s.Plan(r)
		if err != nil {
			t.Fatal(err)
		}
		return seal(s.result(r, inv))
	}
	prev := filed(s, a100)
	if ok, why := s.Reuse(prev, a100); !ok {
		t.Fatalf("an unchanged run is not reused: %s", why)
	}

	changedDecl := a100
	seqs := 32
	changedDecl.Candidate.Engine = &leaderboard.Engine{MaxNumSeqs: &seqs}
	timedOut := filed(s, a100)
	timedOut.Status, timedOut.Failure = leaderboard.StatusFailed, &leaderboard.Failure{Reason: harness.ReasonTimeout, Message: "killed after 15m"}
	withCatalog := reuseSim(commit, flags)
	withCatalog.CatalogVersion = &runresult.DataVersion{Name: "catalog", Version: "1", Digest: "sha256:" + strings.Repeat("d", 64)}
	for name, tt := range map[string]struct {
		s    *Sim
		prev *leaderboard.Result
		run  leaderboard.DeclaredRun
		want string
	}{
		"declaration": {s, prev, changedDecl, "the declaration changed (candidate.engine.max_num_seqs: 64 → 32)"},
		"simulator":   {reuseSim(strings.Repeat("e", 40), flags), prev, a100, "it ran on simulator " + commit},
		"catalog":     {withCatalog, prev, a100, "it ran with catalog none, this run has sha256:dddd"},
		// v0.7.15 names the setting --max-num-running-reqs: same
		// declaration and commit, another command line.
		"command line": {reuseSim(commit, runFlags("workload-spec", "max-num-running-reqs")), prev, a100, "the command line changed ("},
		"timed out":    {s, timedOut, a100, "it timed out (simulator-timeout)"},
		"unplannable":  {reuseSim(commit, runFlags()), prev, a100, "it cannot be planned on this build (simulator-build-unsupported: "},
	} {
		ok, why := tt.s.Reuse(tt.prev, tt.run)
		if ok || !strings.HasPrefix(why, tt.want) {
			t.Errorf("%s: Reuse = %v, %q; want false, %q…", name, ok, why, tt.want)
		}
	}
}

func testRuns(t *testing.T) []leaderboard.DeclaredRun {
	t.Helper()
	src, err := os.ReadFile("../testdata/runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := leaderboard.Decode(src, "runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return d.Runs()
}
