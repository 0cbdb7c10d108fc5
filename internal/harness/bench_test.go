package harness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"

	"github.com/inference-sim/accuracy-dashboard/corpus"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// BenchmarkHarnessOverhead compares the harness's wall time on the points of
// the test ledger with running the same simulations directly (the same
// binary, the same traces and flags, one after another). The ratio
// harness/direct is the harness's overhead: workload generation, trace
// writing, process management and output parsing.
//
//	go test ./internal/harness -run '^$' -bench HarnessOverhead -benchtime 5x
func BenchmarkHarnessOverhead(b *testing.B) {
	o := benchOpts(b)
	o.Jobs = 1
	ctx := context.Background()
	res, err := Score(ctx, o)
	if err != nil {
		b.Fatal(err)
	}
	// Prepare the direct runs: the exact command lines the harness uses.
	runner := &Runner{Build: res.Build, Caps: res.Caps, Catalog: o.Catalog, WorkDir: b.TempDir()}
	type direct struct{ args []string }
	var cmds []direct
	for ui := range o.Ledger.Units {
		u := &o.Ledger.Units[ui]
		for i := range u.Points {
			if u.Points[i].Excluded != "" {
				continue
			}
			tr, _ := Generate(u, i)
			args, err := runner.args(u, i, tr)
			if err != nil {
				b.Fatal(err)
			}
			dir := filepath.Join(runner.WorkDir, fmt.Sprintf("%s-%d", filepath.Base(u.ID), i))
			os.MkdirAll(dir, 0o755)
			h, d := filepath.Join(dir, "h.yaml"), filepath.Join(dir, "d.csv")
			if err := WriteTrace(tr, h, d); err != nil {
				b.Fatal(err)
			}
			cmds = append(cmds, direct{append(args, "--trace-header", h, "--trace-data", d, "--metrics-path", filepath.Join(dir, "m.json"))})
		}
	}
	var harnessTime, directTime time.Duration
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		t0 := time.Now()
		if _, err := Score(ctx, o); err != nil {
			b.Fatal(err)
		}
		harnessTime += time.Since(t0)
		t1 := time.Now()
		for _, c := range cmds {
			cmd := exec.Command(res.Build.Binary, c.args...)
			cmd.Dir = res.Build.DataDir
			_ = cmd.Run() // some points fail on purpose (unknown hardware), as in the harness
		}
		directTime += time.Since(t1)
	}
	b.ReportMetric(float64(len(cmds)), "points")
	b.ReportMetric(harnessTime.Seconds()/float64(b.N), "harness-s/op")
	b.ReportMetric(directTime.Seconds()/float64(b.N), "direct-s/op")
	b.ReportMetric(float64(harnessTime)/float64(directTime), "overhead-ratio")
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

// benchOpts scores the test ledger with the stand-in or, when BLIS_SOURCE
// names a clone of the real simulator, the default corpus's H100 TP4 1k/1k
// sweep with BLIS at f90a1e3a (BLIS_UNITS picks other units).
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
		units := []string{"inferencex/gpt-oss-120b/h100/tp4/isl1024-osl1024"}
		if u := os.Getenv("BLIS_UNITS"); u != "" {
			units = strings.Split(u, ",")
		}
		sel, err := SelectUnits(l.Units, units)
		if err != nil {
			b.Fatal(err)
		}
		l.Units = sel
		return Options{HarnessDir: hdir, SimRepo: src, SimRef: "f90a1e3a6787da17c2cd463dab6fb2660b1b1760", Ledger: l, Catalog: catalog, CacheDir: cache, PointTimeout: 20 * time.Minute}
	}
	repo := harnesstest.StandinRepo(b)
	return Options{HarnessDir: hdir, SimRepo: repo.Dir, SimRef: "v0.2.0", Ledger: testLedger(b, "ledger"), CacheDir: cache, PointTimeout: time.Minute}
}
