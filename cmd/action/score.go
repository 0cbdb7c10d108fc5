package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnessflags"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// scoreOptions are the flags of `action score`.
type scoreOptions struct {
	harnessflags.Flags
	sim, simBin, simDataDir string
	shard                   string
	parsedShard             *runresult.Shard
	out                     string
	keepRuns                bool
	reuse                   string
	whatIf                  string
}

const scoreUsage = `Usage: action score [flags]

Scores a simulator build against the measured corpus (the ledger) and prints
the accuracy table as Markdown on stdout. The simulator is built by the harness
from an exact release tag or 40-hex commit (a branch is refused), or handed in
prebuilt with --sim-bin (the figures are then experimental).

Examples:
  action score --sim-repo ~/src/inference-sim --sim f90a1e3a6787da17c2cd463dab6fb2660b1b1760
  action score --sim v0.7.15 --out out/ --units 'inferencex/gpt-oss-120b/h100/*'
  action score --sim-bin ./blis --sim-data-dir ~/src/inference-sim --jobs 2
  action score --sim v0.7.15 --what-if all --out out/   # out/whatif/<name>/ too

Flags:
`

// scoreCommand is `action score`.
var scoreCommand = cli.Spec[scoreOptions]{
	Name:    "score",
	Summary: "score a simulator build against the ledger and print the accuracy table",
	Usage:   scoreUsage,
	Flags:   scoreFlags,
	Check:   checkScore,
	Run:     runScore,
}

func scoreFlags(fs *flag.FlagSet, o *scoreOptions, getenv func(string) string) {
	fs.StringVar(&o.sim, "sim", "", "simulator `ref`: a release tag or a full 40-hex commit; default: the newest vX.Y.Z tag of --sim-repo (e.g. --sim v0.7.15)")
	fs.StringVar(&o.simBin, "sim-bin", "", "an already built simulator `binary` to run instead of building one (e.g. --sim-bin ./blis); figures are experimental")
	fs.StringVar(&o.simDataDir, "sim-data-dir", "", "working `directory` for --sim-bin runs, holding defaults.yaml and model_configs/; default: the binary's directory (e.g. --sim-data-dir ~/src/inference-sim)")
	o.Flags.Register(fs, getenv)
	fs.StringVar(&o.shard, "shard", "", "score only slice `k/n` of the points; combine slices with 'action merge' (e.g. --shard 2/4)")
	fs.StringVar(&o.out, "out", "", "also write summary.json, points.json and summary.md into this `directory` (e.g. --out out/)")
	fs.StringVar(&o.reuse, "reuse", "", "take the prediction of every point whose replay digest this earlier result `directory` (a run's --out or a published snapshot) has, and simulate only the rest (e.g. --reuse data/snapshots/<id>)")
	fs.StringVar(&o.whatIf, "what-if", "", "also score what-if `experiments` declared in corpus/whatif/ (names, comma-separated, or all): each scores the units it applies to with its one change, is written to --out's whatif/<name>/ labelled 'what-if: NAME', and the table gains a Why section comparing the same points without and with it (e.g. --what-if gpt-oss-120b-mxfp4)")
	fs.BoolVar(&o.keepRuns, "keep-runs", false, "keep each point's trace and simulator output in a temporary directory for inspection (e.g. --keep-runs)")
}

func checkScore(o *scoreOptions, args []string) error {
	if err := cli.NoArgs(args); err != nil {
		return err
	}
	if o.sim != "" && o.simBin != "" {
		return errors.New("give --sim or --sim-bin, not both")
	}
	if o.reuse != "" && o.simBin != "" {
		return errors.New("--reuse needs a build the harness makes from a commit, not --sim-bin (a prebuilt binary's points have no replay digest)")
	}
	if err := o.Flags.Check(); err != nil {
		return err
	}
	shard, err := runresult.ParseShard(o.shard)
	if err != nil {
		return fmt.Errorf("--%w", err)
	}
	o.parsedShard = shard
	if o.whatIf != "" && shard != nil {
		return errors.New("--what-if cannot be sharded: its Why section compares whole units (score the what-ifs after the merge, with --reuse of the merged run)")
	}
	if o.whatIf != "" {
		_, err = whatif.Declared(o.whatIf)
	}
	return err
}

func runScore(ctx context.Context, o scoreOptions, env cli.Env) error {
	opts, log, err := o.Flags.Options(ctx, env.Stderr)
	if err != nil {
		return fmt.Errorf("score: %w", err)
	}
	opts.SimRef, opts.SimBin, opts.SimDataDir, opts.Shard, opts.KeepRuns = o.sim, o.simBin, o.simDataDir, o.parsedShard, o.keepRuns
	if o.reuse != "" {
		r, err := harness.ReadReuse(o.reuse)
		if err != nil {
			return fmt.Errorf("score: --reuse: %w", err)
		}
		opts.Reuse = r
		log.Info("reusing predictions by replay digest", "from", r.From, "predictions", r.Len())
	}
	res, err := harness.Score(ctx, opts)
	if err != nil {
		return err
	}
	if o.out != "" && o.whatIf != "" {
		// The run without the what-ifs first: a what-if that fails or is
		// interrupted loses none of it (its predictions are reused by a
		// second try with --reuse).
		if err := runresult.Write(o.out, runresult.Output{Result: res.Result, Markdown: render.Summary(res.Summary)}); err != nil {
			return fmt.Errorf("score: write %s: %w", o.out, err)
		}
	}
	whatIfs, err := harness.ScoreWhatIfs(ctx, opts, res.Result, o.whatIf)
	if err != nil {
		if o.out != "" {
			return fmt.Errorf("%w (the run without the what-ifs is written to %s: score them again with --reuse %s)", err, o.out, o.out)
		}
		return err
	}
	md := render.SummaryWhy(res.Summary, whatIfs.Attributions())
	if o.out != "" {
		if err := runresult.Write(o.out, runresult.Output{Result: res.Result, Markdown: md}); err != nil {
			return fmt.Errorf("score: write %s: %w", o.out, err)
		}
		for _, w := range whatIfs {
			dir := filepath.Join(o.out, whatif.Dir, w.Attribution.WhatIf.Name)
			if err := runresult.Write(dir, runresult.Output{Result: w.Result.Result, Markdown: render.Summary(w.Result.Summary)}); err != nil {
				return fmt.Errorf("score: write %s: %w", dir, err)
			}
		}
		log.Info("wrote outputs", "dir", o.out, "what_ifs", len(whatIfs))
	}
	_, err = io.WriteString(env.Stdout, md)
	return err
}

const mergeUsage = `Usage: action merge --out DIR SHARD_DIR...

Combines the outputs of sharded 'action score --shard k/n --out SHARD_DIR'
runs into one summary.json, points.json and summary.md, identical to what an
unsharded run writes, and prints the table. Every shard 1..n must be given once.

Example:
  action merge --out out/ shard-1/ shard-2/ shard-3/

Flags:
`

// mergeOptions are the flags and arguments of `action merge`.
type mergeOptions struct {
	out       string
	shardDirs []string
}

// mergeCommand is `action merge`.
var mergeCommand = cli.Spec[mergeOptions]{
	Name:    "merge",
	Summary: "combine the outputs of sharded score runs into one summary",
	Usage:   mergeUsage,
	Flags: func(fs *flag.FlagSet, o *mergeOptions, _ func(string) string) {
		fs.StringVar(&o.out, "out", "", "write the merged summary.json, points.json and summary.md into this `directory`, required (e.g. --out out/)")
	},
	Required: []string{"out"},
	Check: func(o *mergeOptions, args []string) error {
		if len(args) == 0 {
			return errors.New("name at least one SHARD_DIR")
		}
		o.shardDirs = args
		return nil
	},
	Run: runMerge,
}

func runMerge(_ context.Context, o mergeOptions, env cli.Env) error {
	parts, err := runresult.ReadParts(o.shardDirs)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	s, p, err := runresult.Merge(parts)
	if err != nil {
		return err
	}
	md := render.Summary(s)
	if err := runresult.Write(o.out, runresult.Output{Result: runresult.Result{Summary: s, Points: p}, Markdown: md}); err != nil {
		return fmt.Errorf("merge: write %s: %w", o.out, err)
	}
	_, err = io.WriteString(env.Stdout, md)
	return err
}
