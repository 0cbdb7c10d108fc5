package render

import (
	"fmt"
	"html"
	"html/template"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/golden"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// siteRun is a run of one sweep (loads 1, 2, 4, 8; the last not scored)
// and one point of an assumed tier, predicting measured × factor, by
// simulator commit sim (tag: a release build).
func siteRun(t *testing.T, sim, tag string, factor float64) runresult.Result {
	t.Helper()
	var pts []runresult.Point
	for _, c := range []int{1, 2, 4, 8} {
		p := runresult.Point{ID: "ix/<m>/h100@c=" + tickText(float64(c)), Unit: "ix/<m>/h100", Model: "org/<script>m", Hardware: "H100", Source: runresult.SourceInferenceX,
			Load: runresult.Load{Concurrency: c}, Tier: "measured", Measured: metric.Values{"ttft_ms": 100 * float64(c), "tpot_ms": 10 + float64(c)}}
		if c < 8 {
			p.Scored, p.Predicted = true, metric.Values{"ttft_ms": 110 * float64(c) * factor, "tpot_ms": (9 + float64(c)) * factor}
		} else {
			p.Reason, p.Detail = "timeout", "@someone's point took too long"
		}
		// Every point warns, scored or not, the figure in its message
		// growing with the load: one cause.
		p.Warnings = []runresult.Warning{{Message: "weights of <script>m take " + tickText(float64(20*c)) + " GiB", Count: 1}}
		pts = append(pts, p)
	}
	pts = append(pts, runresult.Point{ID: "ip/m/a100@rate=2", Unit: "ip/m/a100", Model: "m", Hardware: "A100", Source: runresult.SourceInferencePerf, Load: runresult.Load{Rate: 2}, Tier: "assumed",
		Scored: true, Saturated: factor > 1, Measured: metric.Values{"ttft_ms": 50, "tpot_ms": 5}, Predicted: metric.Values{"ttft_ms": 60 * factor, "tpot_ms": 5 * factor}})
	prov := runresult.Provenance{
		Harness:   runresult.Harness{Commit: strings.Repeat("1", 40), Source: runresult.HarnessCheckout, Version: "v1.2.0"},
		Simulator: runresult.Simulator{Repo: "https://github.com/inference-sim/inference-sim", Ref: sim, Commit: sim, Tag: tag, Release: tag != "", BuiltByHarness: true, Driver: "replay-metrics"},
		Ledger:    runresult.DataVersion{Name: "bundled", Version: "v1", Digest: "sha256:" + strings.Repeat("ab", 32), Release: true},
	}
	s, err := runresult.Summarize(pts, prov, nil)
	if err != nil {
		t.Fatal(err)
	}
	return runresult.Result{Summary: s, Points: runresult.SortPoints(pts)}
}

func siteFixture(t *testing.T) []SiteSnapshot {
	release, newer := siteRun(t, strings.Repeat("a", 40), "v0.7.15", 1), siteRun(t, strings.Repeat("b", 40), "", 1.2)
	return []SiteSnapshot{
		{ID: "bbbbbbbbbbbb_ledger-v1_harness-v1.2.0", PublishedAt: "2026-11-02T03:17:00Z", Result: newer, WhatIfs: []whatif.Attribution{whatIfOfSite(t, newer)}},
		{ID: "v0.7.15_ledger-v1_harness-v1.2.0_run-7", PublishedAt: "2026-11-01T03:17:00Z", Result: release, WhatIfs: []whatif.Attribution{whatIfOfSite(t, release)}},
	}
}

// whatIfOfSite is the attribution of a what-if of plain's sweep ix/<m>/h100
// that quarters its TPOT predictions and scores its point at c=8 too.
func whatIfOfSite(t *testing.T, plain runresult.Result) whatif.Attribution {
	t.Helper()
	var pts []runresult.Point
	for _, p := range plain.Points {
		if p.Unit != "ix/<m>/h100" {
			continue
		}
		if p.Scored {
			p.Predicted = metric.Values{"ttft_ms": p.Predicted["ttft_ms"], "tpot_ms": p.Predicted["tpot_ms"] / 4}
		} else {
			p.Scored, p.Reason, p.Detail, p.Predicted = true, "", "", metric.Values{"ttft_ms": 800, "tpot_ms": 18}
		}
		pts = append(pts, p)
	}
	prov := plain.Summary.Provenance
	prov.WhatIf = sampleWhatIf("<m> at 4-bit weights")
	prov.WhatIf.Units = []string{"ix/<m>/h100"}
	s, err := runresult.Summarize(pts, prov, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := whatif.Attribute(plain.Points, runresult.Result{Summary: s, Points: pts})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The site's pages are golden files: the Overview and comparison page,
// the history, a snapshot's page, a sweep's page (and one of a single
// point) and the data scripts (one with a saturated point).
func TestSiteGolden(t *testing.T) {
	t.Parallel()
	files, err := Site(siteFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"index.html", "history.html", SiteSnapshotPath("v0.7.15_ledger-v1_harness-v1.2.0_run-7"), SiteSnapshotPath("bbbbbbbbbbbb_ledger-v1_harness-v1.2.0"),
		SiteSweepPath("ix/<m>/h100"), SiteSweepPath("ip/m/a100"), "data/v0.7.15_ledger-v1_harness-v1.2.0_run-7.js", "data/bbbbbbbbbbbb_ledger-v1_harness-v1.2.0.js"} {
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

// siteRun2 is a run like the real corpus's: an InferenceX sweep, an
// inference-perf run of two rates whose second is saturated (both
// measured, so in the headline), and a TP1 sweep on which no point fits.
func siteRun2(t *testing.T) runresult.Result {
	t.Helper()
	var pts []runresult.Point
	for _, c := range []int{1, 2, 4} {
		pts = append(pts, runresult.Point{ID: "ix/m/h100/tp2@c=" + tickText(float64(c)), Unit: "ix/m/h100/tp2", Model: "m", Hardware: "H100", Source: runresult.SourceInferenceX,
			Load: runresult.Load{Concurrency: c}, Tier: "measured", Scored: true,
			Measured:  metric.Values{"ttft_ms": 100 * float64(c), "tpot_ms": 10 + float64(c)},
			Predicted: metric.Values{"ttft_ms": 90 * float64(c), "tpot_ms": 12 + float64(c)}})
	}
	for _, r := range []float64{2, 20} {
		p := runresult.Point{ID: "ip/l/h100@rate=" + tickText(r), Unit: "ip/l/h100", Model: "l", Hardware: "H100", Source: runresult.SourceInferencePerf,
			Load: runresult.Load{Rate: r}, Tier: "measured", Scored: true, Saturated: r == 20,
			Measured: metric.Values{"ttft_ms": 50, "tpot_ms": 5}, Predicted: metric.Values{"ttft_ms": 55, "tpot_ms": 6}}
		if p.Saturated {
			p.Predicted = metric.Values{"ttft_ms": 50000, "tpot_ms": 9}
		}
		pts = append(pts, p)
	}
	for _, c := range []int{4, 8} {
		pts = append(pts, runresult.Point{ID: "ix/m/h100/tp1@c=" + tickText(float64(c)), Unit: "ix/m/h100/tp1", Model: "m", Hardware: "H100", Source: runresult.SourceInferenceX,
			Load: runresult.Load{Concurrency: c}, Tier: "resolved", Reason: "model-does-not-fit-gpus", Detail: "needs 4 GPUs",
			Measured: metric.Values{"ttft_ms": 60 * float64(c), "tpot_ms": 5}})
	}
	run := siteRun(t, strings.Repeat("a", 40), "v0.7.15", 1)
	s, err := runresult.Summarize(pts, run.Summary.Provenance, nil)
	if err != nil {
		t.Fatal(err)
	}
	return runresult.Result{Summary: s, Points: runresult.SortPoints(pts)}
}

var (
	siteTag = regexp.MustCompile(`<[^>]*>`)
	siteTR  = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	siteTD  = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
)

// textOf is the text an HTML fragment reads as.
func textOf(s string) string { return html.UnescapeString(siteTag.ReplaceAllString(s, "")) }

// siteTable is the cells of the rows of the table with id in page.
func siteTable(t *testing.T, page, id string) [][]string {
	t.Helper()
	i := strings.Index(page, `<table id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no table %s", id)
	}
	body := page[i : i+strings.Index(page[i:], "</table>")]
	var rows [][]string
	for _, r := range siteTR.FindAllStringSubmatch(body, -1) {
		var cells []string
		for _, c := range siteTD.FindAllStringSubmatch(r[1], -1) {
			cells = append(cells, textOf(c[1]))
		}
		rows = append(rows, cells)
	}
	return rows
}

// markdownTable is the cells of the rows of the Markdown table after the
// heading that starts with heading, and the paragraph after it.
func markdownTable(t *testing.T, md, heading string) ([][]string, string) {
	t.Helper()
	i := strings.Index(md, "\n"+heading)
	if i < 0 {
		t.Fatalf("no %q in the summary", heading)
	}
	var rows [][]string
	after := ""
	for _, l := range strings.Split(md[i+1:], "\n")[1:] {
		switch {
		case strings.HasPrefix(l, "|---"):
		case strings.HasPrefix(l, "| "):
			rows = append(rows, strings.Split(strings.Trim(l, "| "), " | "))
		case l == "" && after == "":
		default:
			if strings.HasPrefix(l, "#") || l == "" {
				return rows, after
			}
			after = l
		}
	}
	return rows, after
}

// The Overview shows summary.md's by-source and by-model × hardware tables
// cell for cell (header included), their † note, and the saturated points'
// share of the MAPE right under the headline, in summary.md's words.
func TestSiteOverviewAsSummary(t *testing.T) {
	t.Parallel()
	run := siteRun2(t)
	files, err := Site([]SiteSnapshot{{ID: "v0.7.15_ledger-v1", PublishedAt: "2026-12-01T00:00:00Z", Result: run}})
	if err != nil {
		t.Fatal(err)
	}
	md := Summary(run.Summary)
	for _, page := range []string{"index.html", SiteSnapshotPath("v0.7.15_ledger-v1")} {
		got := string(files[page])
		for heading, id := range map[string]string{"### By source": "sources-table", "### By model × hardware": "groups-table"} {
			want, note := markdownTable(t, md, heading)
			if len(want) < 2 {
				t.Fatalf("summary.md's %s has %d rows", heading, len(want))
			}
			if rows := siteTable(t, got, id); !slices.EqualFunc(rows, want, slices.Equal) {
				t.Errorf("%s: %s\n got %q\nwant %q (summary.md)", page, id, rows, want)
			}
			if !strings.HasPrefix(note, "† ") || !strings.Contains(got, `<p class="note">`+template.HTMLEscapeString(note)+"</p>") {
				t.Errorf("%s: %s lacks summary.md's note %q", page, id, note)
			}
		}
		want := strings.ReplaceAll(SaturatedNote(run.Summary.Tiers.MeasuredResolved), "**", "")
		if !strings.Contains(want, "1 saturated point") || !strings.Contains(want, "pp of the TTFT MAPE") {
			t.Fatalf("the fixture's saturated note is %q", want)
		}
		m := regexp.MustCompile(`(?s)<table id="headline-table">.*?</table></div>\n<p class="banner saturated" id="headline-saturated">(.*?)</p>`).FindStringSubmatch(got)
		if m == nil || textOf(m[1]) != want {
			t.Errorf("%s: under the headline table %q, want %q", page, m, want)
		}
	}
}

// A sweep on which no point was scored says in its charts' titles that
// nothing is predicted, and why; a scored sweep's charts draw both lines.
func TestSiteSweepNothingPredicted(t *testing.T) {
	t.Parallel()
	files, err := Site([]SiteSnapshot{{ID: "v0.7.15_ledger-v1", PublishedAt: "2026-12-01T00:00:00Z", Result: siteRun2(t)}})
	if err != nil {
		t.Fatal(err)
	}
	caption := regexp.MustCompile(`<figcaption>(.*?)</figcaption>`)
	none := string(files[SiteSweepPath("ix/m/h100/tp1")])
	caps := caption.FindAllStringSubmatch(none, -1)
	if len(caps) != 2 {
		t.Fatalf("the unscored sweep has %d chart captions, want 2", len(caps))
	}
	for i, short := range []string{"TTFT", "TPOT"} {
		want := "Mean " + short + " of ix/m/h100/tp1: measured over load, nothing predicted. No point was scored (model-does-not-fit-gpus for 2 of 2 points), so nothing is predicted. The table below holds the same figures."
		if got := textOf(caps[i][1]); got != want {
			t.Errorf("caption %d = %q, want %q", i, got, want)
		}
	}
	if strings.Contains(none, "measured and predicted") || strings.Contains(none, `key s2`) || strings.Contains(none, `class="s2 dashed"`) {
		t.Error("the unscored sweep's page still speaks of a predicted line")
	}
	if !strings.Contains(none, "<desc id=\"sweep-ttft-desc\">2 points; measured only. No point was scored (model-does-not-fit-gpus for 2 of 2 points)") {
		t.Error("the unscored sweep's chart description does not say why nothing is predicted")
	}
	scored := string(files[SiteSweepPath("ix/m/h100/tp2")])
	if n := strings.Count(scored, "measured and predicted over load"); n != 4 { // figcaption and SVG title of each chart
		t.Errorf("a scored sweep names measured and predicted %d times, want 4", n)
	}
	if strings.Contains(scored, "nothing predicted") || !strings.Contains(scored, `<span class="key s2 dashed"></span>predicted`) {
		t.Error("a scored sweep's page lacks its predicted line")
	}
}

// The Overview shows what the simulator warned about, a row per cause with
// its points, units and lines; on the published snapshot (the release,
// whose sweeps the site draws) each unit links to its sweep page, on
// another it does not.
func TestSiteWarnings(t *testing.T) {
	t.Parallel()
	files, err := Site(siteFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"Warning", "Points", "Units", "Lines"}, {"weights of <script>m take <n> GiB", "4", "ix/<m>/h100", "4"}}
	for page, link := range map[string]bool{"index.html": true, SiteSnapshotPath("bbbbbbbbbbbb_ledger-v1_harness-v1.2.0"): false,
		SiteSnapshotPath("v0.7.15_ledger-v1_harness-v1.2.0_run-7"): true} {
		got := string(files[page])
		if rows := siteTable(t, got, "warnings-table"); !slices.EqualFunc(rows, want, slices.Equal) {
			t.Errorf("%s: warnings %q, want %q", page, rows, want)
		}
		table := got[strings.Index(got, `<table id="warnings-table"`):]
		table = table[:strings.Index(table, "</table>")]
		// The snapshot's page is in snapshots/: its links go up to the root.
		href := `<a href="` + SiteSweepPath("ix/<m>/h100") + `">`
		if page != "index.html" {
			href = `<a href="../` + SiteSweepPath("ix/<m>/h100") + `">`
		}
		if strings.Contains(table, href) != link || !strings.Contains(table, `title="weights of &lt;script&gt;m take 20 GiB"`) {
			t.Errorf("%s: link to the sweep %v (want %v) or the first message missing:\n%s", page, strings.Contains(table, href), link, table)
		}
	}
	// A snapshot written before warnings were kept has no such section;
	// one whose simulator warned about nothing says so.
	snaps := siteFixture(t)
	snaps[1].Summary.Warnings = nil // the release, which index.html shows
	snaps[0].Summary.Warnings = &runresult.Warnings{Causes: []runresult.WarningGroup{}}
	files, err = Site(snaps)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(files["index.html"]); strings.Contains(got, `id="warnings"`) {
		t.Error("the Overview of a snapshot without warnings recorded has a warnings section")
	}
	if got := string(files[SiteSnapshotPath(snaps[0].ID)]); !strings.Contains(got, "The simulator printed no warning on any point.") {
		t.Error("the Overview of a snapshot whose simulator warned about nothing does not say so")
	}
}

// The Overview headlines the newest release snapshot, never a newer
// experimental one, which it lists and links (labelled); the sweep pages
// are the release's; the comparison's pickers label the experimental
// snapshots. Without any release it headlines the newest snapshot and
// says no release is published.
func TestSitePublishedIsTheNewestRelease(t *testing.T) {
	t.Parallel()
	snaps := siteFixture(t) // the newer is experimental, the older a release
	files, err := Site(snaps)
	if err != nil {
		t.Fatal(err)
	}
	index := string(files["index.html"])
	for _, want := range []string{
		`<h1>BLIS simulator accuracy: v0.7.15 · 2026-11-01 <span class="badge release">release</span></h1>`,
		`Newer experimental snapshot, not the published accuracy: <a href="snapshots/bbbbbbbbbbbb_ledger-v1_harness-v1.2.0.html">bbbbbbbbbbbb · 2026-11-02</a>`,
		`<option value="bbbbbbbbbbbb_ledger-v1_harness-v1.2.0" selected>bbbbbbbbbbbb · 2026-11-02 (experimental)</option>`,
	} {
		if !strings.Contains(index, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	if strings.Contains(index, "Experimental figures") {
		t.Error("index.html headlines experimental figures while a release is published")
	}
	if sweep := string(files[SiteSweepPath("ix/<m>/h100")]); !strings.Contains(sweep, "v0.7.15 · 2026-11-01</a>") {
		t.Errorf("the sweep page is not the release's:\n%s", sweep)
	}

	files, err = Site(snaps[:1])
	if err != nil {
		t.Fatal(err)
	}
	index = string(files["index.html"])
	if !strings.Contains(index, "bbbbbbbbbbbb · 2026-11-02 <span class=\"badge experimental\">") ||
		!strings.Contains(index, "No release snapshot is published yet, so the Overview shows the newest snapshot.") || strings.Contains(index, `id="newer"`) {
		t.Errorf("without a release, index.html does not headline the newest snapshot as experimental:\n%s", index)
	}
}

// A sweep's page has the sweep's own figures, those Summarize gives its
// points alone, and rings its saturated point in the chart and the
// legend; the Overview's worst points link to their sweeps.
func TestSiteSweepFiguresAndSaturated(t *testing.T) {
	t.Parallel()
	snaps := siteFixture(t)
	snaps[1].Result = siteRun(t, strings.Repeat("a", 40), "v0.7.15", 1.2) // its rate=2 point saturated
	files, err := Site(snaps)
	if err != nil {
		t.Fatal(err)
	}
	var unit []runresult.Point
	for _, p := range snaps[1].Points {
		if p.Unit == "ix/<m>/h100" {
			unit = append(unit, p)
		}
	}
	page := string(files[SiteSweepPath("ix/<m>/h100")])
	want := metricRows(runresult.TiersOf(unit).All, metric.Headline())
	var rows [][]string
	for _, r := range want {
		// The worst point by its load alone: the page is its sweep's.
		worst := strings.Replace(r.Worst, "ix/<m>/h100@", "at ", 1)
		rows = append(rows, []string{r.Name, r.MAPE, r.Shape, r.Bias, r.Median, worst, fmt.Sprintf("%d (%d)", r.N, r.ShapeN)})
	}
	if got := siteTable(t, page, "sweep-table"); !slices.EqualFunc(got[1:], rows, slices.Equal) {
		t.Errorf("the sweep's figures are %q, want %q", got[1:], rows)
	}
	if strings.Contains(page, `class="saturated"`) {
		t.Error("a sweep without a saturated point rings one")
	}
	sat := string(files[SiteSweepPath("ip/m/a100")])
	if strings.Count(sat, `<circle class="saturated"`) != len(metric.Headline()) || !strings.Contains(sat, `<span class="ring"></span>saturated point`) {
		t.Errorf("the saturated point is not ringed in each chart and the legend:\n%s", sat)
	}
	index := string(files["index.html"])
	if !strings.Contains(index, `<a href="sweeps/ip-m-a100.html">ip/m/a100@rate=2</a>`) {
		t.Error("the Overview's worst point does not link its sweep")
	}
	if snap := string(files[SiteSnapshotPath(snaps[1].ID)]); !strings.Contains(snap, `<a href="../sweeps/ip-m-a100.html">ip/m/a100@rate=2</a>`) {
		t.Error("the release's page does not link its worst point's sweep from under snapshots/")
	}
}

// "Where is it worst": one row per model × hardware × source with both
// tiers' MAPE, worst first, each n/a saying why (nothing scored, or only
// assumed points), each row linking its sweeps.
func TestSiteWorstTable(t *testing.T) {
	t.Parallel()
	files, err := Site(siteFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	got := siteTable(t, string(files["index.html"]), "worst-table")
	want := [][]string{
		{"Model", "Hardware", "Source", "TTFT MAPE, measured + resolved", "TTFT MAPE, all", "TPOT MAPE, measured + resolved", "TPOT MAPE, all", "Scored", "Sweeps"},
		{"m", "A100", "inference-perf", "n/aevery scored point has an assumed setting", "20.0%", "n/aevery scored point has an assumed setting", "0.0%", "1 of 1", "ip/m/a100"},
		{"org/<script>m", "H100", "InferenceX", "10.0%", "10.0%", "8.2%", "8.2%", "3 of 4", "ix/<m>/h100"},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("worst table:\n%q\nwant\n%q", got, want)
	}
	if !strings.Contains(string(files["index.html"]), `<a href="sweeps/ix-m-h100.html">ix/&lt;m&gt;/h100</a>`) {
		t.Error("a row does not link its sweep")
	}
	// A group with nothing scored says why, and comes last.
	rows := worstRows([]runresult.Point{
		{ID: "a@c=1", Unit: "ix/big/h100/tp1", Model: "big", Hardware: "H100", Source: runresult.SourceInferenceX, Reason: "model-does-not-fit-gpus"},
		{ID: "b@c=1", Unit: "ix/small/h100/tp1", Model: "small", Hardware: "H100", Source: runresult.SourceInferenceX, Tier: "measured", Scored: true,
			Measured: metric.Values{"ttft_ms": 10, "tpot_ms": 1}, Predicted: metric.Values{"ttft_ms": 11, "tpot_ms": 1}},
	})
	if len(rows) != 2 || rows[0].Model != "small" || rows[1].Cells[0].Why != "nothing scored: model-does-not-fit-gpus × 1" || rows[1].Sweeps[0].Name != "tp1" {
		t.Errorf("rows %+v", rows)
	}
}

// The History chart stays readable when one snapshot is far off: its axis
// stops at 3 × the median of the chart's figures when one is over 10 × it,
// and the far-off mark is a
// triangle at the top edge with its figure; charts without such a snapshot
// are not clipped.
func TestHistoryClipsFarOffSnapshot(t *testing.T) {
	t.Parallel()
	ys := func(v ...float64) []chartSeries {
		var s chartSeries
		for i, y := range v {
			s.Points = append(s.Points, chartPoint{X: float64(i), Y: fp(y)})
		}
		return []chartSeries{s}
	}
	for _, tc := range []struct {
		ys   []chartSeries
		want float64
	}{
		{ys(3463.5, 40, 100, 80), 270},
		{ys(40, 50, 60, 45), 0},
		{ys(100, 300), 0},
		{ys(10, 32, 8, 10), 0},
		{ys(3463.5), 0},
	} {
		if got := outlierClip(tc.ys); got != tc.want {
			t.Errorf("outlierClip(%v) = %v, want %v", tc.ys[0].Points, got, tc.want)
		}
	}
	snaps := siteFixture(t)
	far := snaps[0]
	far.Result = siteRun(t, strings.Repeat("c", 40), "", 60)
	far.ID, far.PublishedAt = "cccccccccccc_far", "2026-11-03T00:00:00Z"
	v := history(append([]SiteSnapshot{far}, snaps...), []string{"far", "b", "a"})
	mape := string(v.Ranges[0].Charts[0].SVG)
	if !strings.HasPrefix(v.Ranges[0].Charts[0].Note, "One snapshot is far off the others") || !strings.Contains(mape, `class="s1 clipped"`) || !strings.Contains(mape, `class="clip-label"`) {
		t.Errorf("the far-off snapshot is not drawn clipped (note %q):\n%s", v.Ranges[0].Charts[0].Note, mape)
	}
	// The far-off snapshot is the newest, at the right edge: its figure
	// stands on the mark's left, inside the chart.
	label, _, _ := strings.Cut(mape[strings.Index(mape, `class="clip-label"`):], ">")
	if !strings.Contains(label, `text-anchor="end"`) {
		t.Errorf("the right-most far-off mark's figure is not on its left:\n%s", mape)
	}
	// Every other mark is on the scale, its figure in its title; the axis
	// does not run to the far-off figure.
	if n := strings.Count(mape, "<circle"); n != 4 {
		t.Errorf("%d marks on the scale, want 4 (2 snapshots × 2 metrics)", n)
	}

	// Four snapshots off the scale, a phone's width apart (the example's
	// History: v0.7.13 to f90a1e3a): the caption counts them, and a figure
	// that would overlap a newer one's is left out, the newest drawn.
	off := []chartSeries{{Class: "s1"}}
	for i, y := range []float64{78.6, 78.6, 3465.5, 3463.5, 3463.5, 3463.5} {
		off[0].Points = append(off[0].Points, chartPoint{X: float64(i), Y: fp(y), Title: "x"})
	}
	for i, y := range []float64{45, 45, 57, 160, 160, 160} {
		if i == 0 {
			off = append(off, chartSeries{Class: "s2"})
		}
		off[1].Points = append(off[1].Points, chartPoint{X: float64(i), Y: fp(y), Title: "y"})
	}
	c := chart{ID: "off", Series: off, ClipY: outlierClip(off)}
	if note := clippedNote(off, c.ClipY); !strings.HasPrefix(note, "4 snapshots are far off the others") {
		t.Errorf("the note on four snapshots off the scale: %q", note)
	}
	svg := string(c.svg())
	labels := regexp.MustCompile(`<text class="clip-label" x="([0-9.]+)"[^>]*text-anchor="(start|end)">([0-9.]+)</text>`).FindAllStringSubmatch(svg, -1)
	if len(labels) == 0 || len(labels) == 4 || labels[0][2] != "end" {
		t.Fatalf("off-scale figures drawn: %v, want the newest (on its mark's left) and not all four (they overlap at a phone's text size)", labels)
	}
	span := func(l []string) (lo, hi float64) {
		x, _ := strconv.ParseFloat(l[1], 64)
		if l[2] == "end" {
			return x - textWidth(l[3]), x
		}
		return x, x + textWidth(l[3])
	}
	for i := range labels {
		for j := range i {
			alo, ahi := span(labels[i])
			blo, bhi := span(labels[j])
			if alo < bhi && blo < ahi {
				t.Errorf("figures %v and %v overlap", labels[i], labels[j])
			}
		}
	}
	if v := history(snaps, []string{"b", "a"}); v.Ranges[0].Charts[0].Note != "" || strings.Contains(string(v.Ranges[0].Charts[0].SVG), "clipped") {
		t.Error("a History without a far-off snapshot is clipped")
	}
}

// A backfilled snapshot says on its page and in the History when its
// release was made and when it was scored; another says when it was
// published.
func TestSiteBackfilledSnapshot(t *testing.T) {
	t.Parallel()
	run := siteRun2(t)
	files, err := Site([]SiteSnapshot{{ID: "new", PublishedAt: "2026-12-01T00:00:00Z", Result: run},
		{ID: "old", PublishedAt: "2026-05-11T12:37:42Z", BackfilledAt: "2026-12-04T00:30:00Z", Result: run}})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(files[SiteSnapshotPath("old")]); !strings.Contains(got, "of a release made 2026-05-11, scored 2026-12-04 (backfilled).") {
		t.Errorf("the backfilled snapshot's page does not say so")
	}
	if got := string(files[SiteSnapshotPath("new")]); !strings.Contains(got, "published 2026-12-01.") || strings.Contains(got, "backfilled") {
		t.Errorf("the published snapshot's page is not as before")
	}
	if got := string(files[siteHistory]); strings.Count(got, ", backfilled: scored <span class=\"nowrap\">2026-12-04</span></td>") != 1 {
		t.Errorf("the History does not mark the one backfilled snapshot")
	}
}

// The Overview's Why section: per what-if its sentence and its table (per
// model × hardware: points, scored without → with, each headline MAPE
// without → with over the same points), then the saturated points' share
// of the headline MAPE; none for a snapshot without what-ifs.
func TestSiteWhy(t *testing.T) {
	t.Parallel()
	files, err := Site(siteFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	head := []string{"Model", "Hardware", "Points", "Scored without → with", "TTFT MAPE without → with", "TPOT MAPE without → with", "Same points"}
	for page, tc := range map[string]struct {
		row       []string
		saturated bool
	}{
		// The release predicts TPOT (9+c)/(10+c) of the measurement; the
		// what-if a quarter of it: 8.2 % → 77.0 % over c = 1, 2, 4.
		"index.html": {[]string{"org/<script>m", "H100", "4", "3 → 4", "10.0% → 10.0%", "8.2% → 77.0%", "3"}, false},
		// The newer snapshot predicts 1.2 × as much: 10.2 % → 72.5 %. Its
		// saturated A100 point is of tier assumed, not the headline's.
		SiteSnapshotPath("bbbbbbbbbbbb_ledger-v1_harness-v1.2.0"): {[]string{"org/<script>m", "H100", "4", "3 → 4", "32.0% → 32.0%", "10.2% → 72.5%", "3"}, false},
	} {
		got := string(files[page])
		rows := siteTable(t, got, "whatif-gpt-oss-120b-mxfp4-table")
		if want := [][]string{head, tc.row}; !slices.EqualFunc(rows, want, slices.Equal) {
			t.Errorf("%s: Why table %q, want %q", page, rows, want)
		}
		if !strings.Contains(textOf(got), "<m> at 4-bit weights: 4 of 4 points scored instead of 3; over the same 3 points TTFT MAPE") {
			t.Errorf("%s: no Why sentence", page)
		}
		if sat := strings.Contains(got, `id="why-saturated"`); sat != tc.saturated {
			t.Errorf("%s: saturated share in the Why section %v, want %v", page, sat, tc.saturated)
		}
	}

	// With the saturated point measured, the headline tier's saturated
	// share closes the section; without what-ifs there is no section.
	snaps := siteFixture(t)
	pts := slices.Clone(snaps[0].Points)
	for i := range pts {
		if pts[i].Saturated {
			pts[i].Tier = "measured"
		}
	}
	sum, err := runresult.Summarize(pts, snaps[0].Summary.Provenance, nil)
	if err != nil {
		t.Fatal(err)
	}
	snaps[0].Result = runresult.Result{Summary: sum, Points: pts}
	snaps[1].WhatIfs = nil
	files, err = Site(snaps)
	if err != nil {
		t.Fatal(err)
	}
	got := textOf(string(files[SiteSnapshotPath(snaps[0].ID)]))
	if want := "Saturated points, the other cause a what-if cannot change: in tier measured + resolved, 1 saturated point (the simulator fell more than 5 % behind the offered rate) contributes"; !strings.Contains(got, want) {
		t.Errorf("the Why section lacks %q", want)
	}
	if strings.Contains(string(files["index.html"]), `id="why"`) {
		t.Error("the Overview of a snapshot without what-ifs has a Why section")
	}
}

// The Overview and the History say what the dashboard's retention pruned
// (how many, the first and last, the setting), the same note on both;
// nothing while it pruned nothing.
func TestSitePrunedNote(t *testing.T) {
	t.Parallel()
	note := func(notes SiteNotes) map[string]string {
		t.Helper()
		files := map[string][]byte{}
		if err := SiteTo(sliceSource(siteFixture(t)), func(p string, b []byte) error { files[p] = b; return nil }, notes); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, p := range []string{"index.html", "history.html"} {
			page := string(files[p])
			if i := strings.Index(page, `<div class="banner info" id="pruned">`); i >= 0 {
				out[p] = page[i : i+strings.Index(page[i:], "</div>")+len("</div>\n")]
			}
		}
		return out
	}
	if got := note(SiteNotes{}); len(got) != 0 {
		t.Errorf("nothing pruned, yet a note: %v", got)
	}
	many := note(SiteNotes{Pruned: &PrunedSnapshots{Count: 335, KeepExperimental: 30,
		OldestSimulator: "00000001aaaa", OldestPublishedAt: "2025-12-02T21:00:00Z", NewestSimulator: "0000014fbbbb", NewestPublishedAt: "2026-11-01T21:00:00Z"}})
	if len(many) != 2 || many["index.html"] != many["history.html"] {
		t.Fatalf("the Overview's and the History's notes differ or are missing: %v", many)
	}
	golden.Assert(t, filepath.Join("testdata", "site", "pruned-note.golden"), []byte(many["index.html"]))
	one := note(SiteNotes{Pruned: &PrunedSnapshots{Count: 1, KeepExperimental: 0, OldestSimulator: "f90a1e3a6787", OldestPublishedAt: "2026-12-01T21:30:00Z",
		NewestSimulator: "f90a1e3a6787", NewestPublishedAt: "2026-12-01T21:30:00Z"}})["index.html"]
	if !strings.Contains(one, "<strong>1 experimental snapshot was pruned</strong> from this dashboard: f90a1e3a6787 · 2026-12-01. It keeps every release and no experimental snapshot") {
		t.Errorf("one pruned under keep_experimental 0:\n%s", one)
	}
}
