package publish

import (
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/golden"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"

	"github.com/google/go-cmp/cmp"
	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
)

var t0 = time.Date(2026, 8, 22, 6, 0, 0, 0, time.UTC)

// snapshotOf is a snapshot of s published by hand (no run, no points).
func snapshotOf(s runresult.Summary, md string, at time.Time, source string) Snapshot {
	return Snapshot{Summary: s, Markdown: []byte(md), PublishedAt: at, Source: source, Inputs: InputsOf(s)}
}

func TestPlanSnapshotFirstAndNext(t *testing.T) {
	t.Parallel()
	s1 := releaseSummary(t, "v0.7.15", "v1.0.0")
	files, err := PlanSnapshot(snapshotOf(s1, "# one\n", t0, "https://example.com/run/1"), Dashboard{})
	if err != nil {
		t.Fatal(err)
	}
	id1 := "v0.7.15_ledger-v1.0.0_harness-v1.1.0"
	want := []string{
		"README.md",
		"data/index.json",
		"data/latest/summary.json",
		"data/latest/summary.md",
		"data/snapshots/" + id1 + "/summary.json",
		"data/snapshots/" + id1 + "/summary.md",
		"state/last-run.json",
	}
	if d := cmp.Diff(want, slices.Sorted(maps.Keys(files))); d != "" {
		t.Fatalf("files (-want +got):\n%s", d)
	}
	if string(files["data/snapshots/"+id1+"/summary.json"]) != string(encode(t, s1)) {
		t.Error("snapshot summary.json is not the canonical encoding of the summary")
	}

	// The next release goes on top; the README keeps its own text.
	s2 := releaseSummary(t, "v0.8.0", "v1.0.0")
	dash := Dashboard{Index: files[dashboard.IndexPath], LastRun: files[dashboard.LastRunPath],
		Readme: []byte("# Dashboard\n\nIntro.\n\n" + render.TableStart + "\nold\n" + render.TableEnd + "\n\nFooter.\n")}
	files2, err := PlanSnapshot(snapshotOf(s2, "# two\n", t0.Add(24*time.Hour), ""), dash)
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "index.json"), files2[dashboard.IndexPath])
	golden.Assert(t, filepath.Join("testdata", "last-run.json"), files2[dashboard.LastRunPath])
	// The table (render.SnapshotTable, golden-tested there) is the
	// index's, newest first, between the markers; the rest is kept.
	readme := string(files2[dashboard.ReadmePath])
	row2 := "| 2026-08-23 | v0.8.0 | release | ledger v1.0.0 | v1.1.0 | 10.0% | 5.0% | measured_resolved | 3 / 4 | [v0.8.0_ledger-v1.0.0_harness-v1.1.0](data/snapshots/v0.8.0_ledger-v1.0.0_harness-v1.1.0/summary.md) |  |\n"
	row1 := "| 2026-08-22 | v0.7.15 | release | ledger v1.0.0 | v1.1.0 | 10.0% | 5.0% | measured_resolved | 3 / 4 | [" + id1 + "](data/snapshots/" + id1 + "/summary.md) |  |\n"
	if !strings.HasPrefix(readme, "# Dashboard\n\nIntro.\n\n"+render.TableStart+"\n| Published |") || !strings.HasSuffix(readme, row2+row1+render.TableEnd+"\n\nFooter.\n") {
		t.Errorf("README.md:\n%s", readme)
	}
	if string(files2["data/latest/summary.md"]) != "# two\n" {
		t.Error("data/latest is not the newest snapshot")
	}

	// The unchanged pair is a no-op.
	_, err = PlanSnapshot(snapshotOf(s2, "# two\n", t0.Add(48*time.Hour), ""),
		Dashboard{Index: files2[dashboard.IndexPath], LastRun: files2[dashboard.LastRunPath]})
	if !errors.Is(err, ErrUnchanged) {
		t.Errorf("same pair again: %v, want ErrUnchanged", err)
	}

	// A late publish of an older pair keeps data/latest on the newest.
	s0 := releaseSummary(t, "v0.7.0", "v1.0.0")
	files3, err := PlanSnapshot(snapshotOf(s0, "# zero\n", t0.Add(-time.Hour), ""),
		Dashboard{Index: files2[dashboard.IndexPath], LastRun: files2[dashboard.LastRunPath]})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files3["data/latest/summary.json"]; ok {
		t.Error("an older snapshot replaced data/latest")
	}
	if string(files3[dashboard.LastRunPath]) != string(files2[dashboard.LastRunPath]) {
		t.Errorf("a late publish of an older pair moved %s:\n%s", dashboard.LastRunPath, files3[dashboard.LastRunPath])
	}
	var idx dashboard.Index
	if err := jsoncodec.Decode(files3[dashboard.IndexPath], &idx); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range idx.Snapshots {
		order = append(order, e.Simulator)
	}
	if d := cmp.Diff([]string{"v0.8.0", "v0.7.15", "v0.7.0"}, order); d != "" {
		t.Errorf("index order (-want +got):\n%s", d)
	}
}

// experimentalSummary is releaseSummary's summary of a build no release
// names, labelled experimental.
func experimentalSummary(t *testing.T, commit string) runresult.Summary {
	t.Helper()
	s := releaseSummary(t, "v0.7.15", "v1.0.0")
	sim := &s.Provenance.Simulator
	sim.Ref, sim.Commit, sim.Tag, sim.Release = commit, commit, "", false
	s.Label, s.LabelReasons = runresult.LabelExperimental, []string{"simulator commit " + commit[:12] + " is not named by a release tag"}
	return s
}

// data/latest/ holds the published snapshot: the newest release, or the
// newest of all while none is a release. An experimental snapshot
// published after a release leaves it on the release (state/last-run.json
// and the index still move: they describe the newest entry), the index
// and the README say which is which, and the first release after
// experimental ones takes data/latest/ over.
func TestPlanSnapshotLatestIsTheNewestRelease(t *testing.T) {
	t.Parallel()
	expA, expB := strings.Repeat("a", 40), strings.Repeat("b", 40)
	var dash Dashboard
	publish := func(s runresult.Summary, md string, at time.Duration) map[string][]byte {
		t.Helper()
		files, err := PlanSnapshot(snapshotOf(s, md, t0.Add(at), ""), dash)
		if err != nil {
			t.Fatal(err)
		}
		dash = Dashboard{Index: files[dashboard.IndexPath], LastRun: files[dashboard.LastRunPath], Readme: files[dashboard.ReadmePath]}
		return files
	}
	latest := func(files map[string][]byte) string { return string(files[dashboard.LatestDir+"/summary.md"]) }

	if f := publish(experimentalSummary(t, expA), "# a\n", 0); latest(f) != "# a\n" {
		t.Errorf("no release yet: data/latest/summary.md = %q, want the newest (experimental) snapshot's", latest(f))
	}
	if f := publish(releaseSummary(t, "v0.8.0", "v1.0.0"), "# release\n", time.Hour); latest(f) != "# release\n" {
		t.Errorf("first release: data/latest/summary.md = %q, want the release's", latest(f))
	}
	f := publish(experimentalSummary(t, expB), "# b\n", 2*time.Hour)
	if _, ok := f[dashboard.LatestDir+"/summary.json"]; ok {
		t.Errorf("an experimental snapshot published after a release replaced data/latest (%q)", latest(f))
	}
	var last dashboard.LastRun
	if err := jsoncodec.Decode(f[dashboard.LastRunPath], &last); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(last.Snapshot, expB[:12]) {
		t.Errorf("state/last-run.json names %s, want the newest entry (%s…)", last.Snapshot, expB[:12])
	}
	idx, err := dashboard.DecodeIndex(f[dashboard.IndexPath])
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, e := range idx.Snapshots {
		labels = append(labels, e.Simulator+" "+e.Label)
	}
	if d := cmp.Diff([]string{expB[:12] + " experimental", "v0.8.0 release", expA[:12] + " experimental"}, labels); d != "" {
		t.Errorf("index labels (-want +got):\n%s", d)
	}
	if p, _ := Published(idx.Snapshots); p.Simulator != "v0.8.0" {
		t.Errorf("Published = %s, want v0.8.0", p.Simulator)
	}
	if !strings.Contains(string(f[dashboard.ReadmePath]), "| "+expB[:12]+" | experimental |") {
		t.Errorf("README does not label the experimental row:\n%s", f[dashboard.ReadmePath])
	}
}

func TestPlanSnapshotRefusesAndErrors(t *testing.T) {
	t.Parallel()
	s := releaseSummary(t, "v0.7.15", "v1.0.0")
	snap := snapshotOf(s, "x", t0, "")
	other := releaseSummary(t, "v0.7.15", "v1.0.0")
	other.Coverage.Scored = 2
	if _, err := PlanSnapshot(snap, Dashboard{Existing: encode(t, other)}); !errors.Is(err, ErrImmutable) {
		t.Errorf("existing id with other content: %v, want ErrImmutable", err)
	}
	if _, err := PlanSnapshot(snap, Dashboard{Existing: encode(t, s)}); !errors.Is(err, ErrUnchanged) {
		t.Errorf("existing id with the same content: %v, want ErrUnchanged", err)
	}
	for name, dash := range map[string]Dashboard{
		dashboard.IndexPath:   {Index: []byte(`{"version":1,"snapshots":[],"extra":1}`)},
		dashboard.LastRunPath: {LastRun: []byte(`[`)},
		dashboard.ReadmePath:  {Readme: []byte(render.TableEnd + "\n" + render.TableStart + "\n")},
	} {
		if _, err := PlanSnapshot(snap, dash); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("malformed %s: error %v, want it named", name, err)
		}
	}
}

func TestSnapshotIDIsSafe(t *testing.T) {
	t.Parallel()
	s := releaseSummary(t, "v0.7.15", "../../etc passwd")
	if id := SnapshotID(s, 0); strings.ContainsAny(id, "/\\ ") || strings.HasPrefix(id, ".") {
		t.Errorf("SnapshotID = %q, want no path separators", id)
	}
}

// TestSnapshotIDIsBounded: an id that would be longer than dashboard.MaxSnapshotIDBytes
// (here from a long ledger version) is shortened stably, a hash of the
// whole telling apart two that share the kept prefix, so that its
// directory and site pages stay within a 255-byte file name; a short id
// is the joined parts, unchanged.
func TestSnapshotIDIsBounded(t *testing.T) {
	t.Parallel()
	long := "v1.0.0-" + strings.Repeat("a", 300)
	a := SnapshotID(releaseSummary(t, "v0.7.15", long+"1"), 4242)
	b := SnapshotID(releaseSummary(t, "v0.7.15", long+"2"), 4242)
	if len(a) > dashboard.MaxSnapshotIDBytes || len(b) > dashboard.MaxSnapshotIDBytes || a == b || !strings.HasPrefix(a, "v0.7.15_ledger-v1.0.0-aaa") {
		t.Errorf("long ids: %q (%d bytes), %q (%d bytes); want two distinct ids of at most %d bytes keeping their start", a, len(a), b, len(b), dashboard.MaxSnapshotIDBytes)
	}
	if again := SnapshotID(releaseSummary(t, "v0.7.15", long+"1"), 4242); again != a {
		t.Errorf("the shortened id is not stable: %q, then %q", a, again)
	}
	// At the bound the id is kept as it is.
	prefix := len("v0.7.15_ledger-_harness-v1.1.0_run-4242")
	at := SnapshotID(releaseSummary(t, "v0.7.15", strings.Repeat("b", dashboard.MaxSnapshotIDBytes-prefix)), 4242)
	if want := "v0.7.15_ledger-" + strings.Repeat("b", dashboard.MaxSnapshotIDBytes-prefix) + "_harness-v1.1.0_run-4242"; at != want {
		t.Errorf("id at the bound: %q, want %q", at, want)
	}
}

// TestComparePageNameIsBounded: the comparison page of two ids whose
// "<previous>..<id>.md" would be over 255 bytes is named by both ids each
// shortened to fit, stably, and the index entry links that name; a pair
// that fits is named as before (TestPublishCheckout).
func TestComparePageNameIsBounded(t *testing.T) {
	t.Parallel()
	dash := t.TempDir()
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	ledger := "v1.0.0-" + strings.Repeat("c", 150)
	first, err := PublishCheckout(Checkout{Dashboard: dash, Result: resultDir(t, releaseReport(t, "v0.7.15", ledger)), PublishedAt: at})
	if err != nil || first.Outcome != PublishPublished {
		t.Fatalf("first publish: %s, %v", first.Outcome, err)
	}
	c := Checkout{Dashboard: dash, Result: resultDir(t, releaseReport(t, "v0.7.16", ledger)), PublishedAt: at.Add(time.Hour), DryRun: true}
	next, err := PublishCheckout(c)
	if err != nil || next.Outcome != PublishPlanned {
		t.Fatalf("next publish: %s, %v", next.Outcome, err)
	}
	if len(first.ID)+len(next.ID)+len("...md") <= 255 {
		t.Fatalf("fixture: ids of %d and %d bytes fit one file name", len(first.ID), len(next.ID))
	}
	var pages []string
	for p := range next.Files {
		if strings.HasPrefix(p, dashboard.CompareDir+"/") {
			pages = append(pages, p)
		}
	}
	if len(pages) != 1 || len(filepath.Base(pages[0])) > 255 || !strings.HasPrefix(filepath.Base(pages[0]), "v0.7.15_ledger-v1.0.0-ccc") {
		t.Fatalf("comparison pages %q, want one whose name is at most 255 bytes", pages)
	}
	var idx dashboard.Index
	if err := jsoncodec.Decode(next.Files[dashboard.IndexPath], &idx); err != nil {
		t.Fatal(err)
	}
	if idx.Snapshots[0].ID != next.ID || idx.Snapshots[0].Compare != pages[0] {
		t.Errorf("the index entry %s links %q, want %q", idx.Snapshots[0].ID, idx.Snapshots[0].Compare, pages[0])
	}
	again, err := PublishCheckout(c)
	if err != nil || again.Files[pages[0]] == nil {
		t.Errorf("the comparison page's name is not stable (%v)", err)
	}
}

// A dashboard whose index is of version 1 (ttft_mape, tpot_mape) gets its
// entries carried over into version 2, figures kept.
func TestPlanSnapshotReadsIndexVersion1(t *testing.T) {
	t.Parallel()
	v1 := `{"version": 1, "snapshots": [{"id": "v0.7.0_ledger-v1.0.0", "published_at": "2026-08-01T06:00:00Z", "simulator": "v0.7.0",
	  "harness": "v1.0.0", "data": [{"name": "ledger", "version": "v1.0.0"}], "tier": "all", "ttft_mape": 31.5, "tpot_mape": null,
	  "scored": 3, "corpus_points": 4, "path": "data/snapshots/v0.7.0_ledger-v1.0.0/"}]}`
	files, err := PlanSnapshot(Snapshot{Summary: releaseSummary(t, "v0.8.0", "v1.0.0"), Markdown: []byte("# two\n"), PublishedAt: t0},
		Dashboard{Index: []byte(v1)})
	if err != nil {
		t.Fatal(err)
	}
	var idx dashboard.Index
	if err := jsoncodec.Decode(files[dashboard.IndexPath], &idx); err != nil {
		t.Fatal(err)
	}
	if idx.Version != dashboard.IndexVersion || len(idx.Snapshots) != 2 {
		t.Fatalf("index = %+v, want version %d with 2 snapshots", idx, dashboard.IndexVersion)
	}
	old := idx.Snapshots[1]
	if old.ID != "v0.7.0_ledger-v1.0.0" || old.MAPE["ttft"] == nil || *old.MAPE["ttft"] != 31.5 || old.MAPE["tpot"] != nil {
		t.Errorf("version 1 entry carried over as %+v", old)
	}
	if !strings.Contains(string(files[dashboard.ReadmePath]), "| 31.5% | n/a |") {
		t.Errorf("README table lacks the old entry's figures:\n%s", files[dashboard.ReadmePath])
	}
	for _, bad := range []string{`{"version": 3, "snapshots": []}`, `{"version": 1, "snapshots": [{"id": "x", "mape": {}}]}`} {
		if _, err := PlanSnapshot(Snapshot{Summary: releaseSummary(t, "v0.8.0", "v1.0.0"), PublishedAt: t0}, Dashboard{Index: []byte(bad)}); err == nil || !strings.Contains(err.Error(), dashboard.IndexPath) {
			t.Errorf("index %s: err = %v, want an error naming %s", bad, err, dashboard.IndexPath)
		}
	}
}
