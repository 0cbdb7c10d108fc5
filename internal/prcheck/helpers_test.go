package prcheck

import (
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
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

// mkRun builds a report.Run of simulator commit sim whose summary is
// report.Summarize of its points, as the harness writes it.
func mkRun(t *testing.T, sim string, pts ...pt) report.Run {
	t.Helper()
	var points []report.Point
	for _, p := range pts {
		rp := report.Point{ID: p.id, Unit: "unit-" + p.id[:1], Model: "m", Hardware: "h", Load: report.Load{Concurrency: p.load},
			Tier: p.tier, Measured: metric.Values{"ttft_ms": p.mt, "tpot_ms": p.mp}}
		if p.pttf > 0 {
			rp.Scored = true
			rp.Predicted = metric.Values{"ttft_ms": p.pttf, "tpot_ms": p.ptp}
		} else {
			rp.Reason = "sim_error"
		}
		points = append(points, rp)
	}
	prov := report.Provenance{
		Harness:   report.Harness{Commit: harnessCommit, Source: report.HarnessCheckout, Version: "v1.2.0"},
		Simulator: report.Simulator{Repo: "/sim", Ref: sim, Commit: sim, BuiltByHarness: true, Driver: "replay"},
		Ledger:    report.DataVersion{Name: "bundled", Version: "v1", Digest: "sha256:" + strings.Repeat("01", 32), Release: true},
	}
	sum, err := report.Summarize(points, prov, nil)
	if err != nil {
		t.Fatal(err)
	}
	return report.Run{Summary: sum, Points: report.SortPoints(points)}
}

// writeRun writes a report.Run as a harness result directory with report.Write,
// which checks it against the schemas.
func writeRun(t *testing.T, dir string, r report.Run) {
	t.Helper()
	if err := report.Write(dir, report.Output{Run: r, Markdown: "| table |\n"}); err != nil {
		t.Fatal(err)
	}
}

func f64(v float64) *float64 { return &v }
