package report

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Part is the output of one shard.
type Part struct {
	// Name says where the part came from (a directory), for errors.
	Name string
	Run
}

// Merge combines the outputs of the shards of one run into the summary and
// points an unsharded run would have produced. The parts must share one
// provenance, carry distinct shard indices of one count that together cover
// every shard, and hold disjoint points.
func Merge(parts []Part) (Summary, []Point, error) {
	if len(parts) == 0 {
		return Summary{}, nil, fmt.Errorf("merge: no shard outputs given")
	}
	first := parts[0]
	if first.Summary.Shard == nil {
		return Summary{}, nil, fmt.Errorf("merge: %s is not a shard output (its summary has no shard)", first.Name)
	}
	count := first.Summary.Shard.Count
	seenShard := map[int]string{}
	seenPoint := map[string]string{}
	var points []Point
	for _, p := range parts {
		s := p.Summary.Shard
		if s == nil {
			return Summary{}, nil, fmt.Errorf("merge: %s is not a shard output (its summary has no shard)", p.Name)
		}
		if s.Count != count {
			return Summary{}, nil, fmt.Errorf("merge: %s is shard %d/%d but %s is of %d shards", p.Name, s.Index, s.Count, first.Name, count)
		}
		if other, dup := seenShard[s.Index]; dup {
			return Summary{}, nil, fmt.Errorf("merge: %s and %s are both shard %d/%d", other, p.Name, s.Index, count)
		}
		seenShard[s.Index] = p.Name
		if !reflect.DeepEqual(p.Summary.Provenance, first.Summary.Provenance) {
			a, _ := json.Marshal(first.Summary.Provenance)
			b, _ := json.Marshal(p.Summary.Provenance)
			return Summary{}, nil, fmt.Errorf("merge: %s and %s come from different runs:\n  %s\n  %s", first.Name, p.Name, a, b)
		}
		for _, pt := range p.Points {
			if other, dup := seenPoint[pt.ID]; dup {
				return Summary{}, nil, fmt.Errorf("merge: point %s is in both %s and %s", pt.ID, other, p.Name)
			}
			seenPoint[pt.ID] = p.Name
			points = append(points, pt)
		}
		if len(p.Points) != p.Summary.Coverage.CorpusPoints {
			return Summary{}, nil, fmt.Errorf("merge: %s lists %d points but its summary counts %d", p.Name, len(p.Points), p.Summary.Coverage.CorpusPoints)
		}
	}
	if len(seenShard) != count {
		var missing []int
		for k := 1; k <= count; k++ {
			if _, ok := seenShard[k]; !ok {
				missing = append(missing, k)
			}
		}
		return Summary{}, nil, fmt.Errorf("merge: shards %v of %d are missing", missing, count)
	}
	sum, err := Summarize(points, first.Summary.Provenance, nil)
	if err != nil {
		return Summary{}, nil, fmt.Errorf("merge: %w", err)
	}
	return sum, SortPoints(points), nil
}
