package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

// Action modes.
const (
	modePR      = "pr"
	modeComment = "comment"
	modeMerge   = "merge"
	// modeNightlyPlan and modeNightly are the two steps of the nightly.
	modeNightlyPlan = "nightly-plan"
	modeNightly     = "nightly"
	// modeLeaderboard runs the leaderboard declarations a pull request
	// changed.
	modeLeaderboard = "leaderboard"
)

// actionInputs are the Action's inputs and the runner environment it uses.
// action.yml maps each input to one INPUT_* variable explicitly (composite
// actions get no INPUT_* environment from the runner).
type actionInputs struct {
	token         string
	pinFile       string // absolute
	mode          string
	simulatorPath string // absolute
	baseline      bool
	shard         *report.Shard
	thresholds    prcheck.Thresholds
	comment       bool
	outDir        string
	cacheDir      string
	reportDir     string // mode comment
	shardsDir     string // mode merge
	jobs          int
	// simulatorRepo and inferencexRepo (owner/name) are what mode
	// nightly-plan resolves releases from; plan is mode nightly's plan.
	simulatorRepo  string
	inferencexRepo string
	plan           string
	// runs is mode leaderboard's path or git glob of runs.yaml files
	// ("": those the pull request changed).
	runs string
	// ledgerDir is the ledger imported from the plan's InferenceX dump
	// (mode nightly), "" for none.
	ledgerDir string

	eventName   string
	eventPath   string
	payload     map[string]any // the event, as go-githubactions decodes it
	summaryPath string
	apiURL      string
	serverURL   string
	repository  string
	runID       string
}

// The Action's inputs, as action.yml names them. action.yml maps each to
// INPUT_<NAME> ('-' as '_'), which runner.input reads.
const (
	inToken          = "github-token"
	inPinFile        = "pin-file"
	inMode           = "mode"
	inSimulatorPath  = "simulator-path"
	inBaseline       = "baseline"
	inShard          = "shard"
	inAlertThreshold = "alert-threshold"
	inFailThreshold  = "fail-threshold"
	inComment        = "comment"
	inOutDir         = "out-dir"
	inCacheDir       = "cache-dir"
	inReportDir      = "report-dir"
	inShardsDir      = "shards-dir"
	inJobs           = "jobs"
	inSimulatorRepo  = "simulator-repository"
	inInferenceXRepo = "inferencex-repository"
	inPlan           = "plan"
	inRuns           = "runs"
	inLedgerDir      = "ledger-dir"
)

// readInputs reads and checks every input and the runner's context
// (go-githubactions). Defaults are applied here, in one place; an invalid
// input is an error naming the input.
func readInputs(r runner) (actionInputs, error) {
	c, err := r.a.Context()
	if err != nil {
		return actionInputs{}, fmt.Errorf("runner context: %w", err)
	}
	in := actionInputs{
		token:       r.input(inToken),
		eventName:   c.EventName,
		eventPath:   c.EventPath,
		payload:     c.Event,
		summaryPath: c.StepSummary,
		apiURL:      c.APIURL,
		serverURL:   c.ServerURL,
		repository:  c.Repository,
	}
	if c.RunID != 0 {
		in.runID = strconv.FormatInt(c.RunID, 10)
	}
	getenv := r.a.Getenv
	workspace := orDefault(c.Workspace, ".")
	abs := func(base, p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		a, err := filepath.Abs(filepath.Join(base, p))
		if err != nil {
			return filepath.Join(base, p)
		}
		return a
	}
	bad := func(name, format string, a ...any) error {
		return fmt.Errorf("input %s: %s", name, fmt.Sprintf(format, a...))
	}

	in.mode = orDefault(r.input(inMode), modePR)
	switch in.mode {
	case modePR, modeComment, modeMerge, modeNightlyPlan, modeNightly, modeLeaderboard:
	default:
		return in, bad("mode", "%q: want pr, comment, merge, nightly-plan, nightly or leaderboard", in.mode)
	}
	in.simulatorRepo = orDefault(r.input(inSimulatorRepo), DefaultSimulatorRepository)
	in.inferencexRepo = r.input(inInferenceXRepo)
	in.plan = r.input(inPlan)
	in.runs = r.input(inRuns)
	if in.runs != "" && (in.mode != modeLeaderboard || strings.HasPrefix(in.runs, "/") || strings.HasPrefix(in.runs, ":")) {
		return in, bad("runs", "%q: only with mode: leaderboard, a path or glob relative to simulator-path (e.g. leaderboard/runs.yaml)", in.runs)
	}
	in.simulatorPath = abs(workspace, orDefault(r.input(inSimulatorPath), "."))
	in.pinFile = abs(in.simulatorPath, orDefault(r.input(inPinFile), pin.DefaultPath))

	switch b := orDefault(r.input(inBaseline), "base"); b {
	case "base":
		in.baseline = true
	case "none":
	default:
		return in, bad("baseline", "%q: want base or none", b)
	}
	shard, err := report.ParseShard(r.input(inShard))
	if err != nil {
		return in, bad("shard", "%v", err)
	}
	in.shard = shard
	for _, th := range []struct {
		name string
		dst  **float64
	}{
		{inAlertThreshold, &in.thresholds.Alert},
		{inFailThreshold, &in.thresholds.Fail},
	} {
		v := r.input(th.name)
		if v == "" || v == "off" {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "pp"), 64)
		if err != nil || f < 0 || f != f {
			return in, bad(th.name, "%q: want a non-negative number of percentage points (e.g. 2.5) or off", v)
		}
		*th.dst = &f
	}
	switch v := orDefault(r.input(inComment), "true"); v {
	case "true":
		in.comment = true
	case "false":
	default:
		return in, bad("comment", "%q: want true or false", v)
	}
	in.outDir = abs(workspace, orDefault(r.input(inOutDir), filepath.Join(orDefault(getenv("RUNNER_TEMP"), workspace), "accuracy-report")))
	in.cacheDir = r.input(inCacheDir)
	if in.cacheDir == "" {
		in.cacheDir = defaultCacheDir(getenv)
	}
	in.cacheDir = abs(workspace, in.cacheDir)
	if v := r.input(inJobs); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return in, bad("jobs", "%q: want a positive integer", v)
		}
		in.jobs = n
	}
	if d := r.input(inReportDir); d != "" {
		in.reportDir = abs(workspace, d)
	}
	if d := r.input(inShardsDir); d != "" {
		in.shardsDir = abs(workspace, d)
	}
	if d := r.input(inLedgerDir); d != "" {
		in.ledgerDir = abs(workspace, d)
	}
	switch {
	case in.mode == modeComment && in.reportDir == "":
		return in, bad("report-dir", "required with mode: comment (the directory the report artifact was downloaded to)")
	case in.mode == modeMerge && in.shardsDir == "":
		return in, bad("shards-dir", "required with mode: merge (the directory the shard artifacts were downloaded to)")
	case in.mode != modePR && in.mode != modeNightly && in.shard != nil:
		return in, bad("shard", "only with mode: pr or nightly")
	case in.mode == modeNightly && in.plan == "":
		return in, bad("plan", "required with mode: nightly (the plan output of the nightly-plan step)")
	case in.plan != "" && in.mode != modeNightly && in.mode != modeMerge:
		return in, bad("plan", "only with mode: nightly or merge (of nightly shards)")
	case in.ledgerDir != "" && in.mode != modeNightly:
		return in, bad("ledger-dir", "only with mode: nightly")
	case in.comment && in.token == "":
		return in, bad("github-token", "empty; give a token or set comment: false")
	case in.eventPath == "" || in.eventName == "":
		return in, fmt.Errorf("GITHUB_EVENT_NAME or GITHUB_EVENT_PATH is not set: run inside GitHub Actions")
	case in.eventName == "pull_request_target" && in.mode != modeComment:
		return in, fmt.Errorf("mode %s refuses the pull_request_target event: it would build and run the pull request's code "+
			"with a write token and the repository's secrets. Use pull_request (same-repository pull requests), or for forks "+
			"the fork-safe pair: accuracy-fork-run.yml on pull_request and accuracy-fork-comment.yml on workflow_run with "+
			"mode: comment (docs/ACTION.md)", in.mode)
	}
	return in, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
