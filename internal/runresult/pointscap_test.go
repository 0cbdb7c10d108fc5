package runresult

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The bound is never over what Write writes, whatever the points became
// (scored, not scored with a reason, the shortest tier); the shards'
// points.json files, at a cap of exactly their total, merge, and one byte
// under it are refused before they are read.
func TestPointsCapBounds(t *testing.T) {
	t.Parallel()
	pts := []Point{pt("u", 1, "assumed", 10, 11), pt("u", 2, "assumed", 20, 0), pt("v", 1, "measured", 30, 33), pt("v", 2, "resolved", 1, 0)}
	pts[3].Reason, pts[3].Detail = "x", ""
	bound, err := PointsBytesAtLeast(pts)
	if err != nil {
		t.Fatal(err)
	}
	whole := filepath.Join(t.TempDir(), "whole")
	s, err := Summarize(pts, testProvenance(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(whole, Output{Result: Result{Summary: s, Points: pts}}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(whole, PointsFile))
	if err != nil {
		t.Fatal(err)
	}
	if bound > int(fi.Size()) {
		t.Errorf("bound %d over the %d bytes written", bound, fi.Size())
	}
	if err := CheckPointsCap(pts, bound); err != nil {
		t.Errorf("a cap of exactly the bound: %v", err)
	}
	if err := CheckPointsCap(pts, bound-1); !errors.Is(err, ErrOverPointsCap) {
		t.Errorf("a cap one byte under the bound: %v", err)
	}

	var dirs []string
	total := 0
	for k, shardPts := range [][]Point{pts[:2], pts[2:]} {
		s, err := Summarize(shardPts, testProvenance(), &Shard{Index: k + 1, Count: 2})
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "shard")
		if err := Write(dir, Output{Result: Result{Summary: s, Points: shardPts}}); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(dir, PointsFile))
		if err != nil {
			t.Fatal(err)
		}
		total += int(fi.Size()) - len("[\n\n]\n")
		dirs = append(dirs, dir)
	}
	if total > int(fi.Size()) {
		t.Errorf("the shards' bound %d is over the merged run's %d bytes", total, fi.Size())
	}
	if err := CheckPartsCap(dirs, total); err != nil {
		t.Errorf("shards at exactly the cap: %v", err)
	}
	if err := CheckPartsCap(dirs, total-1); !errors.Is(err, ErrOverPointsCap) {
		t.Errorf("shards one byte over the cap: %v", err)
	}
}
