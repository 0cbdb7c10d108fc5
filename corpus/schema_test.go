package corpus_test

import (
	"testing"

	"github.com/inference-sim/accuracy-dashboard/corpus"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// TestBundledLedgerMatchesSchemas validates the bundled ledger's manifest and
// every unit against the ledger JSON Schemas.
func TestBundledLedgerMatchesSchemas(t *testing.T) {
	t.Parallel()
	if err := ledger.CheckSchemas(corpus.Ledger()); err != nil {
		t.Error(err)
	}
}
