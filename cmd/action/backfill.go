package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/simhistory"
)

const backfillUsage = `Usage: action backfill --dashboard DIR --from vA --to vB [flags]

Scores each release tag of --sim-repo from vA to vB, oldest first, each a
whole run, and publishes it as 'action publish' does, dated by the release
and marked backfilled. A release the dashboard has is skipped and a run
left in --work is published as it is: after an interruption, run the same
command again (docs/BISECT.md).

Example:
  action backfill --dashboard docs/examples/dashboard --sim-repo ~/src/inference-sim --from v0.7.11 --to v0.7.15 --jobs 2

Flags:
`

// backfillOptions are the flags of `action backfill`.
type backfillOptions struct {
	scoreOptions
	dashboard, from, to, work string
}

// backfillCommand is `action backfill`.
var backfillCommand = cli.Spec[backfillOptions]{
	Name:    "backfill",
	Summary: "score past simulator releases and publish each into a dashboard, dated by the release",
	Usage:   backfillUsage,
	Flags: func(fs *flag.FlagSet, o *backfillOptions, getenv func(string) string) {
		fs.StringVar(&o.dashboard, "dashboard", "", "the dashboard `checkout` to publish into (e.g. --dashboard .)")
		fs.StringVar(&o.from, "from", "", "the oldest release `tag` to score (e.g. --from v0.7.11)")
		fs.StringVar(&o.to, "to", "", "the newest release `tag` to score (e.g. --to v0.7.15)")
		fs.StringVar(&o.work, "work", "", "`directory` keeping each release's run until it is published; default: under --cache-dir, one per dashboard (e.g. --work /tmp/backfill)")
		o.Flags.Register(fs, getenv)
	},
	Required: []string{"dashboard", "from", "to"},
	Check: func(o *backfillOptions, args []string) error {
		if err := cli.NoArgs(args); err != nil {
			return err
		}
		return o.Flags.Check()
	},
	Run: runBackfill,
}

func runBackfill(ctx context.Context, o backfillOptions, env cli.Env) error {
	opts, _, err := o.Flags.Options(ctx, env.Stderr)
	if err != nil {
		return fmt.Errorf("backfill: %w", err)
	}
	if o.work == "" {
		if o.work, err = simhistory.WorkDir(o.CacheDir, o.dashboard); err != nil {
			return err
		}
	}
	_, err = simhistory.Backfill(ctx, simhistory.BackfillConfig{Options: opts, Dashboard: o.dashboard, From: o.from, To: o.to, Work: o.work,
		Step: func(s simhistory.BackfillStep) { fmt.Fprintln(env.Stdout, s) }})
	return err
}
