package render

import (
	"fmt"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

// BumpMarker starts every bump pull request body: with the bot as author it
// marks the pull request as the bot's bump.
const BumpMarker = "<!-- accuracy-bot:harness-bump -->"

// Bump is what a harness-bump pull request says. FromTag, Files, LeftAlone
// and ReleaseNotes are untrusted (read from the consumer's files and the
// release).
type Bump struct {
	// Harness is the harness repository, "owner/name"; WebURL the GitHub web
	// root (e.g. https://github.com).
	Harness, WebURL string
	// FromTag is the version pinned before ("" when unknown).
	FromTag string
	// Tag and Commit are what the pin moves to.
	Tag, Commit string
	// Files are the changed paths, in order.
	Files []string
	// LeftAlone are problems with files the bump left alone.
	LeftAlone []string
	// ReleaseNotes are the release's notes, quoted.
	ReleaseNotes string
}

// Caps on what a bump pull request body quotes from the consumer's files
// (paths, notes about files left alone, the old tag): each line, and each
// list, so that the release notes always keep room.
const (
	bumpPathBytes = 300
	bumpNoteBytes = 1000
	bumpTagBytes  = 100
	bumpListBytes = 8 << 10
)

// BumpBody is the bump pull request body: BumpMarker, what moves, the
// compare link, the files left alone and the release notes with mentions,
// references and HTML defused. It is at most textcut.MaxGitHubBody bytes:
// the lists are capped and the release notes cut to what is left.
func BumpBody(bump Bump) string {
	repoURL := strings.TrimSuffix(bump.WebURL, "/") + "/" + bump.Harness
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", BumpMarker)
	fromTag := textcut.Cut(bump.FromTag, bumpTagBytes)
	from := "an unknown version"
	if fromTag != "" {
		from = codeSpan(fromTag)
	}
	fmt.Fprintf(&b, "Bumps the accuracy harness [%s](%s) from %s to %s (commit %s).\n\n", bump.Harness, repoURL, from, codeSpan(bump.Tag), codeSpan(bump.Commit))
	b.WriteString("Files changed:\n")
	var lines []string
	for _, p := range bump.Files {
		lines = append(lines, "- "+codeSpan(textcut.Cut(p, bumpPathBytes))+"\n")
	}
	writeCapped(&b, lines, bumpListBytes, "- … and %d more files\n")
	b.WriteString("\n")
	if fromTag != "" && ident.CheckTag(fromTag) == nil {
		fmt.Fprintf(&b, "Compare: %s/compare/%s...%s\n\n", repoURL, fromTag, bump.Tag)
	} else {
		fmt.Fprintf(&b, "Release: %s/releases/tag/%s\n\n", repoURL, bump.Tag)
	}
	lines = lines[:0]
	for _, n := range bump.LeftAlone {
		lines = append(lines, fmt.Sprintf("> [!NOTE]\n> %s\n\n", textcut.Cut(Cell(n), bumpNoteBytes)))
	}
	writeCapped(&b, lines, bumpListBytes, "> [!NOTE]\n> … and %d more files left alone (the bot's log lists them)\n\n")
	head := b.String()
	const tail = "\n</details>\n\n---\nThis pull request is kept up to date by the accuracy bot. Pushing to its branch stops the bot from touching it.\n"
	notes := quote(defuseNotes(bump.ReleaseNotes))
	if notes == "" {
		notes = "> (no release notes)\n"
	}
	open := fmt.Sprintf("<details>\n<summary>Release notes of %s</summary>\n\n", Cell(bump.Tag))
	// head is at most a few KB plus two capped lists, so the budget is
	// positive; it is clamped all the same.
	budget := max(0, textcut.MaxGitHubBody-len(head)-len(open)-len(tail)-200)
	if len(notes) > budget {
		notes = textcut.Prefix(notes, budget) + fmt.Sprintf("\n\n> … release notes truncated; see %s/releases/tag/%s\n", repoURL, bump.Tag)
	}
	return head + open + notes + tail
}

// SupersededComment is the comment that closes an older bump pull request.
func SupersededComment(pull int, tag string) string {
	return fmt.Sprintf("Superseded by #%d, which bumps the accuracy harness to %s.", pull, codeSpan(tag))
}

// writeCapped writes lines until the next would take them past limit bytes,
// then more, formatted with how many were left out.
func writeCapped(b *strings.Builder, lines []string, limit int, more string) {
	n := 0
	for i, l := range lines {
		if n+len(l) > limit {
			fmt.Fprintf(b, more, len(lines)-i)
			return
		}
		b.WriteString(l)
		n += len(l)
	}
}

// defuseNotes makes release notes safe to quote: mentions and issue
// references do not ping or cross-link, and HTML cannot close the
// surrounding <details>.
func defuseNotes(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "<", "&lt;")
	return Defuse(strings.TrimSpace(s))
}

// quote makes s a Markdown block quote, line by line ("" stays "").
func quote(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		b.WriteString("> ")
		b.WriteString(line)
		b.WriteString("\n")
	}
	return b.String()
}
