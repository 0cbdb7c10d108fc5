package render

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// SiteSnapshot is one published snapshot of a dashboard, as its site shows
// it: the id, when it was published, and its summary and points.
type SiteSnapshot struct {
	ID string
	// PublishedAt is the index's RFC 3339 time.
	PublishedAt string
	// BackfilledAt is when a backfilled snapshot of a past release was
	// scored (RFC 3339; PublishedAt is then the release's date), "" for
	// any other snapshot.
	BackfilledAt string
	runresult.Result
	// WhatIfs are the attributions of the what-ifs published beside the
	// snapshot (whatif.Attribute against its points), drawn as the
	// Overview's Why section; nil for none.
	WhatIfs []whatif.Attribution
}

// Label is how the site names a snapshot to a person: the simulator's
// release tag (or its short commit) and the publication date, e.g.
// "v0.7.15 · 2026-12-01"; never the snapshot id.
func (s SiteSnapshot) Label() string {
	return SnapshotLabel(s.Summary.Provenance.Simulator, s.PublishedAt)
}

func (s SiteSnapshot) date() string {
	d, _, _ := strings.Cut(s.PublishedAt, "T")
	return d
}

// backfilled is the date a backfilled snapshot was scored, "" for another.
func (s SiteSnapshot) backfilled() string {
	d, _, _ := strings.Cut(s.BackfilledAt, "T")
	return d
}

//go:embed siteassets/site.css siteassets/site.js
var siteAssets embed.FS

// Site paths.
const (
	siteIndex   = "index.html"
	siteHistory = "history.html"
)

// siteFile is the safe file name of an id: unit ids hold slashes.
var siteUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func siteFile(id string) string {
	return strings.Trim(siteUnsafe.ReplaceAllString(id, "-"), "-.") + ".html"
}

// SitePage paths of a snapshot, of a sweep of the latest snapshot and of a
// snapshot's data script, relative to the site's root.
func SiteSnapshotPath(id string) string { return "snapshots/" + siteFile(id) }
func SiteSweepPath(unit string) string  { return "sweeps/" + siteFile(unit) }
func siteDataPath(id string) string {
	return "data/" + strings.TrimSuffix(siteFile(id), ".html") + ".js"
}

// Site renders a dashboard's static site from its snapshots, newest first
// (the index's order), as files by slash path: index.html (the Overview of
// the newest snapshot and the comparison of any two, ?a=<id>&b=<id>),
// history.html, snapshots/<id>.html, sweeps/<unit>.html (the newest
// snapshot's sweeps), assets/ (one stylesheet, one script) and data/<id>.js
// (each snapshot's points, for the comparison the page computes with the
// rules of runresult.Compare). Every link is relative: the site works from
// file:// and under any path. Untrusted text is escaped by html/template;
// the output depends only on snaps.
//
// SiteTo draws the same with notes on the snapshots it does not show.
func Site(snaps []SiteSnapshot) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := SiteTo(sliceSource(snaps), func(path string, data []byte) error {
		files[path] = data
		return nil
	}, SiteNotes{})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// SiteSource gives the site's snapshots one at a time, newest first (the
// index's order): Len of them, Head(i) the i-th's head (SiteHead: no
// points), Snapshot(i) the i-th whole (its points and what-ifs). SiteTo
// asks for each head and then each snapshot once, and keeps no snapshot
// but the headlined one, so that what it holds does not grow with their
// number.
type SiteSource interface {
	Len() int
	Head(i int) SiteSnapshot
	Snapshot(i int) (SiteSnapshot, error)
}

// sliceSource is a SiteSource over snapshots in memory.
type sliceSource []SiteSnapshot

func (s sliceSource) Len() int                             { return len(s) }
func (s sliceSource) Head(i int) SiteSnapshot              { return SiteHead(s[i]) }
func (s sliceSource) Snapshot(i int) (SiteSnapshot, error) { return s[i], nil }

// SiteTo renders the site Site renders, streaming: each file is handed to
// emit (its slash path and bytes) as soon as it is drawn, and the
// snapshots are read from src one at a time: of each it keeps only its
// head (SiteHead: the summary's label, provenance, coverage and headline
// figures), which the History, the pickers and the labels need; it draws
// each snapshot's page and data script and lets its points go, but for
// the headlined snapshot's, whose Overview and sweep pages are drawn
// last. So its memory is one snapshot's points and a head per
// snapshot, however many there are (BenchmarkBuildNightlies in
// internal/site).
func SiteTo(src SiteSource, emit func(path string, data []byte) error, notes SiteNotes) error {
	n := src.Len()
	if n == 0 {
		return fmt.Errorf("site: no snapshot to show")
	}
	for _, name := range []string{"site.css", "site.js"} {
		b, err := siteAssets.ReadFile("siteassets/" + name)
		if err != nil {
			return err
		}
		if err := emit("assets/"+name, b); err != nil {
			return err
		}
	}
	heads := make([]SiteSnapshot, n)
	for i := range n {
		heads[i] = src.Head(i)
	}
	labels := uniqueLabels(heads)
	pub := publishedIndex(heads)
	var published SiteSnapshot
	for i := range n {
		s, err := src.Snapshot(i)
		if err != nil {
			return err
		}
		if i == pub {
			published = s
		}
		data, err := siteData(s)
		if err != nil {
			return err
		}
		if err := emit(siteDataPath(s.ID), data); err != nil {
			return err
		}
		page := sitePage{Root: "../", Title: labels[i], Nav: "history"}
		ov := overview(s, labels[i], i == pub)
		ov.underRoot(page.Root)
		if i+1 < n {
			ov.PreviousLabel = labels[i+1]
			ov.CompareHref = siteIndex + "?" + url.Values{"a": {heads[i+1].ID}, "b": {s.ID}}.Encode()
		}
		if err := execPage(emit, SiteSnapshotPath(s.ID), "snapshot", page, ov); err != nil {
			return err
		}
	}
	cfg, err := siteConfig(heads, labels)
	if err != nil {
		return err
	}
	latest := overview(published, labels[pub], true)
	latest.Newer, latest.NoRelease = newerSnapshots(heads, labels, pub), published.Summary.Label != runresult.LabelRelease
	idx := indexView{Overview: latest, Config: cfg, Options: pickerOptions(heads, labels)}
	if err := execPage(emit, siteIndex, "index", sitePage{Title: "Overview", Nav: "overview", Skipped: notes.Skipped, Pruned: notes.Pruned}, idx); err != nil {
		return err
	}
	if err := execPage(emit, siteHistory, "history", sitePage{Title: "History", Nav: "history", Skipped: notes.Skipped, Pruned: notes.Pruned}, history(heads, labels)); err != nil {
		return err
	}
	for _, sw := range sweeps(published, labels[pub]) {
		if err := execPage(emit, SiteSweepPath(sw.Unit), "sweep", sitePage{Root: "../", Title: sw.Unit, Nav: "sweeps"}, sw); err != nil {
			return err
		}
	}
	return nil
}

// SiteHead is what the site keeps of a snapshot it is not drawing: its id,
// dates and the parts of its summary the History, the pickers, the labels
// and the comparison's configuration read: the label, the simulator (of
// the provenance), the scored and corpus counts (of the coverage) and the
// headline metrics' figures of each tier; no points, groups, sources,
// warnings, other provenance or secondary metrics, so that the heads of a
// year of snapshots stay small.
func SiteHead(s SiteSnapshot) SiteSnapshot {
	sum := s.Summary
	headline := func(t runresult.TierScores) runresult.TierScores {
		out := runresult.TierScores{}
		for _, d := range metric.Headline() {
			if m, ok := t.Of(d); ok {
				m.Worst = nil
				out[d.Key] = m
			}
		}
		return out
	}
	return SiteSnapshot{ID: s.ID, PublishedAt: s.PublishedAt, BackfilledAt: s.BackfilledAt,
		Result: runresult.Result{Summary: runresult.Summary{SchemaVersion: sum.SchemaVersion, Label: sum.Label,
			Provenance: runresult.Provenance{Simulator: sum.Provenance.Simulator},
			Coverage:   runresult.Coverage{Scored: sum.Coverage.Scored, CorpusPoints: sum.Coverage.CorpusPoints},
			Tiers:      runresult.Tiers{All: headline(sum.Tiers.All), MeasuredResolved: headline(sum.Tiers.MeasuredResolved)}}}}
}

// publishedIndex is the position of the snapshot the site headlines among
// snaps (newest first): the newest release, or the newest of all when none
// is a release (publish.Published's rule, over the summaries' labels). The
// Overview shows it and the sweep pages are its, so an experimental
// snapshot published after a release never reads as the published
// accuracy.
func publishedIndex(snaps []SiteSnapshot) int {
	for i, s := range snaps {
		if s.Summary.Label == runresult.LabelRelease {
			return i
		}
	}
	return 0
}

// snapshotLink is a snapshot the Overview links to.
type snapshotLink struct{ Label, Href string }

// newerSnapshots are the snapshots newer than the headlined one (pub):
// experimental ones, listed on the Overview with a link each.
func newerSnapshots(snaps []SiteSnapshot, labels []string, pub int) []snapshotLink {
	var out []snapshotLink
	for i := range pub {
		out = append(out, snapshotLink{labels[i], SiteSnapshotPath(snaps[i].ID)})
	}
	return out
}

// uniqueLabels are the snapshots' labels, a repeated one numbered
// ("v0.7.15 · 2026-12-01 (2)" for the older of two).
func uniqueLabels(snaps []SiteSnapshot) []string {
	out := make([]string, len(snaps))
	seen := map[string]int{}
	for i := len(snaps) - 1; i >= 0; i-- {
		l := snaps[i].Label()
		seen[l]++
		if n := seen[l]; n > 1 {
			l = fmt.Sprintf("%s (%d)", l, n)
		}
		out[i] = l
	}
	return out
}

// sitePage is what every page's frame needs.
type sitePage struct {
	// Root is the way back to the site's root ("" or "../").
	Root, Title, Nav string
	// Skipped are the snapshots left out of the site, which the Overview
	// and the History say (SkippedSnapshot), and Pruned those the
	// dashboard's retention removed.
	Skipped []SkippedSnapshot
	Pruned  *PrunedSnapshots
}

// SiteNotes are the snapshots of a dashboard its site does not show: the
// Overview and the History say so at the top.
type SiteNotes struct {
	// Skipped are those the index lists that could not be read, each
	// named with why.
	Skipped []SkippedSnapshot
	// Pruned, when set, are those the dashboard's retention removed.
	Pruned *PrunedSnapshots
}

// PrunedSnapshots is what the dashboard's retention removed (the index's
// record, dashboard.Pruned): how many experimental snapshots, the first
// and last of them (Simulator its release or short commit, PublishedAt
// RFC 3339), and the setting that removed them.
type PrunedSnapshots struct {
	Count, KeepExperimental            int
	OldestSimulator, OldestPublishedAt string
	NewestSimulator, NewestPublishedAt string
}

// Oldest and Newest name the first and last pruned snapshot as the site
// names a snapshot ("f90a1e3a6787 · 2026-11-01").
func (p PrunedSnapshots) Oldest() string {
	return p.OldestSimulator + " · " + dateOf(p.OldestPublishedAt)
}
func (p PrunedSnapshots) Newest() string {
	return p.NewestSimulator + " · " + dateOf(p.NewestPublishedAt)
}

// SkippedSnapshot is a snapshot the dashboard's index lists that could not
// be read (dashboard.Skipped): the Overview and the History name it, its
// date and why, so that a reader knows the site leaves it out.
type SkippedSnapshot struct {
	ID, PublishedAt string
	Reason          string
}

// Date is the day the snapshot was published.
func (s SkippedSnapshot) Date() string { return dateOf(s.PublishedAt) }

func execPage(emit func(path string, data []byte) error, path, name string, page sitePage, body any) error {
	var b bytes.Buffer
	if err := siteTemplates.ExecuteTemplate(&b, name, struct {
		Page sitePage
		Body any
	}{page, body}); err != nil {
		return fmt.Errorf("site: %s: %w", path, err)
	}
	// The page's Content-Security-Policy (siteCSP), after its charset: the
	// page is copied once, into the bytes emitted (a year's History is
	// some 650 KB).
	const charset = "<meta charset=\"utf-8\">\n"
	html := b.Bytes()
	i := bytes.Index(html, []byte(charset))
	if i < 0 {
		return fmt.Errorf("site: %s: no %q to put the Content-Security-Policy after", path, strings.TrimSpace(charset))
	}
	i += len(charset)
	meta := `<meta http-equiv="Content-Security-Policy" content="` + siteCSP(html) + "\">\n"
	out := make([]byte, 0, len(html)+len(meta))
	out = append(append(append(out, html[:i]...), meta...), html[i:]...)
	return emit(path, out)
}

// metricRow is one metric of a tier as the Overview's tables show it.
type metricRow struct {
	Name, MAPE, Shape, Bias, Median, Worst string
	N, ShapeN                              int
	// WorstHref links the worst point's sweep page ("": no page), with
	// WorstPoint and WorstAPE the parts of Worst.
	WorstHref, WorstPoint, WorstAPE string
}

// linkWorst links each row's worst point to its sweep's page, for a
// snapshot whose sweeps the site draws (unitOf: a point's unit).
func linkWorst(rows []metricRow, t runresult.TierScores, defs []metric.Def, unitOf map[string]string) {
	k := 0
	for _, d := range defs {
		m, ok := t.Of(d)
		if !ok {
			continue
		}
		if m.Worst != nil && unitOf[m.Worst.Point] != "" {
			rows[k].WorstHref, rows[k].WorstPoint, rows[k].WorstAPE = SiteSweepPath(unitOf[m.Worst.Point]), m.Worst.Point, fmt.Sprintf("%.1f%%", m.Worst.APE)
		}
		k++
	}
}

func metricRows(t runresult.TierScores, defs []metric.Def) []metricRow {
	var out []metricRow
	for _, d := range defs {
		m, ok := t.Of(d)
		if !ok {
			continue
		}
		w := "n/a"
		if m.Worst != nil {
			w = fmt.Sprintf("%s (%.1f%%)", m.Worst.Point, m.Worst.APE)
		}
		out = append(out, metricRow{Name: d.Name, MAPE: Pct(m.MAPE), Shape: Pct(m.Shape), Bias: SignedPct(m.Bias), Median: Pct(m.MedianAPE), Worst: w, N: m.N, ShapeN: m.ShapeN})
	}
	return out
}

// siteGroupRow is one row of the Overview's by-source or by-model ×
// hardware table: the figures of summary.md's (figuresOf).
type siteGroupRow struct {
	// Model holds the source in the by-source table.
	Model, Hardware string
	Cells           []string
	N, Saturated    int
}

// siteGroupRows are the rows of a group table in tier tier, and the note
// on the shapes that cannot exist ("" when none is shapeNoLoads).
func siteGroupRows(rows []groupRow, tier, why string) ([]siteGroupRow, string) {
	var out []siteGroupRow
	fewLoads := 0
	for _, g := range rows {
		f := figuresOf(g, tier)
		fewLoads = max(fewLoads, f.fewLoads)
		r := siteGroupRow{Model: g.cells[0], Cells: f.cells, N: f.n, Saturated: f.saturated}
		if len(g.cells) > 1 {
			r.Hardware = g.cells[1]
		}
		out = append(out, r)
	}
	if fewLoads == 0 {
		return out, ""
	}
	return out, shapeNote(fewLoads, why)
}

// asIs leaves a name as it is: html/template escapes the site's text.
func asIs(s string) string { return s }

// siteNote is a sentence whose lead is set in bold (saturatedNote).
type siteNote struct{ Lead, Rest string }

func siteSaturatedNote(t runresult.TierScores) *siteNote {
	lead, rest := saturatedNote(t)
	if lead == "" {
		return nil
	}
	return &siteNote{lead, rest}
}

type reasonRow struct {
	Reason string
	N      int
}

type provItem struct{ Term, Value string }

type sweepLink struct {
	Unit, Href string
	Scored, N  int
}

// overviewView is one snapshot's Overview.
type overviewView struct {
	ID, Label, Date string
	// Backfilled is the date a backfilled snapshot was scored ("" for
	// none): Date is then its release's.
	Backfilled        string
	Release           bool
	LabelReasons      []string
	Tier              string
	FellBack          bool
	Headline, AllTier []metricRow
	Secondary         []metricRow
	HeadlineNames     []string
	// HeadlineSaturated and AllSaturated are summary.md's notes on the
	// saturated points' share of each tier's MAPE (nil: none is).
	HeadlineSaturated, AllSaturated *siteNote
	// Sources and Groups are summary.md's by-source and by-model ×
	// hardware tables; SourcesNote and GroupsNote explain a shape that
	// cannot exist ("" when none).
	Sources, Groups         []siteGroupRow
	SourcesNote, GroupsNote string
	Scored, Corpus, NotSc   int
	// Saturated counts the scored points the simulator could not keep up
	// with (runresult.Point.Saturated).
	Saturated       int
	Reasons         []reasonRow
	Provenance      []provItem
	Sweeps          []sweepLink
	ShapeDefinition string
	// SameTiers: every scored point is measured or resolved, so the
	// all-tier table equals the headline's.
	SameTiers bool
	// CompareHref opens the comparison with the previous snapshot
	// (PreviousLabel), relative to the site's root; "" for the oldest.
	CompareHref, PreviousLabel string
	// Warnings are what the simulator warned about (nil: the snapshot
	// predates warnings).
	Warnings *siteWarnings
	// Newer are the (experimental) snapshots newer than this one, which
	// the Overview lists but does not headline; NoRelease: no snapshot is
	// a release, so the Overview headlines the newest, experimental one.
	Newer     []snapshotLink
	NoRelease bool
	// Worst is the "Where is it worst" table (worstRows), on the
	// published snapshot's Overview only: its sweeps are the ones drawn.
	Worst []worstRow
	// HeadlineReading and AllReading are summary.md's reading of each
	// tier's headline: the bias as points, the unsaturated figures.
	HeadlineReading, AllReading []siteNote
	// Why is the section on the what-ifs published beside the snapshot
	// (nil: none).
	Why *siteWhy
}

func overview(s SiteSnapshot, label string, latest bool) overviewView {
	sum := s.Summary
	tier, scores, fellBack := runresult.Headline(sum.Tiers)
	v := overviewView{ID: s.ID, Label: label, Date: s.date(), Backfilled: s.backfilled(), Release: sum.Label == runresult.LabelRelease, LabelReasons: sum.LabelReasons,
		Tier: tierName(tier), FellBack: fellBack, Headline: metricRows(scores, metric.Headline()), AllTier: metricRows(sum.Tiers.All, metric.Headline()),
		Secondary: metricRows(scores, metric.Secondary()), Scored: sum.Coverage.Scored, Corpus: sum.Coverage.CorpusPoints,
		NotSc: sum.Coverage.NotScored, ShapeDefinition: sum.ShapeDefinition, Saturated: sum.Coverage.Saturated}
	for _, d := range metric.Headline() {
		v.HeadlineNames = append(v.HeadlineNames, d.Short)
	}
	v.SameTiers = !fellBack && slices.EqualFunc(v.Headline, v.AllTier, func(a, b metricRow) bool { return a == b })
	if latest {
		unitOf := map[string]string{}
		for _, p := range s.Points {
			unitOf[p.ID] = p.Unit
		}
		linkWorst(v.Headline, scores, metric.Headline(), unitOf)
		linkWorst(v.AllTier, sum.Tiers.All, metric.Headline(), unitOf)
		linkWorst(v.Secondary, scores, metric.Secondary(), unitOf)
		v.Worst = worstRows(s.Points)
	}
	v.HeadlineSaturated = siteSaturatedNote(scores)
	if !fellBack {
		v.AllSaturated = siteSaturatedNote(sum.Tiers.All)
	}
	why := twoRateSources(sum, asIs)
	v.Sources, v.SourcesNote = siteGroupRows(sourceRows(sum, asIs), tier, why)
	v.Groups, v.GroupsNote = siteGroupRows(modelHardwareRows(sum, asIs), tier, why)
	for _, r := range notScoredReasons(sum.Coverage.NotScoredByReason) {
		v.Reasons = append(v.Reasons, reasonRow{r.reason, r.n})
	}
	v.Provenance = provenanceItems(sum)
	v.Warnings = siteWarningsOf(sum.Warnings, latest)
	v.HeadlineReading, v.AllReading = headlineReading(scores), headlineReading(sum.Tiers.All)
	v.Why = siteWhyOf(s.WhatIfs, v.Tier, scores)
	if latest {
		for _, sw := range unitsOf(s.Points) {
			l := sweepLink{Unit: sw.unit, Href: SiteSweepPath(sw.unit)}
			for _, p := range sw.points {
				l.N++
				if p.Scored {
					l.Scored++
				}
			}
			v.Sweeps = append(v.Sweeps, l)
		}
	}
	return v
}

// underRoot makes the Overview's links to sweep pages, relative to the
// site's root, relative to a page under it (root "../"): a snapshot's page
// is in snapshots/.
func (v *overviewView) underRoot(root string) {
	for i := range v.Sweeps {
		v.Sweeps[i].Href = root + v.Sweeps[i].Href
	}
	for _, r := range v.Worst {
		for i := range r.Sweeps {
			r.Sweeps[i].Href = root + r.Sweeps[i].Href
		}
	}
	for _, rows := range [][]metricRow{v.Headline, v.AllTier, v.Secondary} {
		for i := range rows {
			if rows[i].WorstHref != "" {
				rows[i].WorstHref = root + rows[i].WorstHref
			}
		}
	}
	if v.Warnings == nil {
		return
	}
	for _, c := range v.Warnings.Causes {
		for i := range c.Units {
			if c.Units[i].Href != "" {
				c.Units[i].Href = root + c.Units[i].Href
			}
		}
	}
}

func provenanceItems(s runresult.Summary) []provItem {
	p := s.Provenance
	src := "clean checkout"
	if p.Harness.Source == runresult.HarnessAssertion {
		src = "by assertion (HARNESS_COMMIT file)"
	}
	h := p.Harness.Commit
	if p.Harness.Version != "" {
		h += " (" + p.Harness.Version + ")"
	}
	sim := p.Simulator
	simText := "a prebuilt binary (commit unknown to the harness)"
	if sim.BuiltByHarness {
		tag := "no release tag"
		if sim.Tag != "" {
			tag = "release " + sim.Tag
		}
		simText = fmt.Sprintf("%s at %s (%s), built by the harness from ref %s", sim.Repo, sim.Commit, tag, sim.Ref)
	}
	items := []provItem{{"Harness", h + ", " + src}, {"Simulator", simText}, {"Driver", sim.Driver},
		{"Ledger", siteData0(&p.Ledger)}, {"Catalog", siteData0(p.Catalog)}, {"Registry", siteData0(p.Registry)}}
	if p.Hardware != nil {
		items = append(items, provItem{"Hardware registry", siteData0(p.Hardware)})
	}
	for _, n := range p.NotPassed {
		items = append(items, provItem{"Not passed", n})
	}
	return append(items, provItem{"Label", s.Label})
}

func siteData0(v *runresult.DataVersion) string {
	if v == nil {
		return "none"
	}
	rel := "not a release"
	if v.Release {
		rel = "release"
	}
	return fmt.Sprintf("%s %s (%s, %s)", v.Name, v.Version, rel, v.Digest)
}

// unit is one sweep's points, in load order.
type unit struct {
	unit   string
	points []runresult.Point
}

func unitsOf(points []runresult.Point) []unit {
	var out []unit
	at := map[string]int{}
	for _, p := range runresult.SortPoints(points) {
		i, ok := at[p.Unit]
		if !ok {
			i = len(out)
			at[p.Unit] = i
			out = append(out, unit{unit: p.Unit})
		}
		out[i].points = append(out[i].points, p)
	}
	return out
}

// pickerOption is one snapshot in the comparison's pickers.
type pickerOption struct {
	ID, Label string
	A, B      bool
}

// pickerOptions: by default A is the second newest snapshot, B the newest.
func pickerOptions(snaps []SiteSnapshot, labels []string) []pickerOption {
	out := make([]pickerOption, len(snaps))
	for i, s := range snaps {
		l := labels[i]
		if s.Summary.Label != runresult.LabelRelease {
			l += " (experimental)"
		}
		out[i] = pickerOption{ID: s.ID, Label: l, A: i == min(1, len(snaps)-1), B: i == 0}
	}
	return out
}

type indexView struct {
	Overview overviewView
	Config   template.JS
	Options  []pickerOption
}

// siteMetric is a metric as the page's script needs it.
type siteMetric struct {
	Key      string `json:"key"`
	Short    string `json:"short"`
	Field    string `json:"field"`
	Headline bool   `json:"headline"`
}

type siteSnapshotRef struct {
	ID     string `json:"id"`
	Label  string `json:"label"`
	Data   string `json:"data"`
	Scored int    `json:"scored"`
	Corpus int    `json:"corpus"`
	Page   string `json:"page"`
	// Saturated is the comparison's note on the snapshot's saturated
	// points (comparisonSaturated); nil: none is.
	Saturated *tierNote `json:"saturated,omitempty"`
}

// siteConfig is the page script's configuration: the metric list in
// runresult.Compare's order and the snapshots.
func siteConfig(snaps []SiteSnapshot, labels []string) (template.JS, error) {
	var cfg struct {
		Metrics   []siteMetric      `json:"metrics"`
		Snapshots []siteSnapshotRef `json:"snapshots"`
		MaxMovers int               `json:"max_movers"`
		MaxOne    int               `json:"max_one_sided"`
		NotInCorp string            `json:"not_in_corpus"`
	}
	for _, defs := range [][]metric.Def{metric.Headline(), metric.Secondary()} {
		for _, d := range defs {
			cfg.Metrics = append(cfg.Metrics, siteMetric{d.Key, d.Short, d.Field(), d.Headline})
		}
	}
	for i, s := range snaps {
		cfg.Snapshots = append(cfg.Snapshots, siteSnapshotRef{ID: s.ID, Label: labels[i], Data: siteDataPath(s.ID),
			Scored: s.Summary.Coverage.Scored, Corpus: s.Summary.Coverage.CorpusPoints, Page: SiteSnapshotPath(s.ID),
			Saturated: comparisonSaturated(s.Summary)})
	}
	cfg.MaxMovers, cfg.MaxOne, cfg.NotInCorp = runresult.MaxMovers, MaxOneSided, runresult.ReasonNotInCorpus
	b, err := json.Marshal(cfg)
	return template.JS(b), err
}

// sitePoint is one point in a snapshot's data script.
type sitePoint struct {
	ID       string  `json:"i"`
	Unit     string  `json:"u"`
	Model    string  `json:"m"`
	Hardware string  `json:"h"`
	Load     float64 `json:"l"`
	Tier     string  `json:"t"`
	Scored   bool    `json:"s"`
	Reason   string  `json:"r,omitempty"`
	// Saturated: the summary lists the point saturated (the comparison
	// marks it so).
	Saturated bool          `json:"x,omitempty"`
	Measured  metric.Values `json:"M"`
	Pred      metric.Values `json:"P,omitempty"`
}

// siteData is a snapshot's data script: its points, registered under its id.
func siteData(s SiteSnapshot) ([]byte, error) {
	pts := make([]sitePoint, len(s.Points))
	for i, p := range s.Points {
		pts[i] = sitePoint{ID: p.ID, Unit: p.Unit, Model: p.Model, Hardware: p.Hardware, Load: p.Load.Value(), Tier: p.Tier,
			Scored: p.Scored, Reason: p.Reason, Saturated: s.Summary.IsSaturated(p.ID), Measured: p.Measured, Pred: p.Predicted}
	}
	id, err := json.Marshal(s.ID)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(pts)
	if err != nil {
		return nil, fmt.Errorf("site: snapshot %s: %w", s.ID, err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "window.DASH_DATA = window.DASH_DATA || {};\nwindow.DASH_DATA[%s] = %s;\n", id, body)
	return b.Bytes(), nil
}

// siteChart is a chart with its title, shown as the figure's caption, and
// a note the caption adds ("" for none).
type siteChart struct {
	Title, Note string
	SVG         template.HTML
}

// historyView is the History page.
type historyView struct {
	// Ranges are the charts over the last 30, the last 90 and all
	// snapshots (historyRanges), one shown at a time; one range, all,
	// while there are at most 30.
	Ranges []historyRange
	Rows   []historyRow
	Series []legendItem
}

// historyRange is the History's two charts over the newest snapshots of
// one range; Checked: the range shown first.
type historyRange struct {
	Key, Label string
	Checked    bool
	Charts     []siteChart
}

// historyRanges are the History's ranges, as many newest snapshots as each
// shows (0: all): a year of nightlies in one chart is a smear, so the
// last 30 show first and the others are a click away (radio buttons and
// CSS: the site is static and its Content-Security-Policy runs no script
// of a page's).
var historyRanges = []struct {
	key, label string
	last       int
}{{"30", "Last 30", 30}, {"90", "Last 90", 90}, {"all", "All", 0}}

type historyRow struct {
	// Class is "past-30" and "past-90" on a row older than the last 30
	// and 90 snapshots, hidden while that range is shown.
	Class       string
	Label, Href string
	Release     bool
	// Backfilled is the date a backfilled snapshot was scored ("" for none).
	Backfilled string
	Tier       string
	Cells      []string
	Scored, N  int
}

type legendItem struct {
	Name, Class string
	Dashed      bool
}

// history draws each snapshot's headline MAPE and shape, oldest to the
// left, one mark per snapshot linking to its page.
func history(snaps []SiteSnapshot, labels []string) historyView {
	var v historyView
	n := len(snaps)
	classes := []string{"s1", "s2", "s3", "s4"}
	for k, d := range metric.Headline() {
		v.Series = append(v.Series, legendItem{d.Short, classes[k%4], false})
	}
	for i := range snaps {
		s := snaps[i]
		tier, scores, _ := runresult.Headline(s.Summary.Tiers)
		row := historyRow{Label: labels[i], Href: SiteSnapshotPath(s.ID), Release: s.Summary.Label == runresult.LabelRelease, Backfilled: s.backfilled(), Tier: tierName(tier),
			Scored: s.Summary.Coverage.Scored, N: s.Summary.Coverage.CorpusPoints}
		for _, d := range metric.Headline() {
			m, _ := scores.Of(d)
			row.Cells = append(row.Cells, Pct(m.MAPE), Pct(m.Shape))
		}
		v.Rows = append(v.Rows, row)
	}
	for _, r := range historyRanges {
		if r.last > 0 && n <= r.last {
			continue
		}
		suffix, last := "", n
		if r.last > 0 {
			suffix, last = "-"+r.key, r.last
		}
		v.Ranges = append(v.Ranges, historyRange{Key: r.key, Label: r.label, Charts: historyCharts(snaps[:last], labels[:last], suffix)})
		// The table follows the range shown: a row past its last is
		// hidden while it is (site.css), so that a phone does not show a
		// year of snapshots as 365 cards.
		for i := last; r.last > 0 && i < n; i++ {
			v.Rows[i].Class = strings.TrimSpace(v.Rows[i].Class + " past-" + r.key)
		}
	}
	v.Ranges[0].Checked = true
	return v
}

// historyCharts are the History's two charts (headline MAPE, headline
// shape error) over snaps, newest first, oldest drawn to the left; suffix
// ends their ids.
func historyCharts(snaps []SiteSnapshot, labels []string, suffix string) []siteChart {
	n := len(snaps)
	var ticks []chartTick
	mape := chart{ID: "history-mape" + suffix, XLabel: "snapshot (oldest left)", YLabel: "percent"}
	shape := chart{ID: "history-shape" + suffix, XLabel: "snapshot (oldest left)", YLabel: "percent"}
	classes := []string{"s1", "s2", "s3", "s4"}
	for k, d := range metric.Headline() {
		mape.Series = append(mape.Series, chartSeries{Name: d.Short + " MAPE", Class: classes[k%4]})
		// Solid in both charts, as the one legend above them shows them.
		shape.Series = append(shape.Series, chartSeries{Name: d.Short + " shape", Class: classes[k%4]})
	}
	for i := n - 1; i >= 0; i-- {
		s := snaps[i]
		x := float64(n - 1 - i)
		ticks = append(ticks, chartTick{X: x, Label: labels[i]})
		_, scores, _ := runresult.Headline(s.Summary.Tiers)
		var mt, st []string
		for k, d := range metric.Headline() {
			m, _ := scores.Of(d)
			mape.Series[k].Points = append(mape.Series[k].Points, chartPoint{X: x, Y: m.MAPE, Title: fmt.Sprintf("%s MAPE %s", d.Short, Pct(m.MAPE))})
			shape.Series[k].Points = append(shape.Series[k].Points, chartPoint{X: x, Y: m.Shape, Title: fmt.Sprintf("%s shape %s", d.Short, Pct(m.Shape))})
			mt = append(mt, fmt.Sprintf("%s MAPE %s", d.Short, Pct(m.MAPE)))
			st = append(st, fmt.Sprintf("%s shape %s", d.Short, Pct(m.Shape)))
		}
		exp, label := s.Summary.Label != runresult.LabelRelease, labels[i]
		if exp {
			label += " (experimental)"
		}
		mape.Groups = append(mape.Groups, chartGroup{X: x, Href: SiteSnapshotPath(s.ID), Data: s.ID, Title: label + ": " + strings.Join(mt, ", "), Experimental: exp})
		shape.Groups = append(shape.Groups, chartGroup{X: x, Href: SiteSnapshotPath(s.ID), Data: s.ID, Title: label + ": " + strings.Join(st, ", "), Experimental: exp})
	}
	mape.XTicks, shape.XTicks = ticks, ticks
	mape.Title = "Headline MAPE of every snapshot"
	if suffix != "" {
		mape.Title = fmt.Sprintf("Headline MAPE of the last %d snapshots", n)
	}
	mape.Desc = fmt.Sprintf("%d snapshots, oldest to the left; each mark links to its snapshot. The table below holds the same figures.", n)
	shape.Title = strings.Replace(mape.Title, "Headline MAPE", "Headline shape error", 1)
	shape.Desc = mape.Desc
	var notes [2]string
	for k, c := range []*chart{&mape, &shape} {
		c.ClipY = outlierClip(c.Series)
		if c.ClipY > 0 {
			notes[k] = clippedNote(c.Series, c.ClipY)
		}
	}
	return []siteChart{{Title: mape.Title, Note: notes[0], SVG: mape.svg()}, {Title: shape.Title, Note: notes[1], SVG: shape.svg()}}
}

// clippedNote is the caption's note on a chart whose axis outlierClip cut
// at clip, counting the snapshots off the scale (the example's History
// said "One snapshot" of four).
func clippedNote(series []chartSeries, clip float64) string {
	off := map[float64]bool{}
	for _, s := range series {
		for _, p := range s.Points {
			if p.Y != nil && *p.Y > clip {
				off[p.X] = true
			}
		}
	}
	lead := "One snapshot is"
	if len(off) != 1 {
		lead = fmt.Sprintf("%d snapshots are", len(off))
	}
	return lead + " far off the others: the axis stops above the rest, and a mark off the scale is a triangle at the top edge with its figure beside it (where the figures would overlap, the newest is shown; the table holds every one)."
}

// outlierClip is where a History chart's y axis stops so that one far-off
// snapshot does not flatten every other line: 3 × the median of the
// chart's values when the largest is over 10 × the median, else 0 (no
// clip). The table under the chart holds every figure.
func outlierClip(series []chartSeries) float64 {
	var ys []float64
	for _, s := range series {
		for _, p := range s.Points {
			if p.Y != nil {
				ys = append(ys, *p.Y)
			}
		}
	}
	if len(ys) < 2 {
		return 0
	}
	slices.Sort(ys)
	med := ys[len(ys)/2]
	if len(ys)%2 == 0 {
		med = (ys[len(ys)/2-1] + ys[len(ys)/2]) / 2
	}
	if med > 0 && ys[len(ys)-1] > 10*med {
		return 3 * med
	}
	return 0
}

// sweepView is one sweep's page.
type sweepView struct {
	Unit, Model, Hardware, LoadName, Snapshot, SnapshotHref string
	Charts                                                  []siteChart
	Metrics                                                 []string
	Rows                                                    []sweepRow
	NotScored                                               []sweepRow
	// Saturated: some point of the sweep is saturated.
	Saturated bool
	// Predicted: some chart has a predicted point (else the legend shows
	// the measured line only).
	Predicted bool
	// Figures are the sweep's own accuracy (tier all over its points, as
	// Summarize scores a run), ScoredN its scored points.
	Figures        []metricRow
	ScoredN        int
	FiguresCaption string
}

type sweepRow struct {
	Load, LoadSort string
	Tier           string
	Scored         bool
	Reason, Detail string
	Cells          []sweepCell
}

type sweepCell struct{ Text, Sort string }

// sweeps are the pages of snapshot s's sweeps: predicted and measured of
// each headline metric over load, and the points.
func sweeps(s SiteSnapshot, label string) []sweepView {
	var out []sweepView
	for _, u := range unitsOf(s.Points) {
		first := u.points[0]
		v := sweepView{Unit: u.unit, Model: first.Model, Hardware: first.Hardware, LoadName: "concurrency", Snapshot: label, SnapshotHref: SiteSnapshotPath(s.ID),
			Figures: metricRows(runresult.TiersOf(u.points).All, metric.Headline())}
		// The worst point by its load: the page is the sweep's, and its
		// id repeats the title (three lines on a phone).
		for k, f := range v.Figures {
			if rest, ok := strings.CutPrefix(f.Worst, u.unit+"@"); ok {
				v.Figures[k].Worst = "at " + rest
			}
		}
		for _, p := range u.points {
			if p.Scored {
				v.ScoredN++
			}
		}
		v.FiguresCaption = fmt.Sprintf("Headline metrics of this sweep alone, over its %s (tier all)", Count(v.ScoredN, "scored point"))
		if first.Load.Concurrency == 0 {
			v.LoadName = "request rate (req/s)"
		}
		for _, d := range metric.Headline() {
			c := chart{ID: fmt.Sprintf("sweep-%s", d.Key), XLabel: v.LoadName, YLabel: d.Short + " (" + d.Unit + ")"}
			meas := chartSeries{Name: "measured", Class: "s1"}
			pred := chartSeries{Name: "predicted", Class: "s2", Dashed: true}
			for _, p := range u.points {
				x := p.Load.Value()
				if m, ok := d.Of(p.Measured); ok {
					meas.Points = append(meas.Points, chartPoint{X: x, Y: ptr(m), Title: fmt.Sprintf("load %s: measured %s %.1f %s", tickText(x), d.Short, m, d.Unit)})
				}
				var y *float64
				if pr, ok := d.Of(p.Predicted); ok && p.Scored {
					y = ptr(pr)
				}
				title := fmt.Sprintf("load %s: not scored (%s)", tickText(x), p.Reason)
				if y != nil {
					title = fmt.Sprintf("load %s: predicted %s %.1f %s", tickText(x), d.Short, *y, d.Unit)
				}
				if p.Saturated {
					title += " (saturated: the simulator fell behind the offered load)"
				}
				pred.Points = append(pred.Points, chartPoint{X: x, Y: y, Title: title, Saturated: p.Saturated})
			}
			c.Series = []chartSeries{meas, pred}
			note := ""
			if slices.ContainsFunc(pred.Points, func(p chartPoint) bool { return p.Y != nil }) {
				v.Predicted = true
				c.Title = fmt.Sprintf("%s of %s: measured and predicted over load", d.Name, u.unit)
				c.Desc = fmt.Sprintf("%d points; solid: measured, dashed: predicted (absent where not scored). The table below holds the same figures.", len(u.points))
			} else {
				note = nothingPredicted(u.points, d)
				c.Title = fmt.Sprintf("%s of %s: measured over load, nothing predicted", d.Name, u.unit)
				c.Desc = fmt.Sprintf("%d points; measured only. %s The table below holds the same figures.", len(u.points), note)
			}
			v.Charts = append(v.Charts, siteChart{Title: c.Title, Note: note, SVG: c.svg()})
			v.Metrics = append(v.Metrics, d.Short)
		}
		for _, p := range u.points {
			r := sweepRow{Load: tickText(p.Load.Value()), LoadSort: fmt.Sprintf("%g", p.Load.Value()), Tier: p.Tier, Scored: p.Scored, Reason: p.Reason, Detail: p.Detail}
			if p.Saturated {
				r.Reason = "scored; saturated"
				v.Saturated = true
			}
			for _, d := range metric.Headline() {
				m, okM := d.Of(p.Measured)
				pr, okP := d.Of(p.Predicted)
				r.Cells = append(r.Cells, numCell(m, okM, "%.1f"))
				if okP && p.Scored {
					r.Cells = append(r.Cells, numCell(pr, true, "%.1f"))
					if okM && m > 0 {
						ape := (pr/m - 1) * 100
						r.Cells = append(r.Cells, sweepCell{Text: signed(ape, 1) + "%", Sort: fmt.Sprintf("%g", ape)})
					} else {
						r.Cells = append(r.Cells, sweepCell{Text: "n/a"})
					}
				} else {
					r.Cells = append(r.Cells, sweepCell{Text: "—"}, sweepCell{Text: "—"})
				}
			}
			v.Rows = append(v.Rows, r)
			if !p.Scored {
				v.NotScored = append(v.NotScored, r)
			}
		}
		out = append(out, v)
	}
	return out
}

// nothingPredicted says why a sweep's chart of d has no predicted point:
// "No point was scored (model-does-not-fit-gpus for 5 of 5 points), so
// nothing is predicted." or, when some were, that none of them has a
// prediction of d.
func nothingPredicted(points []runresult.Point, d metric.Def) string {
	byReason := map[string]int{}
	scored := 0
	for _, p := range points {
		if p.Scored {
			scored++
		} else {
			byReason[p.Reason]++
		}
	}
	if scored > 0 {
		return fmt.Sprintf("The simulator predicted no %s for the %s scored.", d.Short, Count(scored, "point"))
	}
	var parts []string
	for _, r := range notScoredReasons(byReason) {
		parts = append(parts, fmt.Sprintf("%s for %d of %s", r.reason, r.n, Count(len(points), "point")))
	}
	return fmt.Sprintf("No point was scored (%s), so nothing is predicted.", strings.Join(parts, "; "))
}

func numCell(v float64, ok bool, format string) sweepCell {
	if !ok {
		return sweepCell{Text: "n/a"}
	}
	return sweepCell{Text: fmt.Sprintf(format, v), Sort: fmt.Sprintf("%g", v)}
}
