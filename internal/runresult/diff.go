package runresult

import (
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
)

// FieldDiff is one field that differs between two values: its dotted path
// and both JSON values ("(absent)" where a side lacks it).
type FieldDiff struct {
	Field    string
	Old, New string
}

func (d FieldDiff) String() string { return d.Field + ": " + d.Old + " → " + d.New }

// DiffJSON compares the JSON forms of a and b leaf by leaf (fields by
// dotted path, array elements by [index]), sorted by field.
func DiffJSON(a, b any) []FieldDiff {
	var av, bv any
	ra, _ := json.Marshal(a)
	rb, _ := json.Marshal(b)
	_ = json.Unmarshal(ra, &av)
	_ = json.Unmarshal(rb, &bv)
	fa, fb := map[string]any{}, map[string]any{}
	flatten("", av, fa)
	flatten("", bv, fb)
	keys := map[string]bool{}
	for k := range fa {
		keys[k] = true
	}
	for k := range fb {
		keys[k] = true
	}
	var out []FieldDiff
	for k := range keys {
		x, okx := fa[k]
		y, oky := fb[k]
		if okx && oky && reflect.DeepEqual(x, y) {
			continue
		}
		out = append(out, FieldDiff{Field: k, Old: show(x, okx), New: show(y, oky)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

func flatten(prefix string, v any, out map[string]any) {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			flatten(p, c, out)
		}
	case []any:
		for i, c := range t {
			flatten(prefix+"["+strconv.Itoa(i)+"]", c, out)
		}
		if len(t) == 0 {
			out[prefix] = t
		}
	default:
		out[prefix] = v
	}
}

func show(v any, ok bool) string {
	if !ok {
		return "(absent)"
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}
