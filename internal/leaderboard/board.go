package leaderboard

import (
	"fmt"
	"slices"
)

// Metric is one ranked column of a group table: a figure of BLIS's.
type Metric struct {
	// Key is the figure's name in the result file.
	Key   string
	Label string
	Unit  string
	// HigherBetter is true for throughput, false for latency and counts.
	HigherBetter bool
	// Digits is the number of decimals shown.
	Digits int
	Value  func(*Figures) float64
}

// Metrics are the ranked columns, in table order.
var Metrics = []Metric{
	{"ttft_mean_ms", "TTFT mean", "ms", false, 1, func(f *Figures) float64 { return f.TTFTMeanMs }},
	{"ttft_p99_ms", "TTFT p99", "ms", false, 1, func(f *Figures) float64 { return f.TTFTP99Ms }},
	{"itl_mean_ms", "ITL mean", "ms", false, 2, func(f *Figures) float64 { return f.ITLMeanMs }},
	{"itl_p99_ms", "ITL p99", "ms", false, 2, func(f *Figures) float64 { return f.ITLP99Ms }},
	{"e2e_mean_ms", "E2E mean", "ms", false, 0, func(f *Figures) float64 { return f.E2EMeanMs }},
	{"e2e_p99_ms", "E2E p99", "ms", false, 0, func(f *Figures) float64 { return f.E2EP99Ms }},
	{"output_tokens_per_sec", "output tok/s", "", true, 1, func(f *Figures) float64 { return f.OutputTokensPerS }},
	{"responses_per_sec", "responses/s", "", true, 3, func(f *Figures) float64 { return f.ResponsesPerS }},
	{"preemption_count", "preemptions", "", false, 0, func(f *Figures) float64 { return float64(f.Preemptions) }},
}

// Board is every group's tables, ready to render.
type Board struct {
	Groups []GroupBoard
}

// GroupBoard is one comparability group: one table per offered load (one
// unless the group sweeps) and, for a sweep, the capacity table.
type GroupBoard struct {
	ID, Title string
	Workload  Workload
	Sweep     bool
	Tables    []Table
	// Capacity has one row per candidate, for a sweep that declares
	// keep_up only (without a latency bound, keeping up means nothing more
	// than serving every request, which a run that queues for minutes
	// does).
	Capacity []CapacityRow
	// KeepUp is the group's bound for keeping up (set for every sweep).
	KeepUp *KeepUp
}

// Table is the runs of one group at one offered load.
type Table struct {
	Load LoadPoint
	Key  string
	// Rows are the qualified runs in declaration order, each cell ranked.
	Rows []Row
	// Disqualified are runs that did not serve everything, with the rank
	// each would have taken.
	Disqualified []Row
	// Failed are runs with a failed result: no figures.
	Failed []Row
	// Pending are declared runs without a result yet (not run, or queued
	// or running on a server), with Reason PendingReason.
	Pending []Row
}

// PendingReason is a pending row's reason: its run has no result yet.
const PendingReason = "not run yet"

// Row is one run in a table.
type Row struct {
	Run       string
	Candidate Candidate
	Result    *Result
	// Cells follow Metrics (empty for a failed run).
	Cells []Cell
	// Reason is why the run is disqualified or failed ("" when qualified).
	Reason string
}

// Cell is a figure and its rank among the table's qualified runs (for a
// disqualified run: the rank it would have taken). Ranks are competition
// ranks: equal values share a rank, and the next rank skips.
type Cell struct {
	Value float64
	Rank  int
}

// CapacityRow is a candidate's capacity in a load sweep: the highest
// offered load it kept up with there and at every lighter load of the sweep
// (KeptUp with the group's keep_up bounds), and its throughput there.
type CapacityRow struct {
	Candidate Candidate
	// Kept is nil when the candidate kept up with none of the loads.
	Kept             *LoadPoint
	Run              string
	OutputTokensPerS float64
	ResponsesPerS    float64
	// Note says where it stopped keeping up, when it did.
	Note string
}

// BuildBoard arranges results by the declaration: groups, loads and rows
// in declaration order. results are keyed by "group/run"; a declared run
// without a result is listed as pending. Nothing is sorted by
// a figure and there is no composite score.
func BuildBoard(d *Declaration, results map[string]*Result) Board {
	var b Board
	for gi := range d.Groups {
		g := &d.Groups[gi]
		gb := GroupBoard{ID: g.ID, Title: g.Title, Workload: *g.Workload, Sweep: g.Load.Sweep(), KeepUp: g.KeepUp}
		runs := expandGroup(g)
		for _, p := range g.Load.Points() {
			t := Table{Load: p, Key: offeredKey(*g.Workload, p)}
			for _, r := range runs {
				if r.Load != p {
					continue
				}
				res := results[r.Group+"/"+r.ID]
				row := Row{Run: r.ID, Candidate: r.Candidate, Result: res}
				switch {
				case res == nil:
					row.Reason = PendingReason
					t.Pending = append(t.Pending, row)
				case res.Status != StatusOK:
					row.Reason = res.Failure.Reason + ": " + res.Failure.Message
					t.Failed = append(t.Failed, row)
				default:
					row.Reason = res.Disqualification()
					if row.Reason != "" {
						t.Disqualified = append(t.Disqualified, row)
					} else {
						t.Rows = append(t.Rows, row)
					}
				}
			}
			rank(&t)
			gb.Tables = append(gb.Tables, t)
		}
		if gb.Sweep && g.KeepUp != nil {
			gb.Capacity = capacity(g, runs, results)
		}
		b.Groups = append(b.Groups, gb)
	}
	return b
}

// rank fills every cell of the table's qualified and disqualified rows.
func rank(t *Table) {
	for mi, m := range Metrics {
		vals := make([]float64, len(t.Rows))
		for i := range t.Rows {
			vals[i] = m.Value(t.Rows[i].Result.BLIS)
		}
		for _, rows := range [][]Row{t.Rows, t.Disqualified} {
			for i := range rows {
				if rows[i].Cells == nil {
					rows[i].Cells = make([]Cell, len(Metrics))
				}
				v := m.Value(rows[i].Result.BLIS)
				rows[i].Cells[mi] = Cell{Value: v, Rank: rankOf(v, vals, m.HigherBetter)}
			}
		}
	}
}

// rankOf is the competition rank value v takes among others: 1 + the
// number of others strictly better. v may itself be among others.
func rankOf(v float64, others []float64, higherBetter bool) int {
	r := 1
	for _, o := range others {
		if (higherBetter && o > v) || (!higherBetter && o < v) {
			r++
		}
	}
	return r
}

func capacity(g *Group, runs []DeclaredRun, results map[string]*Result) []CapacityRow {
	points := slices.Clone(g.Load.Points())
	slices.SortStableFunc(points, func(a, b LoadPoint) int {
		if a.Less(b) {
			return -1
		}
		if b.Less(a) {
			return 1
		}
		return 0
	})
	var out []CapacityRow
	for _, c := range g.Candidates {
		row := CapacityRow{}
		for _, p := range points {
			var run DeclaredRun
			for _, r := range runs {
				if r.Candidate.ID == c.ID && r.Load == p {
					run = r
				}
			}
			row.Candidate = run.Candidate
			res := results[run.Group+"/"+run.ID]
			kept, why := KeptUp(res, g.KeepUp)
			if !kept {
				row.Note = fmt.Sprintf("at %s: %s", p.Short(), why)
				break
			}
			at := p
			row.Kept, row.Run = &at, run.ID
			row.OutputTokensPerS, row.ResponsesPerS = res.BLIS.OutputTokensPerS, res.BLIS.ResponsesPerS
		}
		out = append(out, row)
	}
	return out
}

// LoadNote is the sentence every table carries: throughput is bounded by
// the offered load.
const LoadNote = "Output tok/s and responses/s are bounded by the offered load: at one load they measure whether a deployment kept up, not its capacity."
