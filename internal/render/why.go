package render

import (
	"fmt"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// Why renders the "Why" section of a run measured with what-if experiments
// (attrs, each against s's points): for each what-if, the simulator
// limitation it stands in for, its change, and per model × hardware of the
// points it affects how many were scored without and with it and each
// headline metric's MAPE without and with it over the same points; then
// the saturated points' share of each headline MAPE of s. "" when attrs is
// empty.
func Why(s runresult.Summary, attrs []whatif.Attribution) string {
	if len(attrs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n### Why: what-if experiments\n\n")
	b.WriteString("Each what-if changes one input of the simulation (declared in `corpus/whatif/`) to stand in for a simulator limitation, and scores again the points it affects. MAPE is compared without and with the change over the same points (those both runs scored). A what-if is a diagnosis of these figures, never the headline.\n")
	heads := metric.Headline()
	for _, a := range attrs {
		w := a.WhatIf
		fmt.Fprintf(&b, "\n#### %s (`%s` v%d)\n\n", Cell(w.Title), Cell(w.Name), w.Version)
		fmt.Fprintf(&b, "Stands in for: %s. Change: `%s` (digest `%s`).\n\n", Cell(w.Limitation), Cell(w.Change), Cell(shortDigest(w.Digest)))
		fmt.Fprintf(&b, "%s.\n\n", WhySentence(a))
		b.WriteString("| Model | Hardware | Points | Scored without → with |")
		for _, d := range heads {
			fmt.Fprintf(&b, " %s MAPE without → with |", d.Short)
		}
		b.WriteString(" Same points |\n|---|---|---:|---:|")
		for range heads {
			b.WriteString("---:|")
		}
		b.WriteString("---:|\n")
		rows := a.Groups
		if len(rows) > 1 {
			all := a.All
			all.Model, all.Hardware = "all", ""
			rows = append(append([]whatif.Group{}, rows...), all)
		}
		for _, g := range rows {
			fmt.Fprintf(&b, "| %s | %s | %d | %d → %d |", Cell(g.Model), Cell(g.Hardware), g.Points, g.ScoredWithout, g.ScoredWith)
			for _, c := range g.Metrics {
				fmt.Fprintf(&b, " %s → %s |", Pct(c.Without), Pct(c.With))
			}
			fmt.Fprintf(&b, " %d |\n", g.Common)
		}
	}
	_, tier, _ := runresult.Headline(s.Tiers)
	if note := SaturatedNote(tier); note != "" {
		fmt.Fprintf(&b, "\nSaturated points, the other cause a what-if cannot change: in the headline tier, %s\n", note)
	}
	return b.String()
}

// WhySentence says a what-if's effect in one sentence, over every point it
// affects: "gpt-oss-120b at 4-bit weights: 124 of 124 points scored
// instead of 84; over the same 84 points TTFT MAPE 35.9% → 61.9%, TPOT MAPE
// 249.6% → 25.1%".
func WhySentence(a whatif.Attribution) string {
	g := a.All
	var parts []string
	for i, d := range metric.Headline() {
		if i < len(g.Metrics) {
			parts = append(parts, fmt.Sprintf("%s MAPE %s → %s", d.Short, Pct(g.Metrics[i].Without), Pct(g.Metrics[i].With)))
		}
	}
	return fmt.Sprintf("%s: %d of %s scored instead of %d; over the same %s %s", Cell(a.WhatIf.Title), g.ScoredWith, Count(g.Points, "point"),
		g.ScoredWithout, Count(g.Common, "point"), strings.Join(parts, ", "))
}
