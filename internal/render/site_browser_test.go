package render

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/browsertest"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// saturatedRun is a run of a concurrency sweep and a rate sweep, all
// measured, predicting measured × factor; rate 40 is scored only when
// factor > 1, and the points of saturated are saturated.
func saturatedRun(t *testing.T, sim string, factor float64, saturated ...string) runresult.Result {
	t.Helper()
	var pts []runresult.Point
	for _, c := range []int{1, 2, 4} {
		pts = append(pts, runresult.Point{ID: "ix/m/h100@c=" + tickText(float64(c)), Unit: "ix/m/h100", Model: "m", Hardware: "H100", Source: runresult.SourceInferenceX,
			Load: runresult.Load{Concurrency: c}, Tier: "measured", Scored: true, Measured: metric.Values{"ttft_ms": 100 * float64(c), "tpot_ms": 10 + float64(c)},
			Predicted: metric.Values{"ttft_ms": 90 * float64(c) * factor, "tpot_ms": (12 + float64(c)) * factor}})
	}
	for _, r := range []float64{2, 20, 40} {
		p := runresult.Point{ID: "ip/m/h100@rate=" + tickText(r), Unit: "ip/m/h100", Model: "m", Hardware: "H100", Source: runresult.SourceInferencePerf,
			Load: runresult.Load{Rate: r}, Tier: "measured", Scored: r < 40 || factor > 1, Measured: metric.Values{"ttft_ms": 50, "tpot_ms": 5}}
		if p.Scored {
			p.Predicted, p.CompletionRate = metric.Values{"ttft_ms": 40 * r * factor, "tpot_ms": 6 * factor}, r
			if slices.Contains(saturated, p.ID) {
				p.Saturated, p.CompletionRate = true, r/2
			}
		} else {
			p.Reason = "timeout"
		}
		pts = append(pts, p)
	}
	prov := siteRun(t, sim, "", 1).Summary.Provenance
	s, err := runresult.Summarize(pts, prov, nil)
	if err != nil {
		t.Fatal(err)
	}
	return runresult.Result{Summary: s, Points: runresult.SortPoints(pts)}
}

// The comparison in the browser marks the saturated points and says how
// much of each snapshot's headline MAPE they contribute as action compare
// does (CompareMarkdown), for a point saturated in both snapshots, in B
// only (scored by B only) and in A only.
func TestSiteComparisonSaturatedInChromium(t *testing.T) {
	bin := browsertest.Chromium(t)
	sat20, sat40 := "ip/m/h100@rate=20", "ip/m/h100@rate=40"
	runs := map[string]runresult.Result{
		"one":   saturatedRun(t, strings.Repeat("a", 40), 1, sat20),
		"two":   saturatedRun(t, strings.Repeat("b", 40), 1.2, sat20, sat40),
		"three": saturatedRun(t, strings.Repeat("c", 40), 1.5),
	}
	files, err := Site([]SiteSnapshot{{ID: "three", PublishedAt: "2026-11-03T00:00:00Z", Result: runs["three"]},
		{ID: "two", PublishedAt: "2026-11-02T00:00:00Z", Result: runs["two"]}, {ID: "one", PublishedAt: "2026-11-01T00:00:00Z", Result: runs["one"]}})
	if err != nil {
		t.Fatal(err)
	}
	dir := writeSite(t, files)
	tab := browsertest.Open(t, bin, 1280, 900)
	for _, pair := range [][2]string{{"one", "two"}, {"two", "three"}} {
		if err := tab.Load("file://"+filepath.Join(dir, "index.html")+"?a="+pair[0]+"&b="+pair[1], "#comparison[data-ready]"); err != nil {
			t.Fatal(err)
		}
		md := CompareMarkdown(RunsComparison(runresult.CompareRuns(runs[pair[0]], runs[pair[1]], "A", "B")))
		notes, cells := saturatedOfMarkdown(md)
		if !strings.Contains(md, saturatedMark+" (") || len(notes) == 0 {
			t.Fatalf("%s → %s: action compare marks no saturated point or has no note:\n%s", pair[0], pair[1], md)
		}
		got, err := browsertest.Eval[[][]string](tab, `[Array.from(document.querySelectorAll("#comparison p.saturated")).map(p => p.textContent),
			Array.from(document.querySelectorAll("#movers-table tbody tr, #only-b-table tbody tr, #only-a-table tbody tr")).map(r => r.cells[0].textContent),
			Array.from(document.querySelectorAll("#verdict li")).map(li => li.textContent)]`)
		if err != nil {
			t.Fatal(err)
		}
		// The verdict gives the Δ over the unsaturated common points as
		// action compare does.
		var verdict []string
		for _, v := range Verdict(runresult.CompareRuns(runs[pair[0]], runs[pair[1]], "A", "B")) {
			verdict = append(verdict, strings.ReplaceAll(v, "**", ""))
		}
		if !slices.Equal(got[2], verdict) || !strings.Contains(strings.Join(verdict, " "), "Unsaturated points only") {
			t.Errorf("%s → %s: the page's verdict reads\n%q\naction compare's\n%q", pair[0], pair[1], got[2], verdict)
		}
		if !slices.Equal(got[0], notes) {
			t.Errorf("%s → %s: the page's saturated notes read %q, action compare's %q", pair[0], pair[1], got[0], notes)
		}
		for i := range got[1] {
			got[1][i] = Cell(got[1][i])
		}
		if !slices.Equal(got[1], cells) {
			t.Errorf("%s → %s: the page's point cells are\n%q\naction compare's\n%q", pair[0], pair[1], got[1], cells)
		}
	}
	if errs := tab.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// saturatedOfMarkdown is what a comparison's Markdown says of saturated
// points, as text without emphasis: the runs' notes ("B, tier …") and the
// first cell of every row of the tables of points, open or collapsed (movers, then the points
// scored by B only, then by A only; a table's "… N more" row included).
func saturatedOfMarkdown(md string) (notes, cells []string) {
	section := ""
	var only [3][]string
	for _, l := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(l, "A, tier ") || strings.HasPrefix(l, "B, tier "):
			notes = append(notes, strings.ReplaceAll(l, "**", ""))
		case strings.HasPrefix(l, "<details><summary>"), strings.HasPrefix(l, "**") && strings.HasSuffix(l, "**"):
			section = l // a table's title, collapsed or open (section)
		case l == "</details>":
			section = ""
		case strings.HasPrefix(l, "| ") && !strings.HasPrefix(l, "| Point |"):
			cell := strings.ReplaceAll(strings.SplitN(l, " | ", 2)[0][2:], saturatedMark, "saturated")
			switch {
			case strings.Contains(section, "moved most"):
				only[0] = append(only[0], cell)
			case strings.Contains(section, "scored by B only"):
				only[1] = append(only[1], cell)
			case strings.Contains(section, "scored by A only"):
				only[2] = append(only[2], cell)
			}
		}
	}
	return notes, slices.Concat(only[:]...)
}

// A sweep of one point draws it where the chart's box shows it without
// scrolling, on a phone (390 px) as at 1 280 px.
func TestSiteOnePointChartInChromium(t *testing.T) {
	bin := browsertest.Chromium(t)
	files, err := Site(siteFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := writeSite(t, files)
	page := SiteSweepPath("ip/m/a100")
	for _, width := range []int{390, 1280} {
		tab := browsertest.Open(t, bin, 1280, 900)
		if err := tab.Viewport(width, 900); err != nil {
			t.Fatal(err)
		}
		if err := tab.Load("file://"+filepath.Join(dir, page), "#points-table"); err != nil {
			t.Fatal(err)
		}
		// Each mark's centre against its figure's box, as [left, x, right].
		marks, err := browsertest.Eval[[][]float64](tab, `Array.from(document.querySelectorAll("figure.chart circle")).map(c => {
			const f = c.closest("figure").getBoundingClientRect(), r = c.getBoundingClientRect();
			return [f.left, (r.left + r.right) / 2, f.right]; })`)
		if err != nil {
			t.Fatal(err)
		}
		if len(marks) < 2 {
			t.Fatalf("%s at %d px: %d marks, want the point's measured and predicted of each chart", page, width, len(marks))
		}
		for _, m := range marks {
			if m[1] < m[0] || m[1] > m[2] {
				t.Errorf("%s at %d px: a mark at x %.0f, outside its chart's box (%.0f to %.0f): seen only by scrolling", page, width, m[1], m[0], m[2])
			}
		}
		if errs := tab.Errors(); len(errs) > 0 {
			t.Errorf("console errors at %d px: %v", width, errs)
		}
	}
}

// writeSite writes a site's files into a new directory and returns it.
func writeSite(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for p, b := range files {
		path := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// An experimental snapshot's mark off the scale is drawn hollow, as its
// marks on the scale are (the legend says hollow is experimental), and a
// release's is filled.
func TestHistoryClippedExperimentalMarkHollowInChromium(t *testing.T) {
	bin := browsertest.Chromium(t)
	snaps := siteFixture(t)
	far := snaps[0]
	far.Result = siteRun(t, strings.Repeat("c", 40), "", 60)
	far.ID, far.PublishedAt, far.WhatIfs = "cccccccccccc_far", "2026-11-03T00:00:00Z", nil
	farRelease := snaps[1]
	farRelease.Result = siteRun(t, strings.Repeat("d", 40), "v0.7.10", 60)
	farRelease.ID, farRelease.PublishedAt, farRelease.WhatIfs = "v0.7.10_far", "2026-10-01T00:00:00Z", nil
	// Enough snapshots on the scale that two far off are outliers.
	var all []SiteSnapshot
	all = append(all, far)
	for i, s := range snaps {
		for j := range 3 {
			c := s
			c.ID, c.PublishedAt = s.ID+"_"+tickText(float64(j)), "2026-10-"+tickText(float64(10+3*i+j))+"T00:00:00Z"
			all = append(all, c)
		}
	}
	all = append(all, farRelease)
	files, err := Site(all)
	if err != nil {
		t.Fatal(err)
	}
	dir := writeSite(t, files)
	tab := browsertest.Open(t, bin, 1280, 900)
	if err := tab.Load("file://"+filepath.Join(dir, siteHistory), "#history-table"); err != nil {
		t.Fatal(err)
	}
	// Each mark as [experimental, kind, fill, stroke width].
	marks, err := browsertest.Eval[[][]string](tab, `Array.from(document.querySelectorAll("figure.chart a.mark polygon, figure.chart a.mark circle:not(.saturated)")).map(m => {
		const s = getComputedStyle(m);
		return [String(m.closest("a").classList.contains("experimental")), m.tagName, s.fill, s.strokeWidth]; })`)
	if err != nil {
		t.Fatal(err)
	}
	fills := map[string]map[string]bool{}
	for _, m := range marks {
		key := m[0] + " " + m[1]
		if fills[key] == nil {
			fills[key] = map[string]bool{}
		}
		fills[key][m[2]+" "+m[3]] = true
	}
	for _, key := range []string{"true polygon", "false polygon", "true circle", "false circle"} {
		if len(fills[key]) == 0 {
			t.Fatalf("no %s mark in the History (marks %v)", key, marks)
		}
	}
	hollow := fills["true circle"]
	if len(hollow) != 1 {
		t.Fatalf("experimental marks on the scale are drawn %v, want one hollow style", hollow)
	}
	for style := range fills["true polygon"] {
		if !hollow[style] {
			t.Errorf("an experimental mark off the scale is drawn %q, want hollow as on the scale (%v)", style, hollow)
		}
	}
	for style := range fills["false polygon"] {
		if hollow[style] {
			t.Errorf("a release's mark off the scale is drawn hollow (%q)", style)
		}
	}
	if errs := tab.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// The script's fixed1 writes a figure with one decimal as Go's %.1f does
// (render.Pct, the comparison's Markdown): exact ties (61.25, an odd number
// of quarters) to even, and values whose × 10 only rounds to a half (0.05,
// 2.45: no tie) as their exact value says; run in chromium on tricky and
// pseudo-random values.
func TestScriptFixed1IsGoPercentPoint1fInChromium(t *testing.T) {
	bin := browsertest.Chromium(t)
	js, err := siteAssets.ReadFile("siteassets/site.js")
	if err != nil {
		t.Fatal(err)
	}
	fn := regexp.MustCompile(`(?s)\n  function fixed1\(x\) \{.*?\n  \}\n`).Find(js)
	if fn == nil {
		t.Fatal("no function fixed1 in site.js")
	}
	xs := []float64{61.25, 61.75, -61.25, 0.25, 0.75, 0.05, -0.05, 0.15, 2.45, 3463.45, 1278.35, 0, 12.34, -0.04}
	for i := 1; i <= 400; i++ {
		// Figures of the size of MAPEs and Δs, with many near-ties.
		xs = append(xs, float64(i*i%9973)/float64(i%7+1)/8, -float64(i)*0.05, float64(i)*0.25+0.05)
	}
	var want []string
	for _, x := range xs {
		want = append(want, fmt.Sprintf("%.1f", x))
	}
	arg, _ := json.Marshal(xs)
	tab := browsertest.Open(t, bin, 800, 600)
	got, err := browsertest.Eval[[]string](tab, "(() => {"+string(fn)+"return "+string(arg)+".map(fixed1); })()")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(xs) {
		t.Fatalf("fixed1 gave %d figures for %d values", len(got), len(xs))
	}
	for i := range xs {
		if got[i] != want[i] {
			t.Errorf("fixed1(%v) = %q, want %q (Go's %%.1f)", xs[i], got[i], want[i])
		}
	}
}
