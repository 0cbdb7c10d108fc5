package ghaction

import (
	"context"
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/internal/git"
)

// prepareSimulator checks that the simulator checkout is clean and holds
// each commit, fetching the missing ones from its origin (a pull_request
// checkout holds only the merge commit).
func prepareSimulator(ctx context.Context, dir string, commits ...string) error {
	st, err := git.Status(ctx, dir, true)
	if err != nil {
		return fmt.Errorf("simulator checkout %s: %w", dir, err)
	}
	if st != "" {
		return fmt.Errorf("simulator checkout %s has uncommitted changes; the harness scores commits, so commit or discard them:\n%s", dir, st)
	}
	for _, c := range commits {
		if git.HasCommit(ctx, dir, c) {
			continue
		}
		if err := git.Fetch(ctx, dir, "origin", c); err != nil {
			return fmt.Errorf("simulator checkout %s lacks commit %s and fetching it failed: %w", dir, c, err)
		}
	}
	return nil
}
