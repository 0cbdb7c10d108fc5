package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/golden"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

func fp(v float64) *float64 { return &v }

func compareSummary(commit string) runresult.Summary {
	return runresult.Summary{
		SchemaVersion: runresult.SchemaVersion,
		Label:         runresult.LabelExperimental,
		LabelReasons:  []string{"simulator " + commit[:7] + " is not a release", "catalog from @someone's fork | local"},
		Provenance: runresult.Provenance{
			Harness:   runresult.Harness{Commit: "1111111111111111111111111111111111111111", Source: runresult.HarnessCheckout, Version: "v1.2.0"},
			Simulator: runresult.Simulator{Repo: "/sim", Ref: commit, Commit: commit, BuiltByHarness: true, Driver: "replay"},
			Ledger:    runresult.DataVersion{Name: "inferencex", Version: "2026.08", Digest: "sha256:0123456789abcdef0123456789", Release: true},
			Catalog:   &runresult.DataVersion{Name: "catalog <local>", Version: "", Digest: "sha256:fedcba9876543210fedcba", Release: false},
		},
		// Reasons are listed most common first, as in Summary's coverage table.
		Coverage: runresult.Coverage{CorpusPoints: 13, Scored: 10, NotScored: 3, NotScoredByReason: map[string]int{"timeout": 2, "sim_error": 1}},
		Tiers: runresult.Tiers{
			All: runresult.TierScores{"ttft": runresult.Metric{MAPE: fp(17.5), Bias: fp(7.5), MedianAPE: fp(15), N: 10, Shape: fp(4.25), ShapeN: 6}, "tpot": runresult.Metric{MAPE: fp(2.5), Bias: fp(2.5), MedianAPE: fp(0), N: 10},
				"e2e": runresult.Metric{MAPE: fp(6.5), Bias: fp(-6.5), MedianAPE: fp(6), N: 10}, "p99_ttft": runresult.Metric{MAPE: fp(40), Bias: fp(-40), MedianAPE: fp(38), N: 6}},
			MeasuredResolved: runresult.TierScores{"ttft": runresult.Metric{MAPE: fp(20), Bias: fp(-3), MedianAPE: fp(15), N: 8}, "tpot": runresult.Metric{MAPE: fp(3.33), Bias: fp(3.33), MedianAPE: fp(0), N: 8},
				"e2e": runresult.Metric{MAPE: fp(7), Bias: fp(-7), MedianAPE: fp(6), N: 8}, "p99_ttft": runresult.Metric{MAPE: fp(41), Bias: fp(-41), MedianAPE: fp(38), N: 5}},
		},
	}
}

// compareFixture's rows have no saturated common point: their figures
// over the unsaturated common points are theirs (unsaturatedRows).
func compareFixture() Comparison {
	c := compareRows()
	for i := range c.Rows {
		r := &c.Rows[i]
		r.UnsatCommon, r.HeadUnsatMAPE, r.BaseUnsatMAPE, r.UnsatDelta = r.Common, r.HeadMAPE, r.BaseMAPE, r.Delta
	}
	return c
}

func compareRows() Comparison {
	head := compareSummary("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	base := compareSummary("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
	base.Coverage = runresult.Coverage{CorpusPoints: 12, Scored: 12, NotScoredByReason: map[string]int{}}
	return Comparison{Comparison: runresult.Comparison{
		Head: head,
		Base: &base,
		Rows: []runresult.DeltaRow{
			{Tier: runresult.TierMeasuredResolved, Metric: "ttft", Head: head.Tiers.MeasuredResolved["ttft"], Common: 3, HeadMAPE: fp(10), BaseMAPE: fp(35.0 / 3), HeadBias: fp(-10.0 / 3), BaseBias: fp(25.0 / 3), Delta: fp(10 - 35.0/3), Better: 1, Worse: 1, Unchanged: 1, PredictionRatio: fp(0.94)},
			{Tier: runresult.TierMeasuredResolved, Metric: "tpot", Head: head.Tiers.MeasuredResolved["tpot"], Common: 3, HeadMAPE: fp(10.0 / 3), BaseMAPE: fp(0), HeadBias: fp(10.0 / 3), BaseBias: fp(0), Delta: fp(10.0 / 3), Worse: 1, Unchanged: 2, PredictionRatio: fp(1)},
			{Tier: runresult.TierAll, Metric: "ttft", Head: head.Tiers.All["ttft"], Common: 4, HeadMAPE: fp(17.5), BaseMAPE: fp(18.75), HeadBias: fp(7.5), BaseBias: fp(16.25), Delta: fp(-1.25), Better: 1, Worse: 1, Unchanged: 2, PredictionRatio: fp(1.2)},
			{Tier: runresult.TierAll, Metric: "tpot", Head: head.Tiers.All["tpot"], Common: 4, HeadMAPE: fp(2.5), BaseMAPE: nil, Delta: nil},
			{Tier: runresult.TierMeasuredResolved, Metric: "e2e", Head: head.Tiers.MeasuredResolved["e2e"], Common: 3, HeadMAPE: fp(7), BaseMAPE: fp(9), HeadBias: fp(-7), BaseBias: fp(-9), Delta: fp(-2)},
			{Tier: runresult.TierMeasuredResolved, Metric: "p99_ttft", Head: head.Tiers.MeasuredResolved["p99_ttft"], Common: 2, HeadMAPE: fp(41), BaseMAPE: fp(40.5), HeadBias: fp(-41), BaseBias: fp(-40.5), Delta: fp(0.5)},
			{Tier: runresult.TierAll, Metric: "e2e", Head: head.Tiers.All["e2e"], Common: 4, HeadMAPE: fp(6.5), BaseMAPE: fp(8), HeadBias: fp(-6.5), BaseBias: fp(-8), Delta: fp(-1.5)},
			{Tier: runresult.TierAll, Metric: "p99_ttft", Head: head.Tiers.All["p99_ttft"], Common: 3, HeadMAPE: fp(40), BaseMAPE: fp(41), HeadBias: fp(-40), BaseBias: fp(-41), Delta: fp(-1)},
		},
		Movers: []runresult.PointDelta{
			{ID: "unit-a@c=2", Metric: "ttft", BaseAPE: 5, HeadAPE: 20},
			{ID: "unit-<b>|x@c=1", Metric: "tpot", BaseAPE: 10, HeadAPE: 0},
		}},
		Alerts:     []string{"TPOT MAPE (measured_resolved tier) rose by 3.33 pp, from 0.0% to 3.3% over 3 common points (threshold 1.00 pp)."},
		Notes:      []string{"Base result reused from the cache (same harness, simulator commit and data)."},
		DetailsURL: "https://github.com/o/r/actions/runs/42",
	}
}

func TestCompareMarkdownGolden(t *testing.T) {
	t.Parallel()
	withBase := compareFixture()
	noBase := compareFixture()
	noBase.Base, noBase.Movers, noBase.Alerts, noBase.Notes, noBase.DetailsURL = nil, nil, nil, nil, ""
	for i := range noBase.Rows {
		r := &noBase.Rows[i]
		r.Common, r.HeadMAPE, r.BaseMAPE, r.HeadBias, r.BaseBias, r.Delta = 0, nil, nil, nil, nil, nil
	}
	release := noBase
	release.Head.Label, release.Head.LabelReasons = runresult.LabelRelease, nil
	release.Head.Provenance.Harness.Source = runresult.HarnessAssertion
	release.Head.Provenance.Catalog = nil
	withBase.Groups = []runresult.GroupDelta{
		{Model: "openai/gpt-oss-120b", Hardware: "H100", Metric: "TTFT", Common: 3, BaseMAPE: fp(20), HeadMAPE: fp(12.5), Delta: fp(-7.5)},
		{Model: "m|<x>", Hardware: "@h", Metric: "TPOT", Common: 1, BaseMAPE: fp(1), HeadMAPE: fp(1.5), Delta: fp(0.5)},
	}
	withBase.OnlyHead = []runresult.OneSided{{ID: "unit-c@c=4", Reason: "timeout"}, {ID: "new@c=1", Reason: runresult.ReasonNotInCorpus}}
	withBase.OnlyBase = []runresult.OneSided{{ID: "unit-d@c=8", Reason: "sim_error"}}
	withBase.Warnings = runresult.WarningsDiff{Known: true,
		New: []runresult.WarningGroup{{Cause: "HuggingFace config has quantization_config but weight precision could not be determined",
			Example: "HuggingFace config has quantization_config but weight precision could not be determined",
			Points:  []string{"unit-a@c=2", "unit-a@c=4"}, Units: []string{"unit-a", "unit-b", "unit-c", "unit-d", "unit-e", "unit-f|<x>"}, Count: 2}},
		Gone: []runresult.WarningGroup{{Cause: "[tick <n>] <img src=x> @someone | `evicting` #<n>", Example: "[tick 12] <img src=x> @someone | `evicting` #1",
			Points: []string{"unit-<b>|x@c=1"}, Units: []string{"unit-<b>|x"}, Count: 7}}}
	runs := withBase
	runs.Title, runs.BaseName, runs.HeadName = "Simulator accuracy: v0.7.14_run-1 → v0.7.15_run-2", "v0.7.14_run-1", "v0.7.15_run-2"
	runs.Alerts, runs.Notes, runs.DetailsURL = nil, nil, ""
	// Every point measured or resolved: the tiers' rows are equal, one row
	// per metric stands for both; one common point reads "1 common point".
	same := compareFixture()
	same.Alerts, same.Notes = nil, nil
	same.Rows = nil
	for _, r := range compareFixture().Rows {
		r.Head.N = 10
		if d, _ := metric.ByKey(r.Metric); d.Headline {
			r.Common, r.UnsatCommon, r.Better, r.Worse, r.Unchanged = 1, 1, 1, 0, 0
		}
		same.Rows = append(same.Rows, r)
	}
	for i := range same.Rows {
		if same.Rows[i].Tier == runresult.TierAll {
			mr := same.Rows[i-2] // the fixture's rows: 2 measured_resolved, 2 all, 2 and 2 secondary
			mr.Tier = runresult.TierAll
			same.Rows[i] = mr
		}
	}
	// A dashboard's compare page: the snapshots by their labels, their ids
	// in a footnote, an experimental head labelled, not "not published".
	snapshots := SnapshotsComparison(withBase.Comparison, "v0.7.14 · 2026-08-01", "v0.7.14_ledger-2026.08_catalog-local_harness-v1.2.0_run-1",
		"aaaaaaaaaaaa · 2026-08-02", "aaaaaaaaaaaa_ledger-2026.08_catalog-local_harness-v1.2.0_run-2")
	for name, c := range map[string]Comparison{"base": withBase, "nobase": noBase, "release": release, "runs": runs, "same-tiers": same, "snapshots": snapshots} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := CompareMarkdown(c)
			if hasMarker := strings.HasPrefix(got, PRMarker+"\n"); hasMarker != (c.Title == "") {
				t.Errorf("PR marker first: %v; want it exactly on pull-request comparisons", hasMarker)
			}
			golden.Assert(t, filepath.Join("testdata", "compare-"+name+".golden"), []byte(got))
		})
	}
}

// Two snapshots of the same build published the same day are told apart
// in the page: the older is "(before)", the newer "(after)".
func TestSnapshotsComparisonSameLabels(t *testing.T) {
	t.Parallel()
	c := SnapshotsComparison(compareFixture().Comparison, "v0.7.15 · 2026-12-01", "id-a", "v0.7.15 · 2026-12-01", "id-b")
	md := CompareMarkdown(c)
	for _, want := range []string{"### Simulator accuracy: v0.7.15 · 2026-12-01 (before) → v0.7.15 · 2026-12-01 (after)\n",
		"<sub>Snapshots: v0.7.15 · 2026-12-01 (before) is `id-a`; v0.7.15 · 2026-12-01 (after) is `id-b`.</sub>"} {
		if !strings.Contains(md, want) {
			t.Errorf("the page lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "not published") {
		t.Errorf("a dashboard's compare page calls its head not published:\n%s", md)
	}
}

func TestCompareMarkdownEscapesUntrusted(t *testing.T) {
	t.Parallel()
	got := CompareMarkdown(compareFixture())
	for _, bad := range []string{"@someone", "<b>", "<local>", "&gt;|x"} {
		if strings.Contains(got, bad) {
			t.Errorf("untrusted text %q not escaped", bad)
		}
	}
	if !strings.Contains(got, "@\u200dsomeone") {
		t.Error("mention not defused")
	}
}

// Commits and digests come from result files, which may be an untrusted
// run's artifact: whatever their length, they are escaped like any other
// text and cannot end a code span early.
func TestCompareMarkdownEscapesProvenance(t *testing.T) {
	t.Parallel()
	c := compareFixture()
	evil := "0` @org/team <img src=x> and more"
	c.Head.Provenance.Harness.Commit = evil
	c.Head.Provenance.Simulator.Commit = "x` @org/team"
	c.Head.Provenance.Ledger.Digest = "sha256:` @org/team"
	c.Head.Provenance.Catalog.Digest = "sha256:" + evil
	c.Base.Provenance.Harness.Commit = evil
	c.Base.Provenance.Simulator.Commit = evil
	got := CompareMarkdown(c)
	for _, bad := range []string{"@org", "<img"} {
		if strings.Contains(got, bad) {
			t.Errorf("untrusted provenance %q reached the Markdown:\n%s", bad, got)
		}
	}
}

func TestRatioAndCount(t *testing.T) {
	t.Parallel()
	for r, want := range map[float64]string{1.2: "+20 %", 0.8: "-20 %", 1.06: "+6 %", 1.004: "+0.4 %", 1: "±0 %", 1.0004: "+0.04 %", 0.5: "-50 %"} {
		if got := Ratio(&r); got != want {
			t.Errorf("Ratio(%v) = %q, want %q", r, got, want)
		}
	}
	if Ratio(nil) != "n/a" {
		t.Error("Ratio(nil) is not n/a")
	}
	for n, want := range map[int]string{0: "0 points", 1: "1 point", 2: "2 points"} {
		if got := Count(n, "point"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestCompareMarksSaturated: the comment says how much of the head's
// headline MAPE its saturated points contribute, and marks a saturated
// point in the per-point tables with the run that saturated.
func TestCompareMarksSaturated(t *testing.T) {
	t.Parallel()
	c := compareFixture()
	m := c.Head.Tiers.MeasuredResolved["ttft"]
	m.SaturatedN, m.SaturatedPP = 1, fp(12.5)
	c.Head.Tiers.MeasuredResolved["ttft"] = m
	c.Head.SaturatedPoints = []runresult.SaturatedPoint{{Point: "unit-a@c=2", Offered: 20, CompletionRate: 16}}
	c.OnlyHead = []runresult.OneSided{{ID: "unit-a@c=2", Reason: "timeout"}}
	// One of the 3 common measured + resolved TTFT points is saturated:
	// the verdict gives the Δ over the other 2 too.
	c.Rows[0].UnsatCommon, c.Rows[0].HeadUnsatMAPE, c.Rows[0].BaseUnsatMAPE, c.Rows[0].UnsatDelta = 2, fp(8), fp(9.5), fp(-1.5)
	md := CompareMarkdown(c)
	for _, want := range []string{
		"over 3 common points; predictions -6 % (median); 1 point better, 1 worse, 1 unchanged. Unsaturated points only: MAPE 9.5 % → 8.0 % (-1.5 pp) over 2 common points.\n",
		"Head, tier measured + resolved: **1 saturated point** (the simulator fell more than 5 % behind the offered rate) contributes 12.5 pp of the TTFT MAPE (20.0% over 8 points).",
		"| unit-a@c=2 **saturated** (Head) | TTFT |",
		"| unit-a@c=2 **saturated** (Head) | timeout |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("comparison lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(CompareMarkdown(compareFixture()), "saturated") {
		t.Error("a comparison without saturated points mentions them")
	}
}
