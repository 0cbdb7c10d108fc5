package lbrun

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/pool"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// BenchmarkLeaderboardRun compares `leaderboard run`'s core (plan, run,
// parse, compute, seal and write every result) with running the same
// `blis run` command lines directly on the same number of workers, started
// in declaration order the way `xargs -P N` would. overhead-ratio is
// leaderboard/direct; comparing the jobs=1 and jobs=2 sub-benchmarks gives
// the speed-up from --jobs. With BLIS_SOURCE it runs the real simulator at
// f90a1e3a on the example declaration (docs/examples/leaderboard: 17 runs of
// unequal cost, a load sweep to 64 req/s, one failing); otherwise the
// stand-in on the package's test declaration, which measures fixed costs.
//
//	go test ./internal/leaderboard/lbrun -run '^$' -bench LeaderboardRun -benchtime 3x
//	BLIS_SOURCE=/path/to/inference-sim go test ./internal/leaderboard/lbrun -run '^$' -bench LeaderboardRun -benchtime 1x
func BenchmarkLeaderboardRun(b *testing.B) {
	sim, runs := benchSim(b)
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			ctx := context.Background()
			var lbTime, directTime time.Duration
			for n := 0; n < b.N; n++ {
				out := b.TempDir()
				t0 := time.Now()
				for _, r := range sim.RunAll(ctx, runs, jobs, nil) {
					raw, err := r.Encode()
					if err != nil {
						b.Fatal(err)
					}
					os.MkdirAll(filepath.Join(out, r.Group), 0o755)
					if err := os.WriteFile(filepath.Join(out, r.Group, r.Run+".json"), raw, 0o644); err != nil {
						b.Fatal(err)
					}
				}
				lbTime += time.Since(t0)
				directTime += runDirect(b, sim, runs, jobs)
			}
			b.ReportMetric(float64(len(runs)), "runs")
			b.ReportMetric(lbTime.Seconds()/float64(b.N), "leaderboard-s/op")
			b.ReportMetric(directTime.Seconds()/float64(b.N), "direct-s/op")
			b.ReportMetric(float64(lbTime)/float64(directTime), "overhead-ratio")
		})
	}
}

// benchSim builds the simulator (real with BLIS_SOURCE, else the stand-in)
// and returns it probed, with the runs of the matching declaration.
func benchSim(b *testing.B) (*Sim, []leaderboard.DeclaredRun) {
	b.Helper()
	ctx := context.Background()
	repo, ref, declPath := "", "", "../testdata/runs.yaml"
	if src := os.Getenv("BLIS_SOURCE"); src != "" {
		repo, ref, declPath = src, "f90a1e3a6787da17c2cd463dab6fb2660b1b1760", "../../../docs/examples/leaderboard/runs.yaml"
	} else {
		s := harnesstest.StandinRepo(b)
		repo, ref = s.Dir, s.V020
	}
	cache := os.Getenv("BENCH_CACHE")
	if cache == "" {
		cache = b.TempDir()
	}
	bld, err := (&harness.Builder{CacheDir: cache}).Build(ctx, repo, ref)
	if err != nil {
		b.Fatal(err)
	}
	flags, err := harness.ProbeCommand(ctx, bld.Binary, bld.DataDir, "run")
	if err != nil {
		b.Fatal(err)
	}
	src, err := os.ReadFile(declPath)
	if err != nil {
		b.Fatal(err)
	}
	d, err := leaderboard.Decode(src, declPath)
	if err != nil {
		b.Fatal(err)
	}
	return &Sim{Build: bld, RunFlags: flags, WorkDir: b.TempDir(), Harness: runresult.Harness{Commit: strings.Repeat("a", 40), Source: "checkout"}}, d.Runs()
}

// runDirect runs the planned command of every run straight through the
// binary (its input files written beforehand, outside the timing), on jobs
// workers in declaration order, and returns the wall time.
func runDirect(b *testing.B, s *Sim, runs []leaderboard.DeclaredRun, jobs int) time.Duration {
	b.Helper()
	var cmds [][]string
	for _, r := range runs {
		inv, err := s.Plan(r)
		if err != nil {
			continue // a run that fails before starting costs the leaderboard nothing either
		}
		dir := b.TempDir()
		for name, content := range inv.Inputs {
			os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
		}
		args := make([]string, len(inv.Args))
		for i, a := range inv.Args {
			args[i] = strings.ReplaceAll(a, leaderboard.RunDirPlaceholder, dir)
		}
		cmds = append(cmds, args)
	}
	t0 := time.Now()
	// Equal costs: declaration order.
	pool.Run(context.Background(), jobs, make([]float64, len(cmds)), func(_ context.Context, k int) {
		cmd := exec.Command(s.Build.Binary, cmds[k]...)
		cmd.Dir = s.Build.DataDir
		_ = cmd.Run() // a failing run (unknown GPU) fails the same way for both
	})
	return time.Since(t0)
}
