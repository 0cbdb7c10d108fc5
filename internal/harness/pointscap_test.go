package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// The cap on points.json is checked before anything is built or simulated,
// at its boundary: the stand-in's run writes a points.json no smaller than
// the bound, a cap of exactly the bound runs, one byte less is refused
// before the build (the simulator repository does not exist), for a shard
// too (the merged run's bound).
func TestScoreRefusesOverThePointsCapBeforeSimulating(t *testing.T) {
	o := scoreOpts(t, "ledger", "v0.2.0")
	whole, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	bound, err := runresult.PointsBytesAtLeast(whole.Points)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := runresult.Write(dir, runresult.Output{Result: whole.Result}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, runresult.PointsFile))
	if err != nil {
		t.Fatal(err)
	}
	if int(fi.Size()) < bound {
		t.Fatalf("points.json is %d bytes, under its lower bound %d", fi.Size(), bound)
	}
	t.Logf("points.json %d bytes, bound %d (%.0f %%), %d points", fi.Size(), bound, 100*float64(bound)/float64(fi.Size()), len(whole.Points))

	at := o
	at.PointsCap = bound
	if _, err := Score(context.Background(), at); err != nil {
		t.Errorf("a cap of exactly the bound: %v", err)
	}
	for _, shard := range []*runresult.Shard{nil, {Index: 1, Count: 3}} {
		over := o
		over.PointsCap, over.Shard = bound-1, shard
		over.SimRepo = filepath.Join(t.TempDir(), "no-such-simulator")
		_, err := Score(context.Background(), over)
		if !errors.Is(err, runresult.ErrOverPointsCap) {
			t.Errorf("shard %v, a cap one byte under the bound: err = %v, want ErrOverPointsCap before the build", shard, err)
		}
	}
}
