package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// TestLedgerVersion: the bundled ledger as its manifest says; a directory
// outside git by its content, not a release; a clean checkout at a tag a
// release; a dump-imported ledger by the dump rule, against the harness
// scoring it.
func TestLedgerVersion(t *testing.T) {
	ctx := context.Background()
	const digest = "sha256:0123456789abcdef0123"
	l := &ledger.Ledger{Manifest: ledger.Manifest{SchemaVersion: 1, Name: "corpus", Version: "2026.11.0", Release: true}, Digest: digest}

	if v, why, err := LedgerVersion(ctx, l, "", nil, ""); err != nil || why != "" || v != (runresult.DataVersion{Name: "corpus", Version: "2026.11.0", Digest: digest, Release: true}) {
		t.Errorf("bundled: %+v %q %v", v, why, err)
	}
	plain := t.TempDir()
	if v, _, err := LedgerVersion(ctx, l, plain, nil, ""); err != nil || v.Release || v.Version != "2026.11.0+0123456789ab" {
		t.Errorf("a plain directory: %+v %v", v, err)
	}

	checkout := t.TempDir()
	if err := os.WriteFile(filepath.Join(checkout, "ledger.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	harnesstest.GitInit(t, checkout)
	commit := harnesstest.CommitAll(t, checkout, "ledger")
	if v, _, err := LedgerVersion(ctx, l, checkout, nil, ""); err != nil || v.Release || v.Version != "2026.11.0+"+commit {
		t.Errorf("an untagged checkout: %+v %v", v, err)
	}
	harnesstest.Run(t, checkout, "git", "tag", "v2026.11.0")
	if v, _, err := LedgerVersion(ctx, l, checkout, nil, ""); err != nil || !v.Release || v.Version != "2026.11.0" {
		t.Errorf("a tagged checkout: %+v %v", v, err)
	}

	hdir, hcommit := harnesstest.HarnessCheckout(t)
	harnesstest.Run(t, hdir, "git", "tag", "v1.4.0")
	dumped := &ledger.Ledger{Manifest: ledger.Manifest{SchemaVersion: 1, Name: "inferencex-db", Version: "2026-11-24", Release: true}, Digest: digest}
	imp := &DumpImport{Dump: "db-dump/2026-11-24", Importer: runresult.Harness{Commit: hcommit, Version: "v1.4.0", Source: runresult.HarnessCheckout}}
	if v, why, err := LedgerVersion(ctx, dumped, plain, imp, hdir); err != nil || why != "" || !v.Release || v.Version != "db-dump/2026-11-24+0123456789ab" {
		t.Errorf("dump imported by the scoring harness: %+v %q %v", v, why, err)
	}
	other := *imp
	other.Importer.Commit = strings.Repeat("b", 40)
	if v, why, err := LedgerVersion(ctx, dumped, plain, &other, hdir); err != nil || v.Release || !strings.Contains(why, "not by the harness scoring it") {
		t.Errorf("dump imported by another harness: %+v %q %v", v, why, err)
	}
	if _, _, err := LedgerVersion(ctx, dumped, plain, imp, t.TempDir()); err == nil {
		t.Error("a harness directory that is no checkout: no error")
	}
}
