package render

import (
	"fmt"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/bisect"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
)

// Bisect is the Markdown `action bisect` prints: the commits that moved the
// predictions (or the figure followed), each with the points it moved and
// by how much, the moves not pinned to one commit, the skipped commits and
// the builds the search needed.
func Bisect(r *bisect.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Bisect: %s..%s\n\n", code(ident.Short(r.Good.Hash)), code(ident.Short(r.Bad.Hash)))
	fmt.Fprintf(&b, "Good %s, bad %s: %s after the good one. ", bisectCommit(r.Good), bisectCommit(r.Bad), Count(r.Candidates, "first-parent commit"))
	fmt.Fprintf(&b, "The predictions of %s differ between the two ends", Count(len(r.Moved), "point"))
	if r.Metric != "" {
		fmt.Fprintf(&b, "; followed: %s, %s → %s, counting a move of at least %s", bisectFigureName(r), bisectFigure(r, r.GoodFigure), bisectFigure(r, r.BadFigure), bisectThreshold(r))
	}
	b.WriteString(".\n\n")

	switch {
	case len(r.Changes) == 0 && len(r.Ranges) == 0 && len(r.Moved) == 0:
		b.WriteString("No commit moved a prediction: the two ends predict the same.\n\n")
	case len(r.Changes) == 0 && len(r.Ranges) == 0:
		fmt.Fprintf(&b, "No commit moved the figure by %s or more.\n\n", bisectThreshold(r))
	}
	for _, c := range r.Changes {
		fmt.Fprintf(&b, "### %s %s\n\n", code(ident.Short(c.Commit.Hash)), Cell(c.Commit.Subject))
		fmt.Fprintf(&b, "Commit %s of %s, after %s", code(c.Commit.Hash), c.Commit.Date.UTC().Format("2006-01-02 15:04 UTC"), code(ident.Short(c.Parent.Hash)))
		if r.Metric != "" {
			fmt.Fprintf(&b, "; %s %s → %s", bisectFigureName(r), bisectFigure(r, c.ParentFigure), bisectFigure(r, c.Figure))
		}
		fmt.Fprintf(&b, ". It moved %s:\n\n", Count(len(c.Moves), "point"))
		writeBisectMoves(&b, r, c.Moves)
	}
	if len(r.Ranges) > 0 {
		b.WriteString("### Not pinned to one commit\n\n")
		for _, g := range r.Ranges {
			fmt.Fprintf(&b, "- after %s, at or before %s: %s", code(ident.Short(g.After.Hash)), bisectCommit(g.Through), bisectRangeWhy(g.Why))
			if r.Metric != "" {
				fmt.Fprintf(&b, " (%s %s → %s)", bisectFigureName(r), bisectFigure(r, g.AfterFigure), bisectFigure(r, g.Figure))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	if len(r.Skipped) > 0 {
		b.WriteString("### Skipped\n\n")
		for _, s := range r.Skipped {
			reason, _, _ := strings.Cut(s.Reason, "\n")
			fmt.Fprintf(&b, "- %s: %s\n", bisectCommit(s.Commit), Cell(reason))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "### Cost\n\n%s (%d scored, %d skipped), %s simulated.\n\n", Count(r.Builds, "build"), len(r.Steps), len(r.Skipped), Count(r.Simulated, "point"))
	cols := TextColumns("Step", "Commit", "Subject")
	cols = append(cols, Column{Name: "Points", Figures: true}, Column{Name: "Simulated", Figures: true})
	if r.Metric != "" {
		cols = append(cols, Column{Name: "Figure", Figures: true})
	}
	b.WriteString(TableHead(cols))
	for i, s := range r.Steps {
		fmt.Fprintf(&b, "| %d | %s | %s | %d | %d |", i+1, code(ident.Short(s.Commit.Hash)), Cell(s.Commit.Subject), s.Points, s.Simulated)
		if r.Metric != "" {
			fmt.Fprintf(&b, " %s |", bisectFigure(r, s.Figure))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// writeBisectMoves is the table of a commit's moved points: each metric
// shown (the followed one, else the headline metrics) before, after and
// the change in percent.
func writeBisectMoves(b *strings.Builder, r *bisect.Result, moves []bisect.Move) {
	defs := metric.Headline()
	if d, ok := metric.ByKey(r.Metric); ok {
		defs = []metric.Def{d}
	}
	cols := TextColumns("Point")
	for _, d := range defs {
		cols = append(cols, Column{Name: d.Short + " before", Figures: true}, Column{Name: d.Short + " after", Figures: true}, Column{Name: "Δ", Figures: true})
	}
	b.WriteString(TableHead(cols))
	for _, m := range moves {
		fmt.Fprintf(b, "| %s |", Cell(m.Point))
		for _, d := range defs {
			before, okB := bisectValue(m.Before, d)
			after, okA := bisectValue(m.After, d)
			delta := "—"
			if okB && okA && before != 0 {
				delta = signed((after/before-1)*100, 2) + "%"
			}
			fmt.Fprintf(b, " %s | %s | %s |", bisectState(m.Before, before, okB), bisectState(m.After, after, okA), delta)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

func bisectValue(s bisect.PointState, d metric.Def) (float64, bool) {
	if !s.Scored {
		return 0, false
	}
	v, ok := s.Predicted[d.Field()]
	return v, ok
}

// bisectState is a predicted value in ms, or why there is none.
func bisectState(s bisect.PointState, v float64, ok bool) string {
	switch {
	case ok:
		return fmt.Sprintf("%.3f ms", v)
	case !s.Scored:
		return "not scored: " + Cell(s.Reason)
	}
	return "—"
}

func bisectCommit(c bisect.Commit) string {
	return fmt.Sprintf("%s (%s, %s)", code(ident.Short(c.Hash)), Cell(c.Subject), c.Date.UTC().Format("2006-01-02"))
}

func bisectFigureName(r *bisect.Result) string {
	d, _ := metric.ByKey(r.Metric)
	if r.Point != "" {
		return fmt.Sprintf("the predicted %s of %s", d.Name, Cell(r.Point))
	}
	return fmt.Sprintf("the %s MAPE (tier %s)", d.Name, Cell(r.Tier))
}

func bisectFigure(r *bisect.Result, v *float64) string {
	switch {
	case v == nil:
		return "—"
	case r.Point != "":
		return fmt.Sprintf("%.3f ms", *v)
	}
	return fmt.Sprintf("%.2f%%", *v)
}

func bisectThreshold(r *bisect.Result) string {
	if r.Point != "" {
		return fmt.Sprintf("%g%% of the good end's prediction", r.Threshold)
	}
	return fmt.Sprintf("%g pp", r.Threshold)
}

func bisectRangeWhy(why string) string {
	switch why {
	case bisect.RangeSkipped:
		return "every commit between was skipped"
	case bisect.RangeBudget:
		return "the build budget (--max-builds) ran out"
	case bisect.RangeSpread:
		return "spread over commits that each moved the figure by less than the threshold"
	}
	return Cell(why)
}

// BisectHints is what the nightly's job summary says when a headline MAPE
// moved by more than the configured threshold since the last snapshot:
// each move, and the exact action bisect command that finds the commits
// that made it ("" for no hint).
func BisectHints(hints []bisect.Hint) string {
	if len(hints) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("### A headline MAPE moved since the last snapshot\n\n")
	for _, h := range hints {
		d, _ := metric.ByKey(h.Metric)
		fmt.Fprintf(&b, "- %s MAPE (tier %s): %.2f%% → %.2f%% (%+.2f pp), more than the threshold of %g pp. To find the commits that moved it:\n\n",
			d.Name, Cell(h.Tier), h.Before, h.After, h.After-h.Before, h.Threshold)
		quoted := make([]string, len(h.Args))
		for i, a := range h.Args {
			quoted[i] = shellQuote(a)
		}
		fmt.Fprintf(&b, "  ```sh\n  action bisect %s\n  ```\n\n", strings.Join(quoted, " "))
	}
	return b.String()
}

// shellQuote is s as one POSIX shell word, on one line, safe inside a
// fenced code block: single-quoted unless it is a plain word; a line break
// or a backtick, which could end the block, becomes a space.
func shellQuote(s string) string {
	s = strings.NewReplacer("\r", " ", "\n", " ", "`", " ").Replace(s)
	if s != "" && codeToken.MatchString(strings.NewReplacer("/", "", ",", "", "=", "", "@", "").Replace(s)) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
