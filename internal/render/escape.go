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

// cellReplacer escapes every character of untrusted text that Markdown or
// HTML would act on.
var cellReplacer = strings.NewReplacer(
	"\\", "\\\\",
	"|", "\\|",
	"`", "\\`",
	"[", "\\[",
	"]", "\\]",
	"&", "&amp;",
	"<", "&lt;",
	">", "&gt;",
	"\r\n", " ",
	"\n", " ",
	"\r", " ",
	"://", ":\u200d//",
)

var (
	// cellRefRe is any #123: GitHub links it after a word too (org/repo#1).
	cellRefRe = regexp.MustCompile(`#(\d)`)
	// ghRefRe is GitHub's GH-123 issue reference.
	ghRefRe = regexp.MustCompile(`(^|[^\w])([gG][hH])-(\d)`)
	// wwwRe is the start of a URL GitHub autolinks without a scheme.
	wwwRe = regexp.MustCompile(`(^|[^\w])([wW]{3})\.`)
)

// Cell makes untrusted text inert inside a Markdown table cell or
// paragraph: pipes, backticks, brackets, angle brackets,
// ampersands (so no HTML entity spells a mention) and newlines are escaped,
// so the text cannot break the table, inject HTML, an image or a link; a
// zero-width joiner keeps GitHub from autolinking URLs (after "://" and
// "www") and from acting on @mentions, #123, org/repo#123 and GH-123. The
// text still reads the same.
func Cell(s string) string {
	s = cellReplacer.Replace(s)
	s = cellMentionRe.ReplaceAllString(s, "$1@\u200d$2")
	s = cellRefRe.ReplaceAllString(s, "#\u200d$1")
	s = ghRefRe.ReplaceAllString(s, "$1$2-\u200d$3")
	return wwwRe.ReplaceAllString(s, "$1$2\u200d.")
}

// Defuse breaks @mentions and #123 references in untrusted text by putting a
// zero-width joiner after the sigil, so that quoting the text on GitHub neither
// notifies anyone nor links an issue. The text still reads the same.
func Defuse(s string) string {
	s = mentionRe.ReplaceAllString(s, "$1@\u200d$2")
	return issueRefRe.ReplaceAllString(s, "$1#\u200d$2")
}

// codeSpan shows untrusted text as inline code in a paragraph or list item,
// where nothing in a code span pings, links or renders; backticks and line
// breaks, which would end the span, become ' and spaces. Inside a table use
// code, which also keeps pipes from splitting the cell.
func codeSpan(s string) string {
	s = strings.NewReplacer("`", "'", "\r", " ", "\n", " ").Replace(s)
	return "`" + s + "`"
}
