package render

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// MaxOpenRows is how many rows a "where" table of a comparison (the groups
// that moved, the points that moved most, the points one run scored alone)
// may have to be shown open; a longer one is collapsed under its summary.
const MaxOpenRows = 5

// The verdict line's symbols, as codecov's comment leads with one.
const (
	symbolWorse     = "❌"
	symbolBetter    = "✅"
	symbolUnchanged = "➖"
	symbolNoBase    = "❔"
)

// VerdictLine is the comparison's verdict in one line led by a symbol:
// "❌ **Worse**", "✅ **Better**" or "➖ **Unchanged**" by c.Threshold
// (runresult.Comparison.Direction), then each headline metric's MAPE base
// → head and its Δ in the tier the verdict reads (bold when worse), and
// the tier and threshold it was judged by; "❔ **No baseline**" when the
// base was not scored.
func VerdictLine(c Comparison) string {
	if c.Base == nil {
		return symbolNoBase + " **No baseline**: the base was not scored, so nothing is compared; the figures below are the head's own."
	}
	var symbol, word string
	switch c.Direction(c.Threshold) {
	case runresult.Worse:
		symbol, word = symbolWorse, "Worse"
	case runresult.Better:
		symbol, word = symbolBetter, "Better"
	default:
		symbol, word = symbolUnchanged, "Unchanged"
	}
	rows := c.VerdictRows()
	parts := make([]string, 0, len(rows))
	for _, r := range rows {
		name := metricShort(r.Metric)
		if r.Delta == nil {
			parts = append(parts, name+": no point scored by both")
			continue
		}
		s := fmt.Sprintf("%s MAPE %s → %s (%s", name, spacedPct(*r.BaseMAPE), spacedPct(*r.HeadMAPE), c.delta(r.Delta))
		switch runresult.MoveOf(r.Delta, c.Threshold) {
		case runresult.Better:
			s += ", better"
		case runresult.Unchanged:
			if math.Abs(*r.Delta) >= runresult.MinDelta {
				s += ", within the threshold"
			}
		}
		parts = append(parts, s+")")
	}
	line := fmt.Sprintf("%s **%s**: %s. Tier %s", symbol, word, strings.Join(parts, "; "), tierName(c.HeadlineTier()))
	if c.Threshold > 0 {
		line += fmt.Sprintf("; a move of at most %.2f pp counts as unchanged", c.Threshold)
	}
	return line + "."
}

// delta is a Δ in percentage points as the comparison writes it, bold
// when it is worse by more than c.Threshold.
func (c Comparison) delta(v *float64) string {
	s := SignedPP(v)
	if runresult.MoveOf(v, c.Threshold) == runresult.Worse {
		return "**" + s + "**"
	}
	return s
}

// writeMainDelta writes the comparison's main table: one row per headline
// metric in the tier the verdict reads, five columns (the MAPE base →
// head, Δ, the change of the predictions, the points better, worse and
// the same of the common ones), then what the figures are over and, when
// some common point is saturated, the Δ without them.
func writeMainDelta(b *strings.Builder, c Comparison) {
	base, head := c.names()
	fmt.Fprintf(b, "| Metric | MAPE, %s → %s | Δ MAPE | Predictions | Points better / worse / same |\n|---|---:|---:|---:|---:|\n", base, head)
	var unsat []string
	for _, r := range c.VerdictRows() {
		mape := "n/a"
		if r.BaseMAPE != nil && r.HeadMAPE != nil {
			mape = Pct(r.BaseMAPE) + " → " + Pct(r.HeadMAPE)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d / %d / %d of %d |\n", metricShort(r.Metric), mape, c.delta(r.Delta),
			Ratio(r.PredictionRatio), r.Better, r.Worse, r.Unchanged, r.Common)
		if s := unsaturatedDelta(r); s != "" {
			unsat = append(unsat, metricShort(r.Metric)+", unsaturated points only:"+strings.TrimPrefix(s, " Unsaturated points only:"))
		}
	}
	subject := head
	if c.Title == "" {
		subject, base, head = "the pull request", "base", "head"
	}
	fmt.Fprintf(b, "\nTier %s, over the points both runs scored; Δ = %s − %s in percentage points (negative: %s predicts better); predictions: the median of %s's prediction over %s's. ",
		tierName(c.HeadlineTier()), head, base, subject, head, base)
	b.WriteString("The Δ is exact, not noise: the simulator is deterministic, so a rerun of either build gives byte-identical predictions.\n\n")
	for _, u := range unsat {
		b.WriteString(u + "\n\n")
	}
}

// writeMainHead writes the main table of a comparison without a baseline:
// the head's own figures of each headline metric in its headline tier.
func writeMainHead(b *strings.Builder, c Comparison) {
	tier, _, _ := runresult.Headline(c.Head.Tiers)
	b.WriteString("| Metric | MAPE | Bias | Shape | Points |\n|---|---:|---:|---:|---:|\n")
	headline, _ := splitRows(c.Rows)
	for _, r := range headline {
		if r.Tier != tier {
			continue
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d |\n", metricShort(r.Metric), Pct(r.Head.MAPE), SignedPct(r.Head.Bias), Pct(r.Head.Shape), r.Head.N)
	}
	fmt.Fprintf(b, "\nTier %s, over every point the head scored. Bias > 0: over-prediction.\n\n", tierName(tier))
}

// writeWhere writes where the comparison moved: the model × hardware
// groups whose MAPE moved (largest move first), the points whose error
// moved most and the points one run scored alone, each open when short
// (MaxOpenRows).
func writeWhere(b *strings.Builder, c Comparison) {
	base, head := c.names()
	var moved []runresult.GroupDelta
	for _, g := range c.Groups {
		if g.Delta != nil && math.Abs(*g.Delta) >= runresult.MinDelta {
			moved = append(moved, g)
		}
	}
	slices.SortStableFunc(moved, func(x, y runresult.GroupDelta) int {
		return cmp.Compare(math.Abs(*y.Delta), math.Abs(*x.Delta))
	})
	if len(moved) > 0 {
		section(b, fmt.Sprintf("%s whose MAPE moved (common points)", Count(len(moved), "model × hardware row")), len(moved), func() {
			fmt.Fprintf(b, "| Model | Hardware | Metric | MAPE, %s → %s | Δ MAPE | Common points |\n|---|---|---|---:|---:|---:|\n", base, head)
			for _, g := range moved {
				fmt.Fprintf(b, "| %s | %s | %s | %s → %s | %s | %d |\n", Cell(g.Model), Cell(g.Hardware), metricShort(g.Metric),
					Pct(g.BaseMAPE), Pct(g.HeadMAPE), c.delta(g.Delta), g.Common)
			}
		})
	}
	if len(c.Movers) > 0 {
		section(b, "Points whose error moved most", len(c.Movers), func() {
			fmt.Fprintf(b, "| Point | Metric | APE, %s → %s | Δ |\n|---|---|---:|---:|\n", base, head)
			for _, m := range c.Movers {
				fmt.Fprintf(b, "| %s | %s | %s → %s | %s |\n", Cell(m.ID)+c.saturatedIn(m.ID, base, head), metricShort(m.Metric),
					Pct(&m.BaseAPE), Pct(&m.HeadAPE), c.delta(ptr(m.HeadAPE-m.BaseAPE)))
			}
		})
	}
	writeOneSided(b, c.OnlyHead, head, base, c)
	writeOneSided(b, c.OnlyBase, base, head, c)
}

// section writes a "where" table of n rows under its title: open, the
// title in bold, when n is at most MaxOpenRows; collapsed under it as a
// summary otherwise.
func section(b *strings.Builder, title string, n int, table func()) {
	if n <= MaxOpenRows {
		b.WriteString("**" + title + "**\n\n")
		table()
		b.WriteString("\n")
		return
	}
	b.WriteString("<details><summary>" + title + "</summary>\n\n")
	table()
	b.WriteString("\n</details>\n\n")
}
