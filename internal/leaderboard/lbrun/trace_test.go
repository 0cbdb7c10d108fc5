package lbrun

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
)

// traceSim is a Sim with f90a1e3a's real `blis replay --help` flags, the
// given converters and the test traces of internal/leaderboard stored
// under a traces directory.
func traceSim(t *testing.T, converters map[string]simcli.Flags) (*Sim, map[string]string) {
	t.Helper()
	help, err := os.ReadFile("../../harness/testdata/help/f90a1e3a-replay.txt")
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	os.MkdirAll(filepath.Join(data, "model_configs", "test-model-7b"), 0o755)
	os.WriteFile(filepath.Join(data, "model_configs", "test-model-7b", "config.json"), []byte("{}"), 0o644)
	traces := map[string]leaderboard.TraceFiles{}
	sums := map[string]string{}
	for name, format := range map[string]string{"otel-one-node.json": "otel", "otel-two-nodes.json": "otel", "weka.jsonl": "weka"} {
		raw, err := os.ReadFile(filepath.Join("..", "testdata", "traces", name))
		if err != nil {
			t.Fatal(err)
		}
		tf := leaderboard.TraceFiles{Format: format, Source: raw}
		traces[tf.Hash()], sums[name] = tf, tf.Hash()
	}
	dir := t.TempDir()
	if err := StoreTraces(dir, traces); err != nil {
		t.Fatal(err)
	}
	return &Sim{Build: &harness.Build{DataDir: data}, ReplayFlags: simcli.ParseFlags(string(help)), Converters: converters, TracesDir: dir}, sums
}

func traceRun(format, sum string) leaderboard.DeclaredRun {
	return leaderboard.DeclaredRun{Group: "g", ID: "h100", Candidate: leaderboard.Candidate{ID: "h100", Model: "org/test-model-7b", Hardware: "H100", TP: 1, DP: 1, Replicas: 1},
		Workload: leaderboard.Workload{Trace: &leaderboard.Trace{Format: format, SHA256: sum}}, Load: leaderboard.LoadPoint{Arrival: leaderboard.ArrivalRecorded}}
}

func TestPlanConvertedTraces(t *testing.T) {
	t.Parallel()
	full := simcli.Flags{"input": true, "trace-output": true}
	f90a1e3a := map[string]simcli.Flags{"inference-perf": {"spec": true}, "preset": {"name": true}, "servegen": {"path": true}}
	for _, tt := range []struct {
		name       string
		converters map[string]simcli.Flags
		format     string
		file       string
		reason     string // "" when planned
		msg        string // in the failure, or in the convert command
	}{
		{"no convert", nil, "otel", "otel-one-node.json", simcli.ReasonUnsupportedBuild, "this build cannot: it has no `blis convert`"},
		{"f90a1e3a", f90a1e3a, "weka", "weka.jsonl", simcli.ReasonUnsupportedBuild, "`blis convert weka` before replay; this build cannot: its `blis convert` offers inference-perf, preset, servegen"},
		{"no trace-output", map[string]simcli.Flags{"otel": {"input": true}}, "otel", "otel-one-node.json", simcli.ReasonUnsupportedBuild, "this build's `blis convert otel` lacks --trace-output"},
		{"two nodes", map[string]simcli.Flags{"otel": full}, "otel", "otel-two-nodes.json", leaderboard.ReasonTraceRefused, "host.name has 2 values (node-a, node-b)"},
		// Refused whatever the build can do: the reason is the trace's.
		{"two nodes on f90a1e3a", f90a1e3a, "otel", "otel-two-nodes.json", leaderboard.ReasonTraceRefused, "more than one node: host.name has 2 values (node-a, node-b)"},
		{"not resolved", map[string]simcli.Flags{"otel": full}, "otel", "", leaderboard.ReasonTraceRefused, "not resolved to its content hash"},
		{"no context-growth", map[string]simcli.Flags{"weka": full}, "weka", "weka.jsonl", "", "--trace-output {run}/converted"},
	} {
		s, sums := traceSim(t, tt.converters)
		inv, err := s.Plan(traceRun(tt.format, sums[tt.file]))
		if tt.reason == "" {
			c := strings.Join(inv.Convert, " ")
			if err != nil || !strings.HasPrefix(c, "convert "+tt.format+" --input {traces}/"+sums[tt.file]+"/") || !strings.HasSuffix(c, tt.msg) {
				t.Errorf("%s: %v, convert %q", tt.name, err, c)
			}
			continue
		}
		var f *leaderboard.PlanError
		if !errors.As(err, &f) || f.Reason != tt.reason || !strings.Contains(f.Msg, tt.msg) {
			t.Errorf("%s: %v, want %s: …%s…", tt.name, err, tt.reason, tt.msg)
		}
	}
}
