// Package accuracy computes accuracy figures from scored points, as defined in
// docs/SCORING.md (after the BLIS team's accuracy-metrics definitions): per
// metric the MAPE, signed mean bias, median APE and worst point over the
// scored points, and the shape error of the normalized load curve of each
// sweep (anchored at the sweep's lowest load, anchor excluded, sweeps of at
// least three scored points). It is pure: plain values in, plain values out.
package accuracy

import (
	"math"
	"sort"
)

// Sample is one point's measurement and prediction of one metric.
type Sample struct {
	// Point identifies the point ("<unit>@<load>").
	Point string
	// Sweep identifies the sweep the point belongs to (its unit).
	Sweep string
	// Load orders the points of a sweep; the lowest load is the anchor.
	Load float64
	// Scored is false for a point that was not scored; such a point still
	// matters for shape, as a sweep's anchor.
	Scored    bool
	Measured  float64
	Predicted float64
}

// Result is the accuracy of one metric over a population, in percent. The
// pointer fields are nil when there is no data for them.
type Result struct {
	N    int
	MAPE *float64
	Bias *float64
	// Over is how many of the N points the prediction exceeds the
	// measurement on: the bias's sign, point by point.
	Over       int
	MedianAPE  *float64
	WorstPoint string
	WorstAPE   *float64
	ShapeN     int
	Shape      *float64
}

// APE is the absolute percentage error of prediction p against measurement m.
func APE(p, m float64) float64 { return math.Abs(p/m-1) * 100 }

// Error is the signed percentage error: positive when p over-predicts m.
func Error(p, m float64) float64 { return (p/m - 1) * 100 }

// Valid reports whether a measurement–prediction pair can be scored: both
// finite and positive.
func Valid(p, m float64) bool { return Positive(p) && Positive(m) }

// Positive reports whether x is a finite positive number (NaN is not).
func Positive(x float64) bool { return x > 0 && !math.IsInf(x, 1) }

// Compute scores one metric over samples. Samples that are not Scored, or
// whose values are not Valid, count for neither level nor shape (but an
// unscored anchor still disqualifies its sweep from shape). The result does
// not depend on the order of samples.
func Compute(samples []Sample) Result {
	s := append([]Sample(nil), samples...)
	sort.Slice(s, func(i, j int) bool {
		if s[i].Sweep != s[j].Sweep {
			return s[i].Sweep < s[j].Sweep
		}
		if s[i].Load != s[j].Load {
			return s[i].Load < s[j].Load
		}
		return s[i].Point < s[j].Point
	})
	var r Result
	var apes []float64
	sumAPE, sumErr := 0.0, 0.0
	worst := -1.0
	for _, x := range s {
		if !x.Scored || !Valid(x.Predicted, x.Measured) {
			continue
		}
		a := APE(x.Predicted, x.Measured)
		apes = append(apes, a)
		sumAPE += a
		sumErr += Error(x.Predicted, x.Measured)
		if x.Predicted > x.Measured {
			r.Over++
		}
		if a > worst {
			worst = a
			r.WorstPoint = x.Point
		}
	}
	r.N = len(apes)
	if r.N > 0 {
		r.MAPE = ptr(sumAPE / float64(r.N))
		r.Bias = ptr(sumErr / float64(r.N))
		r.MedianAPE = ptr(median(apes))
		r.WorstAPE = ptr(worst)
	}

	sumShape := 0.0
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j].Sweep == s[i].Sweep {
			j++
		}
		n, sum := sweepShape(s[i:j])
		r.ShapeN += n
		sumShape += sum
		i = j
	}
	if r.ShapeN > 0 {
		r.Shape = ptr(sumShape / float64(r.ShapeN))
	}
	return r
}

// MinShapePoints is the fewest scored points (the anchor included) a sweep
// needs to contribute to shape.
const MinShapePoints = 3

// sweepShape returns the number of non-anchor points of one sweep (sorted by
// load) that contribute to shape, and the sum of their shape errors.
func sweepShape(sweep []Sample) (int, float64) {
	anchor := sweep[0]
	if !anchor.Scored || !Valid(anchor.Predicted, anchor.Measured) {
		return 0, 0
	}
	var errs []float64
	for _, x := range sweep[1:] {
		if !x.Scored || !Valid(x.Predicted, x.Measured) {
			continue
		}
		ratio := (x.Predicted / anchor.Predicted) / (x.Measured / anchor.Measured)
		errs = append(errs, math.Abs(ratio-1)*100)
	}
	if len(errs)+1 < MinShapePoints {
		return 0, 0
	}
	sum := 0.0
	for _, e := range errs {
		sum += e
	}
	return len(errs), sum
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func ptr(x float64) *float64 { return &x }
