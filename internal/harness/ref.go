package harness

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// ErrNotPinned is returned for a simulator ref that is neither a tag nor a
// full commit: a branch moves, so figures from it could not be regenerated.
var ErrNotPinned = errors.New("not a release tag or a 40-hex commit")

// IsCommit reports whether s is a full 40-hex (lowercase) commit id.
func IsCommit(s string) bool { return ident.IsCommit(s) }

// IsReleaseTag reports whether s is a stable release tag: vMAJOR.MINOR.PATCH
// (ident.IsStableRelease).
func IsReleaseTag(s string) bool { return ident.IsStableRelease(s) }

// NewestRelease returns the highest vX.Y.Z tag of tags by version order, or
// "" when none is a release tag.
func NewestRelease(tags []string) string {
	rel := ReleaseTags(tags)
	if len(rel) == 0 {
		return ""
	}
	return rel[0]
}

// ReleaseTags returns the vX.Y.Z tags among tags, newest version first.
func ReleaseTags(tags []string) []string {
	var rel []string
	for _, t := range tags {
		if t = strings.TrimSpace(t); IsReleaseTag(t) {
			rel = append(rel, t)
		}
	}
	slices.SortFunc(rel, func(a, b string) int { return ident.CompareTags(b, a) })
	return rel
}

// checkRefSyntax refuses refs that can never be pinned, before any git work.
func checkRefSyntax(ref string) error {
	switch {
	case ref == "":
		return fmt.Errorf("simulator ref is empty: %w", ErrNotPinned)
	case len(ref) == 40 && strings.ToLower(ref) != ref && ident.IsCommit(strings.ToLower(ref)):
		return fmt.Errorf("simulator ref %q: write the commit in lowercase hex", ref)
	case strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, " \t\n~^:?*[\\"):
		return fmt.Errorf("simulator ref %q: %w", ref, ErrNotPinned)
	}
	return nil
}
