package leaderboard

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"gopkg.in/yaml.v3"

	"github.com/inference-sim/accuracy-dashboard/schemas"
)

// nodeIndex maps field paths ("groups[0].candidates[1].tp") of a YAML
// document to the lines they are written on, so a problem found after
// decoding can still name its line.
type nodeIndex struct {
	lines map[string]int
	// byLine is the innermost path written on each line.
	byLine map[int]string
}

func indexNode(root *yaml.Node, _ string) *nodeIndex {
	idx := &nodeIndex{lines: map[string]int{}, byLine: map[int]string{}}
	var walk func(n *yaml.Node, path string, line int)
	walk = func(n *yaml.Node, path string, line int) {
		idx.lines[path] = line
		if prev, ok := idx.byLine[line]; !ok || len(path) > len(prev) {
			idx.byLine[line] = path
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				walk(v, p, k.Line)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i), c.Line)
			}
		case yaml.AliasNode:
			if n.Alias != nil {
				walk(n.Alias, path, line)
			}
		}
	}
	walk(root, "", root.Line)
	return idx
}

// line returns the line of path, or of its nearest written ancestor.
func (x *nodeIndex) line(path string) int {
	if x == nil {
		return 0
	}
	for p := path; ; {
		if l, ok := x.lines[p]; ok {
			return l
		}
		k := strings.LastIndexAny(p, ".[")
		if k <= 0 {
			return x.lines[""]
		}
		p = p[:k]
	}
}

// fieldAt returns the innermost field path written on line ("" if none).
func (x *nodeIndex) fieldAt(line int) string {
	if x == nil {
		return ""
	}
	return x.byLine[line]
}

// toJSONValue converts a YAML node to the value JSON Schema validation
// sees. Mapping keys must be strings.
func toJSONValue(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return toJSONValue(n.Content[0])
	case yaml.AliasNode:
		return toJSONValue(n.Alias)
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a mapping key must be a plain name", k.Line)
			}
			v, err := toJSONValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := toJSONValue(c)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, fmt.Errorf("line %d: %v", n.Line, err)
			}
			return b, nil
		case "!!int", "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, fmt.Errorf("line %d: %v", n.Line, err)
			}
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, fmt.Errorf("line %d: %s is not a finite number", n.Line, n.Value)
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
		}
		return n.Value, nil
	}
	return nil, fmt.Errorf("line %d: unexpected YAML node", n.Line)
}

// validateSchema checks the document against schemas/leaderboard-runs.v1.json.
func validateSchema(root *yaml.Node, name string, idx *nodeIndex) error {
	v, err := toJSONValue(root)
	if err != nil {
		return Errors{yamlError(name, err, idx)}
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return Errors{{File: name, Msg: err.Error()}}
	}
	return schemaErrors(schemas.LeaderboardRuns, raw, name, idx)
}

var schemaPrinter = message.NewPrinter(language.English)

// schemaErrors validates raw against a schema and returns one Error per
// failing leaf, located through idx (nil: no lines).
func schemaErrors(schema string, raw []byte, name string, idx *nodeIndex) error {
	err := schemas.ValidateDetailed(schema, raw)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return Errors{{File: name, Msg: err.Error()}}
	}
	var errs Errors
	seen := map[string]bool{}
	var leaves func(e *jsonschema.ValidationError)
	leaves = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				leaves(c)
			}
			return
		}
		path := pointerToPath(e.InstanceLocation)
		msg := e.ErrorKind.LocalizedString(schemaPrinter)
		// An unknown key is named by its own path, so the line is its own.
		if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok && len(ap.Properties) > 0 {
			if path != "" {
				path += "."
			}
			path += ap.Properties[0]
			msg = "unknown field (not in the format; misspelt?)"
		}
		if seen[path+msg] {
			return
		}
		seen[path+msg] = true
		errs = append(errs, &Error{File: name, Line: idx.line(path), Field: path, Msg: msg})
	}
	leaves(ve)
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
	return errs
}

// pointerToPath writes a JSON instance location as a field path:
// ["groups","0","id"] → groups[0].id.
func pointerToPath(loc []string) string {
	var b strings.Builder
	for _, s := range loc {
		if _, err := strconv.Atoi(s); err == nil {
			b.WriteString("[" + s + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}
