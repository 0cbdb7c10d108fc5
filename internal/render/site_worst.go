package render

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// worstRow is one model × hardware × source of the Overview's "Where is it
// worst" table: each headline metric's MAPE in both tiers, every n/a
// saying why where it stands, and links to the group's sweeps.
type worstRow struct {
	Model, Hardware, Source string
	// Cells are, per headline metric, the MAPE in tier measured + resolved
	// then in tier all.
	Cells         []worstCell
	Scored, Total int
	Sweeps        []sweepRef
	// sortKey orders the rows worst first: the largest MAPE of the row
	// (nil: nothing scored, last).
	sortKey *float64
}

// worstCell is one MAPE, or "n/a" with why (Why, shown beside it).
type worstCell struct{ Text, Why, Sort string }

// sweepRef links one sweep from the table, named by what its unit id adds
// to the model and hardware (e.g. "tp2/isl1024-osl1024").
type sweepRef struct{ Name, Href string }

// worstRows groups points by model, hardware and source, scores each group
// as a run is scored (runresult.TiersOf) and orders the groups worst first
// (the largest headline MAPE of either tier; a group with nothing scored
// last, then by name).
func worstRows(points []runresult.Point) []worstRow {
	type key struct{ model, hardware, source string }
	groups := map[key][]runresult.Point{}
	var keys []key
	for _, p := range points {
		k := key{p.Model, p.Hardware, p.Source}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], p)
	}
	var out []worstRow
	for _, k := range keys {
		pts := groups[k]
		r := worstRow{Model: k.model, Hardware: k.hardware, Source: k.source, Total: len(pts)}
		reasons := map[string]int{}
		for _, u := range unitsOf(pts) {
			r.Sweeps = append(r.Sweeps, sweepRef{Name: sweepName(u.unit), Href: SiteSweepPath(u.unit)})
		}
		for _, p := range pts {
			if p.Scored {
				r.Scored++
			} else {
				reasons[p.Reason]++
			}
		}
		t := runresult.TiersOf(pts)
		for _, d := range metric.Headline() {
			for _, tier := range []runresult.TierScores{t.MeasuredResolved, t.All} {
				m, _ := tier.Of(d)
				c := worstCell{Text: Pct(m.MAPE)}
				switch {
				case m.MAPE != nil:
					c.Sort = fmt.Sprintf("%g", *m.MAPE)
					if r.sortKey == nil || *m.MAPE > *r.sortKey {
						r.sortKey = m.MAPE
					}
				case r.Scored == 0:
					c.Why = "nothing scored: " + reasonList(reasons)
				case tier.Scored():
					c.Why = "no point has a " + d.Short
				default:
					c.Why = "every scored point has an assumed setting"
				}
				r.Cells = append(r.Cells, c)
			}
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b worstRow) int {
		switch {
		case a.sortKey == nil && b.sortKey != nil:
			return 1
		case a.sortKey != nil && b.sortKey == nil:
			return -1
		case a.sortKey != nil && *a.sortKey != *b.sortKey:
			return cmp.Compare(*b.sortKey, *a.sortKey)
		}
		return cmp.Or(cmp.Compare(a.Model, b.Model), cmp.Compare(a.Hardware, b.Hardware), cmp.Compare(a.Source, b.Source))
	})
	return out
}

// reasonList is "model-does-not-fit-gpus × 6, timeout × 1", most common
// first.
func reasonList(byReason map[string]int) string {
	var parts []string
	for _, r := range notScoredReasons(byReason) {
		parts = append(parts, fmt.Sprintf("%s × %d", r.reason, r.n))
	}
	return strings.Join(parts, ", ")
}

// sweepName is what a unit id says past its source, model and hardware
// ("inferencex/gpt-oss-120b/h100/tp2/isl1024-osl1024" is
// "tp2/isl1024-osl1024"); the whole id when it has fewer parts.
func sweepName(unit string) string {
	parts := strings.Split(unit, "/")
	if len(parts) <= 3 {
		return unit
	}
	return strings.Join(parts[3:], "/")
}
