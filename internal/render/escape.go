package render

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
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

// Column is a Markdown table's column (TableHead): its header (trusted
// text) and whether its cells are figures, right-aligned.
type Column struct {
	Name    string
	Figures bool
}

// TextColumns are left-aligned columns.
func TextColumns(names ...string) []Column {
	cols := make([]Column, len(names))
	for i, n := range names {
		cols[i] = Column{Name: n}
	}
	return cols
}

// headlineColumns are, for each headline metric, one figures column per
// format, where %[1]s is the metric's short name ("%[1]s MAPE").
func headlineColumns(formats ...string) []Column {
	var cols []Column
	for _, d := range metric.Headline() {
		for _, f := range formats {
			cols = append(cols, Column{Name: fmt.Sprintf(f, d.Short), Figures: true})
		}
	}
	return cols
}

// TableHead is a Markdown table's header row and alignment row.
func TableHead(cols []Column) string {
	var head, align strings.Builder
	head.WriteString("|")
	align.WriteString("|")
	for _, c := range cols {
		head.WriteString(" " + c.Name + " |")
		if c.Figures {
			align.WriteString("---:|")
		} else {
			align.WriteString("---|")
		}
	}
	return head.String() + "\n" + align.String() + "\n"
}
