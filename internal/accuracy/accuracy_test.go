package accuracy

import (
	"math"
	"testing"
)

func near(t *testing.T, name string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s = nil, want %v", name, want)
	}
	if math.Abs(*got-want) > 1e-9 {
		t.Errorf("%s = %.12f, want %.12f", name, *got, want)
	}
}

// Hand-computed: sweep A (loads 1,2,4): m 10,20,40, p 11,20,48 → APE 10,0,20.
// Shape anchor (11,10): load 2 → |(20/11)/(20/10)−1| = 1/11; load 4 → |(48/11)/4−1| = 1/11.
// Sweep B (loads 1,2): m 5,5, p 4,6 → APE 20,20, errors −20,+20; too short for shape.
// Over-predicted: 3 of 5 (a@1, a@4, b@2).
func TestComputeHandWorked(t *testing.T) {
	t.Parallel()
	s := []Sample{
		{Point: "b@2", Sweep: "b", Load: 2, Scored: true, Measured: 5, Predicted: 6},
		{Point: "a@4", Sweep: "a", Load: 4, Scored: true, Measured: 40, Predicted: 48},
		{Point: "a@1", Sweep: "a", Load: 1, Scored: true, Measured: 10, Predicted: 11},
		{Point: "b@1", Sweep: "b", Load: 1, Scored: true, Measured: 5, Predicted: 4},
		{Point: "a@2", Sweep: "a", Load: 2, Scored: true, Measured: 20, Predicted: 20},
	}
	r := Compute(s)
	if r.N != 5 {
		t.Fatalf("N = %d, want 5", r.N)
	}
	near(t, "MAPE", r.MAPE, 14)
	near(t, "Bias", r.Bias, 6)
	near(t, "MedianAPE", r.MedianAPE, 20)
	near(t, "WorstAPE", r.WorstAPE, 20)
	// Over-predicted: a@1 (11 > 10), a@4 (48 > 40), b@2 (6 > 5); a@2 is
	// exact, b@1 under.
	if r.Over != 3 {
		t.Errorf("Over = %d, want 3", r.Over)
	}
	if r.WorstPoint != "a@4" {
		t.Errorf("WorstPoint = %q, want a@4 (first of the ties in sweep, load order)", r.WorstPoint)
	}
	if r.ShapeN != 2 {
		t.Fatalf("ShapeN = %d, want 2", r.ShapeN)
	}
	near(t, "Shape", r.Shape, 100.0/11)
}

func TestComputeOrderIndependent(t *testing.T) {
	t.Parallel()
	a := []Sample{
		{Point: "x@1", Sweep: "x", Load: 1, Scored: true, Measured: 3, Predicted: 2},
		{Point: "x@2", Sweep: "x", Load: 2, Scored: true, Measured: 4, Predicted: 5},
		{Point: "x@3", Sweep: "x", Load: 3, Scored: true, Measured: 7, Predicted: 7.5},
	}
	b := []Sample{a[2], a[0], a[1]}
	ra, rb := Compute(a), Compute(b)
	if *ra.MAPE != *rb.MAPE || *ra.Shape != *rb.Shape || *ra.Bias != *rb.Bias {
		t.Errorf("order changed the result: %+v vs %+v", ra, rb)
	}
}

func TestUnscoredAnchorDisqualifiesShape(t *testing.T) {
	t.Parallel()
	s := []Sample{
		{Point: "c@1", Sweep: "c", Load: 1, Scored: false},
		{Point: "c@2", Sweep: "c", Load: 2, Scored: true, Measured: 10, Predicted: 12},
		{Point: "c@4", Sweep: "c", Load: 4, Scored: true, Measured: 20, Predicted: 18},
		{Point: "c@8", Sweep: "c", Load: 8, Scored: true, Measured: 40, Predicted: 40},
	}
	r := Compute(s)
	if r.N != 3 {
		t.Errorf("N = %d, want 3 (the unscored anchor does not count for level)", r.N)
	}
	near(t, "MAPE", r.MAPE, (20.0+10+0)/3)
	if r.ShapeN != 0 || r.Shape != nil {
		t.Errorf("shape = %v over %d points, want none: the anchor is not scored", r.Shape, r.ShapeN)
	}
}

func TestShapeNeedsThreeScoredPoints(t *testing.T) {
	t.Parallel()
	s := []Sample{
		{Point: "d@1", Sweep: "d", Load: 1, Scored: true, Measured: 10, Predicted: 10},
		{Point: "d@2", Sweep: "d", Load: 2, Scored: false},
		{Point: "d@4", Sweep: "d", Load: 4, Scored: true, Measured: 20, Predicted: 30},
	}
	if r := Compute(s); r.ShapeN != 0 {
		t.Errorf("ShapeN = %d, want 0: only two scored points", r.ShapeN)
	}
}

func TestConstantFactorHasZeroShape(t *testing.T) {
	t.Parallel()
	var s []Sample
	for i, m := range []float64{10, 13, 19, 31} {
		s = append(s, Sample{Point: "e", Sweep: "e", Load: float64(i + 1), Scored: true, Measured: m, Predicted: 2 * m})
	}
	r := Compute(s)
	near(t, "MAPE", r.MAPE, 100)
	near(t, "Bias", r.Bias, 100)
	near(t, "Shape", r.Shape, 0)
	if r.ShapeN != 3 {
		t.Errorf("ShapeN = %d, want 3 (anchor excluded)", r.ShapeN)
	}
}

func TestInvalidValuesAreSkipped(t *testing.T) {
	t.Parallel()
	s := []Sample{
		{Point: "f@1", Sweep: "f", Load: 1, Scored: true, Measured: 0, Predicted: 3},
		{Point: "f@2", Sweep: "f", Load: 2, Scored: true, Measured: 5, Predicted: math.NaN()},
		{Point: "f@3", Sweep: "f", Load: 3, Scored: true, Measured: 5, Predicted: math.Inf(1)},
		{Point: "f@4", Sweep: "f", Load: 4, Scored: true, Measured: 4, Predicted: 5},
	}
	r := Compute(s)
	if r.N != 1 {
		t.Fatalf("N = %d, want 1", r.N)
	}
	near(t, "MAPE", r.MAPE, 25)
}

func TestEmpty(t *testing.T) {
	t.Parallel()
	r := Compute(nil)
	if r.N != 0 || r.MAPE != nil || r.Shape != nil || r.Bias != nil || r.MedianAPE != nil || r.WorstAPE != nil {
		t.Errorf("empty population gave %+v, want zero counts and nil figures", r)
	}
}

func TestMedianEven(t *testing.T) {
	t.Parallel()
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median = %v, want 2.5", got)
	}
}

func TestPositive(t *testing.T) {
	t.Parallel()
	for x, want := range map[float64]bool{1: true, 1e-9: true, 0: false, -1: false, math.Inf(1): false, math.Inf(-1): false, math.NaN(): false} {
		if Positive(x) != want {
			t.Errorf("Positive(%v) = %v, want %v", x, !want, want)
		}
	}
}
