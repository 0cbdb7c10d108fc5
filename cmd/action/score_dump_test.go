package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/importer"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

// dumpLedger writes the test ledger as if 'ledger import --postgres
// --inferencex-dump db-dump/2026-11-24 --release' had written it, imported
// by the harness commit importer with release tag version.
func dumpLedger(t *testing.T, importerCommit, version string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "inferencex-db-ledger")
	if err := os.CopyFS(dir, os.DirFS(testLedger)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "ledger.json"), `{"schema_version": 1, "name": "inferencex-db", "version": "2026-11-24", "release": true}`+"\n")
	rep := importer.Report{SchemaVersion: 1,
		Options:  importer.Options{Name: "inferencex-db", Version: "2026-11-24", Release: true, Postgres: `database "postgres"`, InferenceXDump: "db-dump/2026-11-24"},
		Importer: &report.Harness{Commit: importerCommit, Version: version, Source: report.HarnessCheckout}}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, importer.ReportFile), string(b))
	return dir
}

// TestScoreDumpImportedLedger: a ledger imported from an InferenceX weekly
// dump by a harness release is released data when that same harness release
// scores it: its version names the dump and the digest, and the run is
// labelled release. Imported by another harness (or none that a release
// names), it is not.
func TestScoreDumpImportedLedger(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	hdir, hcommit := harnesstest.HarnessCheckout(t)
	harnesstest.Run(t, hdir, "git", "tag", "v1.4.0")
	cache := t.TempDir()
	score := func(ledgerDir string) report.Summary {
		t.Helper()
		out := t.TempDir()
		if _, stderr, err := runScoreCmd(t, "--harness-dir", hdir, "--sim-repo", repo.Dir, "--sim", "v0.2.0", "--ledger", ledgerDir,
			"--catalog", "none", "--registry", "none", "--cache-dir", cache, "--jobs", "2", "--quiet", "--out", out); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		s, _, err := report.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	s := score(dumpLedger(t, hcommit, "v1.4.0"))
	l := s.Provenance.Ledger
	if !strings.HasPrefix(l.Version, "db-dump/2026-11-24+") || l.Version != "db-dump/2026-11-24+"+strings.TrimPrefix(l.Digest, "sha256:")[:12] || !l.Release {
		t.Errorf("ledger provenance %+v, want db-dump/2026-11-24+<digest>, a release", l)
	}
	if s.Label != report.LabelRelease {
		t.Errorf("label %q (%v), want release", s.Label, s.LabelReasons)
	}

	other := strings.Repeat("b", 40)
	for name, dir := range map[string]string{
		"imported by another harness release": dumpLedger(t, other, "v1.3.0"),
		"imported by an unreleased harness":   dumpLedger(t, hcommit, ""),
	} {
		s := score(dir)
		if s.Provenance.Ledger.Release || s.Label != report.LabelExperimental || !strings.Contains(strings.Join(s.LabelReasons, " "), "ledger db-dump/2026-11-24+") {
			t.Errorf("%s: ledger %+v, label %q %v; want experimental for the ledger", name, s.Provenance.Ledger, s.Label, s.LabelReasons)
		}
	}
}
