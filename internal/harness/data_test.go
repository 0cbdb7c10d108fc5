package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

const testLedgerDir = "testdata/ledger"

// testBundled is a binary's bundled data: the test ledger, a one-model
// catalog and the repository's hardware registry.
func testBundled() Bundled {
	return Bundled{
		Ledger:   os.DirFS(testLedgerDir),
		Catalog:  fstest.MapFS{"models/test-model-7b/config.json": {Data: []byte("{}\n")}},
		Hardware: os.DirFS("../../corpus/hardware"),
	}
}

// TestLoadDataBundled: the bundled ledger as its manifest says, the
// bundled catalog copied into the cache once per content and versioned with
// the bundled ledger, the bundled hardware registry by its manifest, no
// coefficient registry.
func TestLoadDataBundled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cache := t.TempDir()
	d := Data{Catalog: "bundled", Registry: "none", HardwareRegistry: "bundled", CacheDir: cache, Bundled: testBundled()}
	var o Options
	if err := LoadData(ctx, d, &o); err != nil {
		t.Fatal(err)
	}
	l := o.Ledger
	if l == nil || l.Manifest.Name != "harness-test" {
		t.Fatalf("ledger %+v", l)
	}
	if want := (runresult.DataVersion{Name: "harness-test", Version: "0.0.1", Digest: l.Digest, Release: true}); o.LedgerVersion != want {
		t.Errorf("ledger version %+v, want %+v", o.LedgerVersion, want)
	}
	digest, err := DigestFS(d.Bundled.Catalog)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "catalog", strings.TrimPrefix(digest, "sha256:")[:16]); o.Catalog != want {
		t.Errorf("catalog at %s, want %s", o.Catalog, want)
	}
	if b, err := os.ReadFile(filepath.Join(o.Catalog, "models", "test-model-7b", "config.json")); err != nil || string(b) != "{}\n" {
		t.Errorf("the extracted catalog's config.json: %q %v", b, err)
	}
	if want := (runresult.DataVersion{Name: "blis-default catalog (bundled)", Version: "0.0.1", Digest: digest, Release: true}); o.CatalogVersion == nil || *o.CatalogVersion != want {
		t.Errorf("catalog version %+v, want %+v", o.CatalogVersion, want)
	}
	if hw := o.HardwareVersion; o.Hardware == nil || hw == nil || hw.Name != "blis-hardware (bundled)" || !hw.Release || o.Hardware.GPUs["H200"].Source == "" {
		t.Errorf("hardware %+v, version %+v", o.Hardware, hw)
	}
	if o.Registry != "" || o.RegistryVersion != nil {
		t.Errorf("registry %q %+v, want none", o.Registry, o.RegistryVersion)
	}

	// Once per content: a second load finds the copy (a file added to it
	// stays), a catalog of other content gets its own directory.
	marker := filepath.Join(o.Catalog, "marker")
	testkit.WriteFile(t, marker, "x")
	var again Options
	if err := LoadData(ctx, d, &again); err != nil || again.Catalog != o.Catalog {
		t.Fatalf("second load: catalog %s, %v", again.Catalog, err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the cached copy was made again: %v", err)
	}
	d.Bundled.Catalog = fstest.MapFS{"models/other/config.json": {Data: []byte("{}\n")}}
	if err := LoadData(ctx, d, &again); err != nil || again.Catalog == o.Catalog {
		t.Errorf("another catalog: %s, %v", again.Catalog, err)
	}

	// None given: no catalog, no hardware registry.
	var none Options
	if err := LoadData(ctx, Data{Catalog: "none", HardwareRegistry: "none", Bundled: testBundled()}, &none); err != nil {
		t.Fatal(err)
	}
	if none.Catalog != "" || none.CatalogVersion != nil || none.Hardware != nil || none.HardwareVersion != nil {
		t.Errorf("none: catalog %q %+v, hardware %+v", none.Catalog, none.CatalogVersion, none.HardwareVersion)
	}
}

// TestLoadDataDirectories: data given by path is versioned by what it is
// (here: directories outside git, by content, never a release although the
// test ledger's manifest claims one).
func TestLoadDataDirectories(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	catalog, registry := t.TempDir(), t.TempDir()
	testkit.WriteFile(t, filepath.Join(catalog, "models", "m", "config.json"), "{}\n")
	testkit.WriteFile(t, filepath.Join(registry, "coefficients.json"), "{}\n")
	raw, err := os.ReadFile("../../corpus/hardware/registry.json")
	if err != nil {
		t.Fatal(err)
	}
	hwFile := filepath.Join(t.TempDir(), "registry.json")
	testkit.WriteFile(t, hwFile, string(raw))
	d := Data{Ledger: testLedgerDir, Catalog: catalog, Registry: registry, HardwareRegistry: hwFile, Bundled: testBundled()}
	var o Options
	if err := LoadData(ctx, d, &o); err != nil {
		t.Fatal(err)
	}
	if lv := o.LedgerVersion; lv.Release || lv.Version != "0.0.1+"+strings.TrimPrefix(o.Ledger.Digest, "sha256:")[:12] {
		t.Errorf("ledger version %+v, want 0.0.1+<digest>, not a release", lv)
	}
	if cv := o.CatalogVersion; o.Catalog != catalog || cv == nil || cv.Release || cv.Name != "catalog "+filepath.Base(catalog) {
		t.Errorf("catalog %s %+v", o.Catalog, cv)
	}
	if rv := o.RegistryVersion; o.Registry != registry || rv == nil || rv.Release || rv.Name != "registry "+filepath.Base(registry) {
		t.Errorf("registry %s %+v", o.Registry, rv)
	}
	if hw := o.HardwareVersion; o.Hardware == nil || hw == nil || hw.Release || !strings.HasPrefix(hw.Version, "2026.12.0+") {
		t.Errorf("hardware %+v, want a version naming the content", hw)
	}

	// A relative catalog directory is handed to the simulator absolute.

	missing := filepath.Join(t.TempDir(), "missing")
	for _, c := range []struct {
		d    Data
		want string
	}{
		{Data{Ledger: missing}, "ledger: read ledger.json"},
		{Data{Ledger: testLedgerDir, Catalog: missing}, "catalog " + missing + ": stat " + missing + ": no such file or directory"},
		{Data{Ledger: testLedgerDir, Registry: missing}, "registry " + missing + ": stat " + missing + ": no such file or directory"},
		{Data{Ledger: testLedgerDir, HardwareRegistry: missing}, "hardware registry: lstat " + missing + ": no such file or directory"},
		{Data{HardwareRegistry: "bundled", Bundled: Bundled{Ledger: os.DirFS(testLedgerDir), Hardware: fstest.MapFS{}}}, "bundled hardware registry: open registry.json"},
		{Data{HardwareRegistry: "bundled", Bundled: Bundled{Ledger: os.DirFS(testLedgerDir), Hardware: fstest.MapFS{"registry.json": {Data: []byte("[]")}}}}, "bundled hardware registry"},
	} {
		var o Options
		if err := LoadData(ctx, c.d, &o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.d, err, c.want)
		}
	}
}

// dumpLedger writes the test ledger as if 'ledger import --postgres
// --inferencex-dump db-dump/2026-11-24 --release' had written it, imported
// by the harness commit importer with release tag version.
func dumpLedger(t *testing.T, importerCommit, version string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "inferencex-db-ledger")
	if err := os.CopyFS(dir, os.DirFS(testLedgerDir)); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Join(dir, "ledger.json"), `{"schema_version": 1, "name": "inferencex-db", "version": "2026-11-24", "release": true}`+"\n")
	rep := importreport.Report{SchemaVersion: 1,
		Options:  importreport.Options{Name: "inferencex-db", Version: "2026-11-24", Release: true, Postgres: `database "postgres"`, InferenceXDump: "db-dump/2026-11-24"},
		Importer: &runresult.Harness{Commit: importerCommit, Version: version, Source: runresult.HarnessCheckout}}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Join(dir, importreport.File), string(b))
	return dir
}

// TestLoadDataDumpImportedLedger: a ledger imported from an InferenceX
// weekly dump by a harness release is released data when that same harness
// release scores it: its version names the dump and the digest, and the run
// is labelled release. Imported by another harness (or none that a release
// names), it is not, and a warning says why.
func TestLoadDataDumpImportedLedger(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	hdir, hcommit := harnesstest.HarnessCheckout(t)
	harnesstest.Run(t, hdir, "git", "tag", "v1.4.0")
	ctx := context.Background()
	score := func(ledgerDir string) (runresult.Summary, string) {
		t.Helper()
		var logs bytes.Buffer
		o := Options{HarnessDir: hdir, SimRepo: repo.Dir, SimRef: "v0.2.0", Jobs: 2, CacheDir: sharedCache(t),
			PointTimeout: time.Minute, Log: slog.New(slog.NewTextHandler(&logs, nil))}
		if err := LoadData(ctx, Data{Ledger: ledgerDir, Catalog: "none", Registry: "none"}, &o); err != nil {
			t.Fatal(err)
		}
		res, err := Score(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		return res.Summary, logs.String()
	}

	s, logs := score(dumpLedger(t, hcommit, "v1.4.0"))
	l := s.Provenance.Ledger
	if !strings.HasPrefix(l.Version, "db-dump/2026-11-24+") || l.Version != "db-dump/2026-11-24+"+strings.TrimPrefix(l.Digest, "sha256:")[:12] || !l.Release {
		t.Errorf("ledger provenance %+v, want db-dump/2026-11-24+<digest>, a release", l)
	}
	if s.Label != runresult.LabelRelease {
		t.Errorf("label %q (%v), want release", s.Label, s.LabelReasons)
	}
	if strings.Contains(logs, "is not a release") {
		t.Errorf("a released dump ledger warned:\n%s", logs)
	}

	other := strings.Repeat("b", 40)
	for name, dir := range map[string]string{
		"imported by another harness release": dumpLedger(t, other, "v1.3.0"),
		"imported by an unreleased harness":   dumpLedger(t, hcommit, ""),
	} {
		s, logs := score(dir)
		if s.Provenance.Ledger.Release || s.Label != runresult.LabelExperimental || !strings.Contains(strings.Join(s.LabelReasons, " "), "ledger db-dump/2026-11-24+") {
			t.Errorf("%s: ledger %+v, label %q %v; want experimental for the ledger", name, s.Provenance.Ledger, s.Label, s.LabelReasons)
		}
		if !strings.Contains(logs, `level=WARN msg="the ledger imported from an InferenceX dump is not a release" ledger=`+dir) {
			t.Errorf("%s: no warning naming the ledger:\n%s", name, logs)
		}
	}
}

// TestReadDumpImport: what a ledger directory's import report says about
// an InferenceX weekly dump; no report, or one naming no dump, is not a
// dump import; a report that is no JSON is an error naming it.
func TestReadDumpImport(t *testing.T) {
	t.Parallel()
	commit := strings.Repeat("a", 40)
	dir := dumpLedger(t, commit, "v1.4.0")
	imp, ok, err := ReadDumpImport(dir)
	if want := (DumpImport{Dump: "db-dump/2026-11-24", Importer: runresult.Harness{Commit: commit, Version: "v1.4.0", Source: runresult.HarnessCheckout}}); err != nil || !ok || imp != want {
		t.Errorf("dump import %+v %v %v, want %+v", imp, ok, err, want)
	}
	if imp, ok, err := ReadDumpImport(testLedgerDir); err != nil || ok || imp != (DumpImport{}) {
		t.Errorf("no import report: %+v %v %v", imp, ok, err)
	}
	files := t.TempDir()
	testkit.WriteFile(t, filepath.Join(files, importreport.File), `{"schema_version": 1, "options": {"sources": ["."]}}`)
	if _, ok, err := ReadDumpImport(files); err != nil || ok {
		t.Errorf("an import of files: %v %v", ok, err)
	}
	testkit.WriteFile(t, filepath.Join(files, importreport.File), `{"options":`)
	if _, _, err := ReadDumpImport(files); err == nil || !strings.Contains(err.Error(), "ledger "+files+": "+importreport.File+": ") {
		t.Errorf("a truncated report: %v", err)
	}
	big := t.TempDir()
	testkit.WriteFile(t, filepath.Join(big, importreport.File), strings.Repeat(" ", ledger.MaxFileBytes+1))
	if _, _, err := ReadDumpImport(big); err == nil {
		t.Error("a report over the ledger's file cap: no error")
	}
}

// TestReadReuse: an earlier result directory's scored predictions, named
// by the directory; a directory that is no result is an error.
func TestReadReuse(t *testing.T) {
	o := scoreOpts(t, "ledger", "v0.2.0")
	res, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "snapshot-1")
	if err := runresult.Write(dir, runresult.Output{Result: res.Result, Markdown: "table\n"}); err != nil {
		t.Fatal(err)
	}
	r, err := ReadReuse(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.From != "snapshot-1" || r.Len() != res.Summary.Coverage.Scored || r.Len() == 0 {
		t.Errorf("reuse from %q with %d predictions, want snapshot-1 with the %d scored", r.From, r.Len(), res.Summary.Coverage.Scored)
	}
	if _, err := ReadReuse(t.TempDir()); err == nil || !strings.Contains(err.Error(), "summary.json") {
		t.Errorf("an empty directory: %v", err)
	}
}

// TestIdentifyHarness: the harness named; the one a directory lies in
// (FindHarnessDir, which IdentifyHarness walks up from the working
// directory when none is named); outside any, an error saying how to name
// it.
func TestIdentifyHarness(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	hdir, hcommit := harnesstest.HarnessCheckout(t)
	h, err := IdentifyHarness(ctx, hdir)
	if err != nil || h.Commit != hcommit || h.Source != runresult.HarnessCheckout {
		t.Errorf("named: %+v %v", h, err)
	}
	if found, err := FindHarnessDir(filepath.Join(hdir, "corpus")); err != nil || found != hdir {
		t.Errorf("from a directory inside it: %q %v, want %q", found, err, hdir)
	}
	if _, err := FindHarnessDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "pass --harness-dir") {
		t.Errorf("outside a harness: %v", err)
	}
}

// TestIdentifyHarnessWorkingDirectory: with no directory named, the harness
// is the one the working directory lies in. Not parallel: it changes the
// process's working directory, which is what IdentifyHarness reads.
func TestIdentifyHarnessWorkingDirectory(t *testing.T) {
	ctx := context.Background()
	hdir, hcommit := harnesstest.HarnessCheckout(t)
	t.Chdir(filepath.Join(hdir, "corpus"))
	if h, err := IdentifyHarness(ctx, ""); err != nil || h.Commit != hcommit || h.Source != runresult.HarnessCheckout {
		t.Errorf("from the working directory: %+v %v", h, err)
	}
	t.Chdir(t.TempDir())
	if _, err := IdentifyHarness(ctx, ""); err == nil || !strings.Contains(err.Error(), "pass --harness-dir") {
		t.Errorf("outside a harness: %v", err)
	}
}
