package prcheck

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Hand-computed case. Tier measured points a1, a2 are scored by both runs;
// a3 only by head, a4 only by base; r1 (resolved) by both; x1 (assumed) by
// both, so it counts in tier all only.
//
//	TTFT APE  head: a1 10, a2 20, a3 50, r1 0,  x1 40
//	          base: a1 20, a2 5,  a4 30, r1 10, x1 40
//	measured_resolved common {a1,a2,r1}: head (10+20+0)/3 = 10, base (20+5+10)/3 = 35/3
//	all common {a1,a2,r1,x1}: head 70/4 = 17.5, base 75/4 = 18.75
func comparePair(t *testing.T) (runresult.Result, runresult.Result) {
	t.Helper()
	head := mkRun(t, headSHA,
		pt{"a1", "measured", 1, 100, 10, 110, 10},
		pt{"a2", "measured", 2, 100, 10, 80, 10},
		pt{"a3", "measured", 4, 100, 10, 150, 10},
		pt{"a4", "measured", 8, 100, 10, 0, 0},
		pt{"r1", "resolved", 1, 200, 20, 200, 22},
		pt{"x1", "assumed", 1, 50, 5, 70, 5},
	)
	base := mkRun(t, baseSHA,
		pt{"a1", "measured", 1, 100, 10, 120, 10},
		pt{"a2", "measured", 2, 100, 10, 95, 10},
		pt{"a3", "measured", 4, 100, 10, 0, 0},
		pt{"a4", "measured", 8, 100, 10, 130, 10},
		pt{"r1", "resolved", 1, 200, 20, 220, 20},
		pt{"x1", "assumed", 1, 50, 5, 70, 5},
	)
	return head, base
}

func TestCompare(t *testing.T) {
	t.Parallel()
	head, base := comparePair(t)
	c := runresult.Compare(head, &base)
	if len(c.Rows) != 2*len(metric.All) {
		t.Fatalf("%d rows, want %d", len(c.Rows), 2*len(metric.All))
	}
	// No point measures a secondary metric: their rows have no common point.
	for _, r := range c.Rows[4:] {
		if d, _ := metric.ByKey(r.Metric); d.Headline || r.Common != 0 || r.Delta != nil {
			t.Errorf("secondary row %+v, want no common point and no Δ", r)
		}
	}
	c.Rows = c.Rows[:4]
	type row struct {
		Tier, Metric              string
		Common                    int
		HeadMAPE, BaseMAPE, Delta float64
		HeadBias, BaseBias        float64
	}
	var got []row
	for _, r := range c.Rows {
		got = append(got, row{r.Tier, r.Metric, r.Common, *r.HeadMAPE, *r.BaseMAPE, *r.Delta, *r.HeadBias, *r.BaseBias})
	}
	want := []row{
		// TTFT signed errors head a1 +10 a2 -20 r1 0 x1 +40; base a1 +20 a2 -5 r1 +10 x1 +40.
		{runresult.TierMeasuredResolved, "ttft", 3, 10, 35.0 / 3, 10 - 35.0/3, -10.0 / 3, 25.0 / 3},
		// TPOT APE head: r1 10, others 0; base: all 0.
		{runresult.TierMeasuredResolved, "tpot", 3, 10.0 / 3, 0, 10.0 / 3, 10.0 / 3, 0},
		{runresult.TierAll, "ttft", 4, 17.5, 18.75, -1.25, 30.0 / 4, 65.0 / 4},
		{runresult.TierAll, "tpot", 4, 2.5, 0, 2.5, 2.5, 0},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })
	if d := cmp.Diff(want, got, approx); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	// The head's own figures are over all its scored points (a3 included).
	if h := c.Rows[0].Head; h.N != 4 || math.Abs(*h.MAPE-20) > 1e-9 {
		t.Errorf("head own TTFT measured_resolved = %v over %d, want 20 over 4", *h.MAPE, h.N)
	}
	// Movers: largest |Δ APE| first: a2 TTFT 15, a1 TTFT 10, r1 TTFT 10, r1 TPOT 10.
	var ids []string
	for _, m := range c.Movers {
		ids = append(ids, m.ID+" "+m.Metric)
	}
	if d := cmp.Diff([]string{"a2 ttft", "a1 ttft", "r1 tpot", "r1 ttft"}, ids); d != "" {
		t.Errorf("movers (-want +got):\n%s", d)
	}
}

func TestCompareNoBaseline(t *testing.T) {
	t.Parallel()
	head, _ := comparePair(t)
	c := runresult.Compare(head, nil)
	if c.Base != nil || len(c.Movers) != 0 {
		t.Error("baseline data without a baseline")
	}
	for _, r := range c.Rows {
		if r.Delta != nil || r.Common != 0 {
			t.Errorf("row %s %s has a delta without a baseline", r.Tier, r.Metric)
		}
	}
	if v := Evaluate(c, Thresholds{Alert: f64(0), Fail: f64(0)}); len(v.Alerts)+len(v.Failures) != 0 {
		t.Errorf("thresholds fired without a baseline: %+v", v)
	}
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	head, base := comparePair(t)
	c := runresult.Compare(head, &base)
	// Threshold tier measured_resolved: TTFT Δ −1.67, TPOT Δ +3.33.
	tests := []struct {
		name             string
		th               Thresholds
		alerts, failures int
	}{
		{"off", Thresholds{}, 0, 0},
		{"alert only", Thresholds{Alert: f64(1)}, 1, 0},
		{"alert and fail", Thresholds{Alert: f64(1), Fail: f64(3)}, 1, 1},
		{"fail above delta", Thresholds{Fail: f64(3.34)}, 0, 0},
		// Strictly greater: an improvement (TTFT Δ −1.67) exceeds a
		// threshold below it too.
		{"every delta above a negative threshold", Thresholds{Alert: f64(-100)}, 2, 0},
	}
	for _, tt := range tests {
		v := Evaluate(c, tt.th)
		if len(v.Alerts) != tt.alerts || len(v.Failures) != tt.failures {
			t.Errorf("%s: %d alerts, %d failures; want %d, %d (%v)", tt.name, len(v.Alerts), len(v.Failures), tt.alerts, tt.failures, v)
		}
	}
	v := Evaluate(c, Thresholds{Fail: f64(3)})
	if !strings.Contains(v.Failures[0], "TPOT MAPE (measured_resolved tier) rose by 3.33 pp") {
		t.Errorf("failure text %q", v.Failures[0])
	}
}

func TestThresholdTierFallsBack(t *testing.T) {
	t.Parallel()
	head := mkRun(t, headSHA, pt{"x1", "assumed", 1, 50, 5, 60, 5})
	base := mkRun(t, baseSHA, pt{"x1", "assumed", 1, 50, 5, 55, 5})
	c := runresult.Compare(head, &base)
	if got := c.HeadlineTier(); got != runresult.TierAll {
		t.Errorf("HeadlineTier = %s, want all", got)
	}
	v := Evaluate(c, Thresholds{Alert: f64(5)})
	if len(v.Alerts) != 1 || !strings.Contains(v.Alerts[0], "(all tier)") {
		t.Errorf("alerts = %v, want one on tier all (TTFT +10 pp)", v.Alerts)
	}
}

func TestCompareRendersEscaped(t *testing.T) {
	t.Parallel()
	head := mkRun(t, headSHA, pt{"a|@evil", "measured", 1, 100, 10, 110, 10})
	base := mkRun(t, baseSHA, pt{"a|@evil", "measured", 1, 100, 10, 150, 10})
	md := render.CompareMarkdown(render.Comparison{Comparison: runresult.Compare(head, &base)})
	if strings.Contains(md, "a|@evil") || !strings.Contains(md, `a\|@`+"\u200d"+"evil") {
		t.Errorf("point id not escaped:\n%s", md)
	}
}

// Shape over the common points, hand-computed. One sweep (unit-u) at loads
// 1, 2, 4, measured TTFT 10, 20, 40:
//
//	head predicts 10, 22, 40: shape (22/10)/(20/10) → 10, (40/10)/(40/10) → 0: mean 5
//	base predicts 10, 20, 48: shape 0 and (48/10)/(40/10) → 20: mean 10
//	Δ shape = 5 − 10 = −5 pp
func TestCompareShape(t *testing.T) {
	t.Parallel()
	head := mkRun(t, headSHA, pt{"u1", "measured", 1, 10, 1, 10, 1}, pt{"u2", "measured", 2, 20, 1, 22, 1}, pt{"u4", "measured", 4, 40, 1, 40, 1})
	base := mkRun(t, baseSHA, pt{"u1", "measured", 1, 10, 1, 10, 1}, pt{"u2", "measured", 2, 20, 1, 20, 1}, pt{"u4", "measured", 4, 40, 1, 48, 1})
	c := runresult.Compare(head, &base)
	r := c.Rows[0]
	if r.Tier != runresult.TierMeasuredResolved || r.Metric != "ttft" {
		t.Fatalf("first row is %s %s", r.Tier, r.Metric)
	}
	for name, got := range map[string]*float64{"head shape": r.HeadShape, "base shape": r.BaseShape, "Δ shape": r.ShapeDelta} {
		if got == nil {
			t.Fatalf("%s is nil", name)
		}
	}
	if math.Abs(*r.HeadShape-5) > 1e-9 || math.Abs(*r.BaseShape-10) > 1e-9 || math.Abs(*r.ShapeDelta+5) > 1e-9 {
		t.Errorf("shape head %v base %v Δ %v, want 5, 10, -5", *r.HeadShape, *r.BaseShape, *r.ShapeDelta)
	}
	if tpot := c.Rows[1]; tpot.ShapeDelta == nil || *tpot.ShapeDelta != 0 {
		t.Errorf("TPOT Δ shape = %v, want 0 (both predict a flat curve exactly)", tpot.ShapeDelta)
	}
}

// TestCompareGroupsAndOneSided: the hand-computed pair by model × hardware
// (one group, m × h: the all-tier figures) and the points one run scored:
// a3 by head only (base: sim_error), a4 by base only (head: sim_error), and
// a point the other run's corpus lacks.
func TestCompareGroupsAndOneSided(t *testing.T) {
	t.Parallel()
	head, base := comparePair(t)
	extra := mkRun(t, headSHA, pt{"z9", "measured", 1, 100, 10, 100, 10})
	head.Points = append(head.Points, extra.Points...)
	c := runresult.Compare(head, &base)
	type group struct {
		Model, Hardware, Metric string
		Common                  int
		Head, Base, Delta       float64
	}
	var got []group
	for _, g := range c.Groups {
		got = append(got, group{g.Model, g.Hardware, g.Metric, g.Common, *g.HeadMAPE, *g.BaseMAPE, *g.Delta})
	}
	want := []group{{"m", "h", "ttft", 4, 17.5, 18.75, -1.25}, {"m", "h", "tpot", 4, 2.5, 0, 2.5}}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })
	if d := cmp.Diff(want, got, approx); d != "" {
		t.Errorf("groups (-want +got):\n%s", d)
	}
	wantHead := []runresult.OneSided{{ID: "a3", Reason: "sim_error"}, {ID: "z9", Reason: runresult.ReasonNotInCorpus}}
	if d := cmp.Diff(wantHead, c.OnlyHead); d != "" {
		t.Errorf("scored by head only (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]runresult.OneSided{{ID: "a4", Reason: "sim_error"}}, c.OnlyBase); d != "" {
		t.Errorf("scored by base only (-want +got):\n%s", d)
	}

	// Two named runs: B − A, the same rows as a pull request's head − base.
	runs := render.RunsComparison(runresult.CompareRuns(base, head, "v0.7.14", "v0.7.15"))
	if d := cmp.Diff(c.Rows, runs.Rows); d != "" {
		t.Errorf("CompareRuns rows differ from Compare's:\n%s", d)
	}
	md := render.CompareMarkdown(runs)
	for _, s := range []string{"### Simulator accuracy: v0.7.14 → v0.7.15", "| v0.7.14 MAPE | v0.7.15 MAPE |", "2 points scored by v0.7.15 only", "| a4 | sim_error |"} {
		if !strings.Contains(md, s) {
			t.Errorf("run comparison lacks %q:\n%s", s, md)
		}
	}
	if strings.Contains(md, render.PRMarker) || strings.Contains(md, "pull request") {
		t.Errorf("run comparison speaks of a pull request:\n%s", md)
	}
}

// withE2E adds a measured and a predicted mean E2E latency to every scored
// point of r (prediction = measurement × factor) and summarizes it again.
func withE2E(t *testing.T, r runresult.Result, factor float64) runresult.Result {
	t.Helper()
	for i := range r.Points {
		p := &r.Points[i]
		p.Measured["e2e_ms"] = 1000
		if p.Predicted != nil {
			p.Predicted["e2e_ms"] = 1000 * factor
		}
	}
	s, err := runresult.Summarize(r.Points, r.Summary.Provenance, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Summary = s
	return r
}

// A secondary metric is compared over the common points like a headline
// one, but never gated: a Δ past the thresholds in mean E2E latency alone
// raises nothing, and its rows do not move the threshold tier.
func TestCompareSecondaryIsShownNotGated(t *testing.T) {
	t.Parallel()
	head, base := comparePair(t)
	head, base = withE2E(t, head, 1.5), withE2E(t, base, 1)
	c := runresult.Compare(head, &base)
	var e2e *runresult.DeltaRow
	for i, r := range c.Rows {
		if r.Tier == runresult.TierAll && r.Metric == metric.E2E.Key {
			e2e = &c.Rows[i]
		}
	}
	if e2e == nil || e2e.Common != 4 || e2e.Delta == nil || math.Abs(*e2e.Delta-50) > 1e-9 {
		t.Fatalf("all-tier E2E row = %+v, want 4 common points and Δ +50 pp", e2e)
	}
	v := Evaluate(c, Thresholds{Alert: f64(20), Fail: f64(20)})
	for _, msg := range append(v.Alerts, v.Failures...) {
		if strings.Contains(msg, "E2E") {
			t.Errorf("secondary metric gated: %s", msg)
		}
	}
	md := render.CompareMarkdown(render.Comparison{Comparison: c})
	if !strings.Contains(md, "| all | Mean E2E | 0.0% | 50.0% | **+50.00 pp**") {
		t.Errorf("comparison lacks the E2E row:\n%s", md)
	}
}
