package ghaction

import (
	"os"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbpr"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"gopkg.in/yaml.v3"
)

// TestActionYAMLMapsEveryInput checks action.yml itself: act sets INPUT_*
// for composite actions where GitHub does not, so the end-to-end test cannot
// catch a missing env: mapping. Every input but setup-go must reach the run
// step as INPUT_<NAME>, and no run: script may interpolate ${{ }}.
func TestActionYAMLMapsEveryInput(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs  map[string]struct{ Default string } `yaml:"inputs"`
		Outputs map[string]struct{ Value string }   `yaml:"outputs"`
		Runs    struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID  string            `yaml:"id"`
				Run string            `yaml:"run"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q", a.Runs.Using)
	}
	var env map[string]string
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %q interpolates an expression into its script: %q", s.ID, s.Run)
		}
		if s.ID == "run" {
			env = s.Env
		}
	}
	known := map[string]bool{}
	for _, name := range []string{inToken, inPinFile, inMode, inSimulatorPath, inBaseline, inShard, inAlertThreshold,
		inFailThreshold, inComment, inOutDir, inCacheDir, inReportDir, inShardsDir, inJobs, inSimulatorRepo, inInferenceXRepo, inPlan, inRuns,
		inLedgerDir, inReuse, inWhatIf} {
		known["INPUT_"+strings.ToUpper(strings.ReplaceAll(name, "-", "_"))] = true
	}
	for name := range a.Inputs {
		if name == "setup-go" {
			continue
		}
		v := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if env[v] != "${{ inputs."+name+" }}" {
			t.Errorf("input %s: run step env %s = %q, want ${{ inputs.%s }}", name, v, env[v], name)
		}
		if !known[v] {
			t.Errorf("input %s: %s is not read by readInputs", name, v)
		}
		delete(known, v)
	}
	for v := range known {
		t.Errorf("%s is read but no input maps to it", v)
	}
	// Every output the entry point writes (one per headline metric among
	// them) is declared; every declared one is the run step's (an input's
	// block pasted under outputs, with a default and no value, makes act
	// refuse the file).
	for _, kv := range append(outputsOf(prcheck.Outcome{}), lbpr.Outcome{}.Outputs()...) {
		o := kv[0]
		if a.Outputs[o].Value != "${{ steps.run.outputs."+o+" }}" {
			t.Errorf("output %s = %q", o, a.Outputs[o].Value)
		}
	}
	for o, v := range a.Outputs {
		if v.Value != "${{ steps.run.outputs."+o+" }}" {
			t.Errorf("output %s = %q, want the run step's output %s", o, v.Value, o)
		}
	}
}
