package render

import (
	"fmt"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// maxWarningUnits is how many units a warnings table names per cause
// before "and n more".
const maxWarningUnits = 5

// writeWarnings writes summary.md's section on what the simulator warned
// about (runresult.Warnings): one row per cause, the causes of the most
// points first, with its points, units and lines; one sentence when it
// warned about nothing, nothing for a summary written before warnings were
// kept (w nil).
func writeWarnings(b *strings.Builder, w *runresult.Warnings) {
	if w == nil {
		return
	}
	b.WriteString("\n### What the simulator warned about\n\n")
	if len(w.Causes) == 0 {
		b.WriteString("The simulator printed no warning on any point.\n")
		return
	}
	b.WriteString("Each warning the simulator printed on stderr while it ran the points, scored or not, one row per cause (numbers written `<n>`); points.json keeps each point's messages.\n\n")
	writeWarningTable(b, w.Causes)
	if w.PointsCut > 0 {
		fmt.Fprintf(b, "\n%s printed warnings of more than %d causes: the causes past the first %d are counted, not kept (points.json `warnings_omitted`).\n",
			Count(w.PointsCut, "point"), runresult.MaxPointWarnings, runresult.MaxPointWarnings)
	}
}

// writeWarningTable writes one row per cause: the cause, its points, its
// units (at most maxWarningUnits named) and how many lines said it.
func writeWarningTable(b *strings.Builder, causes []runresult.WarningGroup) {
	b.WriteString("| Warning | Points | Units | Lines |\n|---|---:|---|---:|\n")
	for _, g := range causes {
		fmt.Fprintf(b, "| %s | %d | %s | %d |\n", Cell(g.Cause), len(g.Points), warningUnits(g.Units), g.Count)
	}
}

func warningUnits(units []string) string {
	shown := units[:min(len(units), maxWarningUnits)]
	cells := make([]string, len(shown))
	for i, u := range shown {
		cells[i] = code(u)
	}
	s := strings.Join(cells, ", ")
	if more := len(units) - len(shown); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// writeWarningsDiff writes the comparison's warnings that are new in the
// head or gone from it against the base, by cause; nothing when neither
// is, or when either run predates warnings.
func writeWarningsDiff(b *strings.Builder, c Comparison) {
	d := c.Warnings
	if !d.Known || len(d.New)+len(d.Gone) == 0 {
		return
	}
	base, head := c.names()
	parts := []string{}
	if len(d.New) > 0 {
		parts = append(parts, fmt.Sprintf("%d new in %s", len(d.New), head))
	}
	if len(d.Gone) > 0 {
		parts = append(parts, fmt.Sprintf("%d gone from %s", len(d.Gone), base))
	}
	fmt.Fprintf(b, "**Simulator warnings.** %s (by cause, numbers written `<n>`).\n\n", strings.Join(parts, ", "))
	for _, side := range []struct {
		title  string
		causes []runresult.WarningGroup
	}{{"New warnings (" + head + " printed them, " + base + " did not)", d.New}, {"Gone warnings (" + base + " printed them, " + head + " did not)", d.Gone}} {
		if len(side.causes) == 0 {
			continue
		}
		fmt.Fprintf(b, "<details><summary>%s</summary>\n\n", side.title)
		writeWarningTable(b, side.causes)
		b.WriteString("\n</details>\n\n")
	}
}

// siteWarnings is the Overview's section on what the simulator warned
// about: summary.md's table, each unit linking to its sweep page when the
// snapshot is the newest (the site draws only its sweeps).
type siteWarnings struct {
	Causes []siteWarning
	// Cut counts the points that printed more causes than they keep.
	Cut, Max int
}

type siteWarning struct {
	Cause, Example string
	Points, Lines  int
	Units          []sweepLink
}

func siteWarningsOf(w *runresult.Warnings, latest bool) *siteWarnings {
	if w == nil {
		return nil
	}
	v := &siteWarnings{Cut: w.PointsCut, Max: runresult.MaxPointWarnings}
	for _, g := range w.Causes {
		sw := siteWarning{Cause: g.Cause, Example: g.Example, Points: len(g.Points), Lines: g.Count}
		for _, u := range g.Units {
			l := sweepLink{Unit: u}
			if latest {
				l.Href = SiteSweepPath(u)
			}
			sw.Units = append(sw.Units, l)
		}
		v.Causes = append(v.Causes, sw)
	}
	return v
}

// siteWarningsTemplate is the Overview's "What the simulator warned about".
const siteWarningsTemplate = `{{define "warnings"}}{{with .}}<h2 id="warnings">What the simulator warned about</h2>
{{if .Causes}}<p>Each warning the simulator printed on stderr while it ran the points, scored or not, one row per cause (numbers written &lt;n&gt;; the title of a cause shows its first message). <code>points.json</code> keeps each point's messages.</p>
<div class="scroll"><table id="warnings-table">
<caption>The simulator's warnings by cause</caption>
<thead><tr><th scope="col">Warning</th><th scope="col" class="num">Points</th><th scope="col">Units</th><th scope="col" class="num">Lines</th></tr></thead>
<tbody>
{{range .Causes}}<tr><td title="{{.Example}}">{{.Cause}}</td><td class="num">{{.Points}}</td><td class="id">{{range $i, $u := .Units}}{{if $i}}, {{end}}{{if $u.Href}}<a href="{{$u.Href}}">{{$u.Unit}}</a>{{else}}{{$u.Unit}}{{end}}{{end}}</td><td class="num">{{.Lines}}</td></tr>
{{end}}</tbody>
</table></div>{{if .Cut}}
<p class="note">{{.Cut}} {{if eq .Cut 1}}point{{else}}points{{end}} printed warnings of more than {{.Max}} causes: the causes past the first {{.Max}} are counted, not kept.</p>{{end}}
{{else}}<p>The simulator printed no warning on any point.</p>
{{end}}{{end}}{{end}}`
