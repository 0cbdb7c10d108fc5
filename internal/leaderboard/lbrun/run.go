// Package lbrun drives the simulator for the leaderboard: it plans the
// `blis run` or `blis replay` command of each declared run on a build the
// harness built and probed, executes it through the harness (Build.Exec,
// timeouts, the simulator's reasons) in internal/pool, and turns BLIS's
// output into a sealed result of package leaderboard (the model: results,
// tables and checks, which never depend on the harness). It also holds the
// flows of the leaderboard's commands (RunDeclaration, VerifyDeclaration,
// Validate, Render), each a typed configuration in and what the command
// prints out.
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
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
)

// Sim is a probed simulator build the runs go through.
type Sim struct {
	Build *harness.Build
	// RunFlags and ReplayFlags are the flags of the build's `blis run` and
	// `blis replay` (harness.ProbeCommand).
	RunFlags, ReplayFlags simcli.Flags
	// Converters are the flags of each `blis convert <format>` the build
	// offers (harness.ProbeConverters), by format.
	Converters map[string]simcli.Flags
	// TracesDir is the results directory's traces/ (trace runs only).
	TracesDir string
	// Catalog is the model catalog directory handed to the simulator ("":
	// none, the simulator's own model_configs/), with its version.
	Catalog        string
	CatalogVersion *runresult.DataVersion
	// UserModels is the user-model store ("": none): the configs of
	// models the build and catalog lack (usermodels.go).
	UserModels string
	// Harness is this tool's identity, recorded in every result.
	Harness runresult.Harness
	// Timeout bounds one simulation (<= 0: harness.DefaultPointTimeout).
	Timeout time.Duration
	// WorkDir holds the per-run directories (removed after each run).
	WorkDir string

	// nodeChecks caches each stored trace's node check by content hash.
	nodeChecks sync.Map
}

// Simulate simulates run r and returns its sealed result: BLIS's figures and the
// computed values, or a failed result with the reason and the simulator's
// message. It never returns a number it could not read from BLIS.
func (s *Sim) Simulate(ctx context.Context, r leaderboard.DeclaredRun) *leaderboard.Result {
	inv, err := s.Plan(r)
	if err != nil {
		return s.failed(r, leaderboard.Bare(r), err)
	}
	return s.Execute(ctx, r, inv)
}

// Execute runs inv (planned, or recorded in a result) for run r.
func (s *Sim) Execute(ctx context.Context, r leaderboard.DeclaredRun, inv leaderboard.Invocation) *leaderboard.Result {
	dir, err := os.MkdirTemp(s.WorkDir, "run-")
	if err != nil {
		return s.failed(r, inv, &leaderboard.PlanError{Reason: harness.ReasonRunError, Msg: "leaderboard: " + err.Error()})
	}
	defer os.RemoveAll(dir)
	for name, content := range inv.Inputs {
		if strings.ContainsAny(name, `/\`) || name == leaderboard.Output {
			return s.failed(r, inv, &leaderboard.PlanError{Reason: harness.ReasonRunError, Msg: "leaderboard: input name " + strconv.Quote(name) + " is not a plain file name"})
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return s.failed(r, inv, &leaderboard.PlanError{Reason: harness.ReasonRunError, Msg: "leaderboard: " + err.Error()})
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
		return s.failed(r, inv, &leaderboard.PlanError{Reason: harness.ReasonBadOutput, Msg: "the simulator exited 0 but wrote no metrics file"})
	}
	fig, err := leaderboard.ParseMetrics(raw)
	if err != nil {
		return s.failed(r, inv, &leaderboard.PlanError{Reason: harness.ReasonBadOutput, Msg: err.Error()})
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
		a = strings.ReplaceAll(a, leaderboard.RunDirPlaceholder, dir)
		if strings.Contains(a, leaderboard.TracesDirPlaceholder) {
			if s.TracesDir == "" {
				return nil, &leaderboard.PlanError{Reason: harness.ReasonRunError, Msg: "the command replays a stored trace, but no traces directory is set"}
			}
			a = strings.ReplaceAll(a, leaderboard.TracesDirPlaceholder, s.TracesDir)
		}
		if strings.Contains(a, leaderboard.CatalogDirPlaceholder) {
			if s.Catalog == "" {
				return nil, &leaderboard.PlanError{Reason: harness.ReasonRunError, Msg: "the command needs a catalog (--catalog)"}
			}
			a = strings.ReplaceAll(a, leaderboard.CatalogDirPlaceholder, s.Catalog)
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

func (s *Sim) result(r leaderboard.DeclaredRun, inv leaderboard.Invocation) *leaderboard.Result {
	prov := leaderboard.Provenance{Simulator: leaderboard.Simulator{Commit: s.Build.Commit, Tag: s.Build.Tag}, Catalog: s.CatalogVersion, Harness: s.Harness}
	res := &leaderboard.Result{Group: r.Group, Run: r.ID, Declaration: r, Command: append([]string{"blis"}, inv.Args...), Inputs: inv.Inputs, Provenance: prov}
	if len(inv.Convert) > 0 {
		res.Convert = append([]string{"blis"}, inv.Convert...)
	}
	return res
}

func (s *Sim) failed(r leaderboard.DeclaredRun, inv leaderboard.Invocation, err error) *leaderboard.Result {
	res := s.result(r, inv)
	res.Status = leaderboard.StatusFailed
	var f *leaderboard.PlanError
	var se *harness.SimError
	switch {
	case errors.As(err, &f):
		res.Failure = &leaderboard.Failure{Reason: f.Reason, Message: f.Msg}
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
func (s *Sim) RunAll(ctx context.Context, runs []leaderboard.DeclaredRun, jobs int, done func(*leaderboard.Result)) []*leaderboard.Result {
	out := make([]*leaderboard.Result, len(runs))
	var mu sync.Mutex
	pool.Run(ctx, jobs, Costs(runs), func(ctx context.Context, i int) {
		out[i] = s.Simulate(ctx, runs[i])
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
func Costs(runs []leaderboard.DeclaredRun) []float64 {
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
