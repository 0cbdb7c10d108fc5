package render

import (
	"fmt"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

// RefusalMarkerPrefix starts the hidden marker of every refusal comment.
const RefusalMarkerPrefix = "<!-- accuracy-bot:publish-refused"

// RefusalMarker is the hidden marker that starts the refusal comment of a
// run, e.g. "<!-- accuracy-bot:publish-refused run=4242 -->": refusals of
// the same run carry the same marker, refusals of other runs another.
func RefusalMarker(runID int64) string {
	return fmt.Sprintf("%s run=%d -->", RefusalMarkerPrefix, runID)
}

// Refusal is a publish the bot refused: what it would have published, the
// run and its artifact, and why.
type Refusal struct {
	// What names what was not published, e.g. "Accuracy snapshot"; Kind is
	// the kind of artifact, e.g. "report".
	What, Kind string
	// Artifact is the artifact's name.
	Artifact string
	// RunID and RunURL are the run (RunURL may be empty); Workflow its
	// workflow file.
	RunID            int64
	RunURL, Workflow string
	// Reasons say why, one line each; they quote untrusted text (model
	// names, versions, file content).
	Reasons []string
}

// refusalReasonBytes caps one reason in a refusal comment (a schema error
// may quote a whole document).
const refusalReasonBytes = 4000

// RefusalComment is the comment left on a refused run's head commit: the
// run's marker, the refused artifact, the run (linked) and its workflow,
// and one line per reason. Reasons are defused; the artifact and workflow
// names sit in code spans, where nothing pings or links. A body over
// textcut.MaxGitHubBody drops its last reasons and says how many.
func RefusalComment(r Refusal) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", RefusalMarker(r.RunID))
	run := fmt.Sprintf("%d", r.RunID)
	if r.RunURL != "" {
		run = fmt.Sprintf("[%d](%s)", r.RunID, r.RunURL)
	}
	fmt.Fprintf(&b, "**%s not published.** The %s artifact %s of run %s", r.What, r.Kind, codeSpan(r.Artifact), run)
	if r.Workflow != "" {
		fmt.Fprintf(&b, " (workflow %s)", codeSpan(r.Workflow))
	}
	b.WriteString(" was refused:\n\n")
	const room = 200 // for the truncation note
	for i, reason := range r.Reasons {
		line := fmt.Sprintf("- %s\n", textcut.Cut(Cell(strings.TrimSpace(reason)), refusalReasonBytes))
		if b.Len()+len(line) > textcut.MaxGitHubBody-room {
			fmt.Fprintf(&b, "- … %d more reasons truncated; see the run's logs\n", len(r.Reasons)-i)
			break
		}
		b.WriteString(line)
	}
	return b.String()
}
