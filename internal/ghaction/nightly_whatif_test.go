package ghaction

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/publish"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// TestNightlyMergeMeasuresWhatIfs: the nightly's merge with input what-if
// (as the shipped workflow gives it) measures the merged run with the
// declared what-ifs: on a corpus of the bundled gpt-oss-120b H100 TP4 sweep,
// with the stand-in (which prices weights at quantization_config.bits),
// the shipped gpt-oss-120b-mxfp4 what-if predicts every TPOT at a quarter
// of the merged run's and every TTFT unchanged, in the report's
// whatif/gpt-oss-120b-mxfp4/ (the merged run's predictions reused, not
// simulated again), the notice and the job summary say its Why sentence,
// and the report artifact reads with it as the bot reads it.
func TestNightlyMergeMeasuresWhatIfs(t *testing.T) {
	hdir, hcommit := harnessRepo(t)
	dash, plan := nightlyDashboard(t, hdir, hcommit)
	ledger := filepath.Join(dash, "accuracy", "ledger")
	if err := os.RemoveAll(ledger); err != nil {
		t.Fatal(err)
	}
	harnesstest.SweepLedger(t, ledger, harnesstest.GPTOSSSweep)
	pinFile := filepath.Join(dash, ".github", "accuracy-harness.yaml")
	pinText, _ := os.ReadFile(pinFile)
	testkit.WriteFile(t, pinFile, strings.Replace(string(pinText), "catalog: none\n  registry: none\n", "catalog: bundled\n  registry: bundled\n", 1))

	cache := t.TempDir()
	fake := githubfake.New(t, githubfake.Options{Token: "test-token"})
	shards := nightlyShards(t, fake, dash, cache, plan)
	summary := filepath.Join(t.TempDir(), "summary.md")
	out, log, err := runNightlyAction(t, fake, dash, cache, map[string]string{"INPUT_MODE": "merge", "INPUT_PLAN": string(plan.Encode()),
		"INPUT_SHARDS_DIR": shards, "INPUT_WHAT_IF": "all", "GITHUB_STEP_SUMMARY": summary})
	if err != nil {
		t.Fatalf("merge: %v\n%s", err, log)
	}
	head := filepath.Join(out, "head")
	merged, err := runresult.Read(head)
	if err != nil || merged.Summary.Coverage.Scored != 5 {
		t.Fatalf("merged run: %+v, %v", merged.Summary.Coverage, err)
	}
	runs, err := whatif.ReadRuns(head)
	if err != nil || len(runs) != 1 {
		t.Fatalf("what-ifs in the report: %d, %v\n%s", len(runs), err, log)
	}
	wi := runs[0]
	if wi.Summary.Label != "what-if: gpt-oss-120b-mxfp4" || wi.Summary.Provenance.Simulator.Commit != merged.Summary.Provenance.Simulator.Commit {
		t.Errorf("the what-if: label %q, simulator %s", wi.Summary.Label, wi.Summary.Provenance.Simulator.Commit)
	}
	byID := map[string]runresult.Point{}
	for _, p := range merged.Points {
		byID[p.ID] = p
	}
	for _, p := range wi.Points {
		b := byID[p.ID]
		if !p.Scored || math.Abs(p.Predicted["tpot_ms"]-b.Predicted["tpot_ms"]/4) > 1e-9 || p.Predicted["ttft_ms"] != b.Predicted["ttft_ms"] {
			t.Errorf("%s: what-if TTFT %v TPOT %v, merged %v %v: want the TTFT, a quarter of the TPOT", p.ID, p.Predicted["ttft_ms"], p.Predicted["tpot_ms"], b.Predicted["ttft_ms"], b.Predicted["tpot_ms"])
		}
	}
	if len(wi.Points) != 5 {
		t.Errorf("%d what-if points, want the sweep's 5", len(wi.Points))
	}
	if s := "gpt-oss-120b at 4-bit weights: 5 of 5 points scored instead of 5; over the same 5 points TTFT MAPE"; !strings.Contains(log, "::notice::"+s) {
		t.Errorf("no notice of the Why sentence %q:\n%s", s, log)
	}
	if md, _ := os.ReadFile(summary); !strings.Contains(string(md), "### Why: what-if experiments") || !strings.Contains(string(md), "| openai/gpt-oss-120b | H100 | 5 | 5 → 5 |") {
		t.Errorf("the job summary lacks the Why section:\n%s", md)
	}
	if _, err := os.Stat(head + ".whatif"); !os.IsNotExist(err) {
		t.Errorf("the what-ifs' scratch run is left: %v", err)
	}
	// The report artifact, as the bot reads it: the run and its what-if.
	rep, err := publish.ReportFromArtifact(testkit.ZipDir(t, head))
	if err != nil || len(rep.WhatIfs) != 1 || rep.Plan == nil {
		t.Errorf("the report artifact: %d what-ifs, plan %v, %v", len(rep.WhatIfs), rep.Plan != nil, err)
	}
}
