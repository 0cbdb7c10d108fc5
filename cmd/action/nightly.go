package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/github"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/pinned"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
)

const nightlyPlanUsage = `Usage: action nightly plan [flags]

Resolves what a nightly evaluation would run: the newest stable release of the
simulator (release tags vX.Y.Z of its repository, through the GitHub API), the
harness release the dashboard's pin names, the data versions the pin names,
and, with --inferencex-repo, the newest weekly dump tag db-dump/YYYY-MM-DD of
InferenceX. It compares them with state/last-run.json of the dashboard
checkout and prints "nothing changed" or what changed, then the plan as JSON.
Exit status 0 either way. GITHUB_TOKEN and GITHUB_API_URL are used when set.

Example:
  GITHUB_TOKEN=... action nightly plan --dashboard ~/src/accuracy-dashboard --out plan.json

Flags:
`

// nightlyPlanOptions are the flags of `action nightly plan`.
type nightlyPlanOptions struct {
	dashboard, pinFile            string
	simulatorRepo, inferencexRepo string
	out                           string
}

// nightlyPlanCommand is `action nightly plan`.
var nightlyPlanCommand = cli.Spec[nightlyPlanOptions]{
	Name:    "nightly plan",
	Summary: "resolve the newest simulator release, harness and data; say what changed",
	Usage:   nightlyPlanUsage,
	Flags: func(fs *flag.FlagSet, o *nightlyPlanOptions, _ func(string) string) {
		fs.StringVar(&o.dashboard, "dashboard", ".", "the dashboard `checkout` (state/last-run.json; e.g. --dashboard ~/src/accuracy-dashboard)")
		fs.StringVar(&o.pinFile, "pin", "", "the pin `file` (default <dashboard>/"+pin.DefaultPath+")")
		fs.StringVar(&o.simulatorRepo, "simulator-repo", nightly.DefaultSimulatorRepository, "the simulator `repository` whose newest release is evaluated (owner/name)")
		fs.StringVar(&o.inferencexRepo, "inferencex-repo", "", "the InferenceX `repository` whose newest weekly dump is imported (owner/name; default: none)")
		fs.StringVar(&o.out, "out", "", "write the plan to this `file` (e.g. --out plan.json)")
	},
	Check: func(o *nightlyPlanOptions, args []string) error {
		if o.pinFile == "" {
			o.pinFile = filepath.Join(o.dashboard, filepath.FromSlash(pin.DefaultPath))
		}
		if _, err := ident.ParseRepo(o.simulatorRepo); err != nil {
			return fmt.Errorf("--simulator-repo: %w", err)
		}
		if o.inferencexRepo != "" {
			if _, err := ident.ParseRepo(o.inferencexRepo); err != nil {
				return fmt.Errorf("--inferencex-repo: %w", err)
			}
		}
		return cli.NoArgs(args)
	},
	Run: runNightlyPlan,
}

func runNightlyPlan(ctx context.Context, o nightlyPlanOptions, env cli.Env) error {
	gh, err := github.New(github.Options{Token: env.Getenv("GITHUB_TOKEN"), BaseURL: cmp.Or(env.Getenv("GITHUB_API_URL"), github.DefaultBaseURL)})
	if err != nil {
		return err
	}
	res, err := dashboard.ResolvePlan(ctx, gh.Tags(), dashboard.Checkout{Dir: o.dashboard, PinFile: o.pinFile,
		SimulatorRepo: o.simulatorRepo, InferenceXRepo: o.inferencexRepo, DataKey: pinned.DataKey})
	if err != nil {
		return fmt.Errorf("nightly plan: %w", err)
	}
	if o.out != "" {
		if err := diskio.WriteAtomic(o.out, append(res.Plan.Encode(), '\n')); err != nil {
			return fmt.Errorf("nightly plan: %w", err)
		}
	}
	_, err = fmt.Fprintf(env.Stdout, "%s\n%s\n", render.NightlyPlan(res.Plan, res.Changes, res.LastID), res.Plan.Encode())
	return err
}
