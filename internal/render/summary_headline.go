package render

import (
	"fmt"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// headlineReading is what a reader needs beside a tier's headline table
// (the table itself stays over every scored point): the bias as points,
// "TTFT bias +3411.0 %: 10 of 46 points over-predict", and, when some
// point is saturated, the same figures without the saturated points,
// labelled so: "TTFT MAPE 29.4 %, bias −24.2 % (9 of 45 over-predict)".
// Each is a note whose lead is set in bold; nil for a summary that
// predates them.
func headlineReading(t runresult.TierScores) []siteNote {
	var bias, unsat []string
	sat, unsatN := 0, 0
	for _, d := range metric.Headline() {
		m, ok := t.Of(d)
		if !ok || m.N == 0 || m.OverPredicted == nil {
			continue
		}
		bias = append(bias, fmt.Sprintf("%s bias %s: %d of %s over-predict", d.Short, SignedPct(m.Bias), *m.OverPredicted, Count(m.N, "point")))
		if m.SaturatedN == 0 {
			continue
		}
		sat = max(sat, m.SaturatedN)
		u, ok := m.UnsaturatedOf()
		if !ok {
			continue
		}
		unsatN = max(unsatN, u.N)
		unsat = append(unsat, fmt.Sprintf("%s MAPE %s, bias %s (%d of %d over-predict)", d.Short, Pct(u.MAPE), SignedPct(u.Bias), u.OverPredicted, u.N))
	}
	var out []siteNote
	if len(bias) > 0 {
		out = append(out, siteNote{"Bias, point by point:", strings.Join(bias, "; ") + "."})
	}
	if len(unsat) > 0 {
		out = append(out, siteNote{fmt.Sprintf("Unsaturated points only (%s, without the %s):", Count(unsatN, "point"), Count(sat, "saturated point")),
			strings.Join(unsat, "; ") + ". The headline above stays over every scored point."})
	}
	return out
}

// writeHeadlineReading writes headlineReading's notes as paragraphs.
func writeHeadlineReading(b *strings.Builder, t runresult.TierScores) {
	for _, n := range headlineReading(t) {
		fmt.Fprintf(b, "\n**%s** %s\n", n.Lead, n.Rest)
	}
}

// siteReadingTemplate draws headlineReading's notes under a metric table
// of the Overview.
const siteReadingTemplate = `{{define "reading"}}{{range .}}<p class="reading"><strong>{{.Lead}}</strong> {{.Rest}}</p>
{{end}}{{end}}`

// unsaturatedDelta is the verdict's Δ over the common points neither run
// saturated, when some common point is saturated: " Unsaturated points
// only: MAPE 30.1 % → 29.4 % (-0.7 pp) over 45 common points."; "" when
// none is, or when no common point is left.
func unsaturatedDelta(r runresult.DeltaRow) string {
	if r.UnsatCommon == r.Common {
		return ""
	}
	if r.UnsatDelta == nil {
		return " Unsaturated points only: none in common."
	}
	return fmt.Sprintf(" Unsaturated points only: MAPE %s → %s (%s pp) over %s.", spacedPct(*r.BaseUnsatMAPE), spacedPct(*r.HeadUnsatMAPE),
		signed(*r.UnsatDelta, 1), Count(r.UnsatCommon, "common point"))
}
