package leaderboard

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func readTestTrace(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile("testdata/traces/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestTraceNodes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		format, file string
		want         map[string][]string
		refused      string // "" when one node
	}{
		{TraceFormatOTel, "otel-one-node.json", map[string][]string{"host.name": {"node-a"}}, ""},
		{TraceFormatOTel, "otel-two-nodes.json", map[string][]string{"host.name": {"node-a", "node-b"}}, "host.name has 2 values (node-a, node-b)"},
		{TraceFormatOTel, "otel-otlp-two-nodes.json", map[string][]string{"k8s.node.name": {"gpu-node-1", "gpu-node-2"}}, "k8s.node.name has 2 values (gpu-node-1, gpu-node-2)"},
		{TraceFormatWeka, "weka.jsonl", nil, ""},
	} {
		raw := readTestTrace(t, tt.file)
		got, err := traceNodes(tt.format, raw)
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
			continue
		}
		if len(got) != len(tt.want) || (len(got) > 0 && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("%s: nodes %v, want %v", tt.file, got, tt.want)
		}
		err = CheckSingleNode(tt.format, raw)
		switch {
		case tt.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", tt.file, err)
		case tt.refused != "" && (err == nil || !strings.Contains(err.Error(), tt.refused) || !strings.Contains(err.Error(), "more than one node")):
			t.Errorf("%s: CheckSingleNode = %v, want a refusal naming %q", tt.file, err, tt.refused)
		}
	}
}

// JSONL of otel traces: the node fields of every line count together.
func TestTraceNodesAcrossJSONLLines(t *testing.T) {
	t.Parallel()
	raw := `{"spans":[{"attributes":{"host.name":"a"}}]}` + "\n" + `{"spans":[{"resource":{"attributes":{"host.name":"b"}}}]}` + "\n"
	if err := CheckSingleNode(TraceFormatOTel, []byte(raw)); err == nil || !strings.Contains(err.Error(), "host.name has 2 values (a, b)") {
		t.Fatalf("CheckSingleNode = %v, want host.name a, b refused", err)
	}
}

func TestTraceNodesRefusesWhatIsNotATrace(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ format, raw, want string }{
		{TraceFormatOTel, `[1,2]`, "value 1: not a JSON object"},
		{TraceFormatOTel, `{"traces":[]}`, `neither "spans" nor "resourceSpans"`},
		{TraceFormatOTel, `{"spans":[]}`, "no spans"},
		{TraceFormatOTel, `{"spans":[{"attributes":7}]}`, "value 1.spans[0].attributes: neither an object nor a list"},
		{TraceFormatOTel, `{"spans":[{}]} {"spans":`, "value 2"},
		{TraceFormatOTel, `{"resourceSpans":[{"resource":{"attributes":[3]}}]}`, "resourceSpans[0].resource.attributes[0]"},
		{TraceFormatWeka, `{"id":"x","requests":[]}` + "\n" + `{"id":"y"}`, `line 2: a trace object needs "id" and "requests"`},
		{TraceFormatWeka, "\n\n", "no trace lines"},
		{TraceFormatWeka, "{not json", "line 1"},
		{TraceFormatV2, "x", "no node check"},
	} {
		if _, err := traceNodes(tt.format, []byte(tt.raw)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("traceNodes(%s, %q) = %v, want an error containing %q", tt.format, tt.raw, err, tt.want)
		}
	}
}

// FuzzTraceNodes: untrusted trace files never panic the reader; what it
// accepts gives sorted, distinct values of node fields only, and a refusal
// exactly when a field has two values.
func FuzzTraceNodes(f *testing.F) {
	for _, name := range []string{"otel-one-node.json", "otel-two-nodes.json", "otel-otlp-two-nodes.json", "weka.jsonl"} {
		f.Add(name == "weka.jsonl", readTestTrace(f, name))
	}
	f.Add(false, []byte(`{"spans":[{"attributes":{"host.id":{"intValue":"3"}}}]}`))
	f.Fuzz(func(t *testing.T, weka bool, raw []byte) {
		format := TraceFormatOTel
		if weka {
			format = TraceFormatWeka
		}
		nodes, err := traceNodes(format, raw)
		if err != nil {
			return
		}
		multi := false
		for k, vs := range nodes {
			found := false
			for _, f := range nodeFields {
				found = found || f == k
			}
			if !found {
				t.Fatalf("field %q is not a node field", k)
			}
			for i := 1; i < len(vs); i++ {
				if vs[i-1] >= vs[i] {
					t.Fatalf("%s values not sorted and distinct: %q", k, vs)
				}
			}
			multi = multi || len(vs) > 1
		}
		if refused := CheckSingleNode(format, raw) != nil; refused != multi {
			t.Fatalf("refused = %v, but a field with several values: %v (%v)", refused, multi, nodes)
		}
	})
}
