package render

import (
	"regexp"
	"strings"
)

var (
	mentionRe  = regexp.MustCompile(`(^|[^\w` + "`" + `])@([A-Za-z0-9][A-Za-z0-9-]*(?:/[A-Za-z0-9_.-]+)?)`)
	issueRefRe = regexp.MustCompile(`(^|[^\w&])#(\d+)`)
	// cellMentionRe also matches after a backtick: Cell escapes backticks,
	// so a cell holds no code span that would keep a mention inert.
	cellMentionRe = regexp.MustCompile(`(^|[^\w])@([A-Za-z0-9][A-Za-z0-9-]*(?:/[A-Za-z0-9_.-]+)?)`)
)

// Cell makes untrusted text safe inside a Markdown table cell: pipes,
// backticks, angle brackets and newlines cannot break the table or inject
// HTML, and @mentions and #123 references cannot ping or cross-link.
func Cell(s string) string {
	s = strings.NewReplacer(
		"\\", "\\\\",
		"|", "\\|",
		"`", "\\`",
		"<", "&lt;",
		">", "&gt;",
		"\r\n", " ",
		"\n", " ",
		"\r", " ",
	).Replace(s)
	s = cellMentionRe.ReplaceAllString(s, "$1@\u200d$2")
	return issueRefRe.ReplaceAllString(s, "$1#\u200d$2")
}

// Defuse breaks @mentions and #123 references in untrusted text by putting a
// zero-width joiner after the sigil, so that quoting the text on GitHub neither
// notifies anyone nor links an issue. The text still reads the same.
func Defuse(s string) string {
	s = mentionRe.ReplaceAllString(s, "$1@\u200d$2")
	return issueRefRe.ReplaceAllString(s, "$1#\u200d$2")
}
