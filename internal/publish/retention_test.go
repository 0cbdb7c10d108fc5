package publish

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/dashboard/dashboardtest"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/site"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// experimentalReport is experimentalSummary's summary.json with the
// points of releaseRun.
func experimentalReport(t *testing.T, commit string) Report {
	t.Helper()
	_, points := releaseRun(t, "v0.7.15", "v1.0.0")
	raw, err := jsoncodec.Encode(points)
	if err != nil {
		t.Fatal(err)
	}
	return Report{Summary: encode(t, experimentalSummary(t, commit)), Points: raw}
}

// retentionDashboard publishes into a checkout in turn, as `action
// publish` does, each of its results at its hour.
type retentionDashboard struct {
	t   *testing.T
	dir string
	at  time.Time
}

func (d retentionDashboard) keep(n string) {
	d.t.Helper()
	path := filepath.Join(d.dir, filepath.FromSlash(dashboard.ConfigPath))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		d.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("# The dashboard's retention.\nretention:\n  keep_experimental: "+n+"\n"), 0o644); err != nil {
		d.t.Fatal(err)
	}
}

func (d retentionDashboard) publish(rep Report, hour int) PublishResult {
	d.t.Helper()
	c := Checkout{Dashboard: d.dir, Result: resultDir(d.t, rep), PublishedAt: d.at.Add(time.Duration(hour) * time.Hour)}
	var s struct{ Label string }
	if err := json.Unmarshal(rep.Summary, &s); err != nil {
		d.t.Fatal(err)
	}
	c.Experimental = s.Label != "release"
	res, err := PublishCheckout(c)
	if err != nil {
		d.t.Fatal(err)
	}
	return res
}

func (d retentionDashboard) index() dashboard.Index {
	d.t.Helper()
	raw, err := os.ReadFile(filepath.Join(d.dir, filepath.FromSlash(dashboard.IndexPath)))
	if err != nil {
		d.t.Fatal(err)
	}
	idx, err := dashboard.DecodeIndex(raw)
	if err != nil {
		d.t.Fatal(err)
	}
	return idx
}

// simulators are the index's entries as "simulator label", newest first.
func simulators(idx dashboard.Index) []string {
	var out []string
	for _, e := range idx.Snapshots {
		out = append(out, e.Simulator+" "+e.Label)
	}
	return out
}

// noLinkToPruned fails when a file of the dashboard names a snapshot the
// retention pruned (but the index's record of them), or an index entry
// links a comparison page that is not there.
func (d retentionDashboard) noLinkToPruned(pruned ...string) {
	d.t.Helper()
	idx := d.index()
	files := testkit.Files(d.t, os.DirFS(d.dir))
	for _, e := range idx.Snapshots {
		if _, ok := files[e.Compare]; e.Compare != "" && !ok {
			d.t.Errorf("%s links %s, which is not there", e.ID, e.Compare)
		}
	}
	idx.Pruned = nil
	entries, err := jsoncodec.Encode(idx)
	if err != nil {
		d.t.Fatal(err)
	}
	files[dashboard.IndexPath] = string(entries)
	for _, id := range pruned {
		for p, data := range files {
			if strings.Contains(p, id) || strings.Contains(data, id) {
				d.t.Errorf("%s names the pruned snapshot %s", p, id)
			}
		}
	}
}

// TestPublishCheckoutRetention: with keep_experimental 2, each publish
// keeps every release and the newest two experimental snapshots, removing
// the older ones' files and the comparison pages naming them in the same
// write, and the index records what was pruned; a republish changes
// nothing, an experimental snapshot older than those kept is not
// published, and with keep_experimental 0 a release publish prunes every
// experimental snapshot and no release.
func TestPublishCheckoutRetention(t *testing.T) {
	t.Parallel()
	d := retentionDashboard{t: t, dir: t.TempDir(), at: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	d.keep("2")
	e1, e2, e3, e4 := strings.Repeat("1", 40), strings.Repeat("2", 40), strings.Repeat("3", 40), strings.Repeat("4", 40)
	d.publish(releaseReport(t, "v0.7.15", "v1.0.0"), 0)
	d.publish(experimentalReport(t, e1), 1)
	first := d.publish(experimentalReport(t, e2), 2)
	if idx := d.index(); len(idx.Snapshots) != 3 || idx.Pruned != nil {
		t.Fatalf("two experimental snapshots kept of two: %v, pruned %+v", simulators(idx), idx.Pruned)
	}
	if first.Files[d.index().Snapshots[0].Compare] == nil {
		t.Fatalf("the second experimental snapshot has no comparison page: %v", slices.Sorted(maps.Keys(first.Files)))
	}
	d.publish(releaseReport(t, "v0.8.0", "v1.0.0"), 3)
	id1 := d.index().Snapshots[2].ID
	res := d.publish(experimentalReport(t, e3), 4)
	if res.Outcome != PublishPublished {
		t.Fatalf("third experimental snapshot: %+v", res)
	}
	var removed []string
	for p, data := range res.Files {
		if data == nil {
			removed = append(removed, p)
		}
	}
	slices.Sort(removed)
	want := []string{
		dashboard.CompareDir + "/" + id1 + ".." + d.index().Snapshots[2].ID + ".md", // e2's comparison with e1
		dashboard.CompareDir + "/" + d.index().Snapshots[3].ID + ".." + id1 + ".md", // e1's with v0.7.15
		dashboard.SnapshotsDir + "/" + id1 + "/points.json",
		dashboard.SnapshotsDir + "/" + id1 + "/summary.json",
		dashboard.SnapshotsDir + "/" + id1 + "/summary.md",
	}
	if d := cmp.Diff(want, removed); d != "" {
		t.Errorf("removed with the third experimental snapshot (-want +got):\n%s", d)
	}
	idx := d.index()
	if d := cmp.Diff([]string{e3[:12] + " experimental", "v0.8.0 release", e2[:12] + " experimental", "v0.7.15 release"}, simulators(idx)); d != "" {
		t.Errorf("kept (-want +got):\n%s", d)
	}
	wantPruned := &dashboard.Pruned{Count: 1, KeepExperimental: 2,
		Oldest: dashboard.PrunedSnapshot{ID: id1, PublishedAt: "2026-11-01T01:00:00Z", Simulator: e1[:12]},
		Newest: dashboard.PrunedSnapshot{ID: id1, PublishedAt: "2026-11-01T01:00:00Z", Simulator: e1[:12]}}
	if d := cmp.Diff(wantPruned, idx.Pruned); d != "" {
		t.Errorf("index's pruned record (-want +got):\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(d.dir, dashboard.SnapshotsDir, id1)); !os.IsNotExist(err) {
		t.Errorf("the pruned snapshot's directory: %v, want it gone", err)
	}
	d.noLinkToPruned(id1)

	id2 := idx.Snapshots[2].ID
	d.publish(experimentalReport(t, e4), 5)
	idx = d.index()
	if d := cmp.Diff([]string{e4[:12] + " experimental", e3[:12] + " experimental", "v0.8.0 release", "v0.7.15 release"}, simulators(idx)); d != "" {
		t.Errorf("kept after the fourth (-want +got):\n%s", d)
	}
	if p := idx.Pruned; p == nil || p.Count != 2 || p.Oldest.ID != id1 || p.Newest.ID != id2 {
		t.Errorf("pruned record after the fourth: %+v, want 2 from %s to %s", p, id1, id2)
	}
	d.noLinkToPruned(id1, id2)

	before := testkit.Files(t, os.DirFS(d.dir))
	if res := d.publish(experimentalReport(t, e4), 5); res.Outcome != PublishUnchanged {
		t.Errorf("republish: %+v, want unchanged", res)
	}
	old := d.publish(experimentalReport(t, strings.Repeat("0", 40)), -1)
	if old.Outcome != PublishUnchanged || len(old.Reasons) != 1 || !strings.Contains(old.Reasons[0], "keep_experimental") {
		t.Errorf("an experimental snapshot older than those kept: %+v, want unchanged, saying why", old)
	}
	if after := testkit.Files(t, os.DirFS(d.dir)); !maps.Equal(after, before) {
		t.Errorf("a republish or a pruned publish changed the checkout")
	}

	d.keep("0")
	d.publish(releaseReport(t, "v0.9.0", "v1.0.0"), 6)
	idx = d.index()
	if d := cmp.Diff([]string{"v0.9.0 release", "v0.8.0 release", "v0.7.15 release"}, simulators(idx)); d != "" {
		t.Errorf("keep_experimental 0 (-want +got):\n%s", d)
	}
	if p := idx.Pruned; p == nil || p.Count != 4 || p.KeepExperimental != 0 || p.Newest.Simulator != e4[:12] {
		t.Errorf("pruned record: %+v, want 4, the newest %s", p, e4[:12])
	}
	entries, err := os.ReadDir(filepath.Join(d.dir, dashboard.SnapshotsDir))
	if err != nil || len(entries) != 3 {
		t.Errorf("data/snapshots holds %d directories (%v), want the 3 releases'", len(entries), err)
	}
}

// Without a retention setting every snapshot is kept, and the index
// records nothing pruned; a malformed setting fails the publish naming
// the file, before anything is written.
func TestPublishCheckoutKeepsEverythingByDefault(t *testing.T) {
	t.Parallel()
	d := retentionDashboard{t: t, dir: t.TempDir(), at: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	for i := range 5 {
		d.publish(experimentalReport(t, strings.Repeat(string(rune('a'+i)), 40)), i)
	}
	idx := d.index()
	raw, _ := os.ReadFile(filepath.Join(d.dir, filepath.FromSlash(dashboard.IndexPath)))
	if len(idx.Snapshots) != 5 || idx.Pruned != nil || strings.Contains(string(raw), "pruned") {
		t.Errorf("no retention: %d snapshots, pruned %+v, want all 5 and no record", len(idx.Snapshots), idx.Pruned)
	}
	d.keep("-1")
	before := testkit.Files(t, os.DirFS(d.dir))
	_, err := PublishCheckout(Checkout{Dashboard: d.dir, Result: resultDir(t, releaseReport(t, "v0.8.0", "v1.0.0"))})
	if err == nil || !strings.Contains(err.Error(), dashboard.ConfigPath) || !strings.Contains(err.Error(), "keep_experimental is -1") {
		t.Errorf("keep_experimental -1: %v, want an error naming the file and the value", err)
	}
	if after := testkit.Files(t, os.DirFS(d.dir)); !maps.Equal(after, before) {
		t.Errorf("a publish over a malformed setting changed the checkout")
	}
}

// The bot's publish applies the dashboard's retention in its one commit:
// a release published onto a dashboard holding three experimental
// snapshots under keep_experimental 1 removes the two older ones' files,
// read through GitHub (ListFiles).
func TestPublishRunPrunesInItsCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := retentionDashboard{t: t, dir: t.TempDir(), at: t0.Add(-24 * time.Hour)}
	for i := range 3 {
		d.publish(experimentalReport(t, strings.Repeat(string(rune('a'+i)), 40)), i)
	}
	d.keep("1")
	seeded := testkit.Files(t, os.DirFS(d.dir))
	w := newPublishWorld(t)
	w.dashboard = w.gh.AddRepo("inference-sim/pruned-data", seeded, false)
	w.pub.Cfg.Dashboard = w.dashboard
	rep := releaseReport(t, "v0.8.0", "v1.0.0")
	w.artifact(t, map[string][]byte{"out/summary.json": rep.Summary, "out/points.json": rep.Points})
	res, err := w.pub.PublishRun(ctx, w.run, nil)
	if err != nil || res.Outcome != PublishPublished {
		t.Fatalf("publish: %+v, %v", res, err)
	}
	if n := w.gh.CountWrites("CreateCommit"); n != 1 {
		t.Errorf("%d commits, want 1", n)
	}
	tip := w.gh.Tip(w.dashboard, "main")
	idx, err := dashboard.DecodeIndex(tip[dashboard.IndexPath])
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"v0.8.0 release", strings.Repeat("c", 12) + " experimental"}, simulators(idx)); d != "" {
		t.Errorf("kept (-want +got):\n%s", d)
	}
	if idx.Pruned == nil || idx.Pruned.Count != 2 {
		t.Errorf("pruned record %+v, want 2", idx.Pruned)
	}
	for p := range tip {
		if strings.Contains(p, strings.Repeat("a", 12)) || strings.Contains(p, strings.Repeat("b", 12)) {
			t.Errorf("%s is left after its snapshot was pruned", p)
		}
	}
}

// A year of nightlies (dashboardtest.Nightlies: 365 daily snapshots, 13
// releases) under keep_experimental 30: the next publish keeps the 13
// releases and the newest 30 experimental snapshots, removes the other
// 322 in the same write, and the site built from it says so and links no
// pruned snapshot anywhere.
func TestPublishPrunesAYearOfNightlies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ids := dashboardtest.Nightlies(t, dir, 365, 16)
	d := retentionDashboard{t: t, dir: dir, at: time.Date(2026, 12, 2, 21, 0, 0, 0, time.UTC)}
	d.keep("30")
	if res := d.publish(releaseReport(t, "v0.9.0", "v1.0.0"), 0); res.Outcome != PublishPublished {
		t.Fatalf("publish: %+v", res)
	}
	idx := d.index()
	releases, experimental := 0, 0
	kept := map[string]bool{}
	for _, e := range idx.Snapshots {
		kept[e.ID] = true
		if e.Label == "release" {
			releases++
		} else {
			experimental++
		}
	}
	if releases != 14 || experimental != 30 || idx.Pruned == nil || idx.Pruned.Count != 322 {
		t.Fatalf("kept %d releases and %d experimental snapshots, pruned %+v; want 14, 30 and 322", releases, experimental, idx.Pruned)
	}
	var pruned []string
	for _, id := range ids {
		if !kept[id] {
			pruned = append(pruned, id)
		}
	}
	if idx.Pruned.Oldest.ID != pruned[len(pruned)-1] || idx.Pruned.Newest.ID != pruned[0] {
		t.Errorf("pruned from %s to %s, want from %s to %s", idx.Pruned.Oldest.ID, idx.Pruned.Newest.ID, pruned[len(pruned)-1], pruned[0])
	}
	snapshots, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(dashboard.SnapshotsDir)))
	if err != nil || len(snapshots) != 44 {
		t.Errorf("data/snapshots holds %d directories (%v), want the 44 kept", len(snapshots), err)
	}
	siteDir := filepath.Join(t.TempDir(), "site")
	if _, err := site.BuildDir(dir, siteDir, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	pages := testkit.Files(t, os.DirFS(siteDir))
	for _, p := range []string{"index.html", "history.html"} {
		if !strings.Contains(pages[p], "<strong>322 experimental snapshots were pruned</strong>") {
			t.Errorf("%s does not say what was pruned", p)
		}
	}
	for p, data := range pages {
		for _, id := range pruned {
			if strings.Contains(p, id) || strings.Contains(data, id) {
				t.Errorf("site file %s names the pruned snapshot %s", p, id)
				break
			}
		}
	}
}
