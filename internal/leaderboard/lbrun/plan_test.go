package lbrun

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
)

// The planner reproduces every committed example result's command line and
// input files byte for byte (its workload specs included), from the real
// simulator's `blis run --help` at f90a1e3a, without running anything.
func TestPlanReproducesTheCommittedExample(t *testing.T) {
	t.Parallel()
	help, err := os.ReadFile("../../harness/testdata/help/f90a1e3a-run.txt")
	if err != nil {
		t.Fatal(err)
	}
	results, probs, err := leaderboard.ReadResults(os.DirFS("../../../docs/examples/leaderboard/results"))
	if err != nil || len(probs) > 0 {
		t.Fatalf("example results: %v %v", err, probs)
	}
	// The model configs the build's source tree has (their content is
	// not read by the planner).
	data := t.TempDir()
	for _, r := range results {
		dir := filepath.Join(data, "model_configs", simcli.ModelShortName(r.Declaration.Candidate.Model))
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := &Sim{Build: &harness.Build{DataDir: data}, RunFlags: simcli.ParseFlags(string(help))}
	specs := 0
	for key, rec := range results {
		inv, err := s.Plan(rec.Declaration)
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		if got := append([]string{"blis"}, inv.Args...); !slices.Equal(got, rec.Command) {
			t.Errorf("%s: command\n got %s\nwant %s", key, strings.Join(got, " "), strings.Join(rec.Command, " "))
		}
		if len(inv.Inputs) != len(rec.Inputs) {
			t.Errorf("%s: inputs %d files, recorded %d", key, len(inv.Inputs), len(rec.Inputs))
		}
		for name, want := range rec.Inputs {
			if inv.Inputs[name] != want {
				t.Errorf("%s: input %s\n got %q\nwant %q", key, name, inv.Inputs[name], want)
			}
		}
		specs += len(inv.Inputs)
	}
	if specs == 0 {
		t.Fatal("no committed result has a workload spec: the test compares nothing")
	}
}
