package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/browsertest"
	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/publish"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// standinDashboard publishes the stand-in's two runs (v0.2.0, then the
// same with every prediction 20 % higher) into a new dashboard with
// `action publish` and builds its site with `action site`.
func standinDashboard(t *testing.T) (runs standinResults, dash, site string) {
	t.Helper()
	runs = scoreStandin(t)
	dash, site = t.TempDir(), filepath.Join(t.TempDir(), "site")
	for _, args := range [][]string{
		{"publish", "--dashboard", dash, "--published-at", "2026-11-01T00:00:00Z", runs.release},
		{"publish", "--dashboard", dash, "--experimental", "--published-at", "2026-11-02T00:00:00Z", runs.slow},
		{"site", "--dashboard", dash, "--out", site},
	} {
		if out, err := runAction(t, args...); err != nil {
			t.Fatalf("action %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return runs, dash, site
}

// TestSiteCommand: the site of a two-snapshot dashboard has its pages;
// building it again gives the same bytes and removes what it no longer
// holds; a malformed or missing snapshot file leaves that snapshot out,
// said on the Overview and in a warning naming the file; a malformed index
// is an error naming it, and nothing is written.
func TestSiteCommand(t *testing.T) {
	runs, dash, site := standinDashboard(t)
	first, second := publish.SnapshotID(runs.releaseRun.Summary, 0), publish.SnapshotID(runs.slowRun.Summary, 0)
	files := testkit.Paths(t, site)
	for _, want := range []string{"index.html", "history.html", "assets/site.css", "assets/site.js",
		render.SiteSnapshotPath(first), render.SiteSnapshotPath(second), "data/" + first + ".js", "data/" + second + ".js"} {
		if !slices.Contains(files, want) {
			t.Errorf("the site lacks %s (has %v)", want, files)
		}
	}
	sweeps := 0
	for _, f := range files {
		if strings.HasPrefix(f, "sweeps/") {
			sweeps++
		}
	}
	units := map[string]bool{}
	for _, p := range runs.releaseRun.Points {
		units[p.Unit] = true
	}
	if sweeps != len(units) || sweeps == 0 {
		t.Errorf("%d sweep pages, want one per unit of the published (release) snapshot (%d)", sweeps, len(units))
	}
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(site, f))
		for _, bad := range []string{"http://", "https://", "//cdn", "@import", "fonts.googleapis"} {
			if strings.Contains(string(b), bad) && f != "assets/site.js" {
				t.Errorf("%s refers to %q: the site must be self-contained", f, bad)
			}
		}
	}
	index, _ := os.ReadFile(filepath.Join(site, "index.html"))
	if strings.Contains(string(index), first+"</option>") || !strings.Contains(string(index), ">v0.2.0 · 2026-11-01</option>") {
		t.Error("the pickers do not name snapshots by simulator and date")
	}

	stale := filepath.Join(site, "snapshots", "gone.html")
	if err := os.WriteFile(stale, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := runAction(t, "site", "--dashboard", dash, "--out", site); err != nil {
		t.Fatalf("rebuild: %v\n%s", err, out)
	}
	if again := testkit.Paths(t, site); !slices.Equal(again, files) {
		t.Errorf("a rebuild holds %v, want %v (a stale page gone)", again, files)
	}

	for name, spoil := range map[string]struct {
		file, content string
		skip          bool
	}{
		"malformed points": {dashboard.SnapshotsDir + "/" + first + "/points.json", "[{", true},
		"missing summary":  {dashboard.SnapshotsDir + "/" + second + "/summary.json", "", true},
		"malformed index":  {dashboard.IndexPath, `{"version":2,"snapshots":[{"id":"x"}],"extra":1}`, false},
	} {
		t.Run(name, func(t *testing.T) {
			bad := t.TempDir()
			if err := os.CopyFS(bad, os.DirFS(dash)); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(bad, filepath.FromSlash(spoil.file))
			var err error
			if spoil.content == "" {
				err = os.Remove(path)
			} else {
				err = os.WriteFile(path, []byte(spoil.content), 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "site")
			log, err := runAction(t, "site", "--dashboard", bad, "--out", out)
			if spoil.skip {
				index, _ := os.ReadFile(filepath.Join(out, "index.html"))
				if err != nil || !strings.Contains(log, "level=WARN") || !strings.Contains(log, spoil.file) || !strings.Contains(string(index), `id="skipped"`) {
					t.Errorf("error %v, log %q: want the snapshot left out, said on the Overview and in a warning naming %s", err, log, spoil.file)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), spoil.file) {
				t.Errorf("error %v, want one naming %s", err, spoil.file)
			}
			if _, serr := os.Stat(out); !os.IsNotExist(serr) {
				t.Errorf("a failed build wrote %s", out)
			}
		})
	}
}

// comparisonRow is a row of the site's comparison table, as the page shows it.
type comparisonRow struct {
	Tier, Metric string
	Cells        map[string]string
}

// TestSiteInChromium loads the stand-in dashboard's site from disk in
// headless chromium, as a reader would: the Overview's two tables hold the
// figures of the newest summary.json; index.html?a=&b= shows the same
// comparison as `action compare` (every figure of every row, the verdict,
// and "+20 %" for the uniform 20 % slowdown); the history chart has one
// mark per snapshot; a sweep page has its charts and its table; and no page
// logs a console error.
func TestSiteInChromium(t *testing.T) {
	bin := browsertest.Chromium(t)
	runs, _, site := standinDashboard(t)
	first, second := publish.SnapshotID(runs.releaseRun.Summary, 0), publish.SnapshotID(runs.slowRun.Summary, 0)
	tab := browsertest.Open(t, bin, 1280, 900)
	url := func(p string) string { return "file://" + filepath.Join(site, p) }

	if err := tab.Load(url("index.html"), "#headline-table"); err != nil {
		t.Fatal(err)
	}
	// The Overview headlines the release, not the newer experimental run.
	published := runs.releaseRun.Summary
	tierName, tier, _ := runresult.Headline(published.Tiers)
	for table, scores := range map[string]runresult.TierScores{"headline-table": tier, "all-table": published.Tiers.All} {
		got, err := browsertest.Eval[[][]string](tab, `Array.from(document.querySelectorAll("#`+table+` tbody tr")).map(r =>
			[r.cells[0].textContent, r.querySelector("[data-col=mape]").textContent, r.querySelector("[data-col=shape]").textContent,
			 r.querySelector("[data-col=bias]").textContent, r.querySelector("[data-col=n]").textContent])`)
		if err != nil {
			t.Fatal(err)
		}
		var want [][]string
		for _, d := range metric.Headline() {
			m, _ := scores.Of(d)
			want = append(want, []string{d.Name, render.Pct(m.MAPE), render.Pct(m.Shape), render.SignedPct(m.Bias), fmt.Sprintf("%d (%d)", m.N, m.ShapeN)})
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s (tier %s) shows %q, want summary.json's %q", table, tierName, got, want)
		}
	}

	verdict := checkComparison(t, tab, url("index.html"), runs.releaseRun, runs.slowRun, first, second)
	if len(verdict) == 0 || !strings.Contains(verdict[0], "predictions +20 % (median)") {
		t.Errorf("a uniform 20 %% slowdown does not read +20 %%: %q", verdict)
	}

	if err := tab.Load(url("history.html"), "#history-table"); err != nil {
		t.Fatal(err)
	}
	marks, err := browsertest.Eval[[]string](tab, `Array.from(document.querySelectorAll("figure.chart svg")[0].querySelectorAll("a.mark")).map(a => a.dataset.snapshot)`)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(marks, []string{first, second}) {
		t.Errorf("the history chart's marks are %v, want one per snapshot, oldest first", marks)
	}

	sweep := render.SiteSweepPath(runs.slowRun.Points[0].Unit)
	if err := tab.Load(url(sweep), "#points-table"); err != nil {
		t.Fatal(err)
	}
	shape, err := browsertest.Eval[[]int](tab, `[document.querySelectorAll("figure.chart svg polyline").length, document.querySelectorAll("#points-table tbody tr").length,
		document.querySelectorAll("svg title").length]`)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range runs.slowRun.Points {
		if p.Unit == runs.slowRun.Points[0].Unit {
			n++
		}
	}
	if shape[0] == 0 || shape[1] != n || shape[2] < 2 {
		t.Errorf("sweep page %s: %d lines, %d table rows (want %d), %d titles", sweep, shape[0], shape[1], n, shape[2])
	}
	// A click on a column header sorts the table.
	order, err := browsertest.Eval[[]string](tab, `(() => { const b = document.querySelector("#points-table th button"); b.click(); b.click();
		return Array.from(document.querySelectorAll("#points-table tbody tr")).map(r => r.cells[0].textContent); })()`)
	if err != nil {
		t.Fatal(err)
	}
	if len(order) > 1 && !slices.IsSortedFunc(order, func(a, b string) int { return strings.Compare(padNum(b), padNum(a)) }) {
		t.Errorf("two clicks on Load did not sort descending: %v", order)
	}
	if errs := tab.Errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}

	// At 1 000 px and at a phone's width the page itself never scrolls
	// sideways: a wide table scrolls inside its own box.
	pages := map[string]string{"index.html": "#headline-table", "index.html?a=" + first + "&b=" + second: "#comparison[data-ready]",
		"history.html": "#history-table", sweep: "#points-table", render.SiteSnapshotPath(first): "#headline-table"}
	for _, width := range []int{1000, 375} {
		narrow := browsertest.Open(t, bin, 1280, 800)
		if err := narrow.Viewport(width, 800); err != nil {
			t.Fatal(err)
		}
		for p, ready := range pages {
			if err := narrow.Load(url(p), ready); err != nil {
				t.Fatal(err)
			}
			w, err := browsertest.Eval[[]int](narrow, `[document.documentElement.scrollWidth, window.innerWidth]`)
			if err != nil {
				t.Fatal(err)
			}
			if w[1] != width {
				t.Fatalf("the viewport is %d px wide, want %d", w[1], width)
			}
			if w[0] > w[1] {
				t.Errorf("%s at %d px: the page is %d px wide, the window %d: it scrolls sideways", p, width, w[0], w[1])
			}
		}
		if errs := narrow.Errors(); len(errs) > 0 {
			t.Errorf("console errors at %d px:\n%s", width, strings.Join(errs, "\n"))
		}
	}
}

// checkComparison opens the site's index (url) with ?a=first&b=second and
// checks that the comparison shows what `action compare` computes for runs
// a and b (runresult.CompareRuns): every figure of every row, and the verdict,
// which it returns.
func checkComparison(t *testing.T, tab *browsertest.Tab, url string, a, b runresult.Result, first, second string) []string {
	t.Helper()
	if err := tab.Load(url+"?a="+first+"&b="+second, "#comparison[data-ready]"); err != nil {
		t.Fatal(err)
	}
	c := runresult.CompareRuns(a, b, first, second)
	rows, err := browsertest.Eval[[]comparisonRow](tab, `Array.from(document.querySelectorAll("#comparison-table tbody tr, #comparison-secondary-table tbody tr")).map(r =>
		({Tier: r.dataset.tier, Metric: r.dataset.metric,
		  Cells: Object.fromEntries(Array.from(r.querySelectorAll("td[data-col]")).map(td => [td.dataset.col, td.textContent]))}))`)
	if err != nil {
		t.Fatal(err)
	}
	var want []comparisonRow
	for _, r := range c.Rows {
		if c.SameTiers() && r.Tier != runresult.TierAll {
			continue
		}
		want = append(want, comparisonRow{Tier: r.Tier, Metric: r.Metric, Cells: map[string]string{
			"a-mape": render.Pct(r.BaseMAPE), "b-mape": render.Pct(r.HeadMAPE), "delta": render.SignedPP(r.Delta),
			"a-shape": render.Pct(r.BaseShape), "b-shape": render.Pct(r.HeadShape), "shape-delta": render.SignedPP(r.ShapeDelta),
			"a-bias": render.SignedPct(r.BaseBias), "b-bias": render.SignedPct(r.HeadBias), "ratio": render.Ratio(r.PredictionRatio),
			"counts": fmt.Sprintf("%d / %d / %d", r.Better, r.Worse, r.Unchanged), "common": fmt.Sprint(r.Common)}})
	}
	if len(rows) != len(want) {
		t.Fatalf("the comparison shows %d rows, action compare %d:\n%v", len(rows), len(want), rows)
	}
	for i := range want {
		if rows[i].Tier != want[i].Tier || rows[i].Metric != want[i].Metric || !mapsEqual(rows[i].Cells, want[i].Cells) {
			t.Errorf("row %d: the page shows %+v, action compare %+v", i, rows[i], want[i])
		}
	}
	verdict, err := browsertest.Eval[[]string](tab, `Array.from(document.querySelectorAll("#verdict li")).map(li => li.textContent)`)
	if err != nil {
		t.Fatal(err)
	}
	var wantVerdict []string
	for _, s := range render.Verdict(c) {
		wantVerdict = append(wantVerdict, strings.ReplaceAll(s, "**", ""))
	}
	if !slices.Equal(verdict, wantVerdict) {
		t.Errorf("the verdict reads %q, action compare's %q", verdict, wantVerdict)
	}
	// The saturated points: each snapshot's note on its headline MAPE, in
	// action compare's words (the runs named A and B, as the page does).
	notes, err := browsertest.Eval[[]string](tab, `Array.from(document.querySelectorAll("#comparison p.saturated")).map(p => p.textContent)`)
	if err != nil {
		t.Fatal(err)
	}
	var wantNotes []string
	for _, l := range strings.Split(render.CompareMarkdown(render.RunsComparison(runresult.CompareRuns(a, b, "A", "B"))), "\n") {
		if strings.HasPrefix(l, "A, tier ") || strings.HasPrefix(l, "B, tier ") {
			wantNotes = append(wantNotes, strings.ReplaceAll(l, "**", ""))
		}
	}
	if !slices.Equal(notes, wantNotes) {
		t.Errorf("the saturated notes read %q, action compare's %q", notes, wantNotes)
	}
	return verdict
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// padNum left-pads a load so that text order is numeric order.
func padNum(s string) string { return fmt.Sprintf("%20s", s) }
