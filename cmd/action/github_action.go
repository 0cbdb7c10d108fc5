package main

import (
	"context"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/ghaction"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbpr"
)

const githubActionUsage = `Usage: action github-action

Runs inside GitHub Actions as the accuracy-dashboard Action (action.yml). It
takes no flags: its inputs come from INPUT_* environment variables that
action.yml maps one by one (INPUT_GITHUB_TOKEN, INPUT_PIN_FILE, INPUT_MODE,
INPUT_SIMULATOR_PATH, INPUT_BASELINE, INPUT_SHARD, INPUT_ALERT_THRESHOLD,
INPUT_FAIL_THRESHOLD, INPUT_COMMENT, INPUT_OUT_DIR, INPUT_CACHE_DIR,
INPUT_REPORT_DIR, INPUT_SHARDS_DIR, INPUT_JOBS, INPUT_SIMULATOR_REPOSITORY,
INPUT_INFERENCEX_REPOSITORY, INPUT_PLAN, INPUT_RUNS,
INPUT_LEDGER_DIR, INPUT_REUSE, INPUT_WHAT_IF), plus the runner's
GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_API_URL,
GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID and GITHUB_WORKSPACE.

Modes (internal/ghaction/modes.go), each on its events only (any other is refused):
  pr       score the pull request's head (and base) with the pinned harness,
           write the job summary, post or update one comment
           (pull_request; on push, schedule, workflow_dispatch: the
           checked-out commit alone, no comment)
  merge    combine the shard outputs of a matrix of 'pr' runs, then report
           (pull_request); with a plan, the shards of a matrix of 'nightly'
           runs into one report (push, schedule, workflow_dispatch)
  comment  post the report artifact of another run (workflow_run)
  nightly-plan  resolve the newest simulator release, the pinned harness and
           the data, compare with state/last-run.json: outputs changed, plan
           (push, schedule, workflow_dispatch)
  nightly  score the plan's simulator release with the pinned harness, no
           baseline, no comment, reusing the predictions of reuse (the
           last snapshot) by replay digest; head/ holds plan.json for the bot
           (push, schedule, workflow_dispatch)
  leaderboard  run each runs.yaml the pull request changed (or the runs
           input names) on the pin file's simulator/catalog pair with the
           pinned harness, reusing unchanged results; tables in the job
           summary and one sticky comment of its own (pull_request, push,
           workflow_dispatch)

See docs/ACTION.md.
`

// githubActionCommand is `action github-action`: no flags, no arguments;
// the inputs come from the environment (internal/ghaction).
var githubActionCommand = cli.Spec[struct{}]{
	Name:    "github-action",
	Summary: "run inside GitHub Actions (reads the action's inputs from the environment)",
	Usage:   githubActionUsage,
	Run: func(ctx context.Context, _ struct{}, env cli.Env) error {
		return ghaction.Run(ctx, env.Getenv, env.Stdout, env.Stderr, runLeaderboardFlow)
	},
}

// runLeaderboardFlow is mode leaderboard's flow (ghaction.LeaderboardFlow): lbpr's, over what the runtime prepared.
func runLeaderboardFlow(ctx context.Context, m ghaction.LeaderboardRun) ([][2]string, error) {
	f := &lbpr.Flow{Checkout: m.Checkout, PinRel: m.PinRel, Pin: m.Pin, Runs: m.Runs, OutDir: m.OutDir, CacheDir: m.CacheDir, Jobs: m.Jobs, SimRepo: m.SimRepo,
		Git: m.Git, Report: m.Report, Comments: m.Comments, DetailsURL: m.DetailsURL, PrepareHarness: func(ctx context.Context) (lbpr.Harness, error) { return m.PrepareHarness(ctx) }}
	return f.Step(ctx, lbpr.PR{Number: m.PR.Number, BaseSHA: m.PR.BaseSHA, HeadSHA: m.PR.HeadSHA}, m.IsPR)
}
