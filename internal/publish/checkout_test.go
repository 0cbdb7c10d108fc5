package publish

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// resultDir writes rep as a result directory (its non-nil files).
func resultDir(t *testing.T, rep Report) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string][]byte{runresult.SummaryFile: rep.Summary, runresult.PointsFile: rep.Points, nightly.File: rep.Plan} {
		if data == nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// onDisk reports whether every planned file is on disk under root with its
// planned content.
func onDisk(t *testing.T, root string, files map[string][]byte) bool {
	t.Helper()
	for p, want := range files {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || !bytes.Equal(got, want) {
			return false
		}
	}
	return true
}

// TestPublishCheckout publishes result directories into a checkout: the
// first snapshot's files written as planned, a dry run of the next that
// writes nothing, the next with its comparison page, a republish that
// changes nothing, a refusal (every reason, nothing written) and an
// unreadable result directory.
func TestPublishCheckout(t *testing.T) {
	t.Parallel()
	dash := t.TempDir()
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	first := resultDir(t, releaseReport(t, "v0.7.15", "v1.0.0"))
	res, err := PublishCheckout(Checkout{Dashboard: dash, Result: first, PublishedAt: at})
	if err != nil || res.Outcome != PublishPublished {
		t.Fatalf("first publish: %+v, %v", res, err)
	}
	id := SnapshotID(releaseSummary(t, "v0.7.15", "v1.0.0"), 0)
	if res.ID != id || res.Files[dashboard.SnapshotsDir+"/"+id+"/"+runresult.PointsFile] == nil || !onDisk(t, dash, res.Files) {
		t.Errorf("first publish: id %s (want %s), files %d, not all on disk as planned", res.ID, id, len(res.Files))
	}

	next := resultDir(t, releaseReport(t, "v0.7.16", "v1.0.0"))
	c := Checkout{Dashboard: dash, Result: next, PublishedAt: at.Add(time.Hour), DryRun: true}
	res, err = PublishCheckout(c)
	if err != nil || res.Outcome != PublishPlanned || len(res.Files) == 0 {
		t.Fatalf("dry run: %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dash, dashboard.SnapshotsDir, res.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dry run wrote snapshot %s (%v)", res.ID, err)
	}
	c.DryRun = false
	res, err = PublishCheckout(c)
	page := dashboard.CompareDir + "/" + id + ".." + res.ID + ".md"
	if err != nil || res.Outcome != PublishPublished || res.Files[page] == nil || !onDisk(t, dash, res.Files) {
		t.Fatalf("next publish (%v): %s, want %s written", err, res.Outcome, page)
	}
	if res, err = PublishCheckout(c); err != nil || res.Outcome != PublishUnchanged || res.Files != nil {
		t.Errorf("republish: %+v, %v, want unchanged", res, err)
	}

	rep := releaseReport(t, "v0.7.17", "v1.0.0")
	rep.Points = []byte("[]")
	before := testkit.Files(t, os.DirFS(dash))
	res, err = PublishCheckout(Checkout{Dashboard: dash, Result: resultDir(t, rep), Experimental: true})
	if err != nil || res.Outcome != PublishRefused || len(res.Reasons) != 1 || !strings.Contains(res.Reasons[0], "points.json holds 0 points") {
		t.Errorf("points that are not the summary's: %+v, %v, want one refusal naming them", res, err)
	}
	if after := testkit.Files(t, os.DirFS(dash)); !maps.Equal(after, before) {
		t.Errorf("a refused publish changed the checkout: %d files, were %d", len(after), len(before))
	}

	empty := t.TempDir()
	if _, err := PublishCheckout(Checkout{Dashboard: dash, Result: empty}); err == nil ||
		!strings.Contains(err.Error(), "result "+empty) || !strings.Contains(err.Error(), runresult.SummaryFile) {
		t.Errorf("empty result directory: %v, want an error naming it and %s", err, runresult.SummaryFile)
	}
}

// TestReadResult: summary.json is required, points.json and plan.json are
// read when present, and each is a regular file.
func TestReadResult(t *testing.T) {
	t.Parallel()
	dir := resultDir(t, Report{Summary: []byte("s")})
	if rep, err := ReadResult(dir); err != nil || string(rep.Summary) != "s" || rep.Points != nil || rep.Plan != nil {
		t.Errorf("summary alone: %+v, %v", rep, err)
	}
	dir = resultDir(t, Report{Summary: []byte("s"), Points: []byte("p"), Plan: []byte("n")})
	if rep, err := ReadResult(dir); err != nil || string(rep.Points) != "p" || string(rep.Plan) != "n" {
		t.Errorf("all three: %+v, %v", rep, err)
	}
	dir = resultDir(t, Report{Summary: []byte("s")})
	if err := os.Symlink("/dev/zero", filepath.Join(dir, nightly.File)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResult(dir); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("plan.json a symlink: %v, want it refused", err)
	}
}

// TestReadResultOf: a summary of any name brings the points.json and
// plan.json of its directory; a missing summary is an error naming it.
func TestReadResultOf(t *testing.T) {
	t.Parallel()
	dir := resultDir(t, Report{Summary: []byte("s"), Points: []byte("p"), Plan: []byte("n")})
	other := filepath.Join(dir, "nightly-summary.json")
	if err := os.WriteFile(other, []byte("o"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err := ReadResultOf(other); err != nil || string(rep.Summary) != "o" || string(rep.Points) != "p" || string(rep.Plan) != "n" {
		t.Errorf("another summary's name: %+v, %v", rep, err)
	}
	missing := filepath.Join(dir, "none.json")
	if _, err := ReadResultOf(missing); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("missing summary: %v, want an error naming it", err)
	}
}

// TestDirReader: a missing file is ghmodel.ErrNotFound, a present one its
// bytes.
func TestDirReader(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "data"), 0o755)
	os.WriteFile(filepath.Join(root, "data", "index.json"), []byte("{}"), 0o644)
	tree, err := diskio.OpenTree(root)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	read := DirReader(tree)
	if b, err := read(dashboard.IndexPath); err != nil || string(b) != "{}" {
		t.Errorf("index: %q, %v", b, err)
	}
	if _, err := read(dashboard.LastRunPath); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("missing file: %v, want ghmodel.ErrNotFound", err)
	}
}

// TestPublishCheckoutStaysInside: a symbolic link committed in the
// dashboard repository, a directory a publish writes in (state, data,
// data/latest, data/snapshots) or a file it reads and rewrites
// (README.md), made action publish write outside the checkout (all but
// README.md). Each is refused now, naming the link, and nothing is
// written, inside the checkout or where the link points.
func TestPublishCheckoutStaysInside(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	first := resultDir(t, releaseReport(t, "v0.7.15", "v1.0.0"))
	next := resultDir(t, releaseReport(t, "v0.7.16", "v1.0.0"))
	for _, link := range []string{"state", "data", dashboard.LatestDir, dashboard.SnapshotsDir, dashboard.ReadmePath} {
		t.Run(strings.ReplaceAll(link, "/", "-"), func(t *testing.T) {
			t.Parallel()
			dash := t.TempDir()
			if res, err := PublishCheckout(Checkout{Dashboard: dash, Result: first, PublishedAt: at}); err != nil || res.Outcome != PublishPublished {
				t.Fatalf("first publish: %+v, %v", res, err)
			}
			// The committed link: what was at link moves outside, and link
			// points to it.
			outside := filepath.Join(t.TempDir(), "outside")
			if err := os.Rename(filepath.Join(dash, filepath.FromSlash(link)), outside); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(dash, filepath.FromSlash(link))); err != nil {
				t.Fatal(err)
			}
			before, beforeOut := listing(t, dash), listing(t, outside)
			_, err := PublishCheckout(Checkout{Dashboard: dash, Result: next, PublishedAt: at.Add(time.Hour)})
			want := filepath.Join(dash, filepath.FromSlash(link)) + " is a symbolic link"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("publish with %s a link: %v, want an error saying %q", link, err, want)
			}
			if after := listing(t, dash); !maps.Equal(after, before) {
				t.Errorf("the refused publish changed the checkout: %d files, were %d", len(after), len(before))
			}
			if afterOut := listing(t, outside); !maps.Equal(afterOut, beforeOut) {
				t.Errorf("the refused publish wrote where %s points: %d files, were %d", link, len(afterOut), len(beforeOut))
			}
		})
	}
}

// listing is what is under p (a directory or a file), links not
// followed: each file's content, each link's target.
func listing(t *testing.T, p string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || d.IsDir():
			return err
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(q)
			out[q] = "-> " + target
			return err
		}
		b, err := os.ReadFile(q)
		out[q] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
