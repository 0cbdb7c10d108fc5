package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/github"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/pinned"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

const githubActionUsage = `Usage: action github-action

Runs inside GitHub Actions as the accuracy-dashboard Action (action.yml). It
takes no flags: its inputs come from INPUT_* environment variables that
action.yml maps one by one (INPUT_GITHUB_TOKEN, INPUT_PIN_FILE, INPUT_MODE,
INPUT_SIMULATOR_PATH, INPUT_BASELINE, INPUT_SHARD, INPUT_ALERT_THRESHOLD,
INPUT_FAIL_THRESHOLD, INPUT_COMMENT, INPUT_OUT_DIR, INPUT_CACHE_DIR,
INPUT_REPORT_DIR, INPUT_SHARDS_DIR, INPUT_JOBS, INPUT_SIMULATOR_REPOSITORY,
INPUT_INFERENCEX_REPOSITORY, INPUT_PLAN, INPUT_RUNS,
INPUT_LEDGER_DIR, INPUT_REUSE), plus the runner's
GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_API_URL,
GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID and GITHUB_WORKSPACE.

Modes (gha_modes.go), each on its events only (any other is refused):
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
// the inputs come from the environment (readInputs).
var githubActionCommand = cli.Spec[struct{}]{
	Name:    "github-action",
	Summary: "run inside GitHub Actions (reads the action's inputs from the environment)",
	Usage:   githubActionUsage,
	Run: func(ctx context.Context, _ struct{}, env cli.Env) error {
		return runGitHubAction(ctx, env.Getenv, env.Stdout, env.Stderr)
	},
}

// runGitHubAction is the Action's entry point (see githubActionUsage).
// Everything it prints goes through logStreams: only the runner's own
// commands (go-githubactions) can be read as workflow commands, on either
// stream; the error main prints on stderr is neutralised too.
func runGitHubAction(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	logs := newLogStreams(stdout, stderr)
	defer logs.Flush()
	gha := newRunner(getenv, logs.Commands)
	err := githubAction(ctx, gha, logs.Stdout, logs.Stderr)
	// A failed step shows its error as an annotation too; a fail-threshold
	// failure was annotated metric by metric already.
	if err != nil && !errors.Is(err, errPastFailThreshold) {
		gha.Error(err.Error())
	}
	return neutralErr(err)
}

// errPastFailThreshold is the error of a run whose accuracy fell past the
// fail-threshold input (exit status 1; each metric was annotated already).
var errPastFailThreshold = errors.New("accuracy fell past fail-threshold")

// githubAction reads the inputs and the event, runs the mode and writes the
// outputs.
func githubAction(ctx context.Context, gha runner, stdout, stderr io.Writer) error {
	in, err := readInputs(gha)
	if err != nil {
		return err
	}
	gha.mask(in.token)
	run, err := startMode(gha, in)
	if err != nil {
		return err
	}
	ev, err := decodeEvent(in.eventPath, in.payload)
	if err != nil {
		return err
	}
	flow := prcheck.FlowConfig{
		Log:        gha,
		OutDir:     in.outDir,
		Thresholds: in.thresholds,
		Cache:      &prcheck.Cache{Dir: filepath.Join(in.cacheDir, "action")},
	}
	if in.summaryPath != "" {
		flow.Summary = gha.addStepSummary
	}
	if in.runID != "" && in.repository != "" {
		flow.DetailsURL = strings.TrimSuffix(in.serverURL, "/") + "/" + in.repository + "/actions/runs/" + in.runID
	}
	var gh *github.PullComments
	if in.comment {
		if gh, err = newGitHub(in); err != nil {
			return err
		}
		flow.Comments = gh
	}
	out, err := run(ctx, modeEnv{ev: ev, flow: flow, gh: gh, gha: gha, stdout: stdout, stderr: stderr})
	if err != nil || out == nil {
		return err
	}
	if err := gha.setOutputs(outputsOf(*out)); err != nil {
		return fmt.Errorf("outputs: %w", err)
	}
	if out.Failed() {
		return fmt.Errorf("%w: %s", errPastFailThreshold, strings.Join(out.Verdict.Failures, " "))
	}
	return nil
}

// scoring is what modes pr and merge (of pull-request shards) score.
type scoring struct {
	baseline bool
	shard    *report.Shard
	// merge is the shards directory of mode merge ("": mode pr).
	merge string
}

// runScoringMode runs modes pr and merge with the pinned harness.
func runScoringMode(ctx context.Context, in actionInputs, s scoring, ev event, cfg prcheck.FlowConfig, gha runner, stdout, stderr io.Writer) (prcheck.Outcome, error) {
	p, err := readPin(in)
	if err != nil {
		return prcheck.Outcome{}, err
	}
	pr, isPR, err := ev.pullRequest()
	if err != nil {
		return prcheck.Outcome{}, err
	}
	if !isPR {
		if s.merge != "" {
			return prcheck.Outcome{}, errors.New("mode merge needs a pull_request event")
		}
		// Not a pull request (schedule, push, workflow_dispatch): score
		// the checked-out commit alone and do not comment.
		head, err := simulatorHead(ctx, in.simulatorPath)
		if err != nil {
			return prcheck.Outcome{}, fmt.Errorf("simulator checkout: %w", err)
		}
		pr = prcheck.PR{HeadSHA: head}
		s.baseline = false
		cfg.Comments = nil
	}

	h, err := pinnedScorer(ctx, in, p, &cfg, gha, stdout, stderr)
	if err != nil {
		return prcheck.Outcome{}, err
	}
	h.SimRepo = in.simulatorPath
	flow := prcheck.NewFlow(cfg)

	if s.merge != "" {
		return flow.RunMerge(ctx, pr, s.merge)
	}
	commits := []string{pr.HeadSHA}
	if s.baseline {
		commits = append(commits, pr.BaseSHA)
	}
	if err := prepareSimulator(ctx, in.simulatorPath, commits...); err != nil {
		return prcheck.Outcome{}, err
	}
	return flow.RunPR(ctx, pr, s.baseline, s.shard)
}

// readPin reads and parses the pin file.
func readPin(in actionInputs) (pin.Pin, error) {
	src, err := diskio.ReadPathMax(in.pinFile, pin.MaxFileBytes)
	if err != nil {
		return pin.Pin{}, fmt.Errorf("pin file: %w (create it, or set pin-file; see docs/ACTION.md)", err)
	}
	return pin.Parse(src, relPath(in.simulatorPath, in.pinFile))
}

// pinnedScorer prepares the pinned harness (clone, verify, build) and makes
// it cfg's scorer, with the pin's data, the cache and the jobs, and cfg's
// cache key; the caller sets which simulator repository it scores.
func pinnedScorer(ctx context.Context, in actionInputs, p pin.Pin, cfg *prcheck.FlowConfig, gha runner, stdout, stderr io.Writer) (*pinned.Harness, error) {
	gha.Group(fmt.Sprintf("Prepare the pinned harness %s (%s)", p.Harness.Tag, p.Harness.Commit))
	h, err := pinned.Prepare(ctx, p, cloneURL(p.Harness, in), in.cacheDir, harness.CleanEnv(os.Environ()), stdout, stderr)
	gha.EndGroup()
	if err != nil {
		return nil, err
	}
	h.Args = append(pinned.DataArgs(p, in.simulatorPath), "--cache-dir", in.cacheDir)
	if in.jobs > 0 {
		h.Args = append(h.Args, "--jobs", strconv.Itoa(in.jobs))
	}
	cfg.Scorer = h
	data, err := pinned.DataKey(p, in.simulatorPath)
	if err != nil {
		return nil, err
	}
	cfg.Key = prcheck.CacheKey{HarnessCommit: p.Harness.Commit, Data: data}
	return h, nil
}

// runCommentMode posts another run's report from a workflow_run job.
func runCommentMode(ctx context.Context, in commentModeOptions, ev event, cfg prcheck.FlowConfig, gh *github.PullComments) (prcheck.Outcome, error) {
	if ev.WorkflowRun == nil {
		return prcheck.Outcome{}, errors.New("mode comment runs on a workflow_run event")
	}
	if gh == nil {
		return prcheck.Outcome{}, errors.New("mode comment needs comment: true and a token")
	}
	if ev.WorkflowRun.HTMLURL != "" {
		cfg.DetailsURL = ev.WorkflowRun.HTMLURL
	}
	if err := ident.CheckCommit(ev.WorkflowRun.HeadSHA); err != nil {
		return prcheck.Outcome{}, fmt.Errorf("event: workflow_run.head_sha: %w", err)
	}
	return prcheck.NewFlow(cfg).RunComment(ctx, in.reportDir, ev.WorkflowRun.HeadSHA, gh)
}

// cloneURL resolves a pinned repository (the harness, or the leaderboard's
// simulator): owner/name on this GitHub server, a relative local path
// against the consumer repository.
func cloneURL(h pin.Harness, in actionInputs) string {
	r := h.Repository
	if strings.HasPrefix(r, "./") || strings.HasPrefix(r, "../") {
		return filepath.Join(in.simulatorPath, r)
	}
	return h.CloneURL(in.serverURL)
}

// outputsOf lists the step outputs of an outcome: "<metric>-mape" for each
// headline metric (metric.Headline) is the head's figure in the headline
// tier, as the summary table shows it. A shard run outputs its label but no
// figures: they cover only its slice, and the merge job reports the whole.
func outputsOf(o prcheck.Outcome) [][2]string {
	var summaryPath string
	if o.HeadDir != "" {
		summaryPath = filepath.Join(o.HeadDir, report.SummaryFile)
	}
	_, tier, _ := report.Headline(o.Head.Tiers)
	out := [][2]string{
		{"summary-path", summaryPath},
		{"markdown-path", o.MarkdownPath},
		{"label", o.Head.Label},
	}
	for _, d := range metric.Headline() {
		var figure string
		if m, _ := tier.Of(d); o.Head.Shard == nil && m.MAPE != nil {
			figure = strconv.FormatFloat(*m.MAPE, 'f', 2, 64)
		}
		out = append(out, [2]string{mapeOutput(d), figure})
	}
	return append(out, [2]string{"comment-url", o.CommentURL})
}

// mapeOutput is the name of the step output of metric d's MAPE.
func mapeOutput(d metric.Def) string { return strings.ReplaceAll(d.Key, "_", "-") + "-mape" }
