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
func WhySentence(a whatif.Attribution) string { return whySentence(a, Cell) }

// whySentence is WhySentence with untrusted text (the title) written by
// esc: Cell for Markdown, asIs for a page html/template escapes.
func whySentence(a whatif.Attribution, esc func(string) string) string {
	g := a.All
	return fmt.Sprintf("%s: %d of %s scored instead of %d; over the same %s %s", esc(a.WhatIf.Title), g.ScoredWith, Count(g.Points, "point"),
		g.ScoredWithout, Count(g.Common, "point"), strings.Join(mapeChanges(g), ", "))
}

// mapeChanges are a group's headline MAPEs without → with ("TPOT MAPE
// 249.6% → 25.1%"), in metric.Headline order.
func mapeChanges(g whatif.Group) []string {
	var parts []string
	for i, d := range metric.Headline() {
		if i < len(g.Metrics) {
			parts = append(parts, fmt.Sprintf("%s MAPE %s → %s", d.Short, Pct(g.Metrics[i].Without), Pct(g.Metrics[i].With)))
		}
	}
	return parts
}

// siteWhy is the Overview's "Why" section (Why, as the site draws it): the
// what-ifs published beside the snapshot and the saturated points' share
// of its headline MAPE; nil when the snapshot has no what-if.
type siteWhy struct {
	WhatIfs       []siteWhatIf
	HeadlineNames []string
	Tier          string
	// Saturated is the saturated points' share of each headline MAPE of
	// the headline tier (nil: no point is saturated).
	Saturated *siteNote
}

type siteWhatIf struct {
	Name, Title, Limitation, Change, Digest string
	Version                                 int
	Sentence                                string
	// Rows are one per model × hardware, then "all" when there are
	// several.
	Rows []siteWhyRow
}

type siteWhyRow struct {
	Model, Hardware                   string
	Points, Without, With, SamePoints int
	// MAPEs are each headline metric's "without → with".
	MAPEs []string
}

// siteWhyOf is the site's Why section of a snapshot whose what-ifs attrs
// are (nil for none); tier and scores are its headline tier's.
func siteWhyOf(attrs []whatif.Attribution, tier string, scores runresult.TierScores) *siteWhy {
	if len(attrs) == 0 {
		return nil
	}
	v := &siteWhy{Tier: tier, Saturated: siteSaturatedNote(scores)}
	for _, d := range metric.Headline() {
		v.HeadlineNames = append(v.HeadlineNames, d.Short)
	}
	for _, a := range attrs {
		w := a.WhatIf
		sw := siteWhatIf{Name: w.Name, Title: w.Title, Limitation: w.Limitation, Change: w.Change, Digest: shortDigest(w.Digest),
			Version: w.Version, Sentence: whySentence(a, asIs)}
		rows := a.Groups
		if len(rows) > 1 {
			all := a.All
			all.Model = "all"
			rows = append(append([]whatif.Group{}, rows...), all)
		}
		for _, g := range rows {
			r := siteWhyRow{Model: g.Model, Hardware: g.Hardware, Points: g.Points, Without: g.ScoredWithout, With: g.ScoredWith, SamePoints: g.Common}
			for _, c := range g.Metrics {
				r.MAPEs = append(r.MAPEs, Pct(c.Without)+" → "+Pct(c.With))
			}
			sw.Rows = append(sw.Rows, r)
		}
		v.WhatIfs = append(v.WhatIfs, sw)
	}
	return v
}

// siteWhyTemplate is the Overview's "Why: what-if experiments".
const siteWhyTemplate = `{{define "why"}}{{with .}}<h2 id="why">Why: what-if experiments</h2>
<p>Each what-if changes one input of the simulation (declared in the harness's <code>corpus/whatif/</code>) to stand in for a simulator limitation, and scores again the points it affects, published beside this snapshot as its diagnosis. MAPE is compared without and with the change over the same points (those both runs scored). A what-if is never the headline.</p>
{{range .WhatIfs}}<section class="whatif" id="whatif-{{.Name}}">
<h3>{{.Title}} <small>(<code>{{.Name}}</code> v{{.Version}})</small></h3>
<p>Stands in for: {{.Limitation}}. Change: <code>{{.Change}}</code> (digest <code>{{.Digest}}</code>).</p>
<p class="reading"><strong>{{.Sentence}}.</strong></p>
<div class="scroll"><table id="whatif-{{.Name}}-table">
<caption>{{.Title}}: coverage and headline MAPE without → with the change, by model × hardware</caption>
<thead><tr><th scope="col">Model</th><th scope="col">Hardware</th><th scope="col" class="num">Points</th><th scope="col" class="num">Scored without → with</th>{{range $.HeadlineNames}}<th scope="col" class="num">{{.}} MAPE without → with</th>{{end}}<th scope="col" class="num">Same points</th></tr></thead>
<tbody>
{{range .Rows}}<tr><td class="id">{{.Model}}</td><td>{{.Hardware}}</td><td class="num">{{.Points}}</td><td class="num">{{.Without}} → {{.With}}</td>{{range .MAPEs}}<td class="num">{{.}}</td>{{end}}<td class="num">{{.SamePoints}}</td></tr>
{{end}}</tbody>
</table></div>
</section>
{{end}}{{with .Saturated}}<p class="banner saturated" id="why-saturated">Saturated points, the other cause a what-if cannot change: in tier {{$.Tier}}, <strong>{{.Lead}}</strong> {{.Rest}}</p>
{{end}}{{end}}{{end}}`
