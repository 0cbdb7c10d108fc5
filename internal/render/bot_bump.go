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

// LeaderboardBumpMarker starts every leaderboard-pair bump pull request
// body, as BumpMarker does a harness bump's; the two never supersede each
// other.
const LeaderboardBumpMarker = "<!-- accuracy-bot:leaderboard-bump -->"

// LeaderboardBump is what a leaderboard-pair bump pull request says: the
// pin file's leaderboard simulator moved to a release, with its catalog.
// FromTag, Catalog* and ReleaseNotes are untrusted (the consumer's pin file
// and the release).
type LeaderboardBump struct {
	// Simulator is the simulator repository, "owner/name"; WebURL the
	// GitHub web root.
	Simulator, WebURL string
	// PinFile is the pin file's path.
	PinFile string
	// FromTag and FromCommit are the simulator pinned before; Tag and
	// Commit what it moves to.
	FromTag, FromCommit, Tag, Commit string
	// CatalogSource is the catalog's source ("none" or a path);
	// CatalogFrom and CatalogTo its digests before and after ("" for none).
	CatalogSource, CatalogFrom, CatalogTo string
	// ReleaseNotes are the simulator release's notes, quoted.
	ReleaseNotes string
}

// LeaderboardBumpBody is the leaderboard-pair bump pull request body:
// LeaderboardBumpMarker, what moves (the simulator, and the catalog with
// it or why it has no version of its own), that the leaderboard's results
// are re-run on the new pair, the compare link and the release notes, as
// BumpBody. It is at most textcut.MaxGitHubBody bytes.
func LeaderboardBumpBody(l LeaderboardBump) string {
	repoURL := strings.TrimSuffix(l.WebURL, "/") + "/" + l.Simulator
	fromTag := textcut.Cut(l.FromTag, bumpTagBytes)
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", LeaderboardBumpMarker)
	fmt.Fprintf(&b, "Moves the leaderboard's simulator/catalog pair in %s together, in one commit:\n\n", codeSpan(textcut.Cut(l.PinFile, bumpPathBytes)))
	fmt.Fprintf(&b, "- simulator [%s](%s): %s (commit %s) → %s (commit %s)\n", l.Simulator, repoURL,
		codeSpan(fromTag), codeSpan(l.FromCommit), codeSpan(l.Tag), codeSpan(l.Commit))
	if l.CatalogSource == "none" {
		b.WriteString("- catalog: `none`, the simulator's own `model_configs/`, which moves with the simulator\n\n")
	} else {
		fmt.Fprintf(&b, "- catalog %s: %s → %s (its content on the default branch)\n\n",
			codeSpan(textcut.Cut(l.CatalogSource, bumpPathBytes)), codeSpan(l.CatalogFrom), codeSpan(l.CatalogTo))
	}
	b.WriteString("Every leaderboard result ran on the old pair, so none is reused: once this is merged the leaderboard workflow re-runs every declared run on the new pair on the default branch, and the accuracy bot publishes the new results when that run succeeds. On this pull request the same workflow runs them all and comments the new tables.\n\n")
	if fromTag != "" && ident.CheckTag(fromTag) == nil {
		fmt.Fprintf(&b, "Compare: %s/compare/%s...%s\n\n", repoURL, fromTag, l.Tag)
	} else {
		fmt.Fprintf(&b, "Release: %s/releases/tag/%s\n\n", repoURL, l.Tag)
	}
	return withReleaseNotes(b.String(), repoURL, l.Tag, l.ReleaseNotes)
}

// LeaderboardSupersededComment is the comment that closes an older
// leaderboard-pair bump pull request.
func LeaderboardSupersededComment(pull int, tag string) string {
	return fmt.Sprintf("Superseded by #%d, which moves the leaderboard's simulator/catalog pair to %s.", pull, codeSpan(tag))
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
	return withReleaseNotes(b.String(), repoURL, bump.Tag, bump.ReleaseNotes)
}

// withReleaseNotes ends a bump pull request body that begins with head: the
// release notes of tag (a release of repoURL), quoted with mentions,
// references and HTML defused and cut to what textcut.MaxGitHubBody leaves,
// then the bot's footer.
func withReleaseNotes(head, repoURL, tag, releaseNotes string) string {
	const tail = "\n</details>\n\n---\nThis pull request is kept up to date by the accuracy bot. Pushing to its branch stops the bot from touching it.\n"
	notes := quote(defuseNotes(releaseNotes))
	if notes == "" {
		notes = "> (no release notes)\n"
	}
	open := fmt.Sprintf("<details>\n<summary>Release notes of %s</summary>\n\n", Cell(tag))
	// head is at most a few KB plus two capped lists, so the budget is
	// positive; it is clamped all the same.
	budget := max(0, textcut.MaxGitHubBody-len(head)-len(open)-len(tail)-200)
	if len(notes) > budget {
		notes = textcut.Prefix(notes, budget) + fmt.Sprintf("\n\n> … release notes truncated; see %s/releases/tag/%s\n", repoURL, tag)
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
