package whatif

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

func pt(id, hw string, scored bool, ttft, tpot float64) runresult.Point {
	p := runresult.Point{ID: id, Unit: "u/" + hw, Model: "m", Hardware: hw, Scored: scored,
		Measured: metric.Values{"ttft_ms": 100, "tpot_ms": 10}}
	if scored {
		p.Predicted = metric.Values{"ttft_ms": ttft, "tpot_ms": tpot}
	}
	return p
}

// TestAttribute: MAPE without and with over the points both runs scored
// only (the H100 point the plain run did not score counts in coverage, not
// in MAPE), per model × hardware and over all; a point of the what-if the
// plain run lacks, and a run that is no what-if, are errors.
func TestAttribute(t *testing.T) {
	t.Parallel()
	plain := []runresult.Point{pt("a", "H100", true, 150, 35), pt("b", "H100", false, 0, 0), pt("c", "H200", true, 80, 20), pt("z", "L40", true, 1, 1)}
	w := &runresult.WhatIf{Name: "w"}
	wi := runresult.Result{Summary: runresult.Summary{Provenance: runresult.Provenance{WhatIf: w}},
		Points: []runresult.Point{pt("a", "H100", true, 170, 12), pt("b", "H100", true, 500, 500), pt("c", "H200", true, 90, 10)}}
	a, err := Attribute(plain, wi)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Groups) != 2 || a.Groups[0].Hardware != "H100" || a.Groups[1].Hardware != "H200" {
		t.Fatalf("groups %+v", a.Groups)
	}
	h100 := a.Groups[0]
	if h100.Points != 2 || h100.ScoredWithout != 1 || h100.ScoredWith != 2 || h100.Common != 1 {
		t.Errorf("H100 coverage %+v", h100)
	}
	// TTFT: 50 % → 70 %; TPOT: 250 % → 20 %, over point a only.
	want := map[string][2]float64{"ttft": {50, 70}, "tpot": {250, 20}}
	for _, c := range h100.Metrics {
		if w := want[c.Metric]; c.N != 1 || math.Abs(*c.Without-w[0]) > 1e-9 || math.Abs(*c.With-w[1]) > 1e-9 {
			t.Errorf("H100 %s: n %d, %v → %v, want %v", c.Metric, c.N, *c.Without, *c.With, w)
		}
	}
	all := a.All
	if all.Points != 3 || all.ScoredWithout != 2 || all.ScoredWith != 3 || all.Common != 2 {
		t.Errorf("all %+v", all)
	}
	// TTFT over a and c: (50 + 20) / 2 → (70 + 10) / 2.
	if c := all.Metrics[0]; c.Metric != "ttft" || math.Abs(*c.Without-35) > 1e-9 || math.Abs(*c.With-40) > 1e-9 {
		t.Errorf("all TTFT %+v", c)
	}
	if _, err := Attribute(plain[:1], wi); err == nil || !strings.Contains(err.Error(), "no point b") {
		t.Errorf("a plain run without the what-if's points: %v", err)
	}
	if _, err := Attribute(plain, runresult.Result{}); err == nil || !strings.Contains(err.Error(), "not a what-if") {
		t.Errorf("no what-if: %v", err)
	}
}

func TestReadRunsRefusesWhatIsNotAWhatIf(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if runs, err := ReadRuns(dir); err != nil || runs != nil {
		t.Errorf("no what-if directory: %v, %v", runs, err)
	}
	if err := os.MkdirAll(filepath.Join(dir, Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, Dir, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRuns(dir); err == nil || !strings.Contains(err.Error(), "not a what-if run's directory") {
		t.Errorf("a file in whatif/: %v", err)
	}
}
