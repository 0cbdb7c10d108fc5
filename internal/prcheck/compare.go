// Package prcheck is the pure core of the Action's pull-request check:
// comparing the head run with the base run (Δ = head − base over the points
// both scored), alert and fail thresholds, the comment and job-summary size
// limits, the sticky-comment decision, degrading on a read-only (fork) token,
// the result cache keyed by harness commit, simulator commit and data
// versions, and the order in which a run scores, merges, reports and posts.
// It never imports go-github: GitHub and the harness are reached through the
// small interfaces declared here, implemented in cmd/action.
package prcheck

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
	"github.com/inference-sim/accuracy-dashboard/internal/score"
)

// Run is one harness run's output.
type Run struct {
	Summary report.Summary
	Points  []report.Point
}

// MaxMovers is how many points the comparison lists as moving most.
const MaxMovers = 10

var metrics = []struct {
	name string
	get  func(report.Latencies) float64
	of   func(report.TierScores) report.Metric
}{
	{"TTFT", func(l report.Latencies) float64 { return l.TTFTMs }, func(t report.TierScores) report.Metric { return t.TTFT }},
	{"TPOT", func(l report.Latencies) float64 { return l.TPOTMs }, func(t report.TierScores) report.Metric { return t.TPOT }},
}

var tiers = []struct {
	name string
	in   func(pointTier string) bool
	of   func(report.Tiers) report.TierScores
}{
	{report.TierMeasuredResolved, report.InMeasuredResolved, func(t report.Tiers) report.TierScores { return t.MeasuredResolved }},
	{report.TierAll, func(string) bool { return true }, func(t report.Tiers) report.TierScores { return t.All }},
}

// Compare builds the comparison of head against base (nil: no baseline).
// Base and head figures in each row are computed with internal/score over
// the points both runs scored, matched by point ID, so Δ compares like with
// like; the head's own figures over all its scored points are kept too.
// Rows are ordered tier measured_resolved then all, metric TTFT then TPOT.
func Compare(head Run, base *Run) render.Comparison {
	c := render.Comparison{Head: head.Summary}
	if base != nil {
		s := base.Summary
		c.Base = &s
	}
	baseByID := map[string]report.Point{}
	if base != nil {
		for _, p := range base.Points {
			baseByID[p.ID] = p
		}
	}
	for _, t := range tiers {
		for _, m := range metrics {
			row := render.DeltaRow{Tier: t.name, Metric: m.name, Head: m.of(t.of(head.Summary.Tiers))}
			if base != nil {
				var hs, bs []score.Sample
				for _, hp := range head.Points {
					if !t.in(hp.Tier) {
						continue
					}
					bp, ok := baseByID[hp.ID]
					both := ok && scoredValid(hp, m.get) && scoredValid(bp, m.get)
					if both {
						row.Common++
					}
					hs = append(hs, sample(hp, both, m.get))
					bs = append(bs, sample(bp, both, m.get))
				}
				hr, br := score.Compute(hs), score.Compute(bs)
				row.HeadMAPE, row.BaseMAPE = hr.MAPE, br.MAPE
				row.HeadBias, row.BaseBias = hr.Bias, br.Bias
				row.HeadShape, row.BaseShape = hr.Shape, br.Shape
				row.Delta = diff(hr.MAPE, br.MAPE)
				row.ShapeDelta = diff(hr.Shape, br.Shape)
			}
			c.Rows = append(c.Rows, row)
		}
	}
	if base != nil {
		c.Movers = movers(head.Points, baseByID)
		c.Groups = groups(head.Points, baseByID)
		c.OnlyHead = oneSided(head.Points, base.Points)
		c.OnlyBase = oneSided(base.Points, head.Points)
	}
	return c
}

// CompareRuns compares run b against run a, named for display ("B − A"): the
// comparison `action compare` prints and the dashboard's compare pages show.
func CompareRuns(a, b Run, nameA, nameB string) render.Comparison {
	c := Compare(b, &a)
	c.Title = fmt.Sprintf("Simulator accuracy: %s → %s", nameA, nameB)
	c.BaseName, c.HeadName = nameA, nameB
	return c
}

// groups compares the runs by model × hardware, over the points of each
// group both runs scored, for every metric; ordered by model, hardware,
// metric.
func groups(head []report.Point, baseByID map[string]report.Point) []render.GroupDelta {
	type key struct{ model, hardware string }
	byGroup := map[key][]report.Point{}
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
	var out []render.GroupDelta
	for _, k := range keys {
		for _, m := range metrics {
			g := render.GroupDelta{Model: k.model, Hardware: k.hardware, Metric: m.name}
			var hs, bs []score.Sample
			for _, hp := range byGroup[k] {
				bp, ok := baseByID[hp.ID]
				if !ok || !scoredValid(hp, m.get) || !scoredValid(bp, m.get) {
					continue
				}
				g.Common++
				hs = append(hs, sample(hp, true, m.get))
				bs = append(bs, sample(bp, true, m.get))
			}
			if g.Common == 0 {
				continue
			}
			g.HeadMAPE, g.BaseMAPE = score.Compute(hs).MAPE, score.Compute(bs).MAPE
			g.Delta = diff(g.HeadMAPE, g.BaseMAPE)
			out = append(out, g)
		}
	}
	return out
}

// oneSided lists the points scored in mine and not in other, with other's
// reason, by point id.
func oneSided(mine, other []report.Point) []render.OneSided {
	otherByID := make(map[string]report.Point, len(other))
	for _, p := range other {
		otherByID[p.ID] = p
	}
	var out []render.OneSided
	for _, p := range mine {
		if !p.Scored {
			continue
		}
		op, ok := otherByID[p.ID]
		switch {
		case !ok:
			out = append(out, render.OneSided{ID: p.ID, Reason: render.ReasonNotInCorpus})
		case !op.Scored:
			out = append(out, render.OneSided{ID: p.ID, Reason: op.Reason})
		}
	}
	slices.SortFunc(out, func(a, b render.OneSided) int { return cmp.Compare(a.ID, b.ID) })
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

func scoredValid(p report.Point, get func(report.Latencies) float64) bool {
	return p.Scored && p.Predicted != nil && score.Valid(get(*p.Predicted), get(p.Measured))
}

// sample turns a point into a score.Sample that counts only when both runs
// scored it; the point still takes part in shape as a sweep's anchor.
func sample(p report.Point, both bool, get func(report.Latencies) float64) score.Sample {
	s := score.Sample{Point: p.ID, Sweep: p.Unit, Load: p.Load.Value(), Scored: both, Measured: get(p.Measured)}
	if p.Predicted != nil {
		s.Predicted = get(*p.Predicted)
	}
	return s
}

func movers(head []report.Point, baseByID map[string]report.Point) []render.PointDelta {
	var out []render.PointDelta
	for _, hp := range head {
		bp, ok := baseByID[hp.ID]
		if !ok {
			continue
		}
		for _, m := range metrics {
			if !scoredValid(hp, m.get) || !scoredValid(bp, m.get) {
				continue
			}
			h := score.APE(m.get(*hp.Predicted), m.get(hp.Measured))
			b := score.APE(m.get(*bp.Predicted), m.get(bp.Measured))
			if h == b {
				continue
			}
			out = append(out, render.PointDelta{ID: hp.ID, Metric: m.name, BaseAPE: b, HeadAPE: h})
		}
	}
	slices.SortFunc(out, func(a, b render.PointDelta) int {
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
