package report

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
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

// ProvenanceDiff lists the fields where two provenances differ, by their
// JSON path, e.g. `simulator.commit "0123…" vs "4567…"`.
func ProvenanceDiff(a, b Provenance) []string {
	fa, fb := map[string]string{}, map[string]string{}
	flattenJSON(a, fa)
	flattenJSON(b, fb)
	keys := map[string]bool{}
	for k := range fa {
		keys[k] = true
	}
	for k := range fb {
		keys[k] = true
	}
	var diff []string
	for k := range keys {
		va, oka := fa[k]
		vb, okb := fb[k]
		if !oka {
			va = "(none)"
		}
		if !okb {
			vb = "(none)"
		}
		if va != vb {
			diff = append(diff, fmt.Sprintf("%s %s vs %s", k, va, vb))
		}
	}
	sort.Strings(diff)
	return diff
}

// flattenJSON records v's JSON leaves by dotted path.
func flattenJSON(v any, out map[string]string) {
	raw, err := json.Marshal(v)
	if err != nil {
		return
	}
	var tree any
	if json.Unmarshal(raw, &tree) != nil {
		return
	}
	var walk func(prefix string, n any)
	walk = func(prefix string, n any) {
		switch n := n.(type) {
		case map[string]any:
			for k, c := range n {
				walk(strings.TrimPrefix(prefix+"."+k, "."), c)
			}
		default:
			leaf, _ := json.Marshal(n)
			out[prefix] = string(leaf)
		}
	}
	walk("", tree)
}
