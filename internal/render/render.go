// Package render builds every Markdown the project writes: a run's summary,
// the pull-request comparison, the leaderboard's tables (and its one HTML
// page), the dashboard README's snapshot table, the bump pull request, the
// refusal comment and the job summaries; and the bot's markers. It is pure:
// the same plain values give the same bytes, tested against golden files
// (go test ./internal/render -update rewrites them). Untrusted text (model
// names, unit ids, simulator messages, file content) goes through Cell, or
// codeSpan outside tables.
package render

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

// Summary renders one run's accuracy table: label, headline table, the table
// by model × hardware, coverage with reasons, and the provenance footer.
func Summary(s report.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## BLIS simulator accuracy: %s\n\n", labelText(s.Label))
	if s.Label != report.LabelRelease {
		fmt.Fprintf(&b, "> [!WARNING]\n> **Experimental figures.** %s.\n\n", Cell(strings.Join(s.LabelReasons, "; ")))
	}
	if s.Shard != nil {
		fmt.Fprintf(&b, "Shard %d of %d: these figures cover only this slice of the corpus.\n\n", s.Shard.Index, s.Shard.Count)
	}

	tierName, tier, fellBack := report.Headline(s.Tiers)
	fmt.Fprintf(&b, "### Headline (tier `%s`)\n\n", tierName)
	if fellBack {
		b.WriteString("Tier `measured_resolved` has no scored point, so this table falls back to tier `all`, which includes points whose engine settings had to be assumed.\n\n")
	}
	writeMetricTable(&b, tier, metric.Headline())
	if !fellBack {
		var parts []string
		for _, d := range metric.Headline() {
			m, _ := s.Tiers.All.Of(d)
			parts = append(parts, fmt.Sprintf("%s MAPE %s, shape %s over %d points", d.Short, Pct(m.MAPE), Pct(m.Shape), m.N))
		}
		fmt.Fprintf(&b, "\nTier `all` (every scored point): %s.\n", strings.Join(parts, "; "))
	}

	if len(s.Groups) > 0 {
		fmt.Fprintf(&b, "\n### By model × hardware (tier `%s`)\n\n", tierName)
		b.WriteString(tableHead(slices.Concat(textColumns("Model", "Hardware"), headlineColumns("%[1]s MAPE", "%[1]s shape", "%[1]s bias"),
			[]column{{name: "Points", figures: true}})))
		for _, g := range s.Groups {
			t := g.Tiers.Of(tierName)
			fmt.Fprintf(&b, "| %s | %s |", Cell(g.Model), Cell(g.Hardware))
			for _, d := range metric.Headline() {
				m, _ := t.Of(d)
				fmt.Fprintf(&b, " %s | %s | %s |", Pct(m.MAPE), Pct(m.Shape), SignedPct(m.Bias))
			}
			first, _ := t.Of(metric.Headline()[0])
			fmt.Fprintf(&b, " %d |\n", first.N)
		}
	}

	if secondary := present(tier, metric.Secondary()); len(secondary) > 0 {
		fmt.Fprintf(&b, "\n### Secondary metrics (tier `%s`)\n\n", tierName)
		b.WriteString("Not part of the headline. Each is scored over the points whose measurement has it; the prediction is the benchmark client's own computation over the simulator's requests (docs/SCORING.md).\n\n")
		writeMetricTable(&b, tier, secondary)
	}

	b.WriteString("\n")
	b.WriteString(Coverage(s.Coverage))
	b.WriteString("\n")
	b.WriteString(Provenance(s))
	return b.String()
}

// writeMetricTable writes one row per metric of defs from tier t.
func writeMetricTable(b *strings.Builder, t report.TierScores, defs []metric.Def) {
	b.WriteString("| Metric | MAPE | Shape | Bias | Median APE | Worst point | Points (shape) |\n")
	b.WriteString("|---|---:|---:|---:|---:|---|---:|\n")
	for _, d := range defs {
		m, _ := t.Of(d)
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %d (%d) |\n", d.Name, Pct(m.MAPE), Pct(m.Shape), SignedPct(m.Bias), Pct(m.MedianAPE), worst(m.Worst), m.N, m.ShapeN)
	}
}

// present keeps the metrics of defs that t holds (a version 1 summary holds
// no secondary metric).
func present(t report.TierScores, defs []metric.Def) []metric.Def {
	var out []metric.Def
	for _, d := range defs {
		if _, ok := t.Of(d); ok {
			out = append(out, d)
		}
	}
	return out
}

// Coverage renders the coverage section: counts and reasons, most common first.
func Coverage(c report.Coverage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Coverage\n\n%d corpus points: %d scored, %d not scored.\n", c.CorpusPoints, c.Scored, c.NotScored)
	if len(c.NotScoredByReason) > 0 {
		b.WriteString("\n| Not scored because | Points |\n|---|---:|\n")
		for _, r := range notScoredReasons(c.NotScoredByReason) {
			fmt.Fprintf(&b, "| %s | %d |\n", Cell(r.reason), r.n)
		}
	}
	return b.String()
}

// Provenance renders the footer: where every figure came from.
func Provenance(s report.Summary) string {
	p := s.Provenance
	var b strings.Builder
	b.WriteString("<details><summary>Provenance</summary>\n\n")
	src := "clean checkout"
	if p.Harness.Source == report.HarnessAssertion {
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

func dataVersion(v *report.DataVersion) string {
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
	if l == report.LabelRelease {
		return "release"
	}
	return "EXPERIMENTAL"
}

// Pct formats a percentage with one decimal, "n/a" when absent.
func Pct(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", *x)
}

// SignedPct formats a signed percentage with its sign, "n/a" when absent.
func SignedPct(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", *x)
}

func worst(w *report.Worst) string {
	if w == nil {
		return "n/a"
	}
	return fmt.Sprintf("%s (%.1f%%)", Cell(w.Point), w.APE)
}
