package lbrun

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
	"github.com/inference-sim/accuracy-dashboard/internal/workloadspec"
)

// runNeeds are the `blis run` flags every distribution run uses;
// replayNeeds the `blis replay` flags every trace run uses.
var (
	runNeeds = []string{"model", "hardware", "tp", "num-requests", "seed", "metrics-path",
		"prompt-tokens", "prompt-tokens-stdev", "prompt-tokens-min", "prompt-tokens-max",
		"output-tokens", "output-tokens-stdev", "output-tokens-min", "output-tokens-max"}
	replayNeeds = []string{"model", "hardware", "tp", "trace-header", "trace-data", "horizon", "metrics-path"}
)

// Plan writes the simulator command for run r on s's build: `blis run` for
// a distribution workload, `blis replay` for a trace, with the model data of
// the catalog or of the build's source tree. What the build cannot do, or a
// model with no config in either place, is a *failure (a failed result,
// never a number).
func (s *Sim) Plan(r leaderboard.Run) (Invocation, error) {
	command, flags, needs := "run", s.RunFlags, runNeeds
	if t := r.Workload.Trace; t != nil {
		command, flags, needs = "replay", s.ReplayFlags, replayNeeds
		if t.SHA256 == "" {
			return Invocation{}, &failure{leaderboard.ReasonTraceRefused, "the trace was not resolved to its content hash"}
		}
		// A trace recorded on several nodes is refused whatever the build
		// can do: the reason is the trace's, not the build's.
		if leaderboard.TraceSourceFile(t.Format) != "" && s.record == nil {
			if err := s.checkNodes(t); err != nil {
				return Invocation{}, err
			}
		}
	}
	if len(flags) == 0 {
		return Invocation{}, &failure{harness.ReasonUnsupportedBuild, "this simulator build has no `blis " + command + "` command"}
	}
	var missing []string
	for _, f := range needs {
		if !flags.Has(f) {
			missing = append(missing, "--"+f)
		}
	}
	if len(missing) > 0 {
		return Invocation{}, &failure{harness.ReasonUnsupportedBuild, "this build's `blis " + command + "` lacks " + strings.Join(missing, ", ")}
	}
	dep, err := s.deploymentArgs(r, flags)
	if err != nil {
		return Invocation{}, err
	}
	args := append([]string{command}, dep...)
	if r.Workload.Trace != nil {
		return s.planTrace(r, flags, args)
	}
	return planRun(r, flags, args)
}

// deploymentArgs checks that the model has a config (in the catalog or the
// build's model_configs/) and returns the deployment's flags.
func (s *Sim) deploymentArgs(r leaderboard.Run, flags harness.Flags) ([]string, error) {
	c := r.Candidate.Normalized()
	short := harness.ModelShortName(c.Model)
	inCatalog, known := s.modelConfig(short)
	if !known {
		where := "the simulator's model_configs/"
		if s.Catalog != "" {
			where = "the catalog (models/" + short + "/config.json) or " + where
		}
		return nil, &failure{harness.ReasonUnknownModel, fmt.Sprintf("no model config for %s in %s; the simulator would try to download one", c.Model, where)}
	}
	dep := harness.SimDeployment{Model: c.Model, Hardware: c.Hardware, TP: c.TP, DP: c.DP}
	if e := c.Engine; e != nil {
		add := func(name string, v *int) {
			if v != nil {
				dep.Settings = append(dep.Settings, harness.EngineSetting{Name: name, Value: strconv.Itoa(*v), Required: true})
			}
		}
		add("max_num_seqs", e.MaxNumSeqs)
		add("max_num_batched_tokens", e.MaxNumBatchedTokens)
		add("block_size", e.BlockSize)
		add("max_model_len", e.MaxModelLen)
		if e.GPUMemoryUtilization != nil {
			dep.Settings = append(dep.Settings, harness.EngineSetting{Name: "gpu_memory_utilization", Value: leaderboard.FormatNumber(*e.GPUMemoryUtilization), Required: true})
		}
	}
	args, err := harness.DeploymentArgs(flags, dep)
	if err != nil {
		return nil, &failure{harness.ReasonUnsupportedBuild, err.Error()}
	}
	// The catalog's flag, as harness.DeploymentArgs would add it for a
	// catalog that has the model, with the placeholder in place of the
	// catalog's path (which differs between machines).
	if inCatalog {
		switch {
		case flags.Has("catalog"):
			args = append(args, "--catalog", CatalogDirPlaceholder)
		case flags.Has("model-config-folder"):
			args = append(args, "--model-config-folder", CatalogDirPlaceholder+"/models/"+short)
		}
	}
	if c.Replicas > 1 {
		if !flags.Has("num-instances") {
			return nil, &failure{harness.ReasonUnsupportedBuild, fmt.Sprintf("%d replicas: this build has no --num-instances", c.Replicas)}
		}
		args = append(args, "--num-instances", strconv.Itoa(c.Replicas))
	}
	return args, nil
}

// modelConfig says where s finds the config of the model named short: in
// the catalog (inCatalog), else in the build's model_configs/; known is
// false when neither has it. A planner built from a recorded command
// (recordedPlanner) takes the command's word for it.
func (s *Sim) modelConfig(short string) (inCatalog, known bool) {
	if s.record != nil {
		return s.record.catalog, true
	}
	if s.Catalog != "" && fileExists(filepath.Join(s.Catalog, "models", short, "config.json")) {
		return true, true
	}
	return false, fileExists(filepath.Join(s.Build.DataDir, "model_configs", short, "config.json"))
}

// planRun completes a `blis run` command for a distribution workload.
func planRun(r leaderboard.Run, flags harness.Flags, args []string) (Invocation, error) {
	w := r.Workload
	inv := Invocation{}
	switch r.Load.Arrival {
	case leaderboard.ArrivalClosedLoop:
		if !flags.Has("concurrency") {
			return Invocation{}, &failure{harness.ReasonUnsupportedBuild, "a concurrency load: this build's `blis run` has no --concurrency"}
		}
		args = append(args, "--concurrency", strconv.Itoa(r.Load.Concurrency))
	case leaderboard.ArrivalConstant:
		if !flags.Has("rate") {
			return Invocation{}, &failure{harness.ReasonUnsupportedBuild, "a rate load: this build's `blis run` has no --rate"}
		}
		args = append(args, "--rate", leaderboard.FormatNumber(r.Load.Rate))
	case leaderboard.ArrivalPoisson:
		// `blis run --rate` draws constant arrivals; Poisson arrivals
		// need a workload specification with the same distributions.
		if !flags.Has("workload-spec") {
			return Invocation{}, &failure{harness.ReasonUnsupportedBuild, "Poisson arrivals: this build's `blis run` has no --workload-spec"}
		}
		spec, err := poissonSpec(w, r.Load.Rate)
		if err != nil {
			return Invocation{}, err
		}
		inv.Inputs = map[string]string{WorkloadSpecFile: spec}
		args = append(args, "--workload-spec", RunDirPlaceholder+"/"+WorkloadSpecFile)
	default:
		return Invocation{}, &failure{harness.ReasonUnsupportedBuild, "load " + r.Load.Arrival + " needs a trace workload"}
	}
	args = append(args, "--num-requests", strconv.Itoa(w.Requests), "--seed", strconv.FormatInt(*w.Seed, 10))
	for _, t := range []struct {
		name string
		tok  *leaderboard.Tokens
	}{{"prompt-tokens", w.PromptTokens}, {"output-tokens", w.OutputTokens}} {
		args = append(args, "--"+t.name, strconv.Itoa(t.tok.Mean), "--"+t.name+"-stdev", strconv.Itoa(t.tok.Stdev),
			"--"+t.name+"-min", strconv.Itoa(t.tok.Min), "--"+t.name+"-max", strconv.Itoa(t.tok.Max))
	}
	if w.PrefixTokens > 0 {
		if !flags.Has("prefix-tokens") {
			return Invocation{}, &failure{harness.ReasonUnsupportedBuild, "a shared prefix: this build's `blis run` has no --prefix-tokens"}
		}
		args = append(args, "--prefix-tokens", strconv.Itoa(w.PrefixTokens))
	}
	inv.Args = append(args, "--metrics-path", RunDirPlaceholder+"/"+leaderboard.Output)
	return inv, nil
}

// poissonSpec is BLIS's v2 workload specification of the distribution
// workload w at rate req/s with Poisson arrivals: the client `blis run`
// synthesizes from its distribution flags (Gaussian lengths clipped to
// [min, max]), with the arrival process changed from constant to Poisson.
// BLIS ignores the token flags when a spec is given; they are passed
// anyway, so the command line states the whole workload.
func poissonSpec(w leaderboard.Workload, rate float64) (string, error) {
	gauss := func(t *leaderboard.Tokens) workloadspec.Dist {
		return workloadspec.Gaussian(t.Mean, t.Stdev, t.Min, t.Max)
	}
	client := workloadspec.Client{
		ID: "distribution", RateFraction: 1, Arrival: &workloadspec.Arrival{Process: workloadspec.ArrivalPoisson},
		InputDist: gauss(w.PromptTokens), OutputDist: gauss(w.OutputTokens),
	}
	if w.PrefixTokens > 0 {
		client.PrefixGroup, client.PrefixLength = "shared", w.PrefixTokens
	}
	raw, err := workloadspec.Encode(workloadspec.Spec{Seed: *w.Seed, Category: workloadspec.CategoryLanguage, AggregateRate: rate,
		NumRequests: w.Requests, Clients: []workloadspec.Client{client}})
	if err != nil {
		return "", err
	}
	return string(raw), nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// bare is the invocation a run that fails before the simulator starts
// records: the bare `blis run` or `blis replay`.
func bare(r leaderboard.Run) Invocation {
	if r.Workload.Trace != nil {
		return Invocation{Args: []string{"replay"}}
	}
	return Invocation{Args: []string{"run"}}
}

// planned is the recorded part of a result that its declaration decides:
// the command line, the conversion and the input files.
type planned struct {
	Command []string          `json:"command"`
	Convert []string          `json:"convert,omitempty"`
	Inputs  map[string]string `json:"inputs,omitempty"`
}

func plannedOf(inv Invocation) planned {
	p := planned{Command: append([]string{"blis"}, inv.Args...), Inputs: inv.Inputs}
	if len(inv.Convert) > 0 {
		p.Convert = append([]string{"blis"}, inv.Convert...)
	}
	return p
}

// unplanned says how the command, conversion and input files res records
// differ from inv, the plan of its declaration, or, when planning failed
// (planErr), from the bare command a run that fails before simulating
// records ("" when they are the same). A result with figures whose
// declaration cannot be planned is refused too.
func unplanned(res *leaderboard.Result, inv Invocation, planErr error) string {
	if planErr != nil {
		if res.Status == leaderboard.StatusOK {
			return "it records figures, but its declaration cannot be planned (" + planErr.Error() + ")"
		}
		inv = bare(res.Declaration)
	}
	rec := planned{Command: res.Command, Convert: res.Convert, Inputs: res.Inputs}
	want := plannedOf(inv)
	if len(rec.Inputs) == 0 {
		rec.Inputs = nil
	}
	if len(want.Inputs) == 0 {
		want.Inputs = nil
	}
	for _, part := range []struct {
		name      string
		want, got []string
	}{{"command", want.Command, rec.Command}, {"convert", want.Convert, rec.Convert}} {
		// The first argument that differs, in command-line order.
		for i := range max(len(part.want), len(part.got)) {
			w, g := argAt(part.want, i), argAt(part.got, i)
			if w != g {
				return fmt.Sprintf("the recorded command is not the one its declaration plans (%s[%d]: planned %s, recorded %s)", part.name, i, w, g)
			}
		}
	}
	if d := report.DiffJSON(want.Inputs, rec.Inputs); len(d) > 0 {
		return fmt.Sprintf("the recorded input files are not the ones its declaration plans (inputs.%s: planned %s, recorded %s)", d[0].Field, d[0].Old, d[0].New)
	}
	return ""
}

// argAt is args[i] quoted, "(absent)" past its end.
func argAt(args []string, i int) string {
	if i >= len(args) {
		return "(absent)"
	}
	return strconv.Quote(args[i])
}

// recordedPlanner is a Sim that plans as the build a result records would,
// as far as the result itself tells: its `blis run` or `blis replay` has
// the flags the recorded command uses, its converter those of the
// recorded conversion, and the model's config is in the catalog when the
// command names the catalog. No build is at hand, so a trace's nodes are
// not read again.
func recordedPlanner(res *leaderboard.Result) *Sim {
	s := &Sim{record: &recordedBuild{}}
	flagsOf := func(args []string) harness.Flags {
		f := harness.Flags{}
		for _, a := range args {
			if name, ok := strings.CutPrefix(a, "--"); ok && name != "" {
				f[name] = true
			}
		}
		return f
	}
	if len(res.Command) > 2 {
		f := flagsOf(res.Command[2:])
		switch res.Command[1] {
		case "run":
			s.RunFlags = f
		case "replay":
			s.ReplayFlags = f
		}
	}
	if len(res.Convert) > 3 && res.Convert[1] == "convert" {
		s.Converters = map[string]harness.Flags{res.Convert[2]: flagsOf(res.Convert[3:])}
	}
	for _, a := range res.Command {
		if strings.HasPrefix(a, CatalogDirPlaceholder) {
			s.record.catalog = true
		}
	}
	return s
}

// recordedBuild marks a Sim made by recordedPlanner.
type recordedBuild struct {
	// catalog: the recorded command names the catalog.
	catalog bool
}

// CheckPlans plans every result again from the declaration it records
// (the planning `run` does, on the flags its recorded command uses:
// recordedPlanner) and names each whose recorded command, conversion or
// input files are not that plan (leaderboard.ProblemUnplanned): a result
// copied from another candidate with its ids and TP edited, or a command
// pointing --metrics-path elsewhere, is caught here without a build.
// verify does the same on the recorded build itself. Problems are sorted
// by file.
func CheckPlans(results map[string]*leaderboard.Result) []leaderboard.Problem {
	var probs []leaderboard.Problem
	for key, res := range results {
		s := recordedPlanner(res)
		inv, err := s.Plan(res.Declaration)
		if why := unplanned(res, inv, err); why != "" {
			probs = append(probs, leaderboard.Problem{Kind: leaderboard.ProblemUnplanned, File: key + ".json", Msg: why})
		}
	}
	slices.SortFunc(probs, func(a, b leaderboard.Problem) int { return strings.Compare(a.File, b.File) })
	return probs
}

// Check reads the results directory dir (through OpenDir) and checks it
// against d as leaderboard.Check does, and every result's recorded command
// against the plan of its declaration (CheckPlans): every problem, sorted
// by file.
func Check(d *leaderboard.Declaration, dir string, pinned string) (map[string]*leaderboard.Result, []leaderboard.Problem, error) {
	fsys, done, err := OpenDir(dir)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	res, probs, err := leaderboard.Check(d, fsys, pinned)
	if err != nil {
		return nil, nil, err
	}
	probs = append(probs, CheckPlans(res)...)
	slices.SortStableFunc(probs, func(a, b leaderboard.Problem) int { return strings.Compare(a.File, b.File) })
	return res, probs, nil
}
