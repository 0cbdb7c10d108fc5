package site

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/dashboard/dashboardtest"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// checkout writes dashboardtest.Published(ids...) to a directory, as a checkout.
func checkout(t *testing.T, ids ...string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, dashboardtest.Published(t, ids...)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBuildDir: out holds exactly the site Build makes (a stale page gone);
// a snapshot whose points are malformed is left out, with a note on the
// Overview and the History naming it and the file, and a warning in the
// log; a checkout with no readable snapshot is an error naming the
// checkout and the files, and out stays as it was.
func TestBuildDir(t *testing.T) {
	t.Parallel()
	dash := checkout(t, "new", "old")
	built, skipped, err := Build(os.DirFS(dash))
	if err != nil || len(skipped) != 0 {
		t.Fatal(skipped, err)
	}
	out := filepath.Join(t.TempDir(), "site")
	if err := os.MkdirAll(filepath.Join(out, "snapshots"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, "snapshots", "gone.html"), []byte("x"), 0o644)
	var log testkit.SyncBuffer
	n, err := BuildDir(dash, out, slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil || n != len(built) || log.String() != "" {
		t.Fatalf("BuildDir = %d, %v, logged %q; want %d files and nothing logged", n, err, log.String(), len(built))
	}
	got := testkit.Paths(t, out)
	var want []string
	for p := range built {
		want = append(want, p)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("out holds %v, want %v", got, want)
	}

	bad := dashboard.SnapshotsDir + "/old/" + runresult.PointsFile
	os.WriteFile(filepath.Join(dash, filepath.FromSlash(bad)), []byte("[{"), 0o644)
	if _, err := BuildDir(dash, out, slog.New(slog.NewTextHandler(&log, nil))); err != nil {
		t.Fatalf("one malformed snapshot: %v, want it left out", err)
	}
	if l := log.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, "snapshot=old") || !strings.Contains(l, bad) {
		t.Errorf("the log says %q, want a warning naming the snapshot and %s", l, bad)
	}
	for _, page := range []string{"index.html", "history.html"} {
		html, err := os.ReadFile(filepath.Join(out, page))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(html), `<div class="banner" id="skipped"><p><strong>1 snapshot of the dashboard's index could not be read and is left out of this site</strong>`) ||
			!strings.Contains(string(html), "<li><code>old</code>, published ") || !strings.Contains(string(html), bad) {
			t.Errorf("%s does not say the snapshot was left out and why", page)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "snapshots", "old.html")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the snapshot left out has a page (%v)", err)
	}
	want = testkit.Paths(t, out)

	other := dashboard.SnapshotsDir + "/new/" + runresult.PointsFile
	os.WriteFile(filepath.Join(dash, filepath.FromSlash(other)), []byte("[{"), 0o644)
	if _, err := BuildDir(dash, out, slog.New(slog.NewTextHandler(&log, nil))); err == nil || !strings.Contains(err.Error(), "dashboard "+dash+": ") ||
		!strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), other) {
		t.Errorf("no snapshot readable: %v, want an error naming the checkout, %s and %s", err, bad, other)
	}
	if again := testkit.Paths(t, out); !slices.Equal(again, want) {
		t.Errorf("a failed build changed out: %v", again)
	}
}

// TestBuildDirAtTheIDBound: a snapshot id of dashboard.MaxSnapshotIDBytes,
// the longest publish names a snapshot, builds on disk (its pages' file
// names with their temporary names' suffixes fit 255 bytes; an id of 249
// bytes was published and every build after failed, "file name too
// long"); an index naming a longer id is refused, naming it, before
// anything is written.
func TestBuildDirAtTheIDBound(t *testing.T) {
	t.Parallel()
	at := strings.Repeat("i", dashboard.MaxSnapshotIDBytes)
	out := filepath.Join(t.TempDir(), "site")
	if _, err := BuildDir(checkout(t, at, "old"), out, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("an id of %d bytes: %v", len(at), err)
	}
	for _, p := range []string{"snapshots/" + at + ".html", "data/" + at + ".js"} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Errorf("the id at the bound: %v", err)
		}
	}
	over := at + "i"
	out = filepath.Join(t.TempDir(), "site")
	_, err := BuildDir(checkout(t, over, "old"), out, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), dashboard.IndexPath) || !strings.Contains(err.Error(), fmt.Sprintf("is %d bytes, over %d", len(over), dashboard.MaxSnapshotIDBytes)) {
		t.Errorf("an id of %d bytes: %v, want a refusal naming %s and the bound", len(over), err, dashboard.IndexPath)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused build wrote %s (%v)", out, err)
	}
}
