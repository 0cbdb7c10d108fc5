package leaderboard

import (
	"fmt"
	"maps"
	"slices"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

// Reuse says whether prev, a result filed earlier for run r, stands for
// running r again on s: it ran the same declaration (the run as declared,
// defaults filled) on the same build (simulator commit and catalog digest)
// with the same command line and input files as r would run with now. BLIS
// is deterministic, so running it again would give the same figures. A
// timed-out run (the machine's load and --timeout decide it, not the
// declaration) and a run that cannot be planned on s (it fails without
// simulating, so nothing is saved) are never reused. The reason says why
// not ("" when prev is reused).
func (s *Sim) Reuse(prev *Result, r Run) (reuse bool, reason string) {
	if d := diffValues(prev.Declaration, r); len(d) > 0 {
		return false, "the declaration changed (" + d[0].String() + ")"
	}
	if c := prev.Provenance.Simulator.Commit; c != s.Build.Commit {
		return false, fmt.Sprintf("it ran on simulator %s, this build is %s", c, s.Build.Commit)
	}
	if a, b := catalogDigest(prev.Provenance.Catalog), catalogDigest(s.CatalogVersion); a != b {
		return false, fmt.Sprintf("it ran with catalog %s, this run has %s", catalogOrNone(a), catalogOrNone(b))
	}
	if prev.Status == StatusFailed && prev.Failure != nil && prev.Failure.Reason == harness.ReasonTimeout {
		return false, "it timed out (" + harness.ReasonTimeout + ")"
	}
	inv, err := s.Plan(r)
	if err != nil {
		return false, "it cannot be planned on this build (" + err.Error() + ")"
	}
	if cmd := append([]string{"blis"}, inv.Args...); !slices.Equal(cmd, prev.Command) {
		return false, "the command line changed (" + diffValues(prev.Command, cmd)[0].String() + ")"
	}
	if !maps.Equal(inv.Inputs, prev.Inputs) {
		return false, "the command's input files changed"
	}
	return true, ""
}

// catalogDigest is a catalog's content digest, "" for none (the simulator's
// own model configs).
func catalogDigest(v *report.DataVersion) string {
	if v == nil {
		return ""
	}
	return v.Digest
}
