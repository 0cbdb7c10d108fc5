package runresult

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/inference-sim/accuracy-dashboard/internal/accuracy"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
)

// Comparison is one comparison of two runs, base (A) and head (B): the head
// run's figures, and with a baseline, the base run's and the difference over
// the points both runs scored, by tier, by model × hardware and by point, and
// what each run scored that the other did not. Compare computes it; it is
// plain data that internal/render draws (the pull-request comment, `action
// compare`, the dashboard's compare pages and its site).
type Comparison struct {
	// BaseName and HeadName name the two runs ("" in a pull request's
	// comparison: base and head).
	BaseName, HeadName string
	Head               Summary
	// Base is nil when the run had no baseline.
	Base *Summary
	// Rows is one row per tier and metric, in display order.
	Rows []DeltaRow
	// Movers are the points whose error moved most, largest first (empty
	// without a baseline).
	Movers []PointDelta
	// Groups compare the runs by model × hardware over their common points
	// (empty without a baseline).
	Groups []GroupDelta
	// OnlyBase and OnlyHead are the points one run scored and the other did
	// not, with the other run's reason (empty without a baseline).
	OnlyBase, OnlyHead []OneSided
	// Warnings are the simulator's warnings new in head or gone from it
	// against base, by cause (DiffWarnings; unknown without a baseline).
	Warnings WarningsDiff
}

// DeltaRow is one tier and metric of a Comparison. MAPE and bias are in
// percent; Delta is in percentage points.
type DeltaRow struct {
	// Tier is TierMeasuredResolved or TierAll.
	Tier string
	// Metric is the metric's key (metric.Def.Key): "ttft", "tpot", ... Rows
	// of headline metrics make the main table, the others a secondary one.
	Metric string
	// Head is the head run's own figure over all the points it scored.
	Head Metric
	// Common is the number of points of this tier both runs scored.
	Common int
	// HeadMAPE and BaseMAPE are each run's MAPE over those points, HeadBias
	// and BaseBias its bias; nil when the runs share no scored point.
	HeadMAPE, BaseMAPE *float64
	HeadBias, BaseBias *float64
	// Delta is HeadMAPE − BaseMAPE, nil when either is nil.
	Delta *float64
	// HeadShape and BaseShape are the shape errors over the common points;
	// ShapeDelta is HeadShape − BaseShape, nil when either is nil.
	HeadShape, BaseShape *float64
	ShapeDelta           *float64
	// Better, Worse and Unchanged count the common points whose absolute
	// percentage error head made smaller, larger or left exactly equal
	// (the simulator is deterministic: equal predictions are equal bits).
	Better, Worse, Unchanged int
	// PredictionRatio is the median over the common points of head's
	// prediction divided by base's (1.2: head predicts 20 % higher), nil
	// without common points.
	PredictionRatio *float64
	// UnsatCommon is how many of the common points neither run saturated
	// (Point.Saturated); HeadUnsatMAPE and BaseUnsatMAPE are each run's
	// MAPE over them and UnsatDelta their difference (nil without such
	// points). Equal to the figures above when no common point is
	// saturated.
	UnsatCommon                  int
	HeadUnsatMAPE, BaseUnsatMAPE *float64
	UnsatDelta                   *float64
}

// GroupDelta is one model × hardware group and metric: each run's MAPE
// over the points of the group both runs scored.
type GroupDelta struct {
	// Metric is the metric's key (metric.Def.Key).
	Model, Hardware, Metric string
	Common                  int
	BaseMAPE, HeadMAPE      *float64
	// Delta is HeadMAPE − BaseMAPE.
	Delta *float64
}

// OneSided is a point one run scored and the other did not.
type OneSided struct {
	ID string
	// Reason is why the other run did not score it: its not-scored reason
	// code, or ReasonNotInCorpus.
	Reason string
}

// ReasonNotInCorpus is a OneSided reason: the other run's corpus lacks the
// point.
const ReasonNotInCorpus = "not in its corpus"

// PointDelta is one point's absolute percentage error in both runs.
type PointDelta struct {
	ID string
	// Metric is the metric's key (metric.Def.Key).
	Metric  string
	BaseAPE float64
	HeadAPE float64
}

// HeadlineTier is the tier a comparison's verdict and thresholds read:
// measured_resolved when, for every headline metric, some of its points
// were scored by both runs, else all. This is not Headline, which looks at
// one run's own figures: a Δ needs common points, so a measured_resolved
// row without any falls back even when each run scored some of that tier
// on its own.
func (c Comparison) HeadlineTier() string {
	for _, r := range c.Rows {
		if d, ok := metric.ByKey(r.Metric); ok && d.Headline && r.Tier == TierMeasuredResolved && r.Common == 0 {
			return TierAll
		}
	}
	return TierMeasuredResolved
}

// MinDelta is the smallest change of a MAPE or an error, in percentage
// points, that counts as a move: a smaller one prints as ±0.00 pp, and a
// reader could not tell it from none.
const MinDelta = 0.005

// Move is which way a figure of error moved from base to head.
type Move int

const (
	// Unchanged: the error moved by no more than the threshold (or not at
	// all, or it has no Δ).
	Unchanged Move = iota
	// Better: the error fell by more than the threshold.
	Better
	// Worse: the error rose by more than the threshold.
	Worse
)

// MoveOf classifies delta, a change of an error in percentage points, by
// threshold (≥ 0, in percentage points): Worse when it is greater than
// threshold, Better when it is less than −threshold, Unchanged otherwise;
// a change under MinDelta, or nil, is Unchanged whatever the threshold.
func MoveOf(delta *float64, threshold float64) Move {
	if delta == nil || math.Abs(*delta) < MinDelta {
		return Unchanged
	}
	switch {
	case *delta > threshold:
		return Worse
	case *delta < -threshold:
		return Better
	}
	return Unchanged
}

// VerdictRows are the rows a comparison's verdict reads: one per headline
// metric, in the tier HeadlineTier picks, in display order; none without
// a baseline.
func (c Comparison) VerdictRows() []DeltaRow {
	if c.Base == nil {
		return nil
	}
	tier := c.HeadlineTier()
	var out []DeltaRow
	for _, r := range c.Rows {
		if d, ok := metric.ByKey(r.Metric); ok && d.Headline && r.Tier == tier {
			out = append(out, r)
		}
	}
	return out
}

// Direction is the comparison's verdict by threshold (percentage points,
// the Action's alert-threshold; 0: any move of at least MinDelta): Worse
// when some headline MAPE of VerdictRows moved Worse, else Better when some
// moved Better, else Unchanged (so too without a baseline).
func (c Comparison) Direction(threshold float64) Move {
	dir := Unchanged
	for _, r := range c.VerdictRows() {
		switch MoveOf(r.Delta, threshold) {
		case Worse:
			return Worse
		case Better:
			dir = Better
		}
	}
	return dir
}

// SameTiers reports whether the two tiers hold the same points in every
// metric, for the head run and for the common points (every point is
// measured or resolved): their rows are then equal, and one row per metric
// says all.
func (c Comparison) SameTiers() bool {
	byKey := map[string]DeltaRow{}
	for _, r := range c.Rows {
		if r.Tier == TierMeasuredResolved {
			byKey[r.Metric] = r
		}
	}
	for _, r := range c.Rows {
		if r.Tier != TierAll {
			continue
		}
		mr, ok := byKey[r.Metric]
		if !ok || mr.Common != r.Common || mr.Head.N != r.Head.N || mr.Head.ShapeN != r.Head.ShapeN {
			return false
		}
	}
	return len(byKey) > 0
}

// MaxMovers is how many points a comparison lists as moving most.
const MaxMovers = 10

var compareTiers = []struct {
	name string
	in   func(pointTier string) bool
}{
	{TierMeasuredResolved, InMeasuredResolved},
	{TierAll, func(string) bool { return true }},
}

// Compare builds the comparison of head against base (nil: no baseline).
// Base and head figures in each row are computed with internal/accuracy over
// the points both runs scored, matched by point ID, so Δ compares like with
// like; the head's own figures over all its scored points are kept too.
// Rows are the headline metrics' (tier measured_resolved then all, metrics
// in list order), then the secondary metrics' in the same order; a metric
// the head summary does not hold (a version 1 summary has no secondary
// metric) has no row.
func Compare(head Result, base *Result) Comparison {
	c := Comparison{Head: head.Summary}
	if base != nil {
		s := base.Summary
		c.Base = &s
	}
	baseByID := map[string]Point{}
	if base != nil {
		for _, p := range base.Points {
			baseByID[p.ID] = p
		}
	}
	for _, defs := range [][]metric.Def{metric.Headline(), metric.Secondary()} {
		for _, t := range compareTiers {
			for _, d := range defs {
				own, ok := head.Summary.Tiers.Of(t.name).Of(d)
				if !ok {
					continue
				}
				row := DeltaRow{Tier: t.name, Metric: d.Key, Head: own}
				if base != nil {
					compareRow(&row, d, t.in, head.Points, baseByID)
				}
				c.Rows = append(c.Rows, row)
			}
		}
	}
	if base != nil {
		c.Movers = movers(head.Points, baseByID)
		c.Groups = groups(head.Points, baseByID)
		c.OnlyHead = oneSided(head.Points, base.Points)
		c.OnlyBase = oneSided(base.Points, head.Points)
		c.Warnings = DiffWarnings(base.Summary, head.Summary)
	}
	return c
}

// CompareRuns compares run b against run a, named for display ("B − A"): the
// comparison `action compare` prints and the dashboard's pages show.
func CompareRuns(a, b Result, nameA, nameB string) Comparison {
	c := Compare(b, &a)
	c.BaseName, c.HeadName = nameA, nameB
	return c
}

// groups compares the runs by model × hardware, over the points of each
// group both runs scored, for every headline metric; ordered by model,
// hardware, metric.
func groups(head []Point, baseByID map[string]Point) []GroupDelta {
	type key struct{ model, hardware string }
	byGroup := map[key][]Point{}
	var keys []key
	for _, hp := range head {
		k := key{hp.Model, hp.Hardware}
		if _, seen := byGroup[k]; !seen {
			keys = append(keys, k)
		}
		byGroup[k] = append(byGroup[k], hp)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.model, b.model), cmp.Compare(a.hardware, b.hardware))
	})
	var out []GroupDelta
	for _, k := range keys {
		for _, d := range metric.Headline() {
			g := GroupDelta{Model: k.model, Hardware: k.hardware, Metric: d.Key}
			var hs, bs []accuracy.Sample
			for _, hp := range byGroup[k] {
				bp, ok := baseByID[hp.ID]
				if !ok || !scoredValid(hp, d) || !scoredValid(bp, d) {
					continue
				}
				g.Common++
				hs = append(hs, Sample(hp, d, true))
				bs = append(bs, Sample(bp, d, true))
			}
			if g.Common == 0 {
				continue
			}
			g.HeadMAPE, g.BaseMAPE = accuracy.Compute(hs).MAPE, accuracy.Compute(bs).MAPE
			g.Delta = diff(g.HeadMAPE, g.BaseMAPE)
			out = append(out, g)
		}
	}
	return out
}

// oneSided lists the points scored in mine and not in other, with other's
// reason, by point id.
func oneSided(mine, other []Point) []OneSided {
	otherByID := make(map[string]Point, len(other))
	for _, p := range other {
		otherByID[p.ID] = p
	}
	var out []OneSided
	for _, p := range mine {
		if !p.Scored {
			continue
		}
		op, ok := otherByID[p.ID]
		switch {
		case !ok:
			out = append(out, OneSided{ID: p.ID, Reason: ReasonNotInCorpus})
		case !op.Scored:
			out = append(out, OneSided{ID: p.ID, Reason: op.Reason})
		}
	}
	slices.SortFunc(out, func(a, b OneSided) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// diff is head − base, nil when either is missing.
func diff(head, base *float64) *float64 {
	if head == nil || base == nil {
		return nil
	}
	d := *head - *base
	return &d
}

// compareRow fills in row's base and head figures of metric d over the
// points of its tier (in) both runs scored.
func compareRow(row *DeltaRow, d metric.Def, in func(pointTier string) bool, head []Point, baseByID map[string]Point) {
	var hs, bs, hu, bu []accuracy.Sample
	var ratios []float64
	for _, hp := range head {
		if !in(hp.Tier) {
			continue
		}
		bp, ok := baseByID[hp.ID]
		both := ok && scoredValid(hp, d) && scoredValid(bp, d)
		unsat := both && !hp.Saturated && !bp.Saturated
		hu = append(hu, Sample(hp, d, unsat))
		bu = append(bu, Sample(bp, d, unsat))
		if unsat {
			row.UnsatCommon++
		}
		if both {
			row.Common++
			h := accuracy.APE(hp.Predicted[d.Field()], hp.Measured[d.Field()])
			b := accuracy.APE(bp.Predicted[d.Field()], bp.Measured[d.Field()])
			switch {
			case h < b:
				row.Better++
			case h > b:
				row.Worse++
			default:
				row.Unchanged++
			}
			ratios = append(ratios, hp.Predicted[d.Field()]/bp.Predicted[d.Field()])
		}
		hs = append(hs, Sample(hp, d, both))
		bs = append(bs, Sample(bp, d, both))
	}
	hr, br := accuracy.Compute(hs), accuracy.Compute(bs)
	row.HeadMAPE, row.BaseMAPE = hr.MAPE, br.MAPE
	row.HeadBias, row.BaseBias = hr.Bias, br.Bias
	row.HeadShape, row.BaseShape = hr.Shape, br.Shape
	row.Delta = diff(hr.MAPE, br.MAPE)
	row.ShapeDelta = diff(hr.Shape, br.Shape)
	row.PredictionRatio = medianOf(ratios)
	row.HeadUnsatMAPE, row.BaseUnsatMAPE = accuracy.Compute(hu).MAPE, accuracy.Compute(bu).MAPE
	row.UnsatDelta = diff(row.HeadUnsatMAPE, row.BaseUnsatMAPE)
}

// medianOf is the median of xs, nil for none.
func medianOf(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return &m
}

// scoredValid reports whether p is scored with a valid measurement and
// prediction of d.
func scoredValid(p Point, d metric.Def) bool {
	m, okM := d.Of(p.Measured)
	pr, okP := d.Of(p.Predicted)
	return p.Scored && okM && okP && accuracy.Valid(pr, m)
}

func movers(head []Point, baseByID map[string]Point) []PointDelta {
	var out []PointDelta
	for _, hp := range head {
		bp, ok := baseByID[hp.ID]
		if !ok {
			continue
		}
		for _, d := range metric.Headline() {
			if !scoredValid(hp, d) || !scoredValid(bp, d) {
				continue
			}
			h := accuracy.APE(hp.Predicted[d.Field()], hp.Measured[d.Field()])
			b := accuracy.APE(bp.Predicted[d.Field()], bp.Measured[d.Field()])
			if h == b {
				continue
			}
			out = append(out, PointDelta{ID: hp.ID, Metric: d.Key, BaseAPE: b, HeadAPE: h})
		}
	}
	slices.SortFunc(out, func(a, b PointDelta) int {
		// Round so that float noise does not decide between equal moves.
		da := math.Round(math.Abs(a.HeadAPE-a.BaseAPE) * 1e6)
		db := math.Round(math.Abs(b.HeadAPE-b.BaseAPE) * 1e6)
		if c := cmp.Compare(db, da); c != 0 {
			return c
		}
		if c := cmp.Compare(a.ID, b.ID); c != 0 {
			return c
		}
		return cmp.Compare(a.Metric, b.Metric)
	})
	if len(out) > MaxMovers {
		out = out[:MaxMovers]
	}
	return out
}
