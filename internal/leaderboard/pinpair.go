package leaderboard

import (
	"fmt"
	"maps"
	"slices"
)

// ProblemHalfMoved is a result that shares exactly one member of the pinned
// simulator/catalog pair: pairs only move together (pin.CheckPairMove), so
// the pin (or the result) was moved one member at a time.
const ProblemHalfMoved = "half-moved-pin"

// PinnedPair is the leaderboard's pinned simulator and catalog, as results
// record them: the simulator commit and the catalog digest ("" for no
// catalog: the simulator's own model configs).
type PinnedPair struct {
	SimulatorCommit string
	CatalogDigest   string
}

// CheckPair lists the results that did not run on the pinned pair, sorted
// by file (as Check returns them, keyed <group>/<run>): a result that differs in both members ran on an older (or newer)
// pair and is drift (problemDrift, re-run it), as is one that differs in
// the simulator when neither side has a catalog; one that differs in
// exactly one member otherwise is ProblemHalfMoved.
func CheckPair(results map[string]*Result, pinned PinnedPair) []Problem {
	keys := slices.Sorted(maps.Keys(results))
	var probs []Problem
	for _, key := range keys {
		r, file := results[key], key+".json"
		sim := r.Provenance.Simulator.Commit
		cat := catalogDigest(r.Provenance.Catalog)
		simDiffers, catDiffers := sim != pinned.SimulatorCommit, cat != pinned.CatalogDigest
		ran := fmt.Sprintf("ran on simulator %s with catalog %s; the pinned pair is simulator %s with catalog %s",
			sim, catalogOrNone(cat), pinned.SimulatorCommit, catalogOrNone(pinned.CatalogDigest))
		switch {
		case simDiffers && (catDiffers || cat == ""):
			// With no catalog on either side the simulator moves alone.
			probs = append(probs, Problem{problemDrift, file, ran + " (re-run it on the pinned pair)"})
		case simDiffers:
			probs = append(probs, Problem{ProblemHalfMoved, file, ran + ": only the simulator differs; the simulator and catalog are pinned and moved as a pair, never one at a time"})
		case catDiffers:
			probs = append(probs, Problem{ProblemHalfMoved, file, ran + ": only the catalog differs; the simulator and catalog are pinned and moved as a pair, never one at a time"})
		}
	}
	return probs
}

func catalogOrNone(digest string) string {
	if digest == "" {
		return "none"
	}
	return digest
}
