package prcheck

import (
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

const (
	harnessCommit = "1111111111111111111111111111111111111111"
	headSHA       = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	baseSHA       = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// pt is a compact point: id, tier, measured TTFT/TPOT, predicted TTFT/TPOT
// (predicted 0 = not scored).
type pt struct {
	id, tier  string
	load      int
	mt, mp    float64
	pttf, ptp float64
}

// mkRun builds a runresult.Result of simulator commit sim whose summary is
// runresult.Summarize of its points, as the harness writes it.
func mkRun(t *testing.T, sim string, pts ...pt) runresult.Result {
	t.Helper()
	var points []runresult.Point
	for _, p := range pts {
		rp := runresult.Point{ID: p.id, Unit: "unit-" + p.id[:1], Model: "m", Hardware: "h", Load: runresult.Load{Concurrency: p.load},
			Tier: p.tier, Measured: metric.Values{"ttft_ms": p.mt, "tpot_ms": p.mp}}
		if p.pttf > 0 {
			rp.Scored = true
			rp.Predicted = metric.Values{"ttft_ms": p.pttf, "tpot_ms": p.ptp}
		} else {
			rp.Reason = "sim_error"
		}
		points = append(points, rp)
	}
	prov := runresult.Provenance{
		Harness:   runresult.Harness{Commit: harnessCommit, Source: runresult.HarnessCheckout, Version: "v1.2.0"},
		Simulator: runresult.Simulator{Repo: "/sim", Ref: sim, Commit: sim, BuiltByHarness: true, Driver: "replay"},
		Ledger:    runresult.DataVersion{Name: "bundled", Version: "v1", Digest: "sha256:" + strings.Repeat("01", 32), Release: true},
	}
	sum, err := runresult.Summarize(points, prov, nil)
	if err != nil {
		t.Fatal(err)
	}
	return runresult.Result{Summary: sum, Points: runresult.SortPoints(points)}
}

// writeRun writes a runresult.Result as a harness result directory with runresult.Write,
// which checks it against the schemas.
func writeRun(t *testing.T, dir string, r runresult.Result) {
	t.Helper()
	if err := runresult.Write(dir, runresult.Output{Result: r, Markdown: "| table |\n"}); err != nil {
		t.Fatal(err)
	}
}

func f64(v float64) *float64 { return &v }
