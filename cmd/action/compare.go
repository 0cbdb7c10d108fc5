package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/site"
)

const compareUsage = `Usage: action compare [flags] A B

Compares two runs and prints, as Markdown, the change from A to B (B − A)
over the points both runs scored: MAPE, shape and bias per tier and metric,
the same by model × hardware, the points whose error moved most, and the
points one run scored and the other did not, with the other's reason. It is
the comparison the pull-request comment shows, with the two runs named.

A and B are result directories (summary.json and points.json, as 'action
score --out' writes them) or the ids of snapshots published in a dashboard
checkout (data/snapshots/<id>/). Two snapshots the dashboard's index lists
are named by their labels (release or short commit, and publication date),
their ids in a footnote: the output is their data/compare/ page.

Examples:
  action compare out-v0.7.14/ out-v0.7.15/
  action compare --dashboard ~/src/accuracy-dashboard v0.7.14_ledger-v1.0.0 v0.7.15_ledger-v1.0.0_harness-v1.3.0_run-42

Flags:
`

// compareOptions are the flags and arguments of `action compare`.
type compareOptions struct {
	dashboard string
	// a and b are the two runs, as given.
	a, b string
}

// compareCommand is `action compare`.
var compareCommand = cli.Spec[compareOptions]{
	Name:    "compare",
	Summary: "compare two runs (result directories or snapshot ids): B − A per metric",
	Usage:   compareUsage,
	Flags: func(fs *flag.FlagSet, o *compareOptions, _ func(string) string) {
		fs.StringVar(&o.dashboard, "dashboard", ".", "dashboard `checkout` whose data/snapshots/<id>/ a snapshot id names (e.g. --dashboard ~/src/accuracy-dashboard)")
	},
	Check: func(o *compareOptions, args []string) error {
		if len(args) != 2 {
			return fmt.Errorf("want two runs A and B, got %d arguments", len(args))
		}
		o.a, o.b = args[0], args[1]
		return nil
	},
	Run: runCompare,
}

func runCompare(_ context.Context, o compareOptions, env cli.Env) error {
	c, err := site.Comparison(o.a, o.b, o.dashboard)
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	_, err = io.WriteString(env.Stdout, render.CompareMarkdown(c))
	return err
}
