package lbrun

import (
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
)

// Reuse says whether prev, a result filed earlier for run r, stands for
// running r again on s (leaderboard.Reusable: same declaration, build and
// command line as r would run with now). A timed-out run (the machine's
// load and the timeout decide it, not the declaration) and a run that
// cannot be planned on s (it fails without simulating, so nothing is
// saved) are never reused. The reason says why not ("" when reused).
func (s *Sim) Reuse(prev *leaderboard.Result, r leaderboard.DeclaredRun) (reuse bool, reason string) {
	if prev.Status == leaderboard.StatusFailed && prev.Failure != nil && prev.Failure.Reason == harness.ReasonTimeout {
		return false, "it timed out (" + harness.ReasonTimeout + ")"
	}
	inv, err := s.Plan(r)
	if err != nil {
		return false, "it cannot be planned on this build (" + err.Error() + ")"
	}
	return leaderboard.Reusable(prev, s.result(r, inv))
}
