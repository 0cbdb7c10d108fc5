package prcheck

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// ShardSet is the shard outputs a merge combines.
type ShardSet struct {
	// Head and Base are the result directories of each shard, in shard
	// order. Base is empty when the shards ran without a baseline.
	Head, Base []string
}

// PlanMerge finds the shard outputs under dir: every subdirectory (at any
// depth up to two, as actions/download-artifact lays them out) that holds a
// head/summary.json is one shard. It checks that the shards are exactly 1..n
// of one n, each once, and that either all or none have a base/ result.
func PlanMerge(dir string) (ShardSet, error) {
	var found []string
	for _, pattern := range []string{"*/head/" + runresult.SummaryFile, "*/*/head/" + runresult.SummaryFile} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return ShardSet{}, err
		}
		found = append(found, m...)
	}
	if len(found) == 0 {
		return ShardSet{}, fmt.Errorf("merge: no shard outputs (*/head/summary.json) under %s", dir)
	}
	byIndex := map[int]string{}
	count := 0
	for _, f := range found {
		shardDir := filepath.Dir(filepath.Dir(f))
		s, err := readSummary(f)
		if err != nil {
			return ShardSet{}, fmt.Errorf("merge: %w", err)
		}
		if s.Shard == nil {
			return ShardSet{}, fmt.Errorf("merge: %s is not a shard's result", f)
		}
		if count != 0 && s.Shard.Count != count {
			return ShardSet{}, fmt.Errorf("merge: %s is shard %d/%d but others are of %d", f, s.Shard.Index, s.Shard.Count, count)
		}
		count = s.Shard.Count
		if prev, dup := byIndex[s.Shard.Index]; dup {
			return ShardSet{}, fmt.Errorf("merge: shard %d/%d found twice: %s and %s", s.Shard.Index, count, prev, shardDir)
		}
		byIndex[s.Shard.Index] = shardDir
	}
	var missing []string
	for k := 1; k <= count; k++ {
		if _, ok := byIndex[k]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", k, count))
		}
	}
	if len(missing) > 0 {
		return ShardSet{}, fmt.Errorf("merge: shards missing under %s: %s", dir, strings.Join(missing, ", "))
	}
	idx := slices.Sorted(maps.Keys(byIndex))
	var set ShardSet
	withBase := 0
	for _, k := range idx {
		d := byIndex[k]
		set.Head = append(set.Head, filepath.Join(d, "head"))
		if _, err := os.Stat(filepath.Join(d, "base", runresult.SummaryFile)); err == nil {
			withBase++
			set.Base = append(set.Base, filepath.Join(d, "base"))
		}
	}
	if withBase != 0 && withBase != len(idx) {
		return ShardSet{}, fmt.Errorf("merge: %d of %d shards have a base result; all or none must", withBase, len(idx))
	}
	return set, nil
}
