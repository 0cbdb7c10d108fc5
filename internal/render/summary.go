package render

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// Summary renders one run's accuracy table: label, headline table, the table
// by model × hardware, coverage with reasons, and the provenance footer.
func Summary(s runresult.Summary) string { return summary(s, "") }

// SummaryWhy is Summary with the Why section of the what-ifs measured
// against s (Why) between the tables and the coverage.
func SummaryWhy(s runresult.Summary, attrs []whatif.Attribution) string {
	return summary(s, Why(s, attrs))
}

func summary(s runresult.Summary, why string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## BLIS simulator accuracy: %s\n\n", labelText(s.Label))
	switch {
	case runresult.IsWhatIfLabel(s.Label):
		fmt.Fprintf(&b, "> [!WARNING]\n> **What-if figures: one input of the simulation was changed; a diagnosis, never the headline.** %s.\n\n", Cell(strings.Join(s.LabelReasons, "; ")))
	case s.Label != runresult.LabelRelease:
		fmt.Fprintf(&b, "> [!WARNING]\n> **Experimental figures.** %s.\n\n", Cell(strings.Join(s.LabelReasons, "; ")))
	}
	if s.Shard != nil {
		fmt.Fprintf(&b, "Shard %d of %d: these figures cover only this slice of the corpus.\n\n", s.Shard.Index, s.Shard.Count)
	}

	tierName, tier, fellBack := runresult.Headline(s.Tiers)
	fmt.Fprintf(&b, "### Headline (tier `%s`)\n\n", tierName)
	if fellBack {
		b.WriteString("Tier `measured_resolved` has no scored point, so this table falls back to tier `all`, which includes points whose engine settings had to be assumed.\n\n")
	}
	writeMetricTable(&b, tier, metric.Headline(), s)
	if note := SaturatedNote(tier); note != "" {
		fmt.Fprintf(&b, "\n%s\n", note)
	}
	writeHeadlineReading(&b, tier)
	if !fellBack {
		var parts []string
		for _, d := range metric.Headline() {
			m, _ := s.Tiers.All.Of(d)
			parts = append(parts, fmt.Sprintf("%s MAPE %s, shape %s over %s", d.Short, Pct(m.MAPE), Pct(m.Shape), Count(m.N, "point")))
		}
		fmt.Fprintf(&b, "\nTier `all` (every scored point): %s.", strings.Join(parts, "; "))
		if note := SaturatedNote(s.Tiers.All); note != "" {
			b.WriteString(" " + note)
		}
		b.WriteString("\n")
	}

	if len(s.Sources) > 0 {
		fmt.Fprintf(&b, "\n### By source (tier `%s`)\n\n", tierName)
		writeGroupTable(&b, TextColumns("Source"), sourceRows(s, Cell), tierName, twoRateSources(s, Cell))
	}
	if len(s.Groups) > 0 {
		fmt.Fprintf(&b, "\n### By model × hardware (tier `%s`)\n\n", tierName)
		writeGroupTable(&b, TextColumns("Model", "Hardware"), modelHardwareRows(s, Cell), tierName, twoRateSources(s, Cell))
	}
	writeSaturatedPoints(&b, s.SaturatedPoints)
	writeWarnings(&b, s.Warnings)

	if secondary := present(tier, metric.Secondary()); len(secondary) > 0 {
		fmt.Fprintf(&b, "\n### Secondary metrics (tier `%s`)\n\n", tierName)
		b.WriteString("Not part of the headline. Each is scored over the points whose measurement has it; the prediction is the benchmark client's own computation over the simulator's requests (docs/SCORING.md).\n\n")
		writeMetricTable(&b, tier, secondary, s)
	}
	b.WriteString(why)

	b.WriteString("\n")
	b.WriteString(Coverage(s.Coverage))
	b.WriteString("\n")
	b.WriteString(Provenance(s))
	return b.String()
}

// writeMetricTable writes one row per metric of defs from tier t; a worst
// point s lists saturated is marked so.
func writeMetricTable(b *strings.Builder, t runresult.TierScores, defs []metric.Def, s runresult.Summary) {
	b.WriteString("| Metric | MAPE | Shape | Bias | Median APE | Worst point | Points (shape) |\n")
	b.WriteString("|---|---:|---:|---:|---:|---|---:|\n")
	for _, d := range defs {
		m, _ := t.Of(d)
		w := worst(m.Worst)
		if m.Worst != nil && s.IsSaturated(m.Worst.Point) {
			w += " " + saturatedMark
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %d (%d) |\n", d.Name, Pct(m.MAPE), Pct(m.Shape), SignedPct(m.Bias), Pct(m.MedianAPE), w, m.N, m.ShapeN)
	}
}

// saturatedMark follows a point id in every table that lists points.
const saturatedMark = "**saturated**"

// SaturatedNote says how many of the headline metrics' points in t are
// saturated and how much of each MAPE they contribute, e.g. "**1 saturated
// point** (…) contributes 5580.3 pp of the TTFT MAPE (5608.0% over 46
// points)"; "" when none is.
func SaturatedNote(t runresult.TierScores) string {
	lead, rest := saturatedNote(t)
	if lead == "" {
		return ""
	}
	return "**" + lead + "** " + rest
}

// saturatedNote is SaturatedNote in two parts, the count to set in bold
// ("1 saturated point") and the rest of the sentence; "", "" when no point
// is saturated. The Markdown and the site both word it so.
func saturatedNote(t runresult.TierScores) (lead, rest string) {
	var parts []string
	most := 0
	for _, d := range metric.Headline() {
		m, _ := t.Of(d)
		if m.SaturatedN == 0 || m.SaturatedPP == nil {
			continue
		}
		most = max(most, m.SaturatedN)
		parts = append(parts, fmt.Sprintf("%.1f pp of the %s MAPE (%s over %s)", *m.SaturatedPP, d.Short, Pct(m.MAPE), Count(m.N, "point")))
	}
	if most == 0 {
		return "", ""
	}
	noun, verb := "points", "contribute"
	if most == 1 {
		noun, verb = "point", "contributes"
	}
	return fmt.Sprintf("%d saturated %s", most, noun), fmt.Sprintf("(the simulator fell more than %.0f %% behind the offered rate) %s %s.",
		runresult.SaturationShortfall*100, verb, strings.Join(parts, " and "))
}

// groupRow is one row of a by-source or by-model × hardware table.
type groupRow struct {
	cells    []string
	tiers    runresult.Tiers
	maxLoads int
}

// shapeNoLoads marks a shape that cannot exist: no sweep of the row has
// runresult.ShapeMinLoads loads.
const shapeNoLoads = "n/a†"

// sourceRows are the rows of s's by-source table, modelHardwareRows those
// of its by-model × hardware table; esc escapes the names (Cell in
// Markdown).
func sourceRows(s runresult.Summary, esc func(string) string) []groupRow {
	rows := make([]groupRow, len(s.Sources))
	for i, g := range s.Sources {
		rows[i] = groupRow{cells: []string{esc(g.Source)}, tiers: g.Tiers, maxLoads: g.MaxSweepLoads}
	}
	return rows
}

func modelHardwareRows(s runresult.Summary, esc func(string) string) []groupRow {
	rows := make([]groupRow, len(s.Groups))
	for i, g := range s.Groups {
		rows[i] = groupRow{cells: []string{esc(g.Model), esc(g.Hardware)}, tiers: g.Tiers, maxLoads: g.MaxSweepLoads}
	}
	return rows
}

// groupFigures are one row of a by-source or by-model × hardware table as
// both the Markdown and the site show it, in tier tierName: MAPE, shape and
// bias of each headline metric, the points and the saturated points.
type groupFigures struct {
	cells        []string
	n, saturated int
	// fewLoads is the row's most loads of a sweep when a shape reads
	// shapeNoLoads (it cannot exist), else 0.
	fewLoads int
}

func figuresOf(g groupRow, tier string) groupFigures {
	var f groupFigures
	t, maxLoads := g.tiers.Of(tier), g.maxLoads
	for _, d := range metric.Headline() {
		m, _ := t.Of(d)
		if m.N == 0 {
			na := notScoredWhy(g.tiers, tier, d)
			f.cells = append(f.cells, na, na, na)
			continue
		}
		shape := Pct(m.Shape)
		if m.Shape == nil && m.N > 0 && maxLoads > 0 && maxLoads < runresult.ShapeMinLoads {
			shape, f.fewLoads = shapeNoLoads, maxLoads
		}
		f.cells = append(f.cells, Pct(m.MAPE), shape, SignedPct(m.Bias))
		f.saturated = max(f.saturated, m.SaturatedN)
	}
	first, _ := t.Of(metric.Headline()[0])
	f.n = first.N
	return f
}

// notScoredWhy is the cell of a metric a row's tier has no point of,
// saying why where it stands: the row's points all have an assumed
// setting (tier measured + resolved, with points in tier all: a GPU of the
// hardware registry, as H200 and B200), none of its points was scored, or
// none of its scored points has the metric.
func notScoredWhy(t runresult.Tiers, tier string, d metric.Def) string {
	all, _ := t.All.Of(d)
	switch {
	case tier == runresult.TierMeasuredResolved && all.N > 0:
		return "n/a: assumed"
	case !t.All.Scored():
		return "n/a: none scored"
	}
	return "n/a: no " + d.Short
}

// shapeNote explains shapeNoLoads (without its †): no sweep has more than
// fewLoads loads, and why (twoRateSources).
func shapeNote(fewLoads int, why string) string {
	return fmt.Sprintf("Shape needs a sweep of at least %d scored loads (an anchor and two more); no sweep of the row has more than %d%s.",
		runresult.ShapeMinLoads, fewLoads, why)
}

// writeGroupTable writes the headline figures of tier tierName for each row,
// with the note on shapes that cannot exist when a row has one.
func writeGroupTable(b *strings.Builder, first []Column, rows []groupRow, tierName, why string) {
	b.WriteString(TableHead(slices.Concat(first, headlineColumns("%[1]s MAPE", "%[1]s shape", "%[1]s bias"),
		[]Column{{Name: "Points", Figures: true}, {Name: "Saturated", Figures: true}})))
	fewLoads := 0
	for _, g := range rows {
		f := figuresOf(g, tierName)
		fewLoads = max(fewLoads, f.fewLoads)
		b.WriteString("|")
		for _, c := range slices.Concat(g.cells, f.cells) {
			fmt.Fprintf(b, " %s |", c)
		}
		fmt.Fprintf(b, " %d | %d |\n", f.n, f.saturated)
	}
	if fewLoads > 0 {
		fmt.Fprintf(b, "\n† %s\n", shapeNote(fewLoads, why))
	}
}

// twoRateSources names, for the shape note, the sources of s whose sweeps
// have fewer loads than shape needs: ": each inference-perf run measured
// two rates or fewer" ("" when none); esc escapes a source's name (Cell in
// Markdown).
func twoRateSources(s runresult.Summary, esc func(string) string) string {
	var names []string
	for _, g := range s.Sources {
		if g.MaxSweepLoads > 0 && g.MaxSweepLoads < runresult.ShapeMinLoads {
			names = append(names, esc(g.Source))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf(": each %s run measured %d rates or fewer", strings.Join(names, " or "), runresult.ShapeMinLoads-1)
}

// writeSaturatedPoints lists the saturated points, one row each.
func writeSaturatedPoints(b *strings.Builder, ps []runresult.SaturatedPoint) {
	if len(ps) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### Saturated points (every tier)\n\nA rate point is saturated when the simulator's requests completed more than %.0f %% slower than they were offered: its server fell behind and its queue grew for the whole stage. The measured server kept up, so the error is the simulator's and stays in the figures.\n\n", runresult.SaturationShortfall*100)
	cols := slices.Concat(TextColumns("Point"), []Column{{Name: "Offered (req/s)", Figures: true}, {Name: "Predicted completions (req/s)", Figures: true}},
		headlineColumns("%[1]s APE"))
	b.WriteString(TableHead(cols))
	for _, p := range ps {
		fmt.Fprintf(b, "| %s %s | %g | %.2f |", Cell(p.Point), saturatedMark, p.Offered, p.CompletionRate)
		for _, d := range metric.Headline() {
			a, ok := p.APE[d.Key]
			cell := "n/a"
			if ok {
				cell = Pct(&a)
			}
			fmt.Fprintf(b, " %s |", cell)
		}
		b.WriteString("\n")
	}
}

// present keeps the metrics of defs that t holds (a version 1 summary holds
// no secondary metric).
func present(t runresult.TierScores, defs []metric.Def) []metric.Def {
	var out []metric.Def
	for _, d := range defs {
		if _, ok := t.Of(d); ok {
			out = append(out, d)
		}
	}
	return out
}

// Coverage renders the coverage section: counts and reasons, most common first.
func Coverage(c runresult.Coverage) string {
	var b strings.Builder
	sat := ""
	if c.Saturated > 0 {
		sat = fmt.Sprintf(" (%d saturated)", c.Saturated)
	}
	fmt.Fprintf(&b, "### Coverage\n\n%d corpus points: %d scored%s, %d not scored.\n", c.CorpusPoints, c.Scored, sat, c.NotScored)
	if len(c.NotScoredByReason) > 0 {
		b.WriteString("\n| Not scored because | Points |\n|---|---:|\n")
		for _, r := range notScoredReasons(c.NotScoredByReason) {
			fmt.Fprintf(&b, "| %s | %d |\n", Cell(r.reason), r.n)
		}
	}
	return b.String()
}

// Provenance renders the footer: where every figure came from.
func Provenance(s runresult.Summary) string {
	p := s.Provenance
	var b strings.Builder
	b.WriteString("<details><summary>Provenance</summary>\n\n")
	src := "clean checkout"
	if p.Harness.Source == runresult.HarnessAssertion {
		src = "by assertion (HARNESS_COMMIT file)"
	}
	ver := ""
	if p.Harness.Version != "" {
		ver = " (" + Cell(p.Harness.Version) + ")"
	}
	fmt.Fprintf(&b, "- Harness: %s%s, %s\n", code(p.Harness.Commit), ver, src)
	sim := p.Simulator
	if sim.BuiltByHarness {
		tag := "no release tag"
		if sim.Tag != "" {
			tag = "release " + Cell(sim.Tag)
		}
		fmt.Fprintf(&b, "- Simulator: %s at %s (%s), built by the harness from ref %s; driver %s\n", Cell(sim.Repo), code(sim.Commit), tag, Cell(sim.Ref), code(sim.Driver))
	} else {
		fmt.Fprintf(&b, "- Simulator: a prebuilt binary (commit unknown to the harness); driver %s\n", code(sim.Driver))
	}
	if d := drivers(s.Coverage.ScoredByDriver); d != "" {
		fmt.Fprintf(&b, "- Scored points: %s\n", d)
	}
	if c := s.Coverage; c.Reused > 0 {
		fmt.Fprintf(&b, "- Simulated in this run: %d of the %d scored points; %d reused from an earlier run with the same replay digest (points.json `reused_from` names it)\n",
			c.Scored-c.Reused, c.Scored, c.Reused)
	}
	fmt.Fprintf(&b, "- Ledger: %s\n", dataVersion(&p.Ledger))
	fmt.Fprintf(&b, "- Catalog: %s\n", dataVersion(p.Catalog))
	fmt.Fprintf(&b, "- Registry: %s\n", dataVersion(p.Registry))
	if p.Hardware != nil {
		supplied := "none of its GPUs needed"
		if len(p.HardwareSupplied) > 0 {
			supplied = "supplied " + Cell(strings.Join(p.HardwareSupplied, ", ")) + ", which the build does not know"
		}
		fmt.Fprintf(&b, "- Hardware registry: %s; %s\n", dataVersion(p.Hardware), supplied)
	}
	for _, n := range p.NotPassed {
		fmt.Fprintf(&b, "- Not passed to the simulator: %s\n", Cell(n))
	}
	fmt.Fprintf(&b, "- Shape: %s\n", Cell(s.ShapeDefinition))
	fmt.Fprintf(&b, "- Label: **%s**\n", Cell(s.Label))
	b.WriteString("\n</details>\n")
	return b.String()
}

// driverWords says in words how a driver produced its points.
var driverWords = map[string]string{
	"replay-metrics":  "replayed from the regenerated requests (`blis replay --metrics-path`)",
	"replay-results":  "replayed from the regenerated requests (`blis replay --results-path`)",
	"run-closed-loop": "closed-loop points drawn by the simulator's own client (`blis run`)",
}

// drivers says which drivers produced the scored points, in words, in the
// order of driverWords' keys ("" when no point records its driver).
func drivers(byDriver map[string]int) string {
	var parts []string
	for _, d := range []string{"replay-metrics", "replay-results", "run-closed-loop"} {
		if n := byDriver[d]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, driverWords[d]))
		}
	}
	var other []string
	for d, n := range byDriver {
		if _, known := driverWords[d]; !known && n > 0 {
			other = append(other, fmt.Sprintf("%d through driver %s", n, code(d)))
		}
	}
	sort.Strings(other)
	return strings.Join(append(parts, other...), "; ")
}

func dataVersion(v *runresult.DataVersion) string {
	if v == nil {
		return "none"
	}
	rel := "not a release"
	if v.Release {
		rel = "release"
	}
	return fmt.Sprintf("%s %s (%s, %s)", Cell(v.Name), Cell(v.Version), rel, code(v.Digest))
}

func labelText(l string) string {
	switch {
	case l == runresult.LabelRelease:
		return "release"
	case runresult.IsWhatIfLabel(l):
		return "WHAT-IF " + Cell(strings.TrimPrefix(l, runresult.LabelWhatIfPrefix))
	}
	return "EXPERIMENTAL"
}

func worst(w *runresult.Worst) string {
	if w == nil {
		return "n/a"
	}
	return fmt.Sprintf("%s (%.1f%%)", Cell(w.Point), w.APE)
}
