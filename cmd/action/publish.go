package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/publish"
)

const publishUsage = `Usage: action publish --dashboard DIR [flags] RESULT_DIR

Publishes a result directory (summary.json, points.json and, from a
nightly, plan.json, as 'action score --out' or 'action merge' write them)
into a dashboard checkout exactly as the accuracy bot commits it: the
snapshot data/snapshots/<id>/, data/latest/, data/index.json,
state/last-run.json, the comparison page with the previous snapshot
(data/compare/<previous>..<id>.md) and the README table, through the bot's
own code and gate. This is how a maintainer without the App publishes;
commit the files it writes.

A run the gate refuses (not a release, a shard, unbalanced coverage, points
that are not the summary's, an asserted harness commit, which this command
cannot check against GitHub, ...) is an error naming every reason, exit
status 3, and nothing is written. --experimental waives the release
requirement alone, for examples and previews: the snapshot is labelled
experimental wherever it is shown. A run already published (same inputs,
or the same snapshot) changes nothing. Every file is written atomically
after all were planned; retention.keep_experimental in the dashboard's
.github/accuracy-dashboard.yaml removes older experimental snapshots.

Examples:
  action publish --dashboard . out/
  action publish --dashboard ~/src/accuracy-dashboard --dry-run out/
  action publish --dashboard docs/examples/dashboard --experimental --published-at 2026-12-01T12:00:00Z out-f90a1e3a/

Flags:
`

// publishOptions are the flags and argument of `action publish`.
type publishOptions struct {
	dashboard    string
	result       string
	dryRun       bool
	experimental bool
	// publishedAt is when the snapshot is recorded as published (the
	// index's order); zero: now.
	publishedAt time.Time
	// backfilledAt, with publishedAt a release's date, publishes a past
	// release's run as backfilled (action backfill's record).
	backfilledAt time.Time
	source       string
}

// publishCommand is `action publish`.
var publishCommand = cli.Spec[publishOptions]{
	Name:    "publish",
	Summary: "publish a result directory into a dashboard checkout, as the bot does",
	Usage:   publishUsage,
	Flags: func(fs *flag.FlagSet, o *publishOptions, _ func(string) string) {
		fs.StringVar(&o.dashboard, "dashboard", "", "the dashboard `checkout` to write into (e.g. --dashboard .)")
		fs.BoolVar(&o.dryRun, "dry-run", false, "list the files a publish would write, write nothing (e.g. --dry-run)")
		fs.BoolVar(&o.experimental, "experimental", false, "publish a run the gate refuses only for not being a release (e.g. --experimental)")
		fs.Func("published-at", "the publication `time`, RFC 3339; default now (e.g. --published-at 2026-12-01T12:00:00Z)", rfc3339(&o.publishedAt))
		fs.Func("backfilled-at", "with --published-at the release's date: when a past release's run was scored, as action backfill records it (e.g. --backfilled-at 2026-12-04T06:00:00Z)", rfc3339(&o.backfilledAt))
		fs.StringVar(&o.source, "source", "", "a `URL` of what produced the run, recorded in the index (e.g. --source https://github.com/o/r/actions/runs/42)")
	},
	Required: []string{"dashboard"},
	Check: func(o *publishOptions, args []string) error {
		if len(args) != 1 {
			return fmt.Errorf("want one result directory, got %d arguments", len(args))
		}
		if !o.backfilledAt.IsZero() && o.publishedAt.IsZero() {
			return errors.New("--backfilled-at needs --published-at (the release's date)")
		}
		o.result = args[0]
		return nil
	},
	Run: runPublish,
}

// rfc3339 parses a time flag into dst.
func rfc3339(dst *time.Time) func(string) error {
	return func(s string) error {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return errors.New("want an RFC 3339 time, e.g. 2026-12-01T12:00:00Z")
		}
		*dst = t
		return nil
	}
}

// errPublishRefused is a publish the gate refused (exit status 3, as the
// bot's publish).
var errPublishRefused = &cli.ExitError{Code: 3, Err: errors.New("refused by the gate")}

func runPublish(_ context.Context, o publishOptions, env cli.Env) error {
	res, err := publish.PublishCheckout(publish.Checkout{Dashboard: o.dashboard, Result: o.result, Experimental: o.experimental,
		PublishedAt: o.publishedAt, BackfilledAt: o.backfilledAt, Source: o.source, DryRun: o.dryRun})
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	switch res.Outcome {
	case publish.PublishRefused:
		for _, r := range res.Reasons {
			fmt.Fprintf(env.Stdout, "refused: %s\n", r)
		}
		return fmt.Errorf("publish %s: %w: %s", o.result, errPublishRefused, strings.Join(res.Reasons, "; "))
	case publish.PublishUnchanged:
		_, err := fmt.Fprintf(env.Stdout, "unchanged: snapshot %s; %s\n", res.ID, strings.Join(res.Reasons, "; "))
		return err
	case publish.PublishPlanned:
		fmt.Fprintf(env.Stdout, "would publish snapshot %s into %s:\n", res.ID, o.dashboard)
	default:
		fmt.Fprintf(env.Stdout, "published snapshot %s into %s:\n", res.ID, o.dashboard)
	}
	_, err = fmt.Fprint(env.Stdout, publish.FileList(res.Files))
	return err
}
