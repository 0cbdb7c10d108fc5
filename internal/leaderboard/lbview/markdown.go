package lbview

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
)

// Markdown renders the leaderboard's README.md: one table per
// group (per offered load in a sweep), rows in declaration order, each
// metric cell with its value and rank among the group's qualified runs;
// disqualified runs beneath with the rank each would have taken; failed
// runs with their reason; the capacity table of a load sweep; the values
// this project computes marked † with their formulas in a legend.
func Markdown(b leaderboard.Board) string {
	var w strings.Builder
	w.WriteString("# BLIS leaderboard\n\n")
	w.WriteString("Simulated deployments compared on the same offered work, one table per comparability group. ")
	w.WriteString("Rows are in declaration order; each metric cell is `value (#rank)` among the group's qualified runs, so any column reads as a ranking. There is no composite score.\n\n")
	w.WriteString(provenanceLine(b, render.Cell))
	writeLeaderboardGroups(&w, b, 2)
	writeComputedLegend(&w)
	return w.String()
}

// writeLeaderboardGroups writes each group's tables under a heading of
// level h (its loads and capacity table at h+1).
func writeLeaderboardGroups(w *strings.Builder, b leaderboard.Board, h int) {
	group, sub := strings.Repeat("#", h), strings.Repeat("#", h+1)
	for _, g := range b.Groups {
		title := g.ID
		if g.Title != "" {
			title = g.Title
		}
		fmt.Fprintf(w, "\n%s %s (`%s`)\n\n", group, render.Cell(title), g.ID)
		fmt.Fprintf(w, "Offered work: %s.\n", render.Cell(workloadWords(g.Workload)))
		for _, t := range g.Tables {
			if g.Sweep {
				fmt.Fprintf(w, "\n%s At %s\n", sub, render.Cell(t.Load.Short()))
			}
			fmt.Fprintf(w, "\nLoad: %s†. Comparability key `%s`.\n\n", render.Cell(t.Load.String()), shortKey(t.Key))
			writeMarkdownTable(w, t)
		}
		if g.Sweep && g.KeepUp != nil {
			fmt.Fprintf(w, "\n%s Capacity\n\n%s\n\n", sub, render.Cell(capacityRule(g.KeepUp)))
			w.WriteString("| Candidate | Model | Hardware | Config | Highest load kept up with | output tok/s there | responses/s there | Stopped keeping up |\n|---|---|---|---|---|---:|---:|---|\n")
			for _, c := range g.Capacity {
				kept, tps, rps := "none", "–", "–"
				if c.Kept != nil {
					kept, tps, rps = c.Kept.Short(), fixed(c.OutputTokensPerS, 1), fixed(c.ResponsesPerS, 3)
				}
				note := c.Note
				if note == "" {
					note = "kept up at every load"
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", render.Cell(c.Candidate.ID), render.Cell(c.Candidate.Model), render.Cell(c.Candidate.Hardware), render.Cell(configWords(c.Candidate)), render.Cell(kept), tps, rps, render.Cell(note))
			}
		}
	}
}

// writeComputedLegend writes the legend of the values marked †.
func writeComputedLegend(w *strings.Builder) {
	w.WriteString("\n---\n\n† Computed by this project, not read from BLIS:\n\n")
	for _, f := range computedLegend {
		fmt.Fprintf(w, "- **%s** = %s\n", f[0], f[1])
	}
}

// computedLegend names each computed value and its formula.
var computedLegend = [][2]string{
	{"GPUs", leaderboard.FormulaGPUs},
	{"served", leaderboard.FormulaServedFraction},
	{"out tok/req", leaderboard.FormulaTokensPerReq},
	{"load", leaderboard.FormulaArrival},
}

func writeMarkdownTable(w *strings.Builder, t leaderboard.Table) {
	cols := slices.Concat(render.TextColumns("Candidate", "Model", "Hardware"), []render.Column{{Name: "TP", Figures: true}}, render.TextColumns("Config"), []render.Column{{Name: "GPUs†", Figures: true}})
	for _, m := range leaderboard.Metrics {
		cols = append(cols, render.Column{Name: metricHeader(m), Figures: true})
	}
	cols = append(cols, render.Column{Name: "served†", Figures: true}, render.Column{Name: "out tok/req†", Figures: true})
	if len(t.Rows) == 0 {
		w.WriteString("No qualified run.\n")
	} else {
		w.WriteString(render.TableHead(cols))
		for _, r := range t.Rows {
			w.WriteString(markdownRow(r, false) + "\n")
		}
	}
	fmt.Fprintf(w, "\n%s\n", leaderboard.LoadNote)
	if len(t.Disqualified) > 0 {
		w.WriteString("\n**Disqualified** (did not serve every offered request, so its percentiles describe a smaller, easier job; not ranked, the rank it would have taken in brackets):\n\n")
		w.WriteString(render.TableHead(append(cols, render.TextColumns("Reason")...)))
		for _, r := range t.Disqualified {
			fmt.Fprintf(w, "%s %s |\n", markdownRow(r, true), render.Cell(r.Reason))
		}
	}
	for _, l := range noFigureLists(t) {
		fmt.Fprintf(w, "\n**%s** %s:\n\n| Candidate | Model | Hardware | TP | Config | %s |\n|---|---|---|---:|---|---|\n", l.Label, l.Note, l.Column)
		for _, r := range l.Rows {
			fmt.Fprintf(w, "| %s | %s | %s | %d | %s | %s |\n", render.Cell(r.Candidate.ID), render.Cell(r.Candidate.Model), render.Cell(r.Candidate.Hardware), r.Candidate.TP, render.Cell(configWords(r.Candidate)), render.Cell(r.Reason))
		}
	}
}

// noFigureList is a list of a table's runs without figures: the failed,
// then the pending (not run yet).
type noFigureList struct {
	Kind, Label, Note, Column string
	Rows                      []leaderboard.Row
}

func noFigureLists(t leaderboard.Table) []noFigureList {
	var out []noFigureList
	if len(t.Failed) > 0 {
		out = append(out, noFigureList{"failed", "Failed", "(no figures)", "Reason", t.Failed})
	}
	if len(t.Pending) > 0 {
		out = append(out, noFigureList{"pending", "Pending", "(no result yet)", "Status", t.Pending})
	}
	return out
}

func metricHeader(m leaderboard.Metric) string {
	if m.Unit != "" {
		return m.Label + " (" + m.Unit + ")"
	}
	return m.Label
}

func markdownRow(r leaderboard.Row, wouldBe bool) string {
	c := r.Candidate
	s := fmt.Sprintf("| %s | %s | %s | %d | %s | %s |", render.Cell(c.ID), render.Cell(c.Model), render.Cell(c.Hardware), c.TP, render.Cell(configWords(c)), fixed(r.Result.Computed.GPUs.Value, 0))
	for i, m := range leaderboard.Metrics {
		cell := r.Cells[i]
		rank := "#" + strconv.Itoa(cell.Rank)
		if wouldBe {
			rank = "[#" + strconv.Itoa(cell.Rank) + "]"
		} else {
			rank = "(" + rank + ")"
		}
		s += " " + fixed(cell.Value, m.Digits) + " " + rank + " |"
	}
	s += " " + servedWords(r.Result) + " | " + fixed(r.Result.Computed.OutputTokensPerServedRequest.Value, 1) + " |"
	return s
}

// servedWords is a run's completed and offered requests with the served
// fraction: "291/300 (97.0%)".
func servedWords(res *leaderboard.Result) string {
	f := res.BLIS
	return strconv.Itoa(f.Completed) + "/" + strconv.Itoa(res.Declaration.Offered(*f)) + " (" + percent(res.Computed.ServedFraction.Value) + ")"
}

// configWords says what distinguishes a candidate besides model, hardware
// and TP: DP and replicas above 1 and every engine setting declared, in
// runs.yaml's names ("DP 2, 2 replicas, max_num_seqs 64"); "default" when
// there is none.
func configWords(c leaderboard.Candidate) string {
	c = c.Normalized()
	var parts []string
	if c.DP > 1 {
		parts = append(parts, "DP "+strconv.Itoa(c.DP))
	}
	if c.Replicas > 1 {
		parts = append(parts, strconv.Itoa(c.Replicas)+" replicas")
	}
	if e := c.Engine; e != nil {
		for _, s := range []struct {
			name string
			v    *int
		}{{"max_num_seqs", e.MaxNumSeqs}, {"max_num_batched_tokens", e.MaxNumBatchedTokens}, {"block_size", e.BlockSize}, {"max_model_len", e.MaxModelLen}} {
			if s.v != nil {
				parts = append(parts, s.name+" "+strconv.Itoa(*s.v))
			}
		}
		if e.GPUMemoryUtilization != nil {
			parts = append(parts, "gpu_memory_utilization "+leaderboard.FormatNumber(*e.GPUMemoryUtilization))
		}
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, ", ")
}

func fixed(v float64, digits int) string { return strconv.FormatFloat(v, 'f', digits, 64) }

func percent(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" }

func shortKey(k string) string {
	if len(k) > 19 {
		return k[:19]
	}
	return k
}

// workloadWords describes a workload in words.
func workloadWords(w leaderboard.Workload) string {
	if w.Trace != nil {
		s := "recorded trace (" + w.Trace.Format
		if w.Trace.SHA256 != "" {
			s += ", sha256 " + ident.Short(w.Trace.SHA256)
		}
		return s + ")"
	}
	seed := int64(0)
	if w.Seed != nil {
		seed = *w.Seed
	}
	tok := func(t *leaderboard.Tokens) string {
		if t == nil {
			return "simulator default"
		}
		if t.Stdev == 0 || t.Min == t.Max {
			return strconv.Itoa(t.Mean) + " each"
		}
		return fmt.Sprintf("Gaussian, mean %d, stdev %d, clipped to [%d, %d]", t.Mean, t.Stdev, t.Min, t.Max)
	}
	s := fmt.Sprintf("%d requests, seed %d; prompt tokens %s; output tokens %s", w.Requests, seed, tok(w.PromptTokens), tok(w.OutputTokens))
	if w.PrefixTokens > 0 {
		s += fmt.Sprintf("; a %d-token prefix shared by every request", w.PrefixTokens)
	}
	return s
}

// provenanceLine lists the simulator builds, catalogs and tool commits the
// results came from (normally one of each).
func provenanceLine(b leaderboard.Board, esc func(string) string) string {
	sims, cats, tools := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, g := range b.Groups {
		for _, t := range g.Tables {
			for _, rows := range [][]leaderboard.Row{t.Rows, t.Disqualified, t.Failed} {
				for _, r := range rows {
					if r.Result == nil {
						continue
					}
					p := r.Result.Provenance
					s := p.Simulator.Commit
					if p.Simulator.Tag != "" {
						s += " (" + p.Simulator.Tag + ")"
					}
					sims[s] = true
					if p.Catalog != nil {
						cats[p.Catalog.Name+" "+p.Catalog.Version] = true
					} else {
						cats["the simulator's own model_configs/"] = true
					}
					tools[p.Harness.Commit] = true
				}
			}
		}
	}
	list := func(m map[string]bool) string {
		s := slices.Sorted(maps.Keys(m))
		if len(s) == 0 {
			return "none yet"
		}
		return esc(strings.Join(s, ", "))
	}
	return fmt.Sprintf("Simulator: BLIS %s. Model data: %s. Run by accuracy-dashboard %s.\n", list(sims), list(cats), list(tools))
}

// capacityRule says what keeping up with a load means for a sweep group's
// keep_up bound (leaderboard.KeptUp). Every sweep declares one: Decode
// refuses a sweep without it.
func capacityRule(k *leaderboard.KeepUp) string {
	var bounds []string
	if k.TTFTP99Ms != nil {
		bounds = append(bounds, "TTFT p99 ≤ "+leaderboard.FormatNumber(*k.TTFTP99Ms)+" ms")
	}
	if k.E2EP99Ms != nil {
		bounds = append(bounds, "E2E p99 ≤ "+leaderboard.FormatNumber(*k.E2EP99Ms)+" ms")
	}
	return "Per candidate, the highest offered load it kept up with, there and at every lighter load of the sweep, and its throughput there. " +
		"A run kept up with its load when it completed every offered request (none dropped, timed out, or still queued or running at the horizon) and " +
		strings.Join(bounds, " and ") + "."
}
