// Package leaderboardtest holds the leaderboard fixtures several packages'
// tests share: the results of a results directory (the repository's
// example, docs/examples/leaderboard/results) re-sealed as a given
// simulator build produced them. Only tests import it.
package leaderboardtest

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// Results reads every result file under dir (keyed by its slash path
// there, e.g. "chat/h100-tp1.json"), gives each the simulator sim, passes
// it to edit (with its group/run key, the path without ".json"; nil edits
// nothing), recomputes its computed values from its BLIS metrics as a run
// would, and seals and encodes it again.
func Results(t testing.TB, dir string, sim leaderboard.Simulator, edit func(key string, r *leaderboard.Result)) map[string][]byte {
	t.Helper()
	files := testkit.ReadTree(t, dir)
	out := make(map[string][]byte, len(files))
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		r, err := leaderboard.ParseResult(files[rel], rel)
		if err != nil {
			t.Fatal(err)
		}
		r.Provenance.Simulator = sim
		if edit != nil {
			edit(strings.TrimSuffix(rel, ".json"), r)
		}
		if r.BLIS != nil {
			c := leaderboard.Compute(r.Declaration, *r.BLIS)
			r.Computed = &c
		}
		if err := r.Seal(); err != nil {
			t.Fatal(err)
		}
		if out[rel], err = r.Encode(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
