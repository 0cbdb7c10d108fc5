package corpus

import (
	"io/fs"
	"slices"
	"testing"
)

// TestOnlyTheScoredDataIsEmbedded: the binary carries the ledger, the
// catalog, the hardware registry and the what-if declarations, never sources/ (the import's input, about 3 MB, which the
// harness does not read) or anything else beside them.
func TestOnlyTheScoredDataIsEmbedded(t *testing.T) {
	t.Parallel()
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		t.Fatal(err)
	}
	var top []string
	for _, e := range entries {
		top = append(top, e.Name())
	}
	if want := []string{"catalog", "hardware", "ledger", "whatif"}; !slices.Equal(top, want) {
		t.Errorf("embedded top-level entries %v, want %v", top, want)
	}
}
