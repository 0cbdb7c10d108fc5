package runresult

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every metric's figures carry how many points over-predict, and, when
// some point is saturated, MAPE, bias and over-predicted points over the
// others: TTFT 11 for 10 (+10 %), 15 for 20 (−25 %), and a saturated 400
// for 10 (+3900 %).
func TestSummarizeUnsaturated(t *testing.T) {
	t.Parallel()
	sat := pt("r", 1, "resolved", 10, 400)
	sat.ID, sat.Load, sat.CompletionRate, sat.Saturated = "r@rate=20", Load{Rate: 20}, 12, true
	s, err := Summarize([]Point{pt("u", 1, "resolved", 10, 11), pt("u", 2, "resolved", 20, 15), sat}, testProvenance(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := s.Tiers.MeasuredResolved["ttft"]
	if m.N != 3 || *m.MAPE != 1311.666667 || *m.Bias != 1295 || *m.OverPredicted != 2 || m.SaturatedN != 1 {
		t.Errorf("headline TTFT = N %d MAPE %v bias %v over %v saturated %d; want every point: 3, 1311.666667, 1295, 2 of 3, 1",
			m.N, *m.MAPE, *m.Bias, *m.OverPredicted, m.SaturatedN)
	}
	want := Unsaturated{MAPE: fp(17.5), Bias: fp(-7.5), N: 2, OverPredicted: 1}
	if got, ok := m.UnsaturatedOf(); !ok || !cmp.Equal(got, want) {
		t.Errorf("unsaturated TTFT = %+v, %v; want %+v", got, ok, want)
	}
	// Without a saturated point, the figures are the metric's own.
	one, err := Summarize([]Point{pt("u", 1, "resolved", 10, 11), pt("u", 2, "resolved", 20, 15)}, testProvenance(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m = one.Tiers.All["ttft"]
	if got, ok := m.UnsaturatedOf(); m.Unsaturated != nil || !ok || !cmp.Equal(got, want) {
		t.Errorf("no saturated point: Unsaturated %+v, UnsaturatedOf %+v, %v; want nil and the figures %+v", m.Unsaturated, got, ok, want)
	}
	// A summary written before: the saturated share is known, the rest not.
	m.SaturatedN, m.OverPredicted = 1, nil
	if _, ok := m.UnsaturatedOf(); ok {
		t.Error("UnsaturatedOf of a summary that predates it is known")
	}
}

func fp(x float64) *float64 { return &x }

// The comparison's Δ over the common points neither run saturated: head
// saturates u@c=8 (TTFT 800 for 80), so its rows' unsaturated figures are
// over the other 3 common points.
func TestCompareUnsaturated(t *testing.T) {
	t.Parallel()
	base := summarized(t, pt("u", 1, "measured", 10, 11), pt("u", 2, "measured", 20, 16), pt("u", 4, "measured", 40, 40), pt("u", 8, "measured", 80, 96))
	sat := pt("u", 8, "measured", 80, 800)
	sat.Saturated = true
	head := summarized(t, pt("u", 1, "measured", 10, 12), pt("u", 2, "measured", 20, 16), pt("u", 4, "measured", 40, 40), sat)
	c := Compare(head, &base)
	r := c.Rows[0]
	if r.Tier != TierMeasuredResolved || r.Metric != "ttft" {
		t.Fatalf("first row is %s %s", r.Tier, r.Metric)
	}
	// Base over u@1,2,4: APE 10, 20, 0 → 10; head: 20, 20, 0 → 13.33.
	if r.Common != 4 || r.UnsatCommon != 3 || math.Abs(*r.BaseUnsatMAPE-10) > 1e-9 || math.Abs(*r.HeadUnsatMAPE-40.0/3) > 1e-9 ||
		math.Abs(*r.UnsatDelta-10.0/3) > 1e-9 {
		t.Errorf("unsaturated Δ: common %d of %d, base %v, head %v, Δ %v; want 3 of 4, 10, 13.33, 3.33",
			r.UnsatCommon, r.Common, *r.BaseUnsatMAPE, *r.HeadUnsatMAPE, *r.UnsatDelta)
	}
	// Without a saturated point the figures are the row's own.
	same := Compare(base, &base).Rows[0]
	if same.UnsatCommon != same.Common || *same.UnsatDelta != *same.Delta || *same.HeadUnsatMAPE != *same.HeadMAPE {
		t.Errorf("no saturated point: %+v", same)
	}
}
