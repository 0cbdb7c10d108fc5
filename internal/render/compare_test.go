package render

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
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
	// A regression: TPOT's MAPE rose past the 1 pp alert threshold.
	withBase := compareFixture()
	withBase.Threshold = 1
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
	for name, c := range map[string]Comparison{"worse": withBase, "better": compareBetter(), "unchanged": compareUnchanged(), "saturated": compareSaturated(),
		"nobase": noBase, "release": release, "runs": runs, "same-tiers": same, "snapshots": snapshots} {
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

// compareBetter is an improvement past the 1 pp threshold: TTFT's MAPE
// fell by 1.67 pp, TPOT's by 3.33 pp; one point scored by head alone.
func compareBetter() Comparison {
	c := compareFixture()
	c.Threshold = 1
	c.Alerts, c.Notes = nil, nil
	c.Rows[1].BaseMAPE, c.Rows[1].HeadMAPE, c.Rows[1].Delta, c.Rows[1].Better, c.Rows[1].Worse = fp(10.0/3), fp(0), fp(-10.0/3), 1, 0
	c.Rows[1].BaseUnsatMAPE, c.Rows[1].HeadUnsatMAPE, c.Rows[1].UnsatDelta = c.Rows[1].BaseMAPE, c.Rows[1].HeadMAPE, c.Rows[1].Delta
	c.Groups = []runresult.GroupDelta{{Model: "openai/gpt-oss-120b", Hardware: "H100", Metric: "TTFT", Common: 3, BaseMAPE: fp(20), HeadMAPE: fp(12.5), Delta: fp(-7.5)}}
	c.OnlyHead = []runresult.OneSided{{ID: "unit-c@c=4", Reason: "timeout"}}
	return c
}

// compareUnchanged moved neither headline MAPE past the 1 pp threshold
// (TTFT +0.40 pp, TPOT not at all); a group's +0.40 pp is listed, not
// bold, and the groups that did not move are left out.
func compareUnchanged() Comparison {
	c := compareFixture()
	c.Threshold = 1
	c.Alerts, c.Notes = nil, nil
	c.Rows[0].BaseMAPE, c.Rows[0].Delta, c.Rows[0].Better, c.Rows[0].Worse, c.Rows[0].Unchanged = fp(9.6), fp(0.4), 0, 1, 2
	c.Rows[1].BaseMAPE, c.Rows[1].Delta, c.Rows[1].Worse, c.Rows[1].Unchanged = c.Rows[1].HeadMAPE, fp(0), 0, 3
	for i := range c.Rows[:2] {
		c.Rows[i].BaseUnsatMAPE, c.Rows[i].UnsatDelta = c.Rows[i].BaseMAPE, c.Rows[i].Delta
	}
	c.Groups = []runresult.GroupDelta{
		{Model: "openai/gpt-oss-120b", Hardware: "H100", Metric: "TTFT", Common: 3, BaseMAPE: fp(9.6), HeadMAPE: fp(10), Delta: fp(0.4)},
		{Model: "openai/gpt-oss-120b", Hardware: "H100", Metric: "TPOT", Common: 3, BaseMAPE: fp(10.0 / 3), HeadMAPE: fp(10.0 / 3), Delta: fp(0)},
	}
	c.Movers = []runresult.PointDelta{{ID: "unit-a@c=2", Metric: "ttft", BaseAPE: 18.8, HeadAPE: 20}}
	return c
}

// compareSaturated's head saturated one point (unit-a@c=2, one of the 3
// common measured + resolved TTFT points): the note on its share of the
// MAPE, the Δ without it, and the point marked where it is listed.
func compareSaturated() Comparison {
	c := compareFixture()
	c.Threshold = 1
	c.Notes = nil
	m := c.Head.Tiers.MeasuredResolved["ttft"]
	m.SaturatedN, m.SaturatedPP = 1, fp(12.5)
	c.Head.Tiers.MeasuredResolved["ttft"] = m
	c.Head.SaturatedPoints = []runresult.SaturatedPoint{{Point: "unit-a@c=2", Offered: 20, CompletionRate: 16}}
	c.Rows[0].UnsatCommon, c.Rows[0].HeadUnsatMAPE, c.Rows[0].BaseUnsatMAPE, c.Rows[0].UnsatDelta = 2, fp(8), fp(9.5), fp(-1.5)
	return c
}

// The verdict line says better, worse or unchanged by the threshold, the
// first line after the title, with its symbol; a Δ is bold only when it is
// worse past the threshold.
func TestCompareVerdictLine(t *testing.T) {
	t.Parallel()
	worse := compareFixture()
	worse.Threshold = 1
	loose := compareFixture()
	loose.Threshold = 5 // TPOT's +3.33 pp is within it: TTFT's -1.67 pp is within too
	strict := compareFixture()
	strict.Threshold = 0 // any move: TPOT rose
	noBase := compareFixture()
	noBase.Base = nil
	for _, tc := range []struct {
		name string
		c    Comparison
		line string
		bold bool
	}{
		{"worse", worse, "❌ **Worse**: TTFT MAPE 11.7 % → 10.0 % (-1.67 pp, better); TPOT MAPE 0.0 % → 3.3 % (**+3.33 pp**). Tier measured + resolved; a move of at most 1.00 pp counts as unchanged.", true},
		{"better", compareBetter(), "✅ **Better**: TTFT MAPE 11.7 % → 10.0 % (-1.67 pp, better); TPOT MAPE 3.3 % → 0.0 % (-3.33 pp, better). Tier measured + resolved; a move of at most 1.00 pp counts as unchanged.", false},
		{"unchanged", compareUnchanged(), "➖ **Unchanged**: TTFT MAPE 9.6 % → 10.0 % (+0.40 pp, within the threshold); TPOT MAPE 3.3 % → 3.3 % (+0.00 pp). Tier measured + resolved; a move of at most 1.00 pp counts as unchanged.", false},
		{"within a loose threshold", loose, "➖ **Unchanged**: TTFT MAPE 11.7 % → 10.0 % (-1.67 pp, within the threshold); TPOT MAPE 0.0 % → 3.3 % (+3.33 pp, within the threshold). Tier measured + resolved; a move of at most 5.00 pp counts as unchanged.", false},
		{"no threshold", strict, "❌ **Worse**: TTFT MAPE 11.7 % → 10.0 % (-1.67 pp, better); TPOT MAPE 0.0 % → 3.3 % (**+3.33 pp**). Tier measured + resolved.", true},
		{"no baseline", noBase, "❔ **No baseline**: the base was not scored, so nothing is compared; the figures below are the head's own.", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			md := CompareMarkdown(tc.c)
			lines := strings.Split(md, "\n")
			if len(lines) < 4 || lines[3] != tc.line {
				t.Errorf("the verdict line reads\n%q\nwant\n%q", lines[3], tc.line)
			}
			if bold := strings.Contains(lines[3], " pp**"); bold != tc.bold {
				t.Errorf("a Δ in bold in the verdict line: %v, want %v (only when worse)", bold, tc.bold)
			}
			for _, m := range boldDelta.FindAllStringSubmatch(md, -1) {
				if d, _ := strconv.ParseFloat(m[1], 64); d <= tc.c.Threshold {
					t.Errorf("a Δ of %s pp is bold, not worse past the %.2f pp threshold", m[1], tc.c.Threshold)
				}
			}
		})
	}
}

var boldDelta = regexp.MustCompile(`\*\*([+-][0-9.]+) pp\*\*`)

// A "where" table is open when it has at most MaxOpenRows rows, collapsed
// under its summary when longer.
func TestCompareWhereOpenWhenShort(t *testing.T) {
	t.Parallel()
	for _, n := range []int{MaxOpenRows, MaxOpenRows + 1} {
		c := compareFixture()
		c.OnlyHead = nil
		for i := range n {
			c.OnlyHead = append(c.OnlyHead, runresult.OneSided{ID: fmt.Sprintf("unit-%d@c=1", i), Reason: "timeout"})
		}
		md := CompareMarkdown(c)
		open := strings.Contains(md, fmt.Sprintf("**%d points scored by Head only**\n", n))
		collapsed := strings.Contains(md, fmt.Sprintf("<details><summary>%d points scored by Head only</summary>", n))
		if open != (n <= MaxOpenRows) || collapsed == open {
			t.Errorf("%d one-sided points: open %v, collapsed %v", n, open, collapsed)
		}
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
	if r := 0.99999; Ratio(&r) != "+0.00 %" {
		t.Errorf("Ratio(0.99999) = %q, want +0.00 %% (no minus sign on a change that rounds to zero)", Ratio(&r))
	}
	if Ratio(nil) != "n/a" {
		t.Error("Ratio(nil) is not n/a")
	}
	// A Δ or a bias that rounds to zero has no minus sign: "-0.00 pp" read
	// as a small improvement.
	for _, c := range []struct {
		x    float64
		prec int
		want string
	}{{-0.001, 2, "+0.00"}, {-0.004, 1, "+0.0"}, {0, 2, "+0.00"}, {-0.006, 2, "-0.01"}, {0.004, 2, "+0.00"}, {-3.25, 1, "-3.2"}, {12.5, 0, "+12"}} {
		if got := signed(c.x, c.prec); got != c.want {
			t.Errorf("signed(%v, %d) = %q, want %q", c.x, c.prec, got, c.want)
		}
	}
	if x := -0.04; SignedPct(&x) != "+0.0%" {
		t.Errorf("SignedPct(-0.04) = %q, want +0.0%%", SignedPct(&x))
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
		"\nTTFT, unsaturated points only: MAPE 9.5 % → 8.0 % (-1.5 pp) over 2 common points.\n",
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
