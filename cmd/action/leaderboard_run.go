package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnessflags"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/corpus"
	"github.com/inference-sim/accuracy-dashboard/internal/cachedir"
	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
)

// simFlags are the flags `leaderboard run`, `verify` and `serve` share.
type simFlags struct {
	simRepo, catalog, cacheDir, userModels string
	jobs                                   int
	timeout                                time.Duration
	quiet                                  bool
}

func (s *simFlags) register(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&s.simRepo, "sim-repo", harness.DefaultSimRepo, "simulator git `repository`: a URL or a local path (e.g. --sim-repo ~/src/inference-sim)")
	fs.StringVar(&s.catalog, "catalog", "none", "model catalog `directory` handed to the simulator (models/<name>/config.json), \"bundled\" or \"none\" for the simulator's own model_configs/ (e.g. --catalog ~/src/blis-catalog)")
	fs.StringVar(&s.cacheDir, "cache-dir", cachedir.Default(getenv), "`directory` caching simulator clones and builds between runs; env ACCURACY_DASHBOARD_CACHE (e.g. --cache-dir /tmp/blis-cache)")
	fs.StringVar(&s.userModels, "user-models", getenv("LEADERBOARD_USER_MODELS"), "user-model store `directory` (<model folder>/config.json of models the build and catalog lack; serve stores uploads there); env LEADERBOARD_USER_MODELS")
	fs.IntVar(&s.jobs, "jobs", runtime.NumCPU(), "number of simulations run in parallel (e.g. --jobs 2)")
	fs.DurationVar(&s.timeout, "timeout", harness.DefaultPointTimeout, "kill a simulation that runs longer than this; its result fails with simulator-timeout (e.g. --timeout 5m)")
	fs.BoolVar(&s.quiet, "quiet", false, "print no progress or log lines on stderr (e.g. --quiet)")
}

// check refuses positional arguments and a --jobs below 1.
func (s *simFlags) check(args []string) error {
	if s.jobs < 1 {
		return fmt.Errorf("--jobs %d: must be at least 1", s.jobs)
	}
	return cli.NoArgs(args)
}

// logger is the log on stderr (none with --quiet) and where progress goes.
func (s *simFlags) logger(stderr io.Writer) (*slog.Logger, io.Writer) {
	out := stderr
	if s.quiet {
		out = io.Discard
	}
	return slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelInfo})), out
}

// builds are the simulator builds of the flags, logging to log.
func (s *simFlags) builds(log *slog.Logger) lbrun.Builds {
	return lbrun.Builds{Repo: s.simRepo, Catalog: s.catalog, CacheDir: s.cacheDir, Timeout: s.timeout, Log: log, Tool: harness.Self(commit, version), UserModels: s.userModels,
		Bundled: harness.BundledCatalog{Catalog: corpus.Catalog(), Ledger: corpus.Ledger()}}
}

// buildFlags are the flags `leaderboard run` and `serve` share: the
// declaration (with --results for serve), the simulator ref (simUsage
// says its default), this tool's checkout and the simFlags.
type buildFlags struct {
	leaderboardFiles
	simFlags
	sim, harnessDir string
}

func (b *buildFlags) register(fs *flag.FlagSet, getenv func(string) string, withResults bool, simUsage string) {
	b.leaderboardFiles.register(fs, withResults)
	fs.StringVar(&b.sim, "sim", "", simUsage)
	fs.StringVar(&b.harnessDir, "harness-dir", "", "this tool's own `directory`, whose commit results record (default: found from the working directory)")
	b.simFlags.register(fs, getenv)
}

const leaderboardRunUsage = `Usage: action leaderboard run --runs runs.yaml [flags]

Builds the simulator at an exact release tag or 40-hex commit (a branch is
refused) through the harness's build cache, runs 'blis run' once per declared
candidate and offered load, in the simulator's source tree, and files each
result as <out>/<group>/<run>.json as soon as its run ends. A run the simulator cannot do (unknown
model or GPU, a crash, a timeout) gets a failed result with the reason and
the simulator's message, never a number. The same declaration and build give
byte-identical files.

With --reuse DIR, a result filed in DIR that ran the same declaration on the
same build (simulator commit, catalog digest) with the same command line as
the run would now is copied into the output as it is instead of being run
again (a timed-out result is always run again). A run interrupted (Ctrl-C)
keeps every result it filed; run again with --reuse set to the output
directory to resume. Results of the output directory that no run of --runs
asks for are listed; --prune removes them.

Examples:
  action leaderboard run --runs leaderboard/runs.yaml --sim-repo ~/src/inference-sim --sim f90a1e3a6787da17c2cd463dab6fb2660b1b1760
  action leaderboard run --runs runs.yaml --sim v0.7.15 --reuse results/ --out /tmp/results
  action leaderboard run --runs runs.yaml --sim v0.7.15 --only chat-4rps/h100-tp1 --jobs 2
  action leaderboard run --runs runs.yaml --sim v0.7.15 --reuse results/ --prune

Flags:
`

// leaderboardRunOptions are the flags of `action leaderboard run`.
type leaderboardRunOptions struct {
	buildFlags
	out, only, reuse string
	prune            bool
}

// leaderboardRunCommand is `action leaderboard run`.
var leaderboardRunCommand = cli.Spec[leaderboardRunOptions]{
	Name:    "leaderboard run",
	Summary: "run the declared candidates through a simulator build and file their results",
	Usage:   leaderboardRunUsage,
	Flags: func(fs *flag.FlagSet, o *leaderboardRunOptions, getenv func(string) string) {
		o.buildFlags.register(fs, getenv, false, "simulator `ref`: a release tag or a full 40-hex commit; default: the newest vX.Y.Z tag of --sim-repo (e.g. --sim v0.7.15)")
		fs.StringVar(&o.out, "out", "", "results `directory` (default: results/ beside --runs)")
		fs.StringVar(&o.only, "only", "", "comma-separated `GROUP or GROUP/RUN` to run, default all (e.g. --only chat-4rps/h100-tp1)")
		fs.StringVar(&o.reuse, "reuse", "", "results `directory` whose unchanged results are kept instead of run again (may be --out itself; e.g. --reuse leaderboard/results)")
		fs.BoolVar(&o.prune, "prune", false, "remove the results of the output directory that no run of --runs asks for (runs removed or renamed; without it they are listed; e.g. --prune)")
	},
	Check: func(o *leaderboardRunOptions, args []string) error { return o.check(args) },
	Run:   runLeaderboardRun,
}

func runLeaderboardRun(ctx context.Context, o leaderboardRunOptions, env cli.Env) error {
	stdout := env.Stdout
	log, progress := o.logger(env.Stderr)
	rep, err := lbrun.RunDeclaration(ctx, lbrun.RunConfig{Runs: o.runs, Out: o.out, Only: harnessflags.SplitList(o.only), Reuse: o.reuse,
		Ref: o.sim, HarnessDir: o.harnessDir, Jobs: o.jobs, Builds: o.builds(log),
		Progress: func(done, total int, r *leaderboard.Result) {
			fmt.Fprintf(progress, "progress: %d/%d runs (%s/%s: %s)\n", done, total, r.Group, r.Run, r.Status)
		}})
	if err != nil {
		return lbrun.CommandError("leaderboard run", err)
	}
	var failed []string
	for _, r := range rep.Failed() {
		failed = append(failed, fmt.Sprintf("  %s/%s: %s: %s", r.Group, r.Run, r.Failure.Reason, r.Failure.Message))
	}
	fmt.Fprintf(stdout, "wrote %d results into %s (%d failed)\n", len(rep.Results), rep.Out, len(failed))
	if o.reuse != "" {
		fmt.Fprintf(stdout, "reused %d unchanged results from %s, ran %d\n", rep.Reused, o.reuse, rep.Ran)
	}
	if len(failed) > 0 {
		fmt.Fprintf(stdout, "failed runs (filed with their reason, no figures):\n%s\n", strings.Join(failed, "\n"))
	}
	// The results of runs removed from runs.yaml or renamed (render and
	// validate refuse them) are listed, and removed with --prune.
	if len(rep.Undeclared) == 0 {
		return nil
	}
	list := "  " + strings.Join(rep.Undeclared, "\n  ")
	if !o.prune {
		fmt.Fprintf(stdout, "%d results in %s that no run of the declaration asks for (removed or renamed; --prune removes them):\n%s\n", len(rep.Undeclared), rep.Out, list)
		return nil
	}
	if err := lbrun.Prune(rep.Out, rep.Undeclared); err != nil {
		return fmt.Errorf("leaderboard run: --prune: %w", err)
	}
	fmt.Fprintf(stdout, "pruned %d results that no run of the declaration asks for:\n%s\n", len(rep.Undeclared), list)
	return nil
}

const leaderboardVerifyUsage = `Usage: action leaderboard verify [--runs runs.yaml] [--results DIR] [--only GROUP/RUN] [flags]

Re-runs results on their recorded simulator commit and compares the new
result with the recorded one, field by field (except the tool's own commit,
provenance.harness). Each result's run is planned again from runs.yaml on
that build first: a result whose declaration is not runs.yaml's, or whose
recorded command, conversion or input files are not that plan, is a
problem and is not run (verify runs nothing it did not plan). BLIS is
deterministic, so any difference is a bug: it is printed with file, field,
old and new value. A problem or a difference gives exit status 1.

Example:
  action leaderboard verify --runs leaderboard/runs.yaml --sim-repo ~/src/inference-sim --only chat-4rps

Flags:
`

// leaderboardVerifyOptions are the flags of `action leaderboard verify`.
type leaderboardVerifyOptions struct {
	simFlags
	leaderboardFiles
	only string
}

// leaderboardVerifyCommand is `action leaderboard verify`.
var leaderboardVerifyCommand = cli.Spec[leaderboardVerifyOptions]{
	Name:    "leaderboard verify",
	Summary: "re-run results with their recorded build and command line and diff them",
	Usage:   leaderboardVerifyUsage,
	Flags: func(fs *flag.FlagSet, o *leaderboardVerifyOptions, getenv func(string) string) {
		o.leaderboardFiles.register(fs, true)
		fs.StringVar(&o.only, "only", "", "comma-separated `GROUP or GROUP/RUN` to verify, default all (e.g. --only chat-4rps/h100-tp1)")
		o.simFlags.register(fs, getenv)
	},
	Check: func(o *leaderboardVerifyOptions, args []string) error { return o.check(args) },
	Run:   runLeaderboardVerify,
}

func runLeaderboardVerify(ctx context.Context, o leaderboardVerifyOptions, env cli.Env) error {
	log, _ := o.logger(env.Stderr)
	v, err := lbrun.VerifyDeclaration(ctx, lbrun.VerifyConfig{Runs: o.runs, Results: o.resultsDir(), Only: harnessflags.SplitList(o.only), Jobs: o.jobs, Builds: o.builds(log)})
	if err != nil {
		return lbrun.CommandError("leaderboard verify", err)
	}
	fmt.Fprintln(env.Stdout, strings.Join(v.Lines(), "\n"))
	var errs []error
	if n := v.Unrun(); n > 0 {
		errs = append(errs, fmt.Errorf("leaderboard verify: %d of %d results do not stand for their declaration (not run)", n, len(v.Verdicts)))
	}
	if n := v.Differing(); n > 0 {
		errs = append(errs, fmt.Errorf("leaderboard verify: %d of %d results did not reproduce (BLIS is deterministic: this is a bug)", n, len(v.Verdicts)))
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	fmt.Fprintf(env.Stdout, "verified: %d results reproduce exactly\n", len(v.Verdicts))
	return nil
}
