package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
)

const leaderboardRenderUsage = `Usage: action leaderboard render [--runs runs.yaml] [--results DIR] [--out DIR]

Renders one table per comparability group, rows in declaration order, each
metric with its rank among the group's qualified runs; disqualified runs
beneath with the rank they would have taken; the capacity table of a load
sweep. Prints the Markdown; --out also writes README.md and index.html (one
self-contained page whose columns sort on click). The results are checked
first (as by validate, without drift); a problem is an error.

Example:
  action leaderboard render --runs leaderboard/runs.yaml --out leaderboard/

Flags:
`

// leaderboardFiles are the --runs and --results flags most leaderboard
// commands share.
type leaderboardFiles struct {
	runs, results string
}

func (f *leaderboardFiles) register(fs *flag.FlagSet, withResults bool) {
	fs.StringVar(&f.runs, "runs", "runs.yaml", "the run declaration `file` (e.g. --runs leaderboard/runs.yaml)")
	if withResults {
		fs.StringVar(&f.results, "results", "", "the results `directory` (default: results/ beside --runs)")
	}
}

// resultsDir is --results, or results/ beside --runs.
func (f leaderboardFiles) resultsDir() string {
	if f.results != "" {
		return f.results
	}
	return lbrun.DefaultResults(f.runs)
}

// simOrPin refuses --sim with --pin (validate, serve).
func simOrPin(sim, pinFile string) error {
	if sim != "" && pinFile != "" {
		return errors.New("give --sim or --pin, not both (the pin file names the simulator)")
	}
	return nil
}

// leaderboardRenderOptions are the flags of `action leaderboard render`.
type leaderboardRenderOptions struct {
	leaderboardFiles
	out string
}

// leaderboardRenderCommand is `action leaderboard render`.
var leaderboardRenderCommand = cli.Spec[leaderboardRenderOptions]{
	Name:    "leaderboard render",
	Summary: "render the results as Markdown (README.md) and one HTML page (index.html)",
	Usage:   leaderboardRenderUsage,
	Flags: func(fs *flag.FlagSet, o *leaderboardRenderOptions, _ func(string) string) {
		o.register(fs, true)
		fs.StringVar(&o.out, "out", "", "write README.md and index.html into this `directory` (e.g. --out leaderboard/)")
	},
	Run: runLeaderboardRender,
}

func runLeaderboardRender(_ context.Context, o leaderboardRenderOptions, env cli.Env) error {
	md, err := lbrun.Render(o.runs, o.resultsDir(), o.out)
	if err != nil {
		return lbrun.CommandError("leaderboard render", err)
	}
	_, err = env.Stdout.Write(md)
	return err
}

const leaderboardValidateUsage = `Usage: action leaderboard validate [--runs runs.yaml] [--results DIR] [--sim COMMIT | --pin FILE]

Checks the declaration (schema, ids) and the results: each result's schema
and digest (a result edited by hand fails), its filing (results/<group>/<run>.json
matches the ids inside), that every declared run has a result and every
result a declaration, that each result ran the declaration as it is now,
that its recorded command and input files are what its declaration plans,
that a group's results were offered the same work, and, with --sim, drift:
results that ran on another simulator commit. With --pin, the pin file's
simulator/catalog pair instead: a result that ran on neither member is drift,
one that shares exactly one member is a half-moved pin, and a catalog pinned
as a path (relative to the working directory, the repository root) must still
hash to its pinned digest. Prints every problem, named; exit status 1 on any.

Examples:
  action leaderboard validate --runs leaderboard/runs.yaml --sim f90a1e3a6787da17c2cd463dab6fb2660b1b1760
  action leaderboard validate --runs leaderboard/runs.yaml --pin .github/accuracy-harness.yaml

Flags:
`

// leaderboardValidateOptions are the flags of `action leaderboard validate`.
type leaderboardValidateOptions struct {
	leaderboardFiles
	sim, pinFile string
}

// leaderboardValidateCommand is `action leaderboard validate`.
var leaderboardValidateCommand = cli.Spec[leaderboardValidateOptions]{
	Name:    "leaderboard validate",
	Summary: "check declarations and results: schema, ids, filing, coverage, comparability, drift",
	Usage:   leaderboardValidateUsage,
	Flags: func(fs *flag.FlagSet, o *leaderboardValidateOptions, _ func(string) string) {
		o.register(fs, true)
		fs.StringVar(&o.sim, "sim", "", "the pinned simulator `commit` (40 hex): results that ran on another are listed as drift (e.g. --sim f90a1e3a6787da17c2cd463dab6fb2660b1b1760)")
		fs.StringVar(&o.pinFile, "pin", "", "the pin `file` whose leaderboard simulator/catalog pair the results must have run on (e.g. --pin .github/accuracy-harness.yaml)")
	},
	Check: func(o *leaderboardValidateOptions, args []string) error {
		if err := simOrPin(o.sim, o.pinFile); err != nil {
			return err
		}
		if o.sim != "" && !ident.IsCommit(o.sim) {
			return fmt.Errorf("--sim %q: give the pinned simulator commit, 40 lowercase hex", o.sim)
		}
		return cli.NoArgs(args)
	},
	Run: runLeaderboardValidate,
}

func runLeaderboardValidate(ctx context.Context, o leaderboardValidateOptions, env cli.Env) error {
	res, err := lbrun.Validate(ctx, lbrun.ValidateConfig{Runs: o.runs, Results: o.resultsDir(), Sim: o.sim, PinFile: o.pinFile, RepoRoot: "."})
	if err != nil {
		return lbrun.CommandError("leaderboard validate", err)
	}
	groups := leaderboard.Groups(res)
	fmt.Fprintf(env.Stdout, "ok: %d results in %d groups (%s) match %s\n", len(res), len(groups), strings.Join(groups, ", "), o.runs)
	return nil
}
