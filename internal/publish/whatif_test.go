package publish

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// whatIfOf is a what-if run measured against releaseRun's points: all four
// scored, TPOT halved.
func whatIfOf(t *testing.T, s runresult.Summary, points []runresult.Point) runresult.Result {
	t.Helper()
	prov := s.Provenance
	prov.Selection = &runresult.Selection{Units: []string{}}
	prov.WhatIf = &runresult.WhatIf{Name: "half-weights", Version: 1, Title: "half the weights", Limitation: "l", Units: []string{"qwen-h100"},
		Kind: "model_config", Change: "c", Patch: `{"a":1}`, Digest: "sha256:" + strings.Repeat("a", 64)}
	var pts []runresult.Point
	for _, p := range points {
		p.Scored, p.Reason, p.Detail = true, "", ""
		p.Predicted = metric.Values{"ttft_ms": p.Measured["ttft_ms"], "tpot_ms": p.Measured["tpot_ms"] / 2}
		pts = append(pts, p)
	}
	ws, err := runresult.Summarize(pts, prov, nil)
	if err != nil {
		t.Fatal(err)
	}
	return runresult.Result{Summary: ws, Points: pts}
}

// TestPlanSnapshotWithWhatIfs: a what-if measured against the run is
// published beside its snapshot (whatif/<name>/) and the snapshot's
// summary.md gains the Why section; one of another ledger is refused,
// naming it, and leaves the snapshot as it was.
func TestPlanSnapshotWithWhatIfs(t *testing.T) {
	t.Parallel()
	s, points := releaseRun(t, "v0.7.15", "v1.0.0")
	wi := whatIfOf(t, s, points)

	bad := snapshotOf(s, "# plain\n", t0, "")
	bad.Points = points
	other := wi
	other.Summary.Provenance.Ledger.Digest = "sha256:" + strings.Repeat("d", 64)
	if reasons := bad.AttachWhatIfs([]runresult.Result{other}); len(reasons) != 1 || !strings.Contains(reasons[0], "what-if half-weights was not measured against this run") {
		t.Errorf("a what-if of another ledger: %q", reasons)
	}
	if bad.WhatIfs != nil || string(bad.Markdown) != "# plain\n" {
		t.Error("a refused what-if changed the snapshot")
	}

	snap := snapshotOf(s, "# plain\n", t0, "")
	snap.Points = points
	if reasons := snap.AttachWhatIfs([]runresult.Result{wi}); reasons != nil {
		t.Fatal(reasons)
	}
	if md := string(snap.Markdown); !strings.Contains(md, "### Why: what-if experiments") || !strings.Contains(md, "half the weights: 4 of 4 points scored instead of 3") {
		t.Errorf("summary.md without the Why section:\n%s", md)
	}
	files, err := PlanSnapshot(snap, Dashboard{})
	if err != nil {
		t.Fatal(err)
	}
	dir := "data/snapshots/v0.7.15_ledger-v1.0.0_harness-v1.1.0/whatif/half-weights/"
	for _, f := range []string{runresult.SummaryFile, runresult.PointsFile, runresult.MarkdownFile} {
		if _, ok := files[dir+f]; !ok {
			t.Errorf("no %s%s among %v", dir, f, slices.Sorted(maps.Keys(files)))
		}
	}
	r, err := runresult.Parse(files[dir+runresult.SummaryFile], files[dir+runresult.PointsFile])
	if err != nil || r.Summary.Label != "what-if: half-weights" || len(r.Points) != 4 {
		t.Errorf("the published what-if: %v, %q, %d points", err, r.Summary.Label, len(r.Points))
	}
}
