package harness

import (
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// TestDumpLedgerVersion: the rule, case by case.
func TestDumpLedgerVersion(t *testing.T) {
	h := runresult.Harness{Commit: strings.Repeat("a", 40), Source: runresult.HarnessCheckout, Version: "v1.4.0"}
	m := ledger.Manifest{SchemaVersion: 1, Name: "inferencex-db", Version: "2026-11-24", Release: true}
	ok := DumpImport{Dump: "db-dump/2026-11-24", Importer: h}
	const digest = "sha256:0123456789abcdef"
	if v, rel, why := DumpLedgerVersion(m, digest, ok, h); !rel || why != "" || v != "db-dump/2026-11-24+0123456789ab" {
		t.Errorf("released: %q %v %q", v, rel, why)
	}
	unreleased := h
	unreleased.Version = ""
	for name, c := range map[string]struct {
		m      ledger.Manifest
		imp    DumpImport
		scorer runresult.Harness
		why    string
	}{
		"not a dump tag":        {m, DumpImport{Dump: "db-dump/2026-13-01", Importer: h}, h, "not a weekly dump tag"},
		"manifest not release":  {ledger.Manifest{SchemaVersion: 1, Name: "inferencex-db", Version: "2026-11-24"}, ok, h, "does not say release"},
		"version not the date":  {ledger.Manifest{SchemaVersion: 1, Name: "inferencex-db", Version: "2026.11.0", Release: true}, ok, h, "is not the dump's date 2026-11-24"},
		"importer unreleased":   {m, DumpImport{Dump: ok.Dump, Importer: unreleased}, unreleased, "which no release names"},
		"scorer another commit": {m, ok, runresult.Harness{Commit: strings.Repeat("c", 40), Version: "v1.4.0"}, "not by the harness scoring it"},
		"scorer unreleased":     {m, ok, unreleased, "(no release)"},
	} {
		if _, rel, why := DumpLedgerVersion(c.m, digest, c.imp, c.scorer); rel || !strings.Contains(why, c.why) {
			t.Errorf("%s: release %v, why %q; want %q", name, rel, why, c.why)
		}
	}
}
