package bump

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

// Markers the bot leaves so that it recognizes its own work.
const (
	// BumpTrailer ends every bump commit message.
	BumpTrailer = "Accuracy-Bot: harness-bump"
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
	// CatalogDigest is, for a leaderboard-pair bump whose pin names a
	// catalog path, that directory's content digest at the commit read
	// ("" otherwise, or when it is not a directory there).
	CatalogDigest string
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
	Harness ident.Repo
	Tag     string
	// Commit is the commit Tag points at (resolved through the git refs,
	// never taken from the release's target_commitish).
	Commit  string
	Release ghmodel.Release
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
				if plan.FromTag == "" && ident.CheckTag(u.Comment) == nil {
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
	case plan.FromTag != "" && ident.CompareTags(plan.FromTag, t.Tag) > 0:
		return BumpPlan{}, SkipNewer
	case len(plan.Files) == 0:
		return BumpPlan{}, SkipUpToDate
	}
	plan.Title = "Bump accuracy harness to " + t.Tag
	plan.Message = fmt.Sprintf("%s\n\nPins %s at %s (%s).\n\n%s\n", plan.Title, t.Harness, t.Commit, t.Tag, BumpTrailer)
	plan.Body = render.BumpBody(render.Bump{Harness: t.Harness.String(), WebURL: t.WebURL, FromTag: plan.FromTag, Tag: t.Tag, Commit: t.Commit,
		Files: plan.Paths(), LeftAlone: plan.Notes, ReleaseNotes: t.Release.Notes})
	return plan, nil
}

// maxNoteBytes caps a note about a file left alone (a parse error may
// quote the file).
const maxNoteBytes = 1000

// pinsHarness reports whether a `uses:` reference pins the harness by
// commit. It is pin.BumpUses's rule for the references it moves (the
// repository compared case-insensitively, a 40-hex ref in either case), so
// that every file BumpUses changes counts as pinning.
func pinsHarness(u pin.Uses, harness ident.Repo) bool {
	return strings.EqualFold(u.Repo, harness.String()) && ident.CheckCommit(strings.ToLower(u.Ref)) == nil
}

// isWorkflowFile reports whether a name in WorkflowDir is a workflow.
func isWorkflowFile(name string) bool {
	ext := path.Ext(name)
	return ext == ".yml" || ext == ".yaml"
}
