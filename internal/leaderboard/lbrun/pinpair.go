package lbrun

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
)

// PinPairProblems checks results against the pinned pair: a catalog pinned
// as a path (relative to repoRoot, the repository's root) must still hash to
// the pinned digest (a catalog edited without moving the pin is a half-moved
// pair), and every result must have run on both members (leaderboard.CheckPair).
func PinPairProblems(ctx context.Context, pair pin.LeaderboardPair, pinFile, repoRoot string, results map[string]*leaderboard.Result) ([]leaderboard.Problem, error) {
	var probs []leaderboard.Problem
	if src := pair.Catalog.Source; src != pin.None && src != pin.Bundled {
		dv, err := harness.DirVersion(ctx, "catalog", filepath.Join(repoRoot, filepath.FromSlash(src)))
		if err != nil {
			return nil, fmt.Errorf("%s: leaderboard.catalog.source: %w", pinFile, err)
		}
		if dv.Digest != pair.Catalog.Digest {
			probs = append(probs, leaderboard.Problem{Kind: leaderboard.ProblemHalfMoved, Msg: fmt.Sprintf(
				"catalog %s now hashes to %s but %s pins %s: the catalog changed without moving the pin pair; re-pin the simulator and catalog together and re-run the results",
				src, dv.Digest, pinFile, pair.Catalog.Digest)})
		}
	}
	return append(probs, leaderboard.CheckPair(results, leaderboard.PinnedPair{SimulatorCommit: pair.Simulator.Commit, CatalogDigest: pair.ResultsCatalogDigest()})...), nil
}
