package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbpr"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
)

// readDeclaration reads and decodes a runs.yaml and resolves the traces it
// names (relative to its directory) to their content hashes. The
// candidates declared through `leaderboard serve` (the declarations file
// beside the results directory results, when there is one) are merged in.
func readDeclaration(path, results string) (*leaderboard.Declaration, map[string]leaderboard.TraceFiles, error) {
	d, traces, err := readRuns(path)
	if err != nil {
		return nil, nil, err
	}
	if d, err = mergeDeclared(d, results); err != nil {
		return nil, nil, err
	}
	return d, traces, nil
}

// readRuns reads and decodes a runs.yaml and resolves the traces it names
// (relative to its directory) to their content hashes.
func readRuns(path string) (*leaderboard.Declaration, map[string]leaderboard.TraceFiles, error) {
	src, err := diskio.ReadPathMax(path, leaderboard.MaxDeclarationBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("--runs: %w", err)
	}
	d, err := leaderboard.Decode(src, path)
	if err != nil {
		return nil, nil, err
	}
	traces, err := lbrun.ResolveTraces(d, filepath.Dir(path))
	if err != nil {
		return nil, nil, err
	}
	return d, traces, nil
}

// declarationsFile is the file of the candidates declared through the API
// of `leaderboard serve`, beside the results directory.
func declarationsFile(results string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(results)), leaderboard.DeclarationsFile)
}

// mergeDeclared merges the declarations file beside results into d (d
// itself when there is none).
func mergeDeclared(d *leaderboard.Declaration, results string) (*leaderboard.Declaration, error) {
	file := declarationsFile(results)
	src, err := diskio.ReadPathMax(file, leaderboard.MaxDeclarationBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return nil, err
	}
	extra, err := leaderboard.Decode(src, file)
	if err != nil {
		return nil, err
	}
	return leaderboard.Merge(d, extra)
}

// defaultResults is the results directory beside a runs.yaml.
func defaultResults(runs string) string { return filepath.Join(filepath.Dir(runs), "results") }

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
	return defaultResults(f.runs)
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
	dir := o.resultsDir()
	d, _, err := readDeclaration(o.runs, dir)
	if err != nil {
		return err
	}
	res, probs, err := lbrun.Check(d, dir, "")
	if err != nil {
		return fmt.Errorf("leaderboard render: read %s: %w", dir, err)
	}
	// A declared run without a result is shown as such; anything else is
	// an error: a table is never drawn from results that do not check.
	var bad []leaderboard.Problem
	for _, p := range probs {
		if p.Kind != leaderboard.ProblemMissing {
			bad = append(bad, p)
		}
	}
	if len(bad) > 0 {
		return lbpr.ProblemsError("leaderboard render", dir, bad)
	}
	files, err := render.LeaderboardFiles(leaderboard.BuildBoard(d, res))
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := lbpr.WriteBoardFiles(o.out, files); err != nil {
			return fmt.Errorf("leaderboard render: %w", err)
		}
	}
	_, err = env.Stdout.Write(files[render.LeaderboardMarkdownFile])
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
		if o.sim != "" && o.pinFile != "" {
			return errors.New("give --sim or --pin, not both (the pin file names the simulator)")
		}
		if o.sim != "" && !ident.IsCommit(o.sim) {
			return fmt.Errorf("--sim %q: give the pinned simulator commit, 40 lowercase hex", o.sim)
		}
		return cli.NoArgs(args)
	},
	Run: runLeaderboardValidate,
}

func runLeaderboardValidate(ctx context.Context, o leaderboardValidateOptions, env cli.Env) error {
	var pair *pin.LeaderboardPair
	if o.pinFile != "" {
		p, err := readLeaderboardPair(o.pinFile)
		if err != nil {
			return fmt.Errorf("leaderboard validate: %w", err)
		}
		pair = &p
	}
	dir := o.resultsDir()
	d, _, err := readDeclaration(o.runs, dir)
	if err != nil {
		return err
	}
	res, probs, err := lbrun.Check(d, dir, o.sim)
	if err != nil {
		return fmt.Errorf("leaderboard validate: read %s: %w", dir, err)
	}
	if pair != nil {
		more, err := lbrun.PinPairProblems(ctx, *pair, o.pinFile, ".", res)
		if err != nil {
			return fmt.Errorf("leaderboard validate: %w", err)
		}
		probs = append(probs, more...)
	}
	if len(probs) > 0 {
		return lbpr.ProblemsError("leaderboard validate", dir, probs)
	}
	groups := map[string]bool{}
	for _, r := range res {
		groups[r.Group] = true
	}
	names := slices.Sorted(maps.Keys(groups))
	fmt.Fprintf(env.Stdout, "ok: %d results in %d groups (%s) match %s\n", len(res), len(groups), strings.Join(names, ", "), o.runs)
	return nil
}
