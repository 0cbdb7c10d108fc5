package harness

import (
	"errors"
	"fmt"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// ErrNotPinned is returned for a simulator ref that is neither a tag nor a
// full commit: a branch moves, so figures from it could not be regenerated.
var ErrNotPinned = errors.New("not a release tag or a 40-hex commit")

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
