package runresult

import (
	"path/filepath"
	"reflect"
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
		return Part{Name: "shard-" + string(rune('0'+k)), Result: Result{Summary: Summary{Shard: &Shard{Index: k, Count: 2}, Provenance: p}}}
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

// TestReadPartsMergesShardDirectories: the shards' directories read as
// parts named by them, in order, merge into the unsharded run; a directory
// that is no run is the error, named.
func TestReadPartsMergesShardDirectories(t *testing.T) {
	t.Parallel()
	pts := []Point{pt("u", 1, "resolved", 10, 11), pt("u", 2, "resolved", 20, 0), pt("v", 1, "resolved", 30, 33)}
	whole, err := Summarize(pts, testProvenance(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for k, shardPts := range [][]Point{pts[:2], pts[2:]} {
		shard := &Shard{Index: k + 1, Count: 2}
		s, err := Summarize(shardPts, testProvenance(), shard)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "shard")
		if err := Write(dir, Output{Result: Result{Summary: s, Points: shardPts}}); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	parts, err := ReadParts(dirs)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || parts[0].Name != dirs[0] || parts[1].Name != dirs[1] || len(parts[0].Points) != 2 || parts[1].Summary.Shard.Index != 2 {
		t.Fatalf("parts %+v", parts)
	}
	s, p, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, whole) || len(p) != len(pts) {
		t.Errorf("merged summary %+v (%d points), want the unsharded %+v", s, len(p), whole)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := ReadParts([]string{dirs[0], missing}); err == nil || !strings.HasPrefix(err.Error(), missing+": ") {
		t.Errorf("a directory that is no run: %v", err)
	}
}
