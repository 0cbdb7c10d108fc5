package runresult

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/accuracy"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
)

// Summarize computes the summary of a run from its points and provenance. It
// is a pure function of its inputs: the same points (in any order) and
// provenance give the same summary, which is what makes a merge of shards
// identical to an unsharded run. It fails when coverage does not balance.
func Summarize(points []Point, prov Provenance, shard *Shard) (Summary, error) {
	ps := SortPoints(points)
	cov := Coverage{CorpusPoints: len(ps), NotScoredByReason: map[string]int{}}
	seen := make(map[string]bool, len(ps))
	for _, p := range ps {
		if seen[p.ID] {
			return Summary{}, fmt.Errorf("summarize: point %s appears twice", p.ID)
		}
		seen[p.ID] = true
		switch {
		case p.Scored && p.Reason == "" && p.Predicted != nil:
			cov.Scored++
			if p.Saturated {
				cov.Saturated++
			}
			if p.Driver != "" {
				if cov.ScoredByDriver == nil {
					cov.ScoredByDriver = map[string]int{}
				}
				cov.ScoredByDriver[p.Driver]++
			}
			if p.ReusedFrom != "" {
				cov.Reused++
			}
		case !p.Scored && p.Reason != "":
			cov.NotScored++
			cov.NotScoredByReason[p.Reason]++
		default:
			return Summary{}, fmt.Errorf("summarize: point %s is neither scored nor not scored with one reason (scored=%v, reason=%q)", p.ID, p.Scored, p.Reason)
		}
	}
	if !cov.Balanced() {
		return Summary{}, fmt.Errorf("summarize: coverage does not balance: scored %d + not scored %d != corpus points %d", cov.Scored, cov.NotScored, cov.CorpusPoints)
	}
	label, reasons := Label(prov)
	s := Summary{
		SchemaVersion:   SchemaVersion,
		Label:           label,
		LabelReasons:    reasons,
		Provenance:      prov,
		Coverage:        cov,
		Tiers:           tiers(ps),
		Groups:          []Group{},
		ShapeDefinition: ShapeDefinition,
		Shard:           shard,
	}
	s.Warnings = summarizeWarnings(ps)
	type key struct{ model, hw string }
	byGroup := map[key][]Point{}
	for _, p := range ps {
		k := key{p.Model, p.Hardware}
		byGroup[k] = append(byGroup[k], p)
	}
	keys := slices.SortedFunc(maps.Keys(byGroup), func(a, b key) int {
		return cmp.Or(strings.Compare(a.model, b.model), strings.Compare(a.hw, b.hw))
	})
	for _, p := range ps {
		if !p.Scored || !p.Saturated {
			continue
		}
		sp := SaturatedPoint{Point: p.ID, Offered: p.Load.Rate, CompletionRate: p.CompletionRate, APE: map[string]float64{}}
		for _, d := range metric.All {
			if sm := Sample(p, d, true); sm.Scored {
				sp.APE[d.Key] = *round(ptr(accuracy.APE(sm.Predicted, sm.Measured)))
			}
		}
		s.SaturatedPoints = append(s.SaturatedPoints, sp)
	}
	for _, k := range keys {
		g := byGroup[k]
		s.Groups = append(s.Groups, Group{Model: k.model, Hardware: k.hw, Tiers: tiers(g), MaxSweepLoads: maxSweepLoads(g)})
	}
	bySource := map[string][]Point{}
	for _, p := range ps {
		src := p.Source
		if src == "" {
			src = SourceUnrecorded
		}
		bySource[src] = append(bySource[src], p)
	}
	for _, src := range slices.Sorted(maps.Keys(bySource)) {
		g := bySource[src]
		s.Sources = append(s.Sources, SourceGroup{Source: src, Tiers: tiers(g), MaxSweepLoads: maxSweepLoads(g)})
	}
	return s, nil
}

// SourceUnrecorded is the source of points whose output did not record one.
const SourceUnrecorded = "unrecorded"

// maxSweepLoads is the most points any one unit of ps has.
func maxSweepLoads(ps []Point) int {
	n := map[string]int{}
	most := 0
	for _, p := range ps {
		n[p.Unit]++
		most = max(most, n[p.Unit])
	}
	return most
}

// SortPoints returns a copy of points sorted by unit, then load, then ID.
func SortPoints(points []Point) []Point {
	ps := append([]Point(nil), points...)
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].Unit != ps[j].Unit {
			return ps[i].Unit < ps[j].Unit
		}
		if li, lj := ps[i].Load.Value(), ps[j].Load.Value(); li != lj {
			return li < lj
		}
		return ps[i].ID < ps[j].ID
	})
	return ps
}

// Label decides the run's label from its provenance: release only when the
// simulator build is a release the harness built itself and every data set
// handed in is a release. The reasons say what kept it experimental. A
// what-if run (p.WhatIf) is labelled "what-if: NAME" whatever else holds,
// its first reason saying what changed.
func Label(p Provenance) (string, []string) {
	reasons := []string{}
	sim := p.Simulator
	switch {
	case !sim.BuiltByHarness:
		reasons = append(reasons, "the simulator binary was handed in (--sim-bin), not built by the harness from a release tag")
	case !sim.Release:
		reasons = append(reasons, fmt.Sprintf("simulator commit %s is not named by a release tag", short(sim.Commit)))
	}
	data := []struct {
		what string
		v    *DataVersion
	}{{"ledger", &p.Ledger}, {"catalog", p.Catalog}, {"registry", p.Registry}, {"hardware registry", p.Hardware}}
	for _, d := range data {
		if d.v != nil && !d.v.Release {
			reasons = append(reasons, fmt.Sprintf("%s %s is not a release", d.what, d.v.Version))
		}
	}
	if w := p.WhatIf; w != nil {
		why := fmt.Sprintf("a what-if experiment (%s v%d: %s), standing in for a simulator limitation: %s; a diagnosis, never a headline or release figure", w.Name, w.Version, w.Change, w.Limitation)
		return LabelWhatIfPrefix + w.Name, append([]string{why}, reasons...)
	}
	if len(reasons) > 0 {
		return LabelExperimental, reasons
	}
	return LabelRelease, reasons
}

// short is a commit's short form (ident.Short), "(unknown)" for none.
func short(c string) string {
	if c == "" {
		return "(unknown)"
	}
	return ident.Short(c)
}

// TiersOf scores points as Summarize scores a run's: every metric in
// each tier (the site's sweep pages score one sweep's points with it).
func TiersOf(points []Point) Tiers { return tiers(points) }

func tiers(ps []Point) Tiers {
	var mr []Point
	for _, p := range ps {
		if InMeasuredResolved(p.Tier) {
			mr = append(mr, p)
		}
	}
	return Tiers{All: tierScores(ps), MeasuredResolved: tierScores(mr)}
}

// tierScores scores every metric of metric.All over ps. A point counts for
// a metric when it is scored and both its measurement and its prediction
// have the metric; it still takes part in shape as its sweep's anchor.
func tierScores(ps []Point) TierScores {
	t := TierScores{}
	for _, d := range metric.All {
		samples := make([]accuracy.Sample, 0, len(ps))
		unsat := make([]accuracy.Sample, 0, len(ps))
		satAPE, satN := 0.0, 0
		for _, p := range ps {
			sm := Sample(p, d, p.Scored)
			samples = append(samples, sm)
			unsat = append(unsat, Sample(p, d, p.Scored && !p.Saturated))
			if sm.Scored && p.Saturated {
				satAPE += accuracy.APE(sm.Predicted, sm.Measured)
				satN++
			}
		}
		r := accuracy.Compute(samples)
		m := scores(r)
		m.OverPredicted = &r.Over
		if satN > 0 && m.N > 0 {
			pp := satAPE / float64(m.N)
			m.SaturatedN, m.SaturatedPP = satN, round(&pp)
			u := accuracy.Compute(unsat)
			m.Unsaturated = &Unsaturated{MAPE: round(u.MAPE), Bias: round(u.Bias), N: u.N, OverPredicted: u.Over}
		}
		t[d.Key] = m
	}
	return t
}

// Sample is point p's sample of metric d for internal/accuracy: scored when
// scored is true and p has both a measurement and a prediction of d.
func Sample(p Point, d metric.Def, scored bool) accuracy.Sample {
	s := accuracy.Sample{Point: p.ID, Sweep: p.Unit, Load: p.Load.Value()}
	m, okM := d.Of(p.Measured)
	pr, okP := d.Of(p.Predicted)
	s.Scored = scored && okM && okP
	if s.Scored {
		s.Measured, s.Predicted = m, pr
	}
	return s
}

func scores(r accuracy.Result) Metric {
	m := Metric{N: r.N, ShapeN: r.ShapeN, MAPE: round(r.MAPE), Bias: round(r.Bias), MedianAPE: round(r.MedianAPE), Shape: round(r.Shape)}
	if r.WorstAPE != nil {
		m.Worst = &Worst{Point: r.WorstPoint, APE: *round(r.WorstAPE)}
	}
	return m
}

// round keeps 6 decimals of a percentage: far below any meaningful
// difference, and it keeps summary.json readable.
func round(x *float64) *float64 {
	if x == nil {
		return nil
	}
	r := math.Round(*x*1e6) / 1e6
	return &r
}

func ptr(x float64) *float64 { return &x }
