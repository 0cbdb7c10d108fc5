package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
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

// CommentCutNote ends a pull-request comment cut to GitHub's limit: the
// full report is in the job summary, of the run at detailsURL when given.
func CommentCutNote(detailsURL string) string {
	note := "**Truncated:** a comment holds at most " + spacedThousands(textcut.MaxGitHubBody) + " characters; the full report is in the job summary"
	if detailsURL != "" {
		note += " of [this run](" + detailsURL + ")"
	}
	return note + "."
}

// SummaryCutNote ends a job summary cut to its limit: the full report is
// the run's artifact file.
func SummaryCutNote(file string) string {
	return fmt.Sprintf("**Truncated:** a job summary holds at most %d MiB; the full report is in the run's artifact (%s).", textcut.MaxStepSummary>>20, file)
}

// spacedThousands writes n (≥ 0) with a space between groups of three
// digits: 65536 as "65 536".
func spacedThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + " " + s[i:]
	}
	return s
}
