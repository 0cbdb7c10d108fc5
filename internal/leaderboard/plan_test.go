package leaderboard

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func exampleResults(t *testing.T) map[string]*Result {
	t.Helper()
	results, probs, err := ReadResults(os.DirFS("../../docs/examples/leaderboard/results"))
	if err != nil || len(probs) > 0 {
		t.Fatalf("example results: %v %v", err, probs)
	}
	return results
}

// reseal copies r, lets edit change it, and seals it again, as someone
// who can write the file but not run the simulator would.
func reseal(t *testing.T, r *Result, edit func(*Result)) *Result {
	t.Helper()
	raw, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseResult(raw, "copy")
	if err != nil {
		t.Fatal(err)
	}
	edit(c)
	if c.BLIS != nil {
		comp := Compute(c.Declaration, *c.BLIS)
		c.Computed = &comp
	}
	if err := c.Seal(); err != nil {
		t.Fatal(err)
	}
	return c
}

// CheckPlans re-plans each result from its declaration on the flags its
// command uses: every committed example result is its own plan, and each
// way of making a result stand for a run it is not is named.
func TestCheckPlans(t *testing.T) {
	t.Parallel()
	ex := exampleResults(t)
	if probs := CheckPlans(ex); len(probs) > 0 {
		t.Fatalf("the committed example's results are not their plans: %v", probs)
	}
	tp1, tp2 := ex["qwen3-14b-chat-8rps/h100-tp1"], ex["qwen3-14b-chat-8rps/h100-tp2"]
	failed := ex["qwen3-14b-chat-8rps/h200-tp1"]
	if tp1 == nil || tp2 == nil || failed == nil || failed.Status != StatusFailed {
		t.Fatal("the example lost the results this test edits")
	}
	setArg := func(flag, value string) func(*Result) {
		return func(r *Result) {
			i := slices.Index(r.Command, flag)
			r.Command = slices.Clone(r.Command)
			r.Command[i+1] = value
		}
	}
	for name, tt := range map[string]struct {
		res  *Result
		want string // "" for no problem
	}{
		// The TP 2 result copied as the TP 1 candidate's: ids, declaration
		// and computed values edited, the command left at --tp 2.
		"copied from another candidate": {reseal(t, tp2, func(r *Result) {
			r.Group, r.Run, r.Declaration = tp1.Group, tp1.Run, tp1.Declaration
		}), "command[7]: planned \"1\", recorded \"2\""},
		"metrics written elsewhere": {reseal(t, tp1, setArg("--metrics-path", "/somewhere/else")), "planned \"{run}/metrics.json\", recorded \"/somewhere/else\""},
		"workload spec edited":      {reseal(t, tp1, func(r *Result) { r.Inputs = map[string]string{WorkloadSpecFile: "version: 2\n"} }), "inputs.workload-spec.yaml: planned"},
		"spec dropped":              {reseal(t, tp1, func(r *Result) { r.Inputs = nil }), "inputs"},
		"a flag added": {reseal(t, tp1, func(r *Result) {
			r.Command = append(slices.Clone(r.Command), "--seed", "1")
		}), "command[32]: planned (absent), recorded \"--seed\""},
		"a flag removed": {reseal(t, tp1, func(r *Result) {
			i := slices.Index(r.Command, "--seed")
			r.Command = slices.Delete(slices.Clone(r.Command), i, i+2)
		}), "it records figures, but its declaration cannot be planned (simulator-build-unsupported: this build's `blis run` lacks --seed)"},
		"figures with a bare command":    {reseal(t, tp1, func(r *Result) { r.Command, r.Inputs = []string{"blis", "run"}, nil }), "it records figures, but its declaration cannot be planned"},
		"a conversion added":             {reseal(t, tp1, func(r *Result) { r.Convert = []string{"blis", "convert", "otel"} }), "convert[0]: planned (absent), recorded \"blis\""},
		"a failed run's hardware edited": {reseal(t, failed, setArg("--hardware", "H100")), "planned \"H200\", recorded \"H100\""},
		"a failed run as recorded":       {failed, ""},
		"a catalog's model config": {reseal(t, tp1, func(r *Result) {
			i := slices.Index(r.Command, "--workload-spec")
			r.Command = slices.Insert(slices.Clone(r.Command), i, "--model-config-folder", CatalogDirPlaceholder+"/models/qwen3-14b")
		}), ""},
		"a catalog's config of another model": {reseal(t, tp1, func(r *Result) {
			i := slices.Index(r.Command, "--workload-spec")
			r.Command = slices.Insert(slices.Clone(r.Command), i, "--model-config-folder", CatalogDirPlaceholder+"/models/other")
		}), "planned \"{catalog}/models/qwen3-14b\", recorded \"{catalog}/models/other\""},
		"a user-added model's config": {reseal(t, tp1, userModel(`{"num_hidden_layers": 4}`)), ""},
		"a user-added model's config dropped": {reseal(t, tp1, func(r *Result) {
			userModel("{}")(r)
			delete(r.Inputs, UserModelConfigFile)
		}), "it records figures, but its declaration cannot be planned (model-unknown-to-simulator"},
	} {
		probs := CheckPlans(map[string]*Result{"g/r": tt.res})
		switch {
		case tt.want == "" && len(probs) > 0:
			t.Errorf("%s: %v, want no problem", name, probs)
		case tt.want != "" && (len(probs) != 1 || probs[0].Kind != ProblemUnplanned || probs[0].File != "g/r.json" || !strings.Contains(probs[0].Msg, tt.want)):
			t.Errorf("%s: %v, want one %s problem of g/r.json saying %q", name, probs, ProblemUnplanned, tt.want)
		}
	}
}

// userModel makes a result's command hand the simulator a user-added
// model's config from the run's directory, as Plan does.
func userModel(config string) func(*Result) {
	return func(r *Result) {
		i := slices.Index(r.Command, "--workload-spec")
		r.Command = slices.Insert(slices.Clone(r.Command), i, "--model-config-folder", RunDirPlaceholder)
		r.Inputs = map[string]string{WorkloadSpecFile: r.Inputs[WorkloadSpecFile], UserModelConfigFile: config}
	}
}

// A model neither the catalog nor the build has runs from the user-model
// store: its config is an input file of the run, handed over with
// --model-config-folder {run}; a build without that flag cannot.
func TestPlanUserModel(t *testing.T) {
	t.Parallel()
	r := exampleResults(t)["qwen3-14b-chat-8rps/h100-tp1"].Declaration
	r.Candidate.Model = "acme/tiny-7b"
	flags := recordedPlanner(exampleResults(t)["qwen3-14b-chat-8rps/h100-tp1"]).RunFlags
	flags["model-config-folder"] = true
	p := Planner{RunFlags: flags, ModelConfig: func(string) (bool, bool) { return false, false },
		UserModel: func(short string) (string, bool) { return `{"short": "` + short + `"}`, short == "tiny-7b" }}
	inv, err := p.Plan(r)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.Index(inv.Args, "--model-config-folder"); i < 0 || inv.Args[i+1] != RunDirPlaceholder {
		t.Errorf("args %v: want --model-config-folder %s", inv.Args, RunDirPlaceholder)
	}
	if inv.Inputs[UserModelConfigFile] != `{"short": "tiny-7b"}` || inv.Inputs[WorkloadSpecFile] == "" {
		t.Errorf("inputs %v: want the user model's config beside the workload spec", inv.Inputs)
	}
	delete(flags, "model-config-folder")
	if _, err := p.Plan(r); err == nil || !strings.Contains(err.Error(), "a user-added model: this build has no --model-config-folder") {
		t.Errorf("a build without --model-config-folder: %v", err)
	}
	r.Candidate.Model = "acme/other"
	if _, err := p.Plan(r); err == nil || !strings.Contains(err.Error(), "model-unknown-to-simulator") {
		t.Errorf("a model in no store: %v", err)
	}
}
