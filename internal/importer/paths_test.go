package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/inference-sim/accuracy-dashboard/internal/importer/importertest"
	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

func TestResolveSources(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	for _, d := range []string{"data/a", "data/b", "other"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(base, "data", "a", "run_1.json")
	if err := os.WriteFile(file, []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, rel, err := ResolveSources("", []string{filepath.Join(base, "data", "a"), filepath.Join(base, "data", "b")})
	if err != nil || root != filepath.Join(base, "data") || strings.Join(rel, ",") != "a,b" {
		t.Errorf("two dirs: root %s rel %v err %v", root, rel, err)
	}
	root, rel, err = ResolveSources("", []string{file})
	if err != nil || root != filepath.Join(base, "data", "a") || strings.Join(rel, ",") != "run_1.json" {
		t.Errorf("one file: root %s rel %v err %v", root, rel, err)
	}
	root, rel, err = ResolveSources(filepath.Join(base, "data"), []string{file, filepath.Join(base, "data")})
	if err != nil || root != filepath.Join(base, "data") || strings.Join(rel, ",") != "a/run_1.json,." {
		t.Errorf("given root: root %s rel %v err %v", root, rel, err)
	}
	if _, _, err := ResolveSources(filepath.Join(base, "other"), []string{file}); err == nil || !strings.Contains(err.Error(), "not under --root") {
		t.Errorf("source outside root: %v", err)
	}
	missing := filepath.Join(base, "missing")
	if _, _, err := ResolveSources("", []string{missing}); err == nil || err.Error() != "source "+missing+": no such file or directory" {
		t.Errorf("a missing source: %v", err)
	}
	for _, root := range []string{"", base} {
		if _, _, err := ResolveSources(root, nil); err == nil || err.Error() != "no source to import" {
			t.Errorf("no source (root %q): %v", root, err)
		}
	}
}

// TestImportPathsSingleRunFolder: one inference-perf run folder imported
// on its own keeps its name as the run id and in the unit id (it used to be
// "." and "x").
func TestImportPathsSingleRunFolder(t *testing.T) {
	t.Parallel()
	run := filepath.Join("testdata", "fixture", "inference-perf", "20260217-155451-llama-2-7b-tp1-codegen")
	res, err := ImportPaths("", []string{run}, importreport.Options{Versions: DefaultVersions, Name: "t", Version: "1",
		InferencePerfHardware: "H100", InferencePerfEngineVersion: "v0.15.1"})
	if err != nil {
		t.Fatal(err)
	}
	u := res.Units[0]
	if u.ID != "inference-perf/llama-2-7b-hf/h100/tp1/20260217-155451-codegen" || u.Points[0].Provenance.RunID != "20260217-155451-llama-2-7b-tp1-codegen" {
		t.Errorf("unit %s, run id %q", u.ID, u.Points[0].Provenance.RunID)
	}
	if got := res.Report.Options.Sources; len(got) != 1 || got[0] != "20260217-155451-llama-2-7b-tp1-codegen" {
		t.Errorf("sources recorded as %v, want the run folder's name", got)
	}
}

// TestImportPathsSingleAggBmkRunFolder: a downloaded GitHub Actions artifact,
// run_<id>/agg_bmk.json, named alone as the source (the file or its folder)
// imports with the run id of its folder, exactly as the same file named
// run_<id>.json does (it used to be read from inside the folder, without a
// run id, as API rows: "missing field date").
func TestImportPathsSingleAggBmkRunFolder(t *testing.T) {
	t.Parallel()
	const id = "20316427102" // 11 retried vLLM points of a known run
	raw, err := os.ReadFile(filepath.Join(importertest.Sources(t), "inferencex", "agg_bmk", "run_"+id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	folder := filepath.Join(base, "download", "run_"+id)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "agg_bmk.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	flat := filepath.Join(base, "flat", "run_"+id+".json")
	if err := os.MkdirAll(filepath.Dir(flat), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(flat, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(source string) *Result {
		t.Helper()
		res, err := ImportPaths("", []string{source}, importreport.Options{Versions: DefaultVersions, Name: "t", Version: "1"})
		if err != nil {
			t.Fatalf("source %s: %v", source, err)
		}
		return res
	}
	want := load(flat)
	if n := numPoints(want); n != 11 {
		t.Fatalf("run_%s.json: %d points, want 11", id, n)
	}
	for _, source := range []string{filepath.Join(folder, "agg_bmk.json"), folder} {
		got := load(source)
		if numPoints(got) != numPoints(want) || len(got.Units) != len(want.Units) {
			t.Fatalf("source %s: %d points in %d units, want %d in %d", source, numPoints(got), len(got.Units), numPoints(want), len(want.Units))
		}
		for i, u := range got.Units {
			if u.ID != want.Units[i].ID {
				t.Errorf("source %s: unit %s, want %s", source, u.ID, want.Units[i].ID)
			}
			for _, p := range u.Points {
				if p.Provenance.RunID != id || p.Provenance.Artifact != "run_"+id+"/agg_bmk.json" {
					t.Errorf("source %s: point of %s has run id %q, artifact %q", source, u.ID, p.Provenance.RunID, p.Provenance.Artifact)
				}
			}
		}
	}
}

func numPoints(r *Result) int {
	n := 0
	for _, u := range r.Units {
		n += len(u.Points)
	}
	return n
}

// TestImportPathsIsImportOfTheRoot: ImportPaths is Import of the resolved
// root with the sources relative to it, errors included.
func TestImportPathsIsImportOfTheRoot(t *testing.T) {
	t.Parallel()
	opts := fixtureOptions()
	want, err := Import(os.DirFS("testdata/fixture"), opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Sources = []string{"ignored"}
	got, err := ImportPaths("", []string{"testdata/fixture"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ImportPaths differs from Import of the root (-want +got):\n%s", d)
	}
	if _, err := ImportPaths("testdata/fixture/api", []string{"testdata/fixture/inferencex"}, opts); err == nil || !strings.Contains(err.Error(), "is not under --root") {
		t.Errorf("a source outside the root: %v", err)
	}
}

// TestImportPathsRefusesWhatIsNotARegularFile: import sources are read as
// regular files of at most MaxSourceBytes. A source linked to /dev/zero
// (which would exhaust memory) or to /etc/passwd (read from outside the
// tree), a named pipe (which would block the import), and a 200 MB file are
// each refused with an error naming the source, whether named as a path or
// found in a directory.
func TestImportPathsRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := filepath.Join(dir, "run_1.json")
	testkit.Sparse(t, big, nil, 200<<20)
	testkit.Fifo(t, filepath.Join(dir, "run_2.json"))
	testkit.Symlink(t, "/dev/zero", filepath.Join(dir, "run_3.json"))
	testkit.Symlink(t, "/etc/passwd", filepath.Join(dir, "run_4.json"))
	inDir := filepath.Join(t.TempDir(), "walked")
	os.Mkdir(inDir, 0o755)
	testkit.Symlink(t, "/dev/zero", filepath.Join(inDir, "run_5.json"))
	for _, c := range []struct{ source, want string }{
		{big, "run_1.json is larger than 16777216 bytes"},
		{filepath.Join(dir, "run_2.json"), "run_2.json is a named pipe (FIFO), not a regular file"},
		{filepath.Join(dir, "run_3.json"), "source run_3.json is a symbolic link"},
		{filepath.Join(dir, "run_4.json"), "source run_4.json is a symbolic link"},
		{inDir, "run_5.json is a symbolic link; only regular files are read"},
	} {
		testkit.Refuses(t, filepath.Base(c.source), c.want, func() error {
			_, err := ImportPaths("", []string{c.source}, importreport.Options{Versions: DefaultVersions, Name: "t", Version: "1"})
			return err
		})
	}
}
