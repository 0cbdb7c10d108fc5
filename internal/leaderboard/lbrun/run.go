// Package lbrun drives the simulator for the leaderboard: it plans the
// `blis run` or `blis replay` command of each declared run on a build the
// harness built and probed, executes it through the harness (Build.Exec,
// timeouts, the simulator's reasons) in internal/pool, and turns BLIS's
// output into a sealed result of package leaderboard (the model: results,
// tables and checks, which never depend on the harness).
package lbrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/pool"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
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

// Sim is a probed simulator build the runs go through.
type Sim struct {
	Build *harness.Build
	// RunFlags and ReplayFlags are the flags of the build's `blis run` and
	// `blis replay` (harness.ProbeCommand).
	RunFlags, ReplayFlags harness.Flags
	// Converters are the flags of each `blis convert <format>` the build
	// offers (harness.ProbeConverters), by format.
	Converters map[string]harness.Flags
	// TracesDir is the results directory's traces/ (trace runs only).
	TracesDir string
	// Catalog is the model catalog directory handed to the simulator ("":
	// none, the simulator's own model_configs/), with its version.
	Catalog        string
	CatalogVersion *report.DataVersion
	// Harness is this tool's identity, recorded in every result.
	Harness report.Harness
	// Timeout bounds one simulation (<= 0: harness.DefaultPointTimeout).
	Timeout time.Duration
	// WorkDir holds the per-run directories (removed after each run).
	WorkDir string

	// nodeChecks caches each stored trace's node check by content hash.
	nodeChecks sync.Map
}

// Invocation is a planned simulator command: its arguments after "blis",
// with RunDirPlaceholder, CatalogDirPlaceholder and TracesDirPlaceholder
// standing for machine paths, and the input files it reads, by name in the
// run directory. Convert, when set, is a `blis convert` command run first
// in the same run directory (it writes the trace the command replays).
type Invocation struct {
	Args    []string
	Inputs  map[string]string
	Convert []string
}

// recorded is the invocation a result recorded, to run it again as it ran.
func recorded(res *leaderboard.Result) Invocation {
	inv := Invocation{Inputs: res.Inputs}
	if len(res.Command) > 0 {
		inv.Args = res.Command[1:]
	}
	if len(res.Convert) > 0 {
		inv.Convert = res.Convert[1:]
	}
	return inv
}

// failure is a planning failure: the run gets a failed result.
type failure struct{ reason, msg string }

func (f *failure) Error() string { return f.reason + ": " + f.msg }

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
		if leaderboard.TraceSourceFile(t.Format) != "" {
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
	dep, err := deploymentArgs(r, flags, s.Catalog, s.Build.DataDir)
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
func deploymentArgs(r leaderboard.Run, flags harness.Flags, catalog, dataDir string) ([]string, error) {
	c := r.Candidate.Normalized()
	short := harness.ModelShortName(c.Model)
	inCatalog := catalog != "" && fileExists(filepath.Join(catalog, "models", short, "config.json"))
	if !inCatalog && !fileExists(filepath.Join(dataDir, "model_configs", short, "config.json")) {
		where := "the simulator's model_configs/"
		if catalog != "" {
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
	// DeploymentArgs looks for the model's config under the catalog path
	// it is given; the command records the placeholder instead of the path.
	if inCatalog {
		dep.Catalog = catalog
	}
	args, err := harness.DeploymentArgs(flags, dep)
	if err != nil {
		return nil, &failure{harness.ReasonUnsupportedBuild, err.Error()}
	}
	for i, a := range args {
		if catalog != "" && strings.HasPrefix(a, catalog) {
			args[i] = CatalogDirPlaceholder + strings.TrimPrefix(a, catalog)
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

// Run simulates run r and returns its sealed result: BLIS's figures and the
// computed values, or a failed result with the reason and the simulator's
// message. It never returns a number it could not read from BLIS.
func (s *Sim) Run(ctx context.Context, r leaderboard.Run) *leaderboard.Result {
	inv, err := s.Plan(r)
	if err != nil {
		command := "run"
		if r.Workload.Trace != nil {
			command = "replay"
		}
		return s.failed(r, Invocation{Args: []string{command}}, err)
	}
	return s.Execute(ctx, r, inv)
}

// Rerun runs a recorded result again on s, as it ran: its recorded
// invocation, or, for a run that failed before the simulator started (its
// command is the bare `blis run` or `blis replay` a planning failure
// records), its declaration planned again.
func (s *Sim) Rerun(ctx context.Context, rec *leaderboard.Result) *leaderboard.Result {
	if rec.Status == leaderboard.StatusFailed && len(rec.Command) <= 2 && len(rec.Convert) == 0 {
		return s.Run(ctx, rec.Declaration)
	}
	return s.Execute(ctx, rec.Declaration, recorded(rec))
}

// Execute runs inv (planned, or recorded in a result) for run r.
func (s *Sim) Execute(ctx context.Context, r leaderboard.Run, inv Invocation) *leaderboard.Result {
	dir, err := os.MkdirTemp(s.WorkDir, "run-")
	if err != nil {
		return s.failed(r, inv, &failure{harness.ReasonRunError, "leaderboard: " + err.Error()})
	}
	defer os.RemoveAll(dir)
	for name, content := range inv.Inputs {
		if strings.ContainsAny(name, `/\`) || name == leaderboard.Output {
			return s.failed(r, inv, &failure{harness.ReasonRunError, "leaderboard: input name " + strconv.Quote(name) + " is not a plain file name"})
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return s.failed(r, inv, &failure{harness.ReasonRunError, "leaderboard: " + err.Error()})
		}
	}
	if len(inv.Convert) > 0 {
		conv, err := s.expand(inv.Convert, dir)
		if err != nil {
			return s.failed(r, inv, err)
		}
		if err := s.Build.Exec(ctx, conv, s.Timeout); err != nil {
			return s.failed(r, inv, convertFailure(err))
		}
	}
	args, err := s.expand(inv.Args, dir)
	if err != nil {
		return s.failed(r, inv, err)
	}
	if err := s.Build.Exec(ctx, args, s.Timeout); err != nil {
		return s.failed(r, inv, err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, leaderboard.Output))
	if err != nil {
		return s.failed(r, inv, &failure{harness.ReasonBadOutput, "the simulator exited 0 but wrote no metrics file"})
	}
	fig, err := leaderboard.ParseMetrics(raw)
	if err != nil {
		return s.failed(r, inv, &failure{harness.ReasonBadOutput, err.Error()})
	}
	comp := leaderboard.Compute(r, fig)
	res := s.result(r, inv)
	res.Status, res.BLIS, res.Computed = leaderboard.StatusOK, &fig, &comp
	return seal(res)
}

// expand puts the machine paths in place of the placeholders of args: dir
// for the run directory, the traces directory and the catalog.
func (s *Sim) expand(args []string, dir string) ([]string, error) {
	out := make([]string, len(args))
	for i, a := range args {
		a = strings.ReplaceAll(a, RunDirPlaceholder, dir)
		if strings.Contains(a, TracesDirPlaceholder) {
			if s.TracesDir == "" {
				return nil, &failure{harness.ReasonRunError, "the command replays a stored trace, but no traces directory is set"}
			}
			a = strings.ReplaceAll(a, TracesDirPlaceholder, s.TracesDir)
		}
		if strings.Contains(a, CatalogDirPlaceholder) {
			if s.Catalog == "" {
				return nil, &failure{harness.ReasonRunError, "the command needs a catalog (--catalog)"}
			}
			a = strings.ReplaceAll(a, CatalogDirPlaceholder, s.Catalog)
		}
		out[i] = a
	}
	return out, nil
}

// convertFailure says that the simulator failed converting the trace, not
// simulating it.
func convertFailure(err error) error {
	var se *harness.SimError
	if errors.As(err, &se) {
		return &harness.SimError{Reason: se.Reason, Detail: "`blis convert` failed: " + se.Detail}
	}
	return fmt.Errorf("`blis convert` failed: %w", err)
}

func (s *Sim) result(r leaderboard.Run, inv Invocation) *leaderboard.Result {
	prov := leaderboard.Provenance{Simulator: leaderboard.Simulator{Commit: s.Build.Commit, Tag: s.Build.Tag}, Catalog: s.CatalogVersion, Harness: s.Harness}
	res := &leaderboard.Result{Group: r.Group, Run: r.ID, Declaration: r, Command: append([]string{"blis"}, inv.Args...), Inputs: inv.Inputs, Provenance: prov}
	if len(inv.Convert) > 0 {
		res.Convert = append([]string{"blis"}, inv.Convert...)
	}
	return res
}

func (s *Sim) failed(r leaderboard.Run, inv Invocation, err error) *leaderboard.Result {
	res := s.result(r, inv)
	res.Status = leaderboard.StatusFailed
	var f *failure
	var se *harness.SimError
	switch {
	case errors.As(err, &f):
		res.Failure = &leaderboard.Failure{Reason: f.reason, Message: f.msg}
	case errors.As(err, &se):
		res.Failure = &leaderboard.Failure{Reason: se.Reason, Message: se.Detail}
	default:
		res.Failure = &leaderboard.Failure{Reason: harness.ReasonRunError, Message: err.Error()}
	}
	return seal(res)
}

func seal(r *leaderboard.Result) *leaderboard.Result {
	if err := r.Seal(); err != nil {
		// Sealing encodes plain data; it cannot fail for a Result.
		panic(err)
	}
	return r
}

// RunAll simulates every run on at most jobs workers (the most expensive
// first) and returns the results in the order of runs. done (if not nil)
// is called once per finished run, never concurrently.
func (s *Sim) RunAll(ctx context.Context, runs []leaderboard.Run, jobs int, done func(*leaderboard.Result)) []*leaderboard.Result {
	out := make([]*leaderboard.Result, len(runs))
	var mu sync.Mutex
	pool.Run(ctx, jobs, Costs(runs), func(ctx context.Context, i int) {
		out[i] = s.Run(ctx, runs[i])
		if done != nil {
			mu.Lock()
			done(out[i])
			mu.Unlock()
		}
	})
	return out
}

// Costs estimates each run's simulation cost for longest-first ordering:
// output tokens to decode (requests × mean output length).
func Costs(runs []leaderboard.Run) []float64 {
	c := make([]float64, len(runs))
	for i, r := range runs {
		out := 1
		if r.Workload.OutputTokens != nil {
			out = r.Workload.OutputTokens.Mean
		}
		c[i] = float64(max(r.Workload.Requests, 1) * out)
	}
	return c
}
