package main

import (
	"context"
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
)

// prepareSimulator checks that the simulator checkout is clean and holds
// each commit, fetching the missing ones from its origin (a pull_request
// checkout holds only the merge commit).
func prepareSimulator(ctx context.Context, dir string, commits ...string) error {
	st, err := harness.Git(ctx, dir, "status", "--porcelain")
	if err != nil {
		return fmt.Errorf("simulator checkout %s: %w", dir, err)
	}
	if st != "" {
		return fmt.Errorf("simulator checkout %s has uncommitted changes; the harness scores commits, so commit or discard them:\n%s", dir, st)
	}
	for _, c := range commits {
		if _, err := harness.Git(ctx, dir, "cat-file", "-e", c+"^{commit}"); err == nil {
			continue
		}
		if _, err := harness.Git(ctx, dir, "fetch", "--quiet", "--no-tags", "origin", c); err != nil {
			return fmt.Errorf("simulator checkout %s lacks commit %s and fetching it failed: %w", dir, c, err)
		}
	}
	return nil
}

// simulatorHead is the commit checked out in dir.
func simulatorHead(ctx context.Context, dir string) (string, error) {
	return harness.Git(ctx, dir, "rev-parse", "HEAD")
}
