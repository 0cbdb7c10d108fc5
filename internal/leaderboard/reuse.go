package leaderboard

import (
	"fmt"
	"maps"
	"slices"

	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Reusable says whether prev, a result filed earlier, stands for planned,
// the result a run is about to get (its declaration, build and command
// line, before any figure): same declaration (the run as declared, defaults
// filled), same build (simulator commit and catalog digest), same command
// line and input files. BLIS is deterministic, so running it again would
// give the same figures. The tool's own commit (provenance.harness) does
// not count, as for Diff. The reason says why not ("" when reusable).
func Reusable(prev, planned *Result) (reuse bool, reason string) {
	if d := runresult.DiffJSON(prev.Declaration, planned.Declaration); len(d) > 0 {
		return false, "the declaration changed (" + d[0].String() + ")"
	}
	if a, b := prev.Provenance.Simulator.Commit, planned.Provenance.Simulator.Commit; a != b {
		return false, fmt.Sprintf("it ran on simulator %s, this build is %s", a, b)
	}
	if a, b := catalogDigest(prev.Provenance.Catalog), catalogDigest(planned.Provenance.Catalog); a != b {
		return false, fmt.Sprintf("it ran with catalog %s, this run has %s", catalogOrNone(a), catalogOrNone(b))
	}
	if !slices.Equal(prev.Command, planned.Command) {
		return false, "the command line changed (" + runresult.DiffJSON(prev.Command, planned.Command)[0].String() + ")"
	}
	if !slices.Equal(prev.Convert, planned.Convert) {
		return false, "the trace's conversion command changed"
	}
	if !maps.Equal(prev.Inputs, planned.Inputs) {
		return false, "the command's input files changed"
	}
	return true, ""
}

// catalogDigest is a catalog's content digest, "" for none (the simulator's
// own model configs).
func catalogDigest(v *runresult.DataVersion) string {
	if v == nil {
		return ""
	}
	return v.Digest
}
