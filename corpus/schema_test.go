package corpus_test

import (
	"testing"

	"github.com/inference-sim/accuracy-dashboard/corpus"
	"github.com/inference-sim/accuracy-dashboard/internal/importer/importertest"
)

// TestBundledLedgerMatchesSchemas validates the bundled ledger's manifest and
// every unit against the ledger JSON Schemas.
func TestBundledLedgerMatchesSchemas(t *testing.T) {
	t.Parallel()
	importertest.CheckLedgerSchemas(t, "bundled", corpus.Ledger())
}
