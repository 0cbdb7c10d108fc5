package runresult

import (
	"fmt"
	"reflect"
	"strings"
)

// Part is the output of one shard.
type Part struct {
	// Name says where the part came from (a directory), for errors.
	Name string
	Result
}

// ReadParts reads the run in each directory (Read) as a Part named by the
// directory, in order, for Merge. The first directory that does not read is
// the error, Read's (naming the directory).
func ReadParts(dirs []string) ([]Part, error) {
	if err := CheckPartsCap(dirs, 0); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	parts := make([]Part, 0, len(dirs))
	for _, dir := range dirs {
		r, err := Read(dir)
		if err != nil {
			return nil, err
		}
		parts = append(parts, Part{Name: dir, Result: r})
	}
	return parts, nil
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
			return Summary{}, nil, fmt.Errorf("merge: %s and %s come from different runs (the simulator build, harness or data differ): %s",
				first.Name, p.Name, strings.Join(ProvenanceDiff(first.Summary.Provenance, p.Summary.Provenance), "; "))
		}
		for _, pt := range p.Points {
			if other, dup := seenPoint[pt.ID]; dup {
				return Summary{}, nil, fmt.Errorf("merge: point %s is in both %s and %s", pt.ID, other, p.Name)
			}
			seenPoint[pt.ID] = p.Name
			points = append(points, pt)
		}
		if err := CheckPoints(p.Summary, p.Points); err != nil {
			return Summary{}, nil, fmt.Errorf("merge: %s: %w", p.Name, err)
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

// ProvenanceDiff lists the fields where two provenances differ, by their
// JSON path, e.g. `simulator.commit: "0123…" → "4567…"`.
func ProvenanceDiff(a, b Provenance) []string {
	var out []string
	for _, d := range DiffJSON(a, b) {
		out = append(out, d.String())
	}
	return out
}
