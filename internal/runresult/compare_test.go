package runresult

import (
	"math"
	"testing"
)

func summarized(t *testing.T, pts ...Point) Result {
	t.Helper()
	s, err := Summarize(pts, testProvenance(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return Result{Summary: s, Points: SortPoints(pts)}
}

// A uniform 20 % slowdown: every prediction of B is A's × 1.2. The median
// prediction ratio is 1.2 in every row, and each point's error moves by a
// hand-computed amount: measured 10, 20, 40, 80; A predicts 11, 16, 40, 96
// (APE 10, 20, 0, 20); B predicts 13.2, 19.2, 48, 115.2 (APE 32, 4, 20, 44):
// better u@c=2, worse the other three, none unchanged.
func TestCompareCountsAndPredictionRatio(t *testing.T) {
	t.Parallel()
	a := summarized(t, pt("u", 1, "measured", 10, 11), pt("u", 2, "measured", 20, 16), pt("u", 4, "measured", 40, 40), pt("u", 8, "measured", 80, 96))
	b := summarized(t, pt("u", 1, "measured", 10, 11*1.2), pt("u", 2, "measured", 20, 16*1.2), pt("u", 4, "measured", 40, 40*1.2), pt("u", 8, "measured", 80, 96*1.2))
	c := CompareRuns(a, b, "A", "B")
	if c.BaseName != "A" || c.HeadName != "B" || c.Base == nil {
		t.Fatalf("names %q %q, base %v", c.BaseName, c.HeadName, c.Base)
	}
	for _, r := range c.Rows[:4] {
		if r.Common != 4 || r.PredictionRatio == nil || math.Abs(*r.PredictionRatio-1.2) > 1e-12 {
			t.Errorf("%s %s: common %d, ratio %v; want 4 and 1.2", r.Tier, r.Metric, r.Common, r.PredictionRatio)
		}
		if r.Better != 1 || r.Worse != 3 || r.Unchanged != 0 {
			t.Errorf("%s %s: better %d worse %d unchanged %d; want 1, 3, 0", r.Tier, r.Metric, r.Better, r.Worse, r.Unchanged)
		}
	}
	// Against itself: every point unchanged, ratio exactly 1, Δ exactly 0.
	same := Compare(a, &a)
	for _, r := range same.Rows[:4] {
		if r.Unchanged != 4 || r.Better+r.Worse != 0 || *r.PredictionRatio != 1 || *r.Delta != 0 {
			t.Errorf("%s %s against itself: %+v", r.Tier, r.Metric, r)
		}
	}
	// Without a baseline, no counts and no ratio.
	for _, r := range Compare(a, nil).Rows {
		if r.PredictionRatio != nil || r.Better+r.Worse+r.Unchanged != 0 {
			t.Errorf("%s %s without a baseline: %+v", r.Tier, r.Metric, r)
		}
	}
}

func TestMedianOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{4, 1, 2}, 2}, {[]float64{4, 1, 2, 3}, 2.5}} {
		if got := medianOf(tt.in); *got != tt.want {
			t.Errorf("medianOf(%v) = %v, want %v", tt.in, *got, tt.want)
		}
	}
	if medianOf(nil) != nil {
		t.Error("medianOf(nil) is not nil")
	}
}

// A move counts by the threshold, strictly past it; under MinDelta it is
// none whatever the threshold; the comparison is worse when one headline
// metric is, though another is better.
func TestMoveAndDirection(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		delta     *float64
		threshold float64
		want      Move
	}{
		{nil, 0, Unchanged}, {f(0), 0, Unchanged}, {f(0.004), 0, Unchanged}, {f(-0.004), 0, Unchanged},
		{f(0.005), 0, Worse}, {f(-0.005), 0, Better}, {f(1), 1, Unchanged}, {f(1.01), 1, Worse}, {f(-1.01), 1, Better}, {f(-0.5), 1, Unchanged},
	} {
		if got := MoveOf(tc.delta, tc.threshold); got != tc.want {
			t.Errorf("MoveOf(%v, %v) = %v, want %v", tc.delta, tc.threshold, got, tc.want)
		}
	}
	row := func(tier, key string, delta float64) DeltaRow {
		return DeltaRow{Tier: tier, Metric: key, Common: 3, Delta: f(delta)}
	}
	base := Summary{}
	c := Comparison{Base: &base, Rows: []DeltaRow{row(TierMeasuredResolved, "ttft", -2), row(TierMeasuredResolved, "tpot", 0.5),
		row(TierAll, "ttft", 5), row(TierAll, "tpot", 5), row(TierMeasuredResolved, "e2e", 9)}}
	for threshold, want := range map[float64]Move{0: Worse, 0.5: Better, 2: Unchanged} {
		if got := c.Direction(threshold); got != want {
			t.Errorf("Direction(%v) = %v, want %v (tier all and the secondary metrics are not read)", threshold, got, want)
		}
	}
	c.Base = nil
	if got := c.Direction(0); got != Unchanged || len(c.VerdictRows()) != 0 {
		t.Errorf("without a baseline: Direction %v, %d verdict rows", got, len(c.VerdictRows()))
	}
}
