package lbview

import (
	"fmt"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
)

// Marker is the hidden marker that identifies the Action's
// leaderboard comment on a pull request, distinct from the accuracy
// comment's PRMarker: each mode finds and edits only its own comment.
const Marker = "<!-- accuracy-dashboard:leaderboard -->"

// Report is what the Action's leaderboard mode found for one
// runs.yaml of a pull request.
type Report struct {
	// Path is the runs.yaml's path in the repository.
	Path string
	// Refused says why no tables are shown: the declaration does not
	// decode (each line naming file, line and field) or its results do not
	// check. Board is unset then.
	Refused []string
	Board   leaderboard.Board
	// Notes are said above the tables (or the refusal).
	Notes []string
	// Results counts the results; Unchanged those identical to the ones
	// committed beside runs.yaml (the rest are new or changed).
	Results, Unchanged int
}

// Counts are the counts the comment, the job summary and the
// step outputs give for a report.
type Counts struct {
	Groups, Qualified, Disqualified, Failed int
	// Pending are declared runs without a result yet.
	Pending int
}

// Counts counts the board's groups and its runs by standing.
func (r Report) Counts() Counts {
	c := Counts{Groups: len(r.Board.Groups)}
	for _, g := range r.Board.Groups {
		for _, t := range g.Tables {
			c.Qualified += len(t.Rows)
			c.Disqualified += len(t.Disqualified)
			c.Failed += len(t.Failed)
			c.Pending += len(t.Pending)
		}
	}
	return c
}

// Comment renders the leaderboard mode's pull-request comment
// (and job summary): Marker, then for each changed runs.yaml the
// group tables as Markdown draws them (ranks, disqualified runs
// with their would-be ranks, failed runs, capacity) or why it was refused,
// and the legend of the computed values. Every string from a declaration or
// a result is inert text (Cell).
func Comment(reports []Report) string {
	var w strings.Builder
	w.WriteString(Marker + "\n### Leaderboard of this pull request\n\n")
	w.WriteString("Simulated deployments compared on the same offered work, one table per comparability group, as the changed `runs.yaml` declares them, run on the pinned simulator. ")
	w.WriteString("Each metric cell is `value (#rank)` among the group's qualified runs; there is no composite score.\n")
	tables := false
	for _, r := range reports {
		fmt.Fprintf(&w, "\n---\n\n#### %s\n\n", render.Cell(r.Path))
		for _, n := range r.Notes {
			fmt.Fprintf(&w, "**Note:** %s\n\n", render.Cell(n))
		}
		if len(r.Refused) > 0 {
			w.WriteString("**Refused**, no tables:\n\n")
			for _, line := range r.Refused {
				fmt.Fprintf(&w, "- %s\n", render.Cell(line))
			}
			continue
		}
		tables = true
		c := r.Counts()
		pending := ""
		if c.Pending > 0 {
			pending = fmt.Sprintf(", %d not run yet", c.Pending)
		}
		fmt.Fprintf(&w, "%d results in %d groups: %d ranked, %d disqualified, %d failed%s. %d as committed, %d new or changed.\n\n",
			r.Results, c.Groups, c.Qualified, c.Disqualified, c.Failed, pending, r.Unchanged, r.Results-r.Unchanged)
		w.WriteString(provenanceLine(r.Board, render.Cell))
		writeLeaderboardGroups(&w, r.Board, 5)
	}
	if tables {
		writeComputedLegend(&w)
	}
	return w.String()
}

// NothingToRunComment replaces an earlier leaderboard comment of
// a pull request that no longer changes a leaderboard: its marker, then the
// same words as the job summary.
func NothingToRunComment(why string) string {
	return Marker + "\n" + NothingToRun(why)
}

// NothingToRun is the leaderboard mode's job summary when a pull
// request gives it nothing to run; why is the mode's own sentence (trusted
// Markdown), e.g. that no runs.yaml changed.
func NothingToRun(why string) string {
	return "### Leaderboard\n\n" + why + "\n"
}
