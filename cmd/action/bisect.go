package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnessflags"
	"io"

	"github.com/inference-sim/accuracy-dashboard/internal/bisect"
	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/simhistory"
)

const bisectUsage = `Usage: action bisect --good REF --bad REF [flags]

Finds the simulator commits that changed the predictions between two refs
(a tag or a 40-hex commit of --sim-repo; a branch is refused), --good on
--bad's first-parent line: both ends are scored, then only the points whose
predictions differ, halving the commits between until each change is pinned
to one; a commit that does not build or cannot run the points is skipped.
Prints each commit with the points it moved and the builds it needed
(docs/BISECT.md); --out also writes it as JSON.

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
		o.Flags.Register(fs, getenv)
	},
	Required: []string{"good", "bad"},
	Check: func(o *bisectOptions, args []string) error {
		if err := cli.NoArgs(args); err != nil {
			return err
		}
		if err := o.Flags.Check(); err != nil {
			return err
		}
		return bisect.Config{Metric: o.metric, Point: o.point, Threshold: o.threshold, MaxBuilds: o.maxBuilds}.CheckFlags()
	},
	Run: runBisect,
}

func runBisect(ctx context.Context, o bisectOptions, env cli.Env) error {
	opts, _, err := o.Flags.Options(ctx, env.Stderr)
	if err != nil {
		return fmt.Errorf("bisect: %w", err)
	}
	if opts.Reuse, err = simhistory.ReadReuse(harnessflags.SplitList(o.reuse)); err != nil {
		return fmt.Errorf("bisect: --reuse: %w", err)
	}
	cfg := bisect.Config{Metric: o.metric, Point: o.point, Threshold: o.threshold, MaxBuilds: o.maxBuilds}
	res, err := simhistory.Bisect(ctx, opts, o.good, o.bad, cfg)
	if err != nil {
		return fmt.Errorf("bisect: %w", err)
	}
	if o.out != "" {
		if err := simhistory.WriteJSON(o.out, res); err != nil {
			return fmt.Errorf("bisect: %w", err)
		}
	}
	_, err = io.WriteString(env.Stdout, render.Bisect(res))
	return err
}
