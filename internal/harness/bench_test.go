package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"

	"github.com/inference-sim/accuracy-dashboard/corpus"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/pool"
)

// BenchmarkHarnessOverhead compares the harness's wall time with running the
// same simulations directly: the same binary, the same input files and
// command lines, on the same number of workers, started in corpus order the
// way `xargs -P N` would (direct-s/op), and, for reference, started longest
// first (direct-lpt-s/op). overhead-ratio is harness/direct: workload
// generation, file writing, process management, output parsing and the
// schedule. With BLIS_SOURCE it runs the real simulator at f90a1e3a on the
// 43 gpt-oss-120b H100 points of the bundled corpus (a realistic mix: 1k/1k,
// 1k/8k and 8k/1k at concurrency 4 to 64, TP2 to TP8); otherwise the
// stand-in on the test ledger, which measures the fixed costs only.
//
//	go test ./internal/harness -run '^$' -bench HarnessOverhead -benchtime 1x
//	BLIS_SOURCE=/path/to/inference-sim go test ./internal/harness -run '^$' -bench HarnessOverhead -benchtime 1x -timeout 60m
//
// BENCH_JOBS lists the worker counts (default 1,2 with the stand-in, 2 with
// BLIS); BENCH_RUNS_OUT names a CSV file that receives every run's expected
// cost and time. Each iteration runs every pass twice, in ABBA order.
func BenchmarkHarnessOverhead(b *testing.B) {
	for _, jobs := range benchJobs(b) {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			o := benchOpts(b)
			o.Jobs = jobs
			ctx := context.Background()
			bld, caps := benchBuild(b, o)
			cmds := directCommands(b, o, bld, caps)
			var harnessTime, directTime, lptTime, serial time.Duration
			durations := make([]time.Duration, len(cmds))
			b.ResetTimer()
			timeHarness := func() time.Duration {
				t0 := time.Now()
				if _, err := Score(ctx, o); err != nil {
					b.Fatal(err)
				}
				return time.Since(t0)
			}
			for n := 0; n < b.N; n++ {
				// The passes run in ABBA order (harness, direct, longest
				// first, then the same three reversed), so a load that
				// drifts steadily during an iteration weighs on every kind
				// of pass equally: a shared machine cannot favour one side.
				harnessTime += timeHarness()
				directTime += runDirect(bld, cmds, jobs, false, durations)
				lptTime += runDirect(bld, cmds, jobs, true, nil)
				lptTime += runDirect(bld, cmds, jobs, true, nil)
				directTime += runDirect(bld, cmds, jobs, false, nil)
				harnessTime += timeHarness()
				for _, d := range durations {
					serial += d
				}
			}
			passes := float64(2 * b.N)
			costs := make([]float64, len(cmds))
			secs := make([]float64, len(cmds))
			var runs strings.Builder
			runs.WriteString("run,point,expected_cost,seconds\n")
			for k, c := range cmds {
				costs[k], secs[k] = c.cost, durations[k].Seconds()
				fmt.Fprintf(&runs, "%d,%s,%.6g,%.3f\n", k, c.point, c.cost, secs[k])
			}
			// Every run's cost and time, for checking the cost model
			// (b.Logf output is cut after a few lines).
			if out := os.Getenv("BENCH_RUNS_OUT"); out != "" {
				if err := os.WriteFile(out, []byte(runs.String()), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(cmds)), "runs")
			b.ReportMetric(harnessTime.Seconds()/passes, "harness-s/op")
			b.ReportMetric(directTime.Seconds()/passes, "direct-s/op")
			b.ReportMetric(lptTime.Seconds()/passes, "direct-lpt-s/op")
			b.ReportMetric(float64(harnessTime)/float64(directTime), "overhead-ratio")
			// serial-s/op is the sum of the runs' own times: what --jobs 1
			// would take at best; serial/harness is the speed-up of --jobs.
			b.ReportMetric(serial.Seconds()/float64(b.N), "serial-s/op")
			b.ReportMetric(serial.Seconds()/float64(b.N)/(harnessTime.Seconds()/passes), "jobs-speedup")
			// How well the expected cost orders the runs by their time
			// (Spearman's rank correlation, 1 = the same order).
			b.ReportMetric(spearman(costs, secs), "cost-time-rank-corr")
		})
	}
}

// benchBuild builds (or takes from the cache) and probes the simulator the
// benchmark scores.
func benchBuild(b *testing.B, o Options) (*Build, Capabilities) {
	b.Helper()
	bld, err := (&Builder{CacheDir: o.CacheDir}).Build(context.Background(), o.SimRepo, o.SimRef)
	if err != nil {
		b.Fatal(err)
	}
	caps, err := Probe(context.Background(), bld.Binary, bld.DataDir)
	if err != nil {
		b.Fatal(err)
	}
	return bld, caps
}

type directCommand struct {
	args  []string
	cost  float64
	point string
}

// directCommands writes the input files of every point the harness runs and
// returns the harness's own command lines for them, in corpus order.
func directCommands(b *testing.B, o Options, bld *Build, caps Capabilities) []directCommand {
	b.Helper()
	runner := &Runner{Build: bld, Caps: caps, Catalog: o.Catalog, Registry: o.Registry, WorkDir: b.TempDir()}
	units, err := SelectUnits(o.Ledger.Units, o.Units)
	if err != nil {
		b.Fatal(err)
	}
	var cmds []directCommand
	for _, j := range planJobs(units, o.Shard) {
		u, i := j.unit, j.index
		if u.Points[i].Excluded != "" {
			continue
		}
		tr, err := Generate(u, i)
		if err != nil {
			b.Fatal(err)
		}
		driver, _ := caps.DriverFor(tr.ClosedLoop)
		if driver == DriverNone {
			continue
		}
		dir := filepath.Join(runner.WorkDir, strconv.Itoa(len(cmds)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		args, _, err := runner.Command(driver, u, i, tr, dir)
		if err != nil {
			continue // the harness does not run it either
		}
		cmds = append(cmds, directCommand{args: args, cost: j.cost, point: u.PointID(i)})
	}
	return cmds
}

// spearman is the rank correlation of x and y (no tie correction).
func spearman(x, y []float64) float64 {
	rank := func(v []float64) []float64 {
		idx := pool.LongestFirst(v) // decreasing order
		r := make([]float64, len(v))
		for k, i := range idx {
			r[i] = float64(k)
		}
		return r
	}
	rx, ry := rank(x), rank(y)
	n := float64(len(x))
	if n < 2 {
		return 1
	}
	var d2 float64
	for k := range rx {
		d2 += (rx[k] - ry[k]) * (rx[k] - ry[k])
	}
	return 1 - 6*d2/(n*(n*n-1))
}

// runDirect runs the commands on `jobs` workers, in the given order or
// longest first, and returns the wall time; durations, when not nil,
// receives each command's own time. Runs that fail (unknown GPU, a model too
// big) fail as they do under the harness.
func runDirect(bld *Build, cmds []directCommand, jobs int, longestFirst bool, durations []time.Duration) time.Duration {
	// Equal costs keep the given order (pool.LongestFirst is stable).
	costs := make([]float64, len(cmds))
	if longestFirst {
		for k, c := range cmds {
			costs[k] = c.cost
		}
	}
	t0 := time.Now()
	pool.Run(context.Background(), jobs, costs, func(_ context.Context, k int) {
		cmd := exec.Command(bld.Binary, cmds[k].args...)
		cmd.Dir = bld.DataDir
		t0 := time.Now()
		_ = cmd.Run()
		if durations != nil {
			durations[k] = time.Since(t0)
		}
	})
	return time.Since(t0)
}

// BenchmarkScoreJobs shows the speed-up from running simulations in parallel.
//
//	go test ./internal/harness -run '^$' -bench ScoreJobs -benchtime 5x
func BenchmarkScoreJobs(b *testing.B) {
	for _, jobs := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			o := benchOpts(b)
			o.Jobs = jobs
			if _, err := Score(context.Background(), o); err != nil { // warm the build cache
				b.Fatal(err)
			}
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				if _, err := Score(context.Background(), o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchJobs(b *testing.B) []int {
	spec := os.Getenv("BENCH_JOBS")
	if spec == "" {
		if os.Getenv("BLIS_SOURCE") != "" {
			return []int{2}
		}
		return []int{1, 2}
	}
	var out []int
	for _, f := range strings.Split(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("BENCH_JOBS=%q: want positive integers separated by commas", spec)
		}
		out = append(out, n)
	}
	return out
}

// benchOpts scores the test ledger with the stand-in or, when BLIS_SOURCE
// names a clone of the real simulator, the bundled corpus's gpt-oss-120b
// H100 points with BLIS at f90a1e3a (BLIS_UNITS picks other units, BLIS_REF
// another build).
func benchOpts(b *testing.B) Options {
	b.Helper()
	hdir, _ := harnesstest.HarnessCheckout(b)
	cache := sharedCache(b)
	if src := os.Getenv("BLIS_SOURCE"); src != "" {
		l, err := ledger.Load(corpus.Ledger())
		if err != nil {
			b.Fatal(err)
		}
		catalog := b.TempDir()
		if err := os.CopyFS(catalog, corpus.Catalog()); err != nil {
			b.Fatal(err)
		}
		units := []string{"inferencex/gpt-oss-120b/h100"}
		if u := os.Getenv("BLIS_UNITS"); u != "" {
			units = strings.Split(u, ",")
		}
		ref := "f90a1e3a6787da17c2cd463dab6fb2660b1b1760"
		if r := os.Getenv("BLIS_REF"); r != "" {
			ref = r
		}
		return Options{HarnessDir: hdir, SimRepo: src, SimRef: ref, Ledger: l, Units: units, Catalog: catalog, CacheDir: cache, PointTimeout: 20 * time.Minute}
	}
	repo := harnesstest.StandinRepo(b)
	return Options{HarnessDir: hdir, SimRepo: repo.Dir, SimRef: "v0.2.0", Ledger: testLedger(b, "ledger"), CacheDir: cache, PointTimeout: time.Minute}
}
