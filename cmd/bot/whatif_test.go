package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// whatIfFiles is the summary.json and points.json of a what-if measured
// against the run of runFiles (its points, TPOT predicted at a quarter),
// with the ledger digest ledger ("": the run's).
func whatIfFiles(t *testing.T, plainSummary, plainPoints []byte, ledger string) (summaryJSON, pointsJSON []byte) {
	t.Helper()
	plain, err := runresult.Parse(plainSummary, plainPoints)
	if err != nil {
		t.Fatal(err)
	}
	prov := plain.Summary.Provenance
	if ledger != "" {
		prov.Ledger.Digest = ledger
	}
	prov.WhatIf = &runresult.WhatIf{Name: "tpot-quarter", Version: 1, Title: "a quarter of the weights", Limitation: "the weights are read at 2 bytes",
		Units: []string{"u"}, Kind: "model_config", Change: "models/m/config.json merge patch {\"bits\":4}", Patch: `{"bits":4}`, Digest: "sha256:" + strings.Repeat("e", 64)}
	var pts []runresult.Point
	for _, p := range plain.Points {
		p.Predicted = metric.Values{"ttft_ms": p.Predicted["ttft_ms"], "tpot_ms": p.Predicted["tpot_ms"] / 4}
		pts = append(pts, p)
	}
	s, err := runresult.Summarize(pts, prov, nil)
	if err != nil {
		t.Fatal(err)
	}
	summaryJSON, err = jsoncodec.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	pointsJSON, err = jsoncodec.Encode(runresult.SortPoints(pts))
	if err != nil {
		t.Fatal(err)
	}
	return summaryJSON, pointsJSON
}

// TestServeWorkflowRunPublishesWhatIfs: a nightly's report artifact with
// the what-ifs measured against its run (whatif/<name>/, as the nightly's
// merge writes them) is published with them beside the snapshot, and the
// snapshot's summary.md carries their Why section (the fixture predicts
// TPOT exactly, the what-if a quarter of it: TPOT MAPE 0.0 % → 75.0 %);
// an artifact whose what-if was measured against another ledger is
// refused, naming it, and publishes nothing.
func TestServeWorkflowRunPublishesWhatIfs(t *testing.T) {
	w := newWorld(t)
	head := w.releaseAt
	sum, pts := runFiles(t, nil)
	wsum, wpts := whatIfFiles(t, sum, pts, "")
	good := w.fake.AddWorkflowRun(harnessRepo, githubfake.WorkflowRun{HeadSHA: head, HeadBranch: "main"})
	w.fake.AddArtifact(harnessRepo, good, "accuracy-report", testkit.Zip(t, map[string][]byte{"summary.json": sum, "points.json": pts,
		"whatif/tpot-quarter/summary.json": wsum, "whatif/tpot-quarter/points.json": wpts, "whatif/tpot-quarter/summary.md": []byte("# what-if\n")}), false)
	osum, opts := whatIfFiles(t, sum, pts, "sha256:"+strings.Repeat("d", 64))
	other := w.fake.AddWorkflowRun(harnessRepo, githubfake.WorkflowRun{HeadSHA: head, HeadBranch: "main"})
	w.fake.AddArtifact(harnessRepo, other, "accuracy-report", testkit.Zip(t, map[string][]byte{"summary.json": sum, "points.json": pts,
		"whatif/tpot-quarter/summary.json": osum, "whatif/tpot-quarter/points.json": opts}), false)

	addr, done := w.serve(t)
	if code := post(t, addr, "workflow_run", "run-good", runEvent(t, good, head)); code != http.StatusAccepted {
		t.Fatal(code)
	}
	waitDelivery(t, done)
	id := fmt.Sprintf("%s_run-%d", snapshotID, good)
	assertOneSnapshotCommit(t, w.fake, 1, id)
	dir := "data/snapshots/" + id + "/whatif/tpot-quarter/"
	for _, f := range []string{"summary.json", "points.json", "summary.md"} {
		if _, ok := w.fake.File(dashboardRepo, "refs/heads/main", dir+f); !ok {
			t.Errorf("%s%s was not published", dir, f)
		}
	}
	published, _ := w.fake.File(dashboardRepo, "refs/heads/main", dir+"summary.json")
	if r, err := runresult.ParseSummary([]byte(published)); err != nil || r.Label != "what-if: tpot-quarter" {
		t.Errorf("the published what-if: %q, %v", r.Label, err)
	}
	md, _ := w.fake.File(dashboardRepo, "refs/heads/main", "data/snapshots/"+id+"/summary.md")
	if want := "a quarter of the weights: 3 of 3 points scored instead of 3; over the same 3 points TTFT MAPE 20.0% → 20.0%, TPOT MAPE 0.0% → 75.0%"; !strings.Contains(md, "### Why: what-if experiments") || !strings.Contains(md, want) {
		t.Errorf("the snapshot's summary.md lacks the Why section's %q:\n%s", want, md)
	}

	if code := post(t, addr, "workflow_run", "run-other", runEvent(t, other, head)); code != http.StatusAccepted {
		t.Fatal(code)
	}
	waitDelivery(t, done)
	cs := w.fake.CommitComments(harnessRepo, head)
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "what-if tpot-quarter was not measured against this run") {
		t.Errorf("the refusal of a what-if of another ledger: %+v", cs)
	}
	if n := len(w.fake.Commits(dashboardRepo, "refs/heads/main")); n != 2 {
		t.Errorf("dashboard has %d commits, want 2 (the refusal wrote nothing)", n)
	}
}
