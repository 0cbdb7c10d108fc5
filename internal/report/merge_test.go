package report

import (
	"strings"
	"testing"
)

// TestMergeRefusesShardsOfDifferentRuns: shards whose provenance differs
// (another simulator build, harness or data version) are refused, and the
// error names each field that differs.
func TestMergeRefusesShardsOfDifferentRuns(t *testing.T) {
	prov := func(commit, ledger string) Provenance {
		return Provenance{
			Harness:   Harness{Commit: strings.Repeat("a", 40), Source: HarnessCheckout, Version: "v1.0.0"},
			Simulator: Simulator{Repo: "sim", Ref: "v0.2.0", Commit: commit, Tag: "v0.2.0", Release: true, BuiltByHarness: true},
			Ledger:    DataVersion{Name: "blis-default", Version: ledger, Digest: "sha256:00", Release: true},
		}
	}
	part := func(k int, p Provenance) Part {
		return Part{Name: "shard-" + string(rune('0'+k)), Run: Run{Summary: Summary{Shard: &Shard{Index: k, Count: 2}, Provenance: p}}}
	}
	same := prov(strings.Repeat("b", 40), "2026.11.0")
	if _, _, err := Merge([]Part{part(1, same), part(2, same)}); err != nil {
		t.Fatalf("shards of one run: %v", err)
	}
	_, _, err := Merge([]Part{part(1, same), part(2, prov(strings.Repeat("c", 40), "2026.12.0"))})
	if err == nil {
		t.Fatal("shards of two builds merged")
	}
	for _, want := range []string{"shard-1 and shard-2 come from different runs", `simulator.commit: "bbbb`, `→ "cccc`, `ledger.version: "2026.11.0" → "2026.12.0"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "harness.") {
		t.Errorf("error names a field that is equal: %v", err)
	}
}
