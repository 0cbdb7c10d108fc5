package bot

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

// Markers the bot leaves so that it recognizes its own work.
const (
	// BumpTrailer ends every bump commit message.
	BumpTrailer = "Accuracy-Bot: harness-bump"
	// BumpMarker starts every bump pull request body.
	BumpMarker = "<!-- accuracy-bot:harness-bump -->"
	// MaxBodyChars is GitHub's limit on a pull request or comment body
	// (textcut.MaxGitHubBody).
	MaxBodyChars = textcut.MaxGitHubBody
)

// WorkflowDir is where workflows are looked for `uses:` pins.
const WorkflowDir = ".github/workflows"

// ConsumerFiles is what a consumer repository holds at its default branch
// head: its pin file (nil when absent) and its workflow files.
type ConsumerFiles struct {
	PinPath string
	Pin     []byte
	// Workflows maps a workflow file's path to its content.
	Workflows map[string][]byte
}

// Has reports whether every file of files (path → content, e.g. a plan's)
// is among c's, with that content.
func (c ConsumerFiles) Has(files map[string][]byte) bool {
	for p, want := range files {
		got, ok := c.Workflows[p]
		if p == c.PinPath {
			got, ok = c.Pin, c.Pin != nil
		}
		if !ok || string(got) != string(want) {
			return false
		}
	}
	return true
}

// Target is the harness version a bump moves to.
type Target struct {
	Harness Repo
	Tag     string
	// Commit is the commit Tag points at (resolved through the git refs,
	// never taken from the release's target_commitish).
	Commit  string
	Release Release
	// WebURL is the GitHub web root, e.g. https://github.com.
	WebURL string
}

// BumpPlan is what one consumer repository's bump changes.
type BumpPlan struct {
	// Files maps each changed path to its new content.
	Files map[string][]byte
	// FromTag is the version pinned before ("" when unknown).
	FromTag string
	Title   string
	Body    string
	Message string
	// Notes are problems with individual files that were left alone.
	Notes []string
}

// Paths returns the changed paths, sorted.
func (p BumpPlan) Paths() []string {
	return slices.Sorted(maps.Keys(p.Files))
}

// SkipReason says why a repository gets no bump; it is also an error so a
// plan can return it.
type SkipReason string

func (s SkipReason) Error() string { return string(s) }

// Skip reasons.
const (
	SkipNotPinned SkipReason = "does not pin the harness"
	SkipUpToDate  SkipReason = "already pins this version"
	SkipNewer     SkipReason = "pins a newer version"
)

// PlanBump decides what a release changes in one consumer repository. It
// returns a SkipReason error when nothing should change, or an error naming
// the file when the pin file is broken.
func PlanBump(files ConsumerFiles, t Target) (BumpPlan, error) {
	plan := BumpPlan{Files: map[string][]byte{}}
	pinned := false
	if files.Pin != nil {
		p, err := pin.Parse(files.Pin, files.PinPath)
		if err != nil {
			return BumpPlan{}, fmt.Errorf("pin file: %w", err)
		}
		if pin.SameRepository(p.Harness.Repository, t.Harness.String()) {
			pinned = true
			plan.FromTag = p.Harness.Tag
			out, err := pin.SetHarness(files.Pin, t.Tag, t.Commit)
			if err != nil {
				return BumpPlan{}, fmt.Errorf("pin file %s: %w", files.PinPath, err)
			}
			if string(out) != string(files.Pin) {
				plan.Files[files.PinPath] = out
			}
		}
	}
	wfPaths := slices.Sorted(maps.Keys(files.Workflows))
	for _, p := range wfPaths {
		src := files.Workflows[p]
		uses, err := pin.FindUses(src)
		if err != nil {
			plan.Notes = append(plan.Notes, textcut.Cut(fmt.Sprintf("%s left alone: %v", p, err), maxNoteBytes))
			continue
		}
		for _, u := range uses {
			if pinsHarness(u, t.Harness) {
				pinned = true
				if plan.FromTag == "" && pin.CheckTag(u.Comment) == nil {
					plan.FromTag = u.Comment
				}
			}
		}
		out, changed, err := pin.BumpUses(src, t.Harness.String(), t.Tag, t.Commit)
		if err != nil {
			plan.Notes = append(plan.Notes, textcut.Cut(fmt.Sprintf("%s left alone: %v", p, err), maxNoteBytes))
			continue
		}
		if changed {
			plan.Files[p] = out
		}
	}
	switch {
	case !pinned:
		return BumpPlan{}, SkipNotPinned
	case plan.FromTag != "" && CompareVersions(plan.FromTag, t.Tag) > 0:
		return BumpPlan{}, SkipNewer
	case len(plan.Files) == 0:
		return BumpPlan{}, SkipUpToDate
	}
	plan.Title = "Bump accuracy harness to " + t.Tag
	plan.Message = fmt.Sprintf("%s\n\nPins %s at %s (%s).\n\n%s\n", plan.Title, t.Harness, t.Commit, t.Tag, BumpTrailer)
	plan.Body = bumpBody(plan, t)
	return plan, nil
}

// pinsHarness reports whether a `uses:` reference pins the harness by
// commit. It is pin.BumpUses's rule for the references it moves (the
// repository compared case-insensitively, a 40-hex ref in either case), so
// that every file BumpUses changes counts as pinning.
func pinsHarness(u pin.Uses, harness Repo) bool {
	return strings.EqualFold(u.Repo, harness.String()) && pin.CheckCommit(strings.ToLower(u.Ref)) == nil
}

// bumpBody is the pull request body: what moves, the compare link and the
// release notes with mentions and references defused.
func bumpBody(plan BumpPlan, t Target) string {
	web := strings.TrimSuffix(t.WebURL, "/")
	repoURL := web + "/" + t.Harness.String()
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", BumpMarker)
	fromTag := textcut.Cut(plan.FromTag, maxTagBytes) // read from the consumer's files
	from := "an unknown version"
	if fromTag != "" {
		from = codeSpan(fromTag)
	}
	fmt.Fprintf(&b, "Bumps the accuracy harness [%s](%s) from %s to `%s` (commit `%s`).\n\n", t.Harness, repoURL, from, t.Tag, t.Commit)
	b.WriteString("Files changed:\n")
	var lines []string
	for _, p := range plan.Paths() {
		lines = append(lines, "- "+codeSpan(textcut.Cut(p, maxPathBytes))+"\n")
	}
	writeLines(&b, lines, maxListBytes, "- … and %d more files\n")
	b.WriteString("\n")
	if fromTag != "" && pin.CheckTag(fromTag) == nil {
		fmt.Fprintf(&b, "Compare: %s/compare/%s...%s\n\n", repoURL, fromTag, t.Tag)
	} else {
		fmt.Fprintf(&b, "Release: %s/releases/tag/%s\n\n", repoURL, t.Tag)
	}
	lines = lines[:0]
	for _, n := range plan.Notes {
		lines = append(lines, fmt.Sprintf("> [!NOTE]\n> %s\n\n", textcut.Cut(render.Cell(n), maxNoteBytes)))
	}
	writeLines(&b, lines, maxListBytes, "> [!NOTE]\n> … and %d more files left alone (the bot's log lists them)\n\n")
	head := b.String()
	const tail = "\n</details>\n\n---\nThis pull request is kept up to date by the accuracy bot. Pushing to its branch stops the bot from touching it.\n"
	notes := quote(defuseNotes(t.Release.Notes))
	if notes == "" {
		notes = "> (no release notes)\n"
	}
	open := fmt.Sprintf("<details>\n<summary>Release notes of %s</summary>\n\n", render.Cell(t.Tag))
	// head is at most a few KB plus two capped lists, so the budget is
	// positive; it is clamped all the same.
	budget := max(0, MaxBodyChars-len(head)-len(open)-len(tail)-200)
	if len(notes) > budget {
		notes = textcut.Prefix(notes, budget) + fmt.Sprintf("\n\n> … release notes truncated; see %s/releases/tag/%s\n", repoURL, t.Tag)
	}
	return head + open + notes + tail
}

// Caps on what a bump pull request body quotes from the consumer's files
// (paths, notes about files left alone, the old tag): each line, and each
// list, so that the release notes always keep room.
const (
	maxPathBytes = 300
	maxNoteBytes = 1000
	maxTagBytes  = 100
	maxListBytes = 8 << 10
)

// writeLines writes lines until the next would take them past limit bytes,
// then more, formatted with how many were left out.
func writeLines(b *strings.Builder, lines []string, limit int, more string) {
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
	return render.Defuse(strings.TrimSpace(s))
}

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

// CompareVersions compares two vMAJOR.MINOR.PATCH[-pre] tags the semver
// way: -1, 0 or +1. A tag that is not such a version sorts before any that is.
func CompareVersions(a, b string) int {
	va, oka := parseVersion(a)
	vb, okb := parseVersion(b)
	switch {
	case !oka && !okb:
		return strings.Compare(a, b)
	case !oka:
		return -1
	case !okb:
		return 1
	}
	for i := range 3 {
		if va.n[i] != vb.n[i] {
			if va.n[i] < vb.n[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case va.pre == vb.pre:
		return 0
	case va.pre == "":
		return 1
	case vb.pre == "":
		return -1
	}
	return comparePre(va.pre, vb.pre)
}

type version struct {
	n   [3]int
	pre string
}

func parseVersion(s string) (version, bool) {
	s, ok := strings.CutPrefix(s, "v")
	if !ok {
		return version{}, false
	}
	s, _, _ = strings.Cut(s, "+")
	core, pre, _ := strings.Cut(s, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return version{}, false
	}
	var v version
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return version{}, false
		}
		v.n[i] = n
	}
	v.pre = pre
	return v, true
}

func comparePre(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		na, ea := strconv.Atoi(pa[i])
		nb, eb := strconv.Atoi(pb[i])
		switch {
		case ea == nil && eb == nil:
			if na != nb {
				if na < nb {
					return -1
				}
				return 1
			}
		case ea == nil:
			return -1
		case eb == nil:
			return 1
		default:
			if c := strings.Compare(pa[i], pb[i]); c != 0 {
				return c
			}
		}
	}
	switch {
	case len(pa) < len(pb):
		return -1
	case len(pa) > len(pb):
		return 1
	}
	return 0
}

// isWorkflowFile reports whether a name in WorkflowDir is a workflow.
func isWorkflowFile(name string) bool {
	ext := path.Ext(name)
	return ext == ".yml" || ext == ".yaml"
}
