package leaderboard

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
	"github.com/inference-sim/accuracy-dashboard/internal/workloadspec"
)

// Placeholders in a recorded command line: files of the run's own
// directory and the catalog directory, whose paths differ between machines.
const (
	RunDirPlaceholder     = "{run}"
	CatalogDirPlaceholder = "{catalog}"
	TracesDirPlaceholder  = "{traces}"
)

// Input and output file names in a run's directory.
const (
	WorkloadSpecFile = "workload-spec.yaml"
)

// Invocation is a planned simulator command: its arguments after `blis`,
// the input files it reads from its run directory (name → content), and
// the `blis convert` arguments run before it (none: no conversion).
type Invocation struct {
	Args    []string
	Inputs  map[string]string
	Convert []string
}

// PlanError is a planning failure: the run gets a failed result with Reason
// and Msg.
type PlanError struct{ Reason, Msg string }

func (f *PlanError) Error() string { return f.Reason + ": " + f.Msg }

// Planner plans declared runs for one simulator build, known by the flags
// its commands list.
type Planner struct {
	// RunFlags and ReplayFlags are the flags of the build's `blis run` and
	// `blis replay`.
	RunFlags, ReplayFlags simcli.Flags
	// Converters are the flags of each `blis convert <format>` the build
	// offers, by format.
	Converters map[string]simcli.Flags
	// ModelConfig says where the build finds the config of the model
	// named short: in the catalog (inCatalog), else in its own
	// model_configs/; known is false when neither has it. nil: in
	// model_configs/.
	ModelConfig func(short string) (inCatalog, known bool)
	// Catalog: a catalog is handed to the simulator (for the message of a
	// model without a config).
	Catalog bool
	// CheckNodes refuses a stored otel or weka trace whose source spanned
	// more than one node (nil: not checked, as for a recorded build).
	CheckNodes func(*Trace) error
	// UserModel is the config.json of a model neither the catalog nor the
	// build has, from the user-model store (nil or !ok: none): the run
	// gets it as an input file and `--model-config-folder {run}`.
	UserModel func(short string) (config string, ok bool)
}

// RunNeeds are the `blis run` flags every distribution run uses;
// replayNeeds the `blis replay` flags every trace run uses.
var (
	RunNeeds = []string{"model", "hardware", "tp", "num-requests", "seed", "metrics-path",
		"prompt-tokens", "prompt-tokens-stdev", "prompt-tokens-min", "prompt-tokens-max",
		"output-tokens", "output-tokens-stdev", "output-tokens-min", "output-tokens-max"}
	replayNeeds = []string{"model", "hardware", "tp", "trace-header", "trace-data", "horizon", "metrics-path"}
)

// Plan writes the simulator command for run r on s's build: `blis run` for
// a distribution workload, `blis replay` for a trace, with the model data of
// the catalog or of the build's source tree. What the build cannot do, or a
// model with no config in either place, is a *PlanError (a failed result,
// never a number).
func (s *Planner) Plan(r DeclaredRun) (Invocation, error) {
	command, flags, needs := "run", s.RunFlags, RunNeeds
	if t := r.Workload.Trace; t != nil {
		command, flags, needs = "replay", s.ReplayFlags, replayNeeds
		if t.SHA256 == "" {
			return Invocation{}, &PlanError{ReasonTraceRefused, "the trace was not resolved to its content hash"}
		}
		// A trace recorded on several nodes is refused whatever the build
		// can do: the reason is the trace's, not the build's.
		if TraceSourceFile(t.Format) != "" && s.CheckNodes != nil {
			if err := s.CheckNodes(t); err != nil {
				return Invocation{}, err
			}
		}
	}
	if err := hasFlags(command, flags, needs); err != nil {
		return Invocation{}, err
	}
	dep, userConfig, err := s.deploymentArgs(r, flags)
	if err != nil {
		return Invocation{}, err
	}
	args := append([]string{command}, dep...)
	var inv Invocation
	if r.Workload.Trace != nil {
		inv, err = s.planTrace(r, flags, args)
	} else {
		inv, err = planRun(r, flags, args)
	}
	if err != nil || userConfig == "" {
		return inv, err
	}
	inputs := maps.Clone(inv.Inputs)
	if inputs == nil {
		inputs = map[string]string{}
	}
	inputs[UserModelConfigFile] = userConfig
	inv.Inputs = inputs
	return inv, nil
}

// hasFlags refuses a build whose `blis command` lacks a flag of needs.
func hasFlags(command string, flags simcli.Flags, needs []string) error {
	if len(flags) == 0 {
		return &PlanError{simcli.ReasonUnsupportedBuild, "this simulator build has no `blis " + command + "` command"}
	}
	var missing []string
	for _, f := range needs {
		if !flags.Has(f) {
			missing = append(missing, "--"+f)
		}
	}
	if len(missing) > 0 {
		return &PlanError{simcli.ReasonUnsupportedBuild, "this build's `blis " + command + "` lacks " + strings.Join(missing, ", ")}
	}
	return nil
}

// Replays says whether the build can replay r's trace workload at r's load
// (the checks of Plan that depend on the offered work, not on the
// candidate): nil, or the *PlanError every run of it would fail with. A
// server asks it when a trace is uploaded.
func (s *Planner) Replays(r DeclaredRun) error {
	if r.Workload.Trace == nil {
		return nil
	}
	if err := hasFlags("replay", s.ReplayFlags, replayNeeds); err != nil {
		return err
	}
	_, err := s.planTrace(r, s.ReplayFlags, nil)
	return err
}

// deploymentArgs checks that the model has a config (in the catalog, the
// build's model_configs/ or the user-model store) and returns the
// deployment's flags, with the config of a user model, which the run
// gets as an input file ("" for another).
func (s *Planner) deploymentArgs(r DeclaredRun, flags simcli.Flags) ([]string, string, error) {
	args, user, err := s.deployment(r, flags)
	if err != nil || user == "" {
		return args, "", err
	}
	if !flags.Has("model-config-folder") {
		return nil, "", &PlanError{simcli.ReasonUnsupportedBuild, "a user-added model: this build has no --model-config-folder"}
	}
	return append(args, "--model-config-folder", RunDirPlaceholder), user, nil
}

func (s *Planner) deployment(r DeclaredRun, flags simcli.Flags) ([]string, string, error) {
	c := r.Candidate.Normalized()
	short := simcli.ModelShortName(c.Model)
	inCatalog, known := false, true
	if s.ModelConfig != nil {
		inCatalog, known = s.ModelConfig(short)
	}
	var user string
	if !known && s.UserModel != nil {
		user, known = s.UserModel(short)
	}
	if !known {
		where := "the simulator's model_configs/"
		if s.Catalog {
			where = "the catalog (models/" + short + "/config.json) or " + where
		}
		return nil, "", &PlanError{simcli.ReasonUnknownModel, fmt.Sprintf("no model config for %s in %s; the simulator would try to download one", c.Model, where)}
	}
	dep := simcli.SimDeployment{Model: c.Model, Hardware: c.Hardware, TP: c.TP, DP: c.DP}
	if e := c.Engine; e != nil {
		add := func(name string, v *int) {
			if v != nil {
				dep.Settings = append(dep.Settings, simcli.EngineSetting{Name: name, Value: strconv.Itoa(*v), Required: true})
			}
		}
		add("max_num_seqs", e.MaxNumSeqs)
		add("max_num_batched_tokens", e.MaxNumBatchedTokens)
		add("block_size", e.BlockSize)
		add("max_model_len", e.MaxModelLen)
		if e.GPUMemoryUtilization != nil {
			dep.Settings = append(dep.Settings, simcli.EngineSetting{Name: "gpu_memory_utilization", Value: FormatNumber(*e.GPUMemoryUtilization), Required: true})
		}
	}
	args, err := simcli.DeploymentArgs(flags, dep)
	if err != nil {
		return nil, "", &PlanError{simcli.ReasonUnsupportedBuild, err.Error()}
	}
	// The catalog's flag, as simcli.DeploymentArgs would add it for a
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
			return nil, "", &PlanError{simcli.ReasonUnsupportedBuild, fmt.Sprintf("%d replicas: this build has no --num-instances", c.Replicas)}
		}
		args = append(args, "--num-instances", strconv.Itoa(c.Replicas))
	}
	return args, user, nil
}

// planRun completes a `blis run` command for a distribution workload.
func planRun(r DeclaredRun, flags simcli.Flags, args []string) (Invocation, error) {
	w := r.Workload
	inv := Invocation{}
	switch r.Load.Arrival {
	case arrivalClosedLoop:
		if !flags.Has("concurrency") {
			return Invocation{}, &PlanError{simcli.ReasonUnsupportedBuild, "a concurrency load: this build's `blis run` has no --concurrency"}
		}
		args = append(args, "--concurrency", strconv.Itoa(r.Load.Concurrency))
	case arrivalConstant:
		if !flags.Has("rate") {
			return Invocation{}, &PlanError{simcli.ReasonUnsupportedBuild, "a rate load: this build's `blis run` has no --rate"}
		}
		args = append(args, "--rate", FormatNumber(r.Load.Rate))
	case arrivalPoisson:
		// `blis run --rate` draws constant arrivals; Poisson arrivals
		// need a workload specification with the same distributions.
		if !flags.Has("workload-spec") {
			return Invocation{}, &PlanError{simcli.ReasonUnsupportedBuild, "Poisson arrivals: this build's `blis run` has no --workload-spec"}
		}
		spec, err := poissonSpec(w, r.Load.Rate)
		if err != nil {
			return Invocation{}, err
		}
		inv.Inputs = map[string]string{WorkloadSpecFile: spec}
		args = append(args, "--workload-spec", RunDirPlaceholder+"/"+WorkloadSpecFile)
	default:
		return Invocation{}, &PlanError{simcli.ReasonUnsupportedBuild, "load " + r.Load.Arrival + " needs a trace workload"}
	}
	args = append(args, "--num-requests", strconv.Itoa(w.Requests), "--seed", strconv.FormatInt(*w.Seed, 10))
	for _, t := range []struct {
		name string
		tok  *Tokens
	}{{"prompt-tokens", w.PromptTokens}, {"output-tokens", w.OutputTokens}} {
		args = append(args, "--"+t.name, strconv.Itoa(t.tok.Mean), "--"+t.name+"-stdev", strconv.Itoa(t.tok.Stdev),
			"--"+t.name+"-min", strconv.Itoa(t.tok.Min), "--"+t.name+"-max", strconv.Itoa(t.tok.Max))
	}
	if w.PrefixTokens > 0 {
		if !flags.Has("prefix-tokens") {
			return Invocation{}, &PlanError{simcli.ReasonUnsupportedBuild, "a shared prefix: this build's `blis run` has no --prefix-tokens"}
		}
		args = append(args, "--prefix-tokens", strconv.Itoa(w.PrefixTokens))
	}
	inv.Args = append(args, "--metrics-path", RunDirPlaceholder+"/"+Output)
	return inv, nil
}

// poissonSpec is BLIS's v2 workload specification of the distribution
// workload w at rate req/s with Poisson arrivals: the client `blis run`
// synthesizes from its distribution flags (Gaussian lengths clipped to
// [min, max]), with the arrival process changed from constant to Poisson.
// BLIS ignores the token flags when a spec is given; they are passed
// anyway, so the command line states the whole workload.
func poissonSpec(w Workload, rate float64) (string, error) {
	gauss := func(t *Tokens) workloadspec.Dist {
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

// Bare is the invocation a run that fails before the simulator starts
// records: the bare `blis run` or `blis replay`.
func Bare(r DeclaredRun) Invocation {
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

// Unplanned says how the command, conversion and input files res records
// differ from inv, the plan of its declaration, or, when planning failed
// (planErr), from the bare command a run that fails before simulating
// records ("" when they are the same). A result with figures whose
// declaration cannot be planned is refused too.
func Unplanned(res *Result, inv Invocation, planErr error) string {
	if planErr != nil {
		if res.Status == StatusOK {
			return "it records figures, but its declaration cannot be planned (" + planErr.Error() + ")"
		}
		inv = Bare(res.Declaration)
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
	if d := runresult.DiffJSON(want.Inputs, rec.Inputs); len(d) > 0 {
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

// recordedPlanner is a Planner that plans as the build a result records would,
// as far as the result itself tells: its `blis run` or `blis replay` has
// the flags the recorded command uses, its converter those of the
// recorded conversion, and the model's config is in the catalog when the
// command names the catalog, and a user-added model's config is the one
// the result records (`--model-config-folder {run}`). No build is at
// hand, so a trace's nodes are not read again.
func recordedPlanner(res *Result) *Planner {
	catalog := false
	s := &Planner{ModelConfig: func(string) (bool, bool) { return catalog, true }}
	flagsOf := func(args []string) simcli.Flags {
		f := simcli.Flags{}
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
		s.Converters = map[string]simcli.Flags{res.Convert[2]: flagsOf(res.Convert[3:])}
	}
	for i, a := range res.Command {
		if strings.HasPrefix(a, CatalogDirPlaceholder) {
			catalog = true
		}
		// A user-added model's config is the one the result records.
		if a == "--model-config-folder" && i+1 < len(res.Command) && res.Command[i+1] == RunDirPlaceholder {
			s.ModelConfig = func(string) (bool, bool) { return false, false }
			s.UserModel = func(string) (string, bool) {
				cfg, ok := res.Inputs[UserModelConfigFile]
				return cfg, ok
			}
		}
	}
	return s
}

// CheckPlans plans every result again from the declaration it records
// (the planning `run` does, on the flags its recorded command uses:
// recordedPlanner) and names each whose recorded command, conversion or
// input files are not that plan (ProblemUnplanned): a result
// copied from another candidate with its ids and TP edited, or a command
// pointing --metrics-path elsewhere, is caught here without a build.
// verify does the same on the recorded build itself. Problems are sorted
// by file.
func CheckPlans(results map[string]*Result) []Problem {
	var probs []Problem
	for key, res := range results {
		s := recordedPlanner(res)
		inv, err := s.Plan(res.Declaration)
		if why := Unplanned(res, inv, err); why != "" {
			probs = append(probs, Problem{Kind: ProblemUnplanned, File: key + ".json", Msg: why})
		}
	}
	slices.SortFunc(probs, func(a, b Problem) int { return strings.Compare(a.File, b.File) })
	return probs
}

// convertedTrace is the prefix, in the run directory, of the TraceV2 pair
// `blis convert otel|weka --trace-output` writes (.yaml and .csv).
const convertedTrace = "converted"

// convertNeeds are the `blis convert <format>` flags a conversion uses.
var convertNeeds = []string{"input", "trace-output"}

// planTrace completes a `blis replay` command for a stored trace: a TraceV2
// pair replayed as it is, or an otel or weka source converted first with
// the build's `blis convert <format>` into the run directory. Recorded
// arrivals replay the trace as it was; a concurrency load replays it as a
// pool of N concurrent sessions where the build can
// (--concurrent-sessions). A build that cannot, and a trace whose source
// spanned more than one node, are failed results with the reason.
func (s *Planner) planTrace(r DeclaredRun, flags simcli.Flags, args []string) (Invocation, error) {
	t := r.Workload.Trace
	stored := TracesDirPlaceholder + "/" + t.SHA256 + "/"
	var inv Invocation
	header, data := stored+traceHeaderFile, stored+traceDataFile
	switch t.Format {
	case TraceFormatV2:
	case TraceFormatOTel, TraceFormatWeka:
		conv, err := s.planConvert(t)
		if err != nil {
			return Invocation{}, err
		}
		inv.Convert = conv
		out := RunDirPlaceholder + "/" + convertedTrace
		header, data = out+".yaml", out+".csv"
	default:
		return Invocation{}, &PlanError{ReasonTraceRefused, fmt.Sprintf("trace format %q is not one the leaderboard replays", t.Format)}
	}
	switch r.Load.Arrival {
	case ArrivalRecorded:
	case arrivalClosedLoop:
		if !flags.Has("concurrent-sessions") {
			return Invocation{}, &PlanError{simcli.ReasonUnsupportedBuild, fmt.Sprintf("a pool of %d concurrent sessions: this build's `blis replay` has no --concurrent-sessions", r.Load.Concurrency)}
		}
		args = append(args, "--concurrent-sessions", strconv.Itoa(r.Load.Concurrency))
	default:
		return Invocation{}, &PlanError{ReasonTraceRefused, "a trace is offered at its recorded arrivals or as concurrent sessions"}
	}
	// An explicit horizon: BLIS's default (twice the last arrival) can end
	// a run before its requests complete. Runs are bounded by --timeout.
	inv.Args = append(args, "--trace-header", header, "--trace-data", data,
		"--horizon", "9223372036854775807", "--metrics-path", RunDirPlaceholder+"/"+Output)
	return inv, nil
}

// planConvert writes the `blis convert <format>` command of an otel or
// weka trace, after checking that the build offers the converter (Plan has
// checked that the trace's source ran on one node).
func (s *Planner) planConvert(t *Trace) ([]string, error) {
	flags, ok := s.Converters[t.Format]
	if !ok {
		offered := "it has no `blis convert`"
		if len(s.Converters) > 0 {
			names := slices.Sorted(maps.Keys(s.Converters))
			offered = "its `blis convert` offers " + strings.Join(names, ", ")
		}
		return nil, &PlanError{simcli.ReasonUnsupportedBuild, fmt.Sprintf("the %s trace must be converted by `blis convert %s` before replay; this build cannot: %s", t.Format, t.Format, offered)}
	}
	var missing []string
	for _, f := range convertNeeds {
		if !flags.Has(f) {
			missing = append(missing, "--"+f)
		}
	}
	if len(missing) > 0 {
		return nil, &PlanError{simcli.ReasonUnsupportedBuild, "this build's `blis convert " + t.Format + "` lacks " + strings.Join(missing, ", ")}
	}
	source := TraceSourceFile(t.Format)
	conv := []string{"convert", t.Format, "--input", TracesDirPlaceholder + "/" + t.SHA256 + "/" + source,
		"--trace-output", RunDirPlaceholder + "/" + convertedTrace}
	// The converters store each round's new input tokens; the accumulate
	// mode rebuilds every round's recorded total from them.
	if flags.Has("context-growth") {
		conv = append(conv, "--context-growth", "accumulate")
	}
	return slices.Clip(conv), nil
}
