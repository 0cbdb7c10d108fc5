package leaderboard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// nodeFields are the OpenTelemetry attributes that name the machine a
// span was recorded on (resource semantic conventions: host.name, host.id,
// k8s.node.name, k8s.node.uid). They are looked for in each span's resource
// attributes and in its own attributes.
var nodeFields = []string{"host.name", "host.id", "k8s.node.name", "k8s.node.uid"}

// traceNodes reads the source of an otel or weka trace and returns, for
// each node field it carries, the distinct values (sorted). A file that is
// not a trace of that format is an error naming where it goes wrong.
//
// otel: one JSON value, or several (JSONL), each an object with "spans"
// (the flat export inference-perf and `blis convert otel` read: span
// objects whose "attributes" and "resource" {"attributes"} are maps) or
// "resourceSpans" (OTLP/JSON: resource.attributes and scopeSpans[].spans[]
// .attributes as [{key, value: {stringValue|intValue|...}}]).
//
// weka: JSONL, one trace object per line with "id" and "requests" (the
// WekaTrace schema: id, models, block_size, tool_tokens, system_tokens,
// requests[]). The schema names no node, so no field is returned.
func traceNodes(format string, raw []byte) (map[string][]string, error) {
	switch format {
	case TraceFormatOTel:
		return otelNodes(raw)
	case TraceFormatWeka:
		return nil, checkWeka(raw)
	}
	return nil, fmt.Errorf("trace format %q has no node check", format)
}

// CheckSingleNode refuses a trace whose source spanned more than one node:
// the error names the field and its values.
func CheckSingleNode(format string, raw []byte) error {
	nodes, err := traceNodes(format, raw)
	if err != nil {
		return err
	}
	var many []string
	for _, f := range nodeFields {
		if v := nodes[f]; len(v) > 1 {
			shown := v
			if len(shown) > 5 {
				shown = append(slices.Clone(shown[:5]), fmt.Sprintf("… %d in all", len(v)))
			}
			many = append(many, fmt.Sprintf("%s has %d values (%s)", f, len(v), strings.Join(shown, ", ")))
		}
	}
	if len(many) > 0 {
		return fmt.Errorf("the trace's source spanned more than one node: %s; replay one node's trace", strings.Join(many, "; "))
	}
	return nil
}

// maxNodeValues bounds the distinct values kept per field (a refusal needs
// two).
const maxNodeValues = 1000

type nodeSet map[string]map[string]bool

func (n nodeSet) add(key string, v any) {
	if !slices.Contains(nodeFields, key) {
		return
	}
	s, ok := attrString(v)
	if !ok || s == "" {
		return
	}
	if n[key] == nil {
		n[key] = map[string]bool{}
	}
	if len(n[key]) < maxNodeValues {
		n[key][s] = true
	}
}

func (n nodeSet) sorted() map[string][]string {
	out := map[string][]string{}
	for k, vs := range n {
		for v := range vs {
			out[k] = append(out[k], v)
		}
		sort.Strings(out[k])
	}
	return out
}

// attrString is an attribute value as text: a JSON string or number, or
// an OTLP AnyValue ({"stringValue": ...}, {"intValue": ...}).
func attrString(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case json.Number:
		return t.String(), true
	case bool:
		return strconv.FormatBool(t), true
	case map[string]any:
		for _, k := range []string{"stringValue", "intValue", "doubleValue", "boolValue"} {
			if x, ok := t[k]; ok {
				return attrString(x)
			}
		}
	}
	return "", false
}

// addAttributes adds the node fields of an attribute set: a map (flat
// export) or an OTLP list of {key, value}.
func (n nodeSet) addAttributes(where string, attrs any) error {
	switch t := attrs.(type) {
	case nil:
	case map[string]any:
		for k, v := range t {
			n.add(k, v)
		}
	case []any:
		for i, kv := range t {
			m, ok := kv.(map[string]any)
			if !ok {
				return fmt.Errorf("%s.attributes[%d]: not a {key, value} object", where, i)
			}
			key, _ := m["key"].(string)
			n.add(key, m["value"])
		}
	default:
		return fmt.Errorf("%s.attributes: neither an object nor a list", where)
	}
	return nil
}

func otelNodes(raw []byte) (map[string][]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	nodes := nodeSet{}
	spans := 0
	for i := 1; ; i++ {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("otel trace: value %d: %v", i, err)
		}
		doc, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("otel trace: value %d: not a JSON object", i)
		}
		n, err := otelDoc(fmt.Sprintf("value %d", i), doc, nodes)
		if err != nil {
			return nil, fmt.Errorf("otel trace: %w", err)
		}
		spans += n
	}
	if spans == 0 {
		return nil, errors.New("otel trace: no spans (want an object with \"spans\" or \"resourceSpans\")")
	}
	return nodes.sorted(), nil
}

// otelDoc adds the node fields of one trace object and returns its spans.
func otelDoc(where string, doc map[string]any, nodes nodeSet) (int, error) {
	flat, hasFlat := doc["spans"]
	otlp, hasOTLP := doc["resourceSpans"]
	if !hasFlat && !hasOTLP {
		return 0, fmt.Errorf("%s: neither \"spans\" nor \"resourceSpans\"", where)
	}
	n := 0
	if hasFlat {
		list, ok := flat.([]any)
		if !ok {
			return 0, fmt.Errorf("%s.spans: not a list", where)
		}
		for i, s := range list {
			span, ok := s.(map[string]any)
			if !ok {
				return 0, fmt.Errorf("%s.spans[%d]: not an object", where, i)
			}
			at := fmt.Sprintf("%s.spans[%d]", where, i)
			if err := nodes.addAttributes(at, span["attributes"]); err != nil {
				return 0, err
			}
			if res, ok := span["resource"].(map[string]any); ok {
				if err := nodes.addAttributes(at+".resource", res["attributes"]); err != nil {
					return 0, err
				}
			}
			n++
		}
	}
	if hasOTLP {
		list, ok := otlp.([]any)
		if !ok {
			return 0, fmt.Errorf("%s.resourceSpans: not a list", where)
		}
		for i, rs := range list {
			at := fmt.Sprintf("%s.resourceSpans[%d]", where, i)
			m, ok := rs.(map[string]any)
			if !ok {
				return 0, fmt.Errorf("%s: not an object", at)
			}
			if res, ok := m["resource"].(map[string]any); ok {
				if err := nodes.addAttributes(at+".resource", res["attributes"]); err != nil {
					return 0, err
				}
			}
			scopes, _ := m["scopeSpans"].([]any)
			for j, ss := range scopes {
				sm, _ := ss.(map[string]any)
				spans, _ := sm["spans"].([]any)
				for k, s := range spans {
					span, ok := s.(map[string]any)
					if !ok {
						return 0, fmt.Errorf("%s.scopeSpans[%d].spans[%d]: not an object", at, j, k)
					}
					if err := nodes.addAttributes(fmt.Sprintf("%s.scopeSpans[%d].spans[%d]", at, j, k), span["attributes"]); err != nil {
						return 0, err
					}
					n++
				}
			}
		}
	}
	return n, nil
}

// checkWeka checks that raw is Weka JSONL: each non-blank line a trace
// object with a string "id" and a "requests" list.
func checkWeka(raw []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64<<10), MaxTraceBytes)
	traces := 0
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var t struct {
			ID       *string           `json:"id"`
			Requests []json.RawMessage `json:"requests"`
		}
		if err := json.Unmarshal(text, &t); err != nil {
			return fmt.Errorf("weka trace: line %d: %v", line, err)
		}
		if t.ID == nil || t.Requests == nil {
			return fmt.Errorf("weka trace: line %d: a trace object needs \"id\" and \"requests\"", line)
		}
		traces++
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("weka trace: %v", err)
	}
	if traces == 0 {
		return errors.New("weka trace: no trace lines")
	}
	return nil
}
