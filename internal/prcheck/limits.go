package prcheck

import (
	"strings"
	"unicode/utf8"
)

// Size limits GitHub enforces.
const (
	// MaxCommentBytes bounds a comment body. GitHub allows 65 536
	// characters; bounding bytes keeps under that however characters are
	// counted.
	MaxCommentBytes = 65536
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
		return cutRunes(note, limit)
	}
	cut := cutRunes(s, room)
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i]
	}
	if strings.Count(cut, "<details>") > strings.Count(cut, "</details>") {
		cut += closeDetails
	}
	return cut + tail
}

// cutRunes returns the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
