package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/bisect"
	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

const bisectUsage = `Usage: action bisect --good REF --bad REF [flags]

Finds the simulator commit that changed the predictions. REF is a release
tag or a 40-hex commit of --sim-repo (a branch is refused), GOOD older than
BAD on its first-parent line. Both ends are scored on the selection
(--units), then only the points whose predictions differ are scored at the
first-parent commits between them, halving the range, until each change is
pinned to one commit. With --metric and --threshold only commits that moved
that figure by at least that much count (several such commits are each
found, within --max-builds). A commit that does not build, or cannot run
the points, is skipped and named. Prints the commits (hash, subject, date),
the points each moved and by how much, and the builds it needed; --out
also writes it as JSON.

Examples:
  action bisect --sim-repo ~/src/inference-sim --good v0.7.13 --bad v0.7.14 --units 'inferencex/gpt-oss-120b/h100'
  action bisect --good v0.7.14 --bad f90a1e3a6787da17c2cd463dab6fb2660b1b1760 --metric ttft --threshold 1 --out bisect.json

Flags:
`

// bisectOptions are the flags of `action bisect`.
type bisectOptions struct {
	scoreOptions
	good, bad, metric, point string
	threshold                float64
	maxBuilds                int
}

// bisectCommand is `action bisect`.
var bisectCommand = cli.Spec[bisectOptions]{
	Name:    "bisect",
	Summary: "find the simulator commit that moved the predictions between two refs",
	Usage:   bisectUsage,
	Flags: func(fs *flag.FlagSet, o *bisectOptions, getenv func(string) string) {
		fs.StringVar(&o.good, "good", "", "the older simulator `ref`, a release tag or a 40-hex commit (e.g. --good v0.7.13)")
		fs.StringVar(&o.bad, "bad", "", "the newer simulator `ref`, whose predictions differ (e.g. --bad v0.7.14)")
		fs.StringVar(&o.metric, "metric", "", "follow this `metric`'s figure (ttft, tpot, e2e, median_ttft, p99_ttft, p99_tpot): the headline tier's MAPE, or with --point that point's prediction (e.g. --metric ttft)")
		fs.StringVar(&o.point, "point", "", "with --metric: follow this point's prediction instead of the MAPE (e.g. --point 'inferencex/gpt-oss-120b/h100/tp4/isl1024-osl1024@c=4')")
		fs.Float64Var(&o.threshold, "threshold", 0, "with --metric: the least move that counts, in percentage points of the MAPE or percent of the point's prediction (e.g. --threshold 1)")
		fs.IntVar(&o.maxBuilds, "max-builds", bisect.DefaultMaxBuilds, "the most commits scored, both ends and skipped ones included (e.g. --max-builds 12)")
		fs.StringVar(&o.out, "out", "", "also write the answer as JSON to this `file` (e.g. --out bisect.json)")
		fs.StringVar(&o.reuse, "reuse", "", "comma-separated earlier result `directories` (an end's --out, a published snapshot) whose predictions are taken by replay digest (e.g. --reuse out-v0.7.13,out-v0.7.14)")
		harnessFlags(fs, &o.scoreOptions, getenv)
	},
	Required: []string{"good", "bad"},
	Check: func(o *bisectOptions, args []string) error {
		if err := cli.NoArgs(args); err != nil {
			return err
		}
		if err := checkHarness(&o.scoreOptions); err != nil {
			return err
		}
		return bisect.Config{Metric: o.metric, Point: o.point, Threshold: o.threshold, MaxBuilds: o.maxBuilds}.CheckFlags()
	},
	Run: runBisect,
}

func runBisect(ctx context.Context, o bisectOptions, env cli.Env) error {
	opts, _, err := harnessOptions(ctx, o.scoreOptions, env.Stderr)
	if err != nil {
		return fmt.Errorf("bisect: %w", err)
	}
	if opts.Reuse, err = readReuse(splitList(o.reuse)); err != nil {
		return fmt.Errorf("bisect: --reuse: %w", err)
	}
	b := &harness.Builder{CacheDir: opts.CacheDir, Log: opts.Log}
	history, err := b.FirstParents(ctx, o.simRepo, o.good, o.bad)
	if err != nil {
		return fmt.Errorf("bisect: %w", err)
	}
	cfg := bisect.Config{Metric: o.metric, Point: o.point, Threshold: o.threshold, MaxBuilds: o.maxBuilds}
	for _, c := range history {
		cfg.Commits = append(cfg.Commits, bisect.Commit{Hash: c.Hash, Subject: c.Subject, Date: c.Date})
	}
	res, err := bisect.Search(ctx, cfg, harnessScorer{opts})
	if err != nil {
		return fmt.Errorf("bisect: %w", err)
	}
	if o.out != "" {
		raw, err := jsoncodec.Encode(res)
		if err != nil {
			return err
		}
		if err := diskio.WriteAtomic(o.out, raw); err != nil {
			return fmt.Errorf("bisect: write %s: %w", o.out, err)
		}
	}
	_, err = io.WriteString(env.Stdout, render.Bisect(res))
	return err
}

// harnessScorer scores a commit through the harness (bisect.Scorer): a
// build that fails is a skip.
type harnessScorer struct{ opts harness.Options }

func (h harnessScorer) Score(ctx context.Context, c bisect.Commit, ids []string) ([]report.Point, error) {
	o := h.opts
	o.SimRef, o.Points = c.Hash, ids
	res, err := harness.Score(ctx, o)
	if errors.Is(err, harness.ErrBuildFailed) {
		return nil, fmt.Errorf("%w: %v", bisect.ErrSkip, err)
	}
	if err != nil {
		return nil, err
	}
	return res.Points, nil
}

// readReuse indexes the scored points of earlier result directories by
// replay digest (nil for none).
func readReuse(dirs []string) (*harness.Reuse, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	var points []report.Point
	var names []string
	for _, d := range dirs {
		_, ps, err := report.Read(d)
		if err != nil {
			return nil, err
		}
		points, names = append(points, ps...), append(names, filepath.Base(filepath.Clean(d)))
	}
	return harness.NewReuse(strings.Join(names, ","), points), nil
}
