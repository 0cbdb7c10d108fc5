package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/golden"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

// siteRun is a run of one sweep (loads 1, 2, 4, 8; the last not scored)
// and one point of an assumed tier, predicting measured × factor, by
// simulator commit sim (tag: a release build).
func siteRun(t *testing.T, sim, tag string, factor float64) report.Run {
	t.Helper()
	var pts []report.Point
	for _, c := range []int{1, 2, 4, 8} {
		p := report.Point{ID: "ix/<m>/h100@c=" + tickText(float64(c)), Unit: "ix/<m>/h100", Model: "org/<script>m", Hardware: "H100", Source: report.SourceInferenceX,
			Load: report.Load{Concurrency: c}, Tier: "measured", Measured: metric.Values{"ttft_ms": 100 * float64(c), "tpot_ms": 10 + float64(c)}}
		if c < 8 {
			p.Scored, p.Predicted = true, metric.Values{"ttft_ms": 110 * float64(c) * factor, "tpot_ms": (9 + float64(c)) * factor}
		} else {
			p.Reason, p.Detail = "timeout", "@someone's point took too long"
		}
		pts = append(pts, p)
	}
	pts = append(pts, report.Point{ID: "ip/m/a100@rate=2", Unit: "ip/m/a100", Model: "m", Hardware: "A100", Source: report.SourceInferencePerf, Load: report.Load{Rate: 2}, Tier: "assumed",
		Scored: true, Saturated: factor > 1, Measured: metric.Values{"ttft_ms": 50, "tpot_ms": 5}, Predicted: metric.Values{"ttft_ms": 60 * factor, "tpot_ms": 5 * factor}})
	prov := report.Provenance{
		Harness:   report.Harness{Commit: strings.Repeat("1", 40), Source: report.HarnessCheckout, Version: "v1.2.0"},
		Simulator: report.Simulator{Repo: "https://github.com/inference-sim/inference-sim", Ref: sim, Commit: sim, Tag: tag, Release: tag != "", BuiltByHarness: true, Driver: "replay-metrics"},
		Ledger:    report.DataVersion{Name: "bundled", Version: "v1", Digest: "sha256:" + strings.Repeat("ab", 32), Release: true},
	}
	s, err := report.Summarize(pts, prov, nil)
	if err != nil {
		t.Fatal(err)
	}
	return report.Run{Summary: s, Points: report.SortPoints(pts)}
}

func siteFixture(t *testing.T) []SiteSnapshot {
	return []SiteSnapshot{
		{ID: "bbbbbbbbbbbb_ledger-v1_harness-v1.2.0", PublishedAt: "2026-11-02T03:17:00Z", Run: siteRun(t, strings.Repeat("b", 40), "", 1.2)},
		{ID: "v0.7.15_ledger-v1_harness-v1.2.0_run-7", PublishedAt: "2026-11-01T03:17:00Z", Run: siteRun(t, strings.Repeat("a", 40), "v0.7.15", 1)},
	}
}

// The site's pages are golden files: the Overview and comparison page,
// the history, a snapshot's page, a sweep's page and a data script.
func TestSiteGolden(t *testing.T) {
	t.Parallel()
	files, err := Site(siteFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"index.html", "history.html", SiteSnapshotPath("v0.7.15_ledger-v1_harness-v1.2.0_run-7"), SiteSnapshotPath("bbbbbbbbbbbb_ledger-v1_harness-v1.2.0"),
		SiteSweepPath("ix/<m>/h100"), "data/v0.7.15_ledger-v1_harness-v1.2.0_run-7.js"} {
		got, ok := files[p]
		if !ok {
			t.Fatalf("no %s among %d files", p, len(files))
		}
		golden.Assert(t, filepath.Join("testdata", "site", strings.ReplaceAll(p, "/", "_")+".golden"), got)
	}
}

// Untrusted text (model names, unit ids, reasons, details) reaches the
// pages only escaped; the labels name the simulator and the date.
func TestSiteEscapesAndLabels(t *testing.T) {
	t.Parallel()
	snaps := siteFixture(t)
	files, err := Site(snaps)
	if err != nil {
		t.Fatal(err)
	}
	for p, b := range files {
		if strings.HasSuffix(p, ".html") && (strings.Contains(string(b), "<script>m") || strings.Contains(string(b), "<m>")) {
			t.Errorf("%s holds untrusted text unescaped", p)
		}
		if strings.HasSuffix(p, ".js") && strings.HasPrefix(p, "data/") && strings.Contains(string(b), "<") {
			t.Errorf("%s holds a raw <", p)
		}
	}
	if got := snaps[0].Label(); got != "bbbbbbbbbbbb · 2026-11-02" {
		t.Errorf("label of an untagged build = %q", got)
	}
	if got := snaps[1].Label(); got != "v0.7.15 · 2026-11-01" {
		t.Errorf("label of a release = %q", got)
	}
	if _, err := Site(nil); err == nil {
		t.Error("a site of no snapshot built")
	}
}

func TestUniqueLabels(t *testing.T) {
	t.Parallel()
	s := siteFixture(t)
	s[0].Summary.Provenance.Simulator = s[1].Summary.Provenance.Simulator
	s[0].PublishedAt = s[1].PublishedAt
	got := uniqueLabels(s)
	if got[0] != "v0.7.15 · 2026-11-01 (2)" || got[1] != "v0.7.15 · 2026-11-01" {
		t.Errorf("uniqueLabels = %q", got)
	}
}
