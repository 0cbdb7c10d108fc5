package prcheck

import (
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

// Size limits GitHub enforces.
const (
	// MaxCommentBytes bounds a comment body (textcut.MaxGitHubBody).
	MaxCommentBytes = textcut.MaxGitHubBody
	// MaxStepSummaryBytes bounds what one step writes to $GITHUB_STEP_SUMMARY.
	MaxStepSummaryBytes = 1 << 20
)

// Truncate returns s unchanged when it fits in limit bytes. Otherwise it
// cuts s at the last line break that leaves room for note, closes a
// <details> block left open, and appends note, so the result is at most
// limit bytes, valid UTF-8 when s is, and says visibly that it was cut.
func Truncate(s string, limit int, note string) string {
	if len(s) <= limit {
		return s
	}
	tail := "\n\n" + note + "\n"
	const closeDetails = "\n</details>\n"
	room := limit - len(tail) - len(closeDetails)
	if room <= 0 {
		return textcut.Prefix(note, limit)
	}
	cut := textcut.Prefix(s, room)
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i]
	}
	if strings.Count(cut, "<details>") > strings.Count(cut, "</details>") {
		cut += closeDetails
	}
	return cut + tail
}
