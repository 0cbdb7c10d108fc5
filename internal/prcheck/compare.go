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

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
	"github.com/inference-sim/accuracy-dashboard/internal/score"
)

// MaxMovers is how many points the comparison lists as moving most.
const MaxMovers = 10

var tiers = []struct {
	name string
	in   func(pointTier string) bool
}{
	{report.TierMeasuredResolved, report.InMeasuredResolved},
	{report.TierAll, func(string) bool { return true }},
}

// Compare builds the comparison of head against base (nil: no baseline).
// Base and head figures in each row are computed with internal/score over
// the points both runs scored, matched by point ID, so Δ compares like with
// like; the head's own figures over all its scored points are kept too.
// Rows are the headline metrics' (tier measured_resolved then all, metrics
// in list order), then the secondary metrics' in the same order; a metric
// the head summary does not hold (a version 1 summary has no secondary
// metric) has no row.
func Compare(head report.Run, base *report.Run) render.Comparison {
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
	for _, defs := range [][]metric.Def{metric.Headline(), metric.Secondary()} {
		for _, t := range tiers {
			for _, d := range defs {
				own, ok := head.Summary.Tiers.Of(t.name).Of(d)
				if !ok {
					continue
				}
				row := render.DeltaRow{Tier: t.name, Metric: d.Key, Head: own}
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
	}
	return c
}

// CompareRuns compares run b against run a, named for display ("B − A"): the
// comparison `action compare` prints and the dashboard's compare pages show.
func CompareRuns(a, b report.Run, nameA, nameB string) render.Comparison {
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
		for _, d := range metric.Headline() {
			g := render.GroupDelta{Model: k.model, Hardware: k.hardware, Metric: d.Key}
			var hs, bs []score.Sample
			for _, hp := range byGroup[k] {
				bp, ok := baseByID[hp.ID]
				if !ok || !scoredValid(hp, d) || !scoredValid(bp, d) {
					continue
				}
				g.Common++
				hs = append(hs, report.Sample(hp, d, true))
				bs = append(bs, report.Sample(bp, d, true))
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

// compareRow fills in row's base and head figures of metric d over the
// points of its tier (in) both runs scored.
func compareRow(row *render.DeltaRow, d metric.Def, in func(pointTier string) bool, head []report.Point, baseByID map[string]report.Point) {
	var hs, bs []score.Sample
	for _, hp := range head {
		if !in(hp.Tier) {
			continue
		}
		bp, ok := baseByID[hp.ID]
		both := ok && scoredValid(hp, d) && scoredValid(bp, d)
		if both {
			row.Common++
		}
		hs = append(hs, report.Sample(hp, d, both))
		bs = append(bs, report.Sample(bp, d, both))
	}
	hr, br := score.Compute(hs), score.Compute(bs)
	row.HeadMAPE, row.BaseMAPE = hr.MAPE, br.MAPE
	row.HeadBias, row.BaseBias = hr.Bias, br.Bias
	row.HeadShape, row.BaseShape = hr.Shape, br.Shape
	row.Delta = diff(hr.MAPE, br.MAPE)
	row.ShapeDelta = diff(hr.Shape, br.Shape)
}

// scoredValid reports whether p is scored with a valid measurement and
// prediction of d.
func scoredValid(p report.Point, d metric.Def) bool {
	m, okM := d.Of(p.Measured)
	pr, okP := d.Of(p.Predicted)
	return p.Scored && okM && okP && score.Valid(pr, m)
}

func movers(head []report.Point, baseByID map[string]report.Point) []render.PointDelta {
	var out []render.PointDelta
	for _, hp := range head {
		bp, ok := baseByID[hp.ID]
		if !ok {
			continue
		}
		for _, d := range metric.Headline() {
			if !scoredValid(hp, d) || !scoredValid(bp, d) {
				continue
			}
			h := score.APE(hp.Predicted[d.Field()], hp.Measured[d.Field()])
			b := score.APE(bp.Predicted[d.Field()], bp.Measured[d.Field()])
			if h == b {
				continue
			}
			out = append(out, render.PointDelta{ID: hp.ID, Metric: d.Key, BaseAPE: b, HeadAPE: h})
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
