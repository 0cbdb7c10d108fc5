package leaderboard

import (
	"strings"
	"testing"
)

func TestCheckTraceV2(t *testing.T) {
	t.Parallel()
	const header, data = "trace_version: 2\ntime_unit: microseconds\n", "request_id,arrival_time_us\n0,0\n1,250000\n"
	if err := CheckTraceV2([]byte(header), []byte(data)); err != nil {
		t.Fatalf("a good pair: %v", err)
	}
	for _, c := range []struct{ name, header, data, want string }{
		{"header not YAML", "a: [", data, "header: not a YAML mapping"},
		{"header a list", "- 1\n", data, "header: not a YAML mapping"},
		{"no version", "mode: real\n", data, "header: trace_version: missing"},
		{"version 0", "trace_version: 0\n", data, "header: trace_version: 0"},
		{"version text", "trace_version: two\n", data, `header: trace_version: "two"`},
		{"empty data", header, "", "data: the header row: EOF"},
		{"no rows", header, "request_id\n", "data: no request rows"},
		{"column twice", header, "a,a\n1,2\n", `column 2 is empty or named twice ("a")`},
		{"ragged", header, "a,b\n1\n", "data: record on line 2: wrong number of fields"},
		{"bad quote", header, "a,b\n\"1,2\n", "data: parse error on line 2"},
	} {
		if err := CheckTraceV2([]byte(c.header), []byte(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
}

// A saved workload is checked as runs.yaml's groups are, and the file of
// them reads back as written.
func TestSavedWorkloads(t *testing.T) {
	t.Parallel()
	tr := SavedTracePaths("results", TraceFormatV2, strings.Repeat("a", 64))
	g := Group{ID: "up", Workload: &Workload{Trace: &tr}, Load: &Load{Arrival: ArrivalRecorded}}
	raw, err := EncodeSavedWorkloads([]Group{g})
	if err != nil {
		t.Fatal(err)
	}
	if twice, _ := EncodeSavedWorkloads([]Group{g, g}); twice != nil {
		if _, err := DecodeSavedWorkloads(twice); err == nil || !strings.Contains(err.Error(), "id up is given twice") {
			t.Errorf("an id twice: %v", err)
		}
	}
	back, err := DecodeSavedWorkloads(raw)
	if err != nil || len(back) != 1 || back[0].Workload.Trace.Header != "results/traces/"+strings.Repeat("a", 64)+"/header.yaml" {
		t.Fatalf("read back: %v %+v", err, back)
	}
	rate := 4.0
	for _, c := range []struct {
		name string
		edit func(*Group)
		want string
	}{
		{"a rate", func(g *Group) { g.Load = &Load{Rate: &rate} }, "load: a trace is offered at its recorded arrivals"},
		{"a bad id", func(g *Group) { g.ID = "Up" }, "id: "},
		{"no load", func(g *Group) { g.Load = nil }, "missing property 'load'"},
		{"a candidate", func(g *Group) { g.Candidates = []Candidate{{ID: "x"}} }, "candidates: a saved workload has none"},
	} {
		e := g
		c.edit(&e)
		if err := CheckWorkloadGroup(e); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
	for _, c := range []struct{ name, raw, want string }{
		{"version 2", `{"version": 2, "workloads": []}`, "version 2; want 1"},
		{"unknown field", `{"version": 1, "workloads": [], "x": 1}`, "unknown field"},
	} {
		if _, err := DecodeSavedWorkloads([]byte(c.raw)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
}

// FuzzCheckTraceV2: any header and data are accepted or refused naming
// the file at fault; never a panic.
func FuzzCheckTraceV2(f *testing.F) {
	f.Add([]byte("trace_version: 2\n"), []byte("a,b\n1,2\n"))
	f.Add([]byte("trace_version: [1]\n"), []byte("\"a\n"))
	f.Add([]byte("&a [*a]"), []byte(""))
	f.Fuzz(func(t *testing.T, header, data []byte) {
		if err := CheckTraceV2(header, data); err != nil && !strings.HasPrefix(err.Error(), "header: ") && !strings.HasPrefix(err.Error(), "data: ") {
			t.Fatalf("refusal names no file: %v", err)
		}
	})
}

// FuzzDecodeSavedWorkloads: any bytes are refused naming the workloads
// file, or read as workloads each of which checks.
func FuzzDecodeSavedWorkloads(f *testing.F) {
	f.Add([]byte(`{"version": 1, "workloads": [{"id": "up", "workload": {"trace": {"format": "tracev2", "header": "h", "data": "d"}}, "load": {"arrival": "recorded"}, "candidates": null}]}`))
	f.Add([]byte(`{"version": 1, "workloads": []}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		ws, err := DecodeSavedWorkloads(raw)
		if err != nil {
			if !strings.HasPrefix(err.Error(), WorkloadsFile+": ") {
				t.Fatalf("refusal does not name the file: %v", err)
			}
			return
		}
		for _, g := range ws {
			if err := CheckWorkloadGroup(g); err != nil {
				t.Fatalf("accepted a workload that does not check: %v", err)
			}
		}
	})
}
