package prcheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/report"
	"github.com/inference-sim/accuracy-dashboard/internal/score"
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

// mkRun builds a consistent Run (summary figures computed from the points)
// for simulator commit sim.
func mkRun(sim string, pts ...pt) Run {
	var points []report.Point
	cov := report.Coverage{NotScoredByReason: map[string]int{}}
	for _, p := range pts {
		rp := report.Point{ID: p.id, Unit: "unit-" + p.id[:1], Model: "m", Hardware: "h", Load: report.Load{Concurrency: p.load},
			Tier: p.tier, Measured: report.Latencies{TTFTMs: p.mt, TPOTMs: p.mp}}
		if p.pttf > 0 {
			rp.Scored = true
			rp.Predicted = &report.Latencies{TTFTMs: p.pttf, TPOTMs: p.ptp}
			cov.Scored++
		} else {
			rp.Reason = "sim_error"
			cov.NotScored++
			cov.NotScoredByReason["sim_error"]++
		}
		points = append(points, rp)
	}
	sort.Slice(points, func(i, j int) bool { return points[i].ID < points[j].ID })
	cov.CorpusPoints = len(points)
	tierScores := func(in func(string) bool) report.TierScores {
		var ts, tp []score.Sample
		for _, p := range points {
			if !in(p.Tier) {
				continue
			}
			s := score.Sample{Point: p.ID, Sweep: p.Unit, Load: p.Load.Value(), Scored: p.Scored, Measured: p.Measured.TTFTMs}
			s2 := s
			s2.Measured = p.Measured.TPOTMs
			if p.Predicted != nil {
				s.Predicted, s2.Predicted = p.Predicted.TTFTMs, p.Predicted.TPOTMs
			}
			ts, tp = append(ts, s), append(tp, s2)
		}
		return report.TierScores{TTFT: metric(score.Compute(ts)), TPOT: metric(score.Compute(tp))}
	}
	sum := report.Summary{
		SchemaVersion: report.SchemaVersion,
		Label:         report.LabelExperimental,
		LabelReasons:  []string{"simulator commit " + sim[:7] + " is not a release"},
		Provenance: report.Provenance{
			Harness:   report.Harness{Commit: harnessCommit, Source: report.HarnessCheckout, Version: "v1.2.0"},
			Simulator: report.Simulator{Repo: "/sim", Ref: sim, Commit: sim, BuiltByHarness: true, Driver: "replay"},
			Ledger:    report.DataVersion{Name: "bundled", Version: "v1", Digest: "sha256:" + strings.Repeat("01", 32), Release: true},
		},
		Coverage: cov,
		Tiers: report.Tiers{
			All:              tierScores(func(string) bool { return true }),
			MeasuredResolved: tierScores(report.InMeasuredResolved),
		},
		Groups:          []report.Group{},
		ShapeDefinition: report.ShapeDefinition,
	}
	return Run{Summary: sum, Points: points}
}

func metric(r score.Result) report.Metric {
	m := report.Metric{MAPE: r.MAPE, Bias: r.Bias, MedianAPE: r.MedianAPE, N: r.N, Shape: r.Shape, ShapeN: r.ShapeN}
	if r.WorstAPE != nil {
		m.Worst = &report.Worst{Point: r.WorstPoint, APE: *r.WorstAPE}
	}
	return m
}

// writeRun writes a Run as a harness result directory.
func writeRun(t *testing.T, dir string, r Run) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]any{"summary.json": r.Summary, "points.json": r.Points} {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.md"), []byte("| table |\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func f64(v float64) *float64 { return &v }
