package ghaction

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/github"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// The Action's modes, as input mode names them (the table: actionModes).
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

// actionMode is one entry of the mode table, declared as a cli.Spec
// declares a subcommand: the mode's name, the inputs of this mode alone (not
// actionInputs': giving one that action.yml has no default for,
// modeOnlyInputs, to another mode is an error naming the modes that take
// it) and read, which reads and checks the mode's own inputs (an invalid one
// is an error naming it) into the mode's typed options, a mode.
type actionMode struct {
	name   string
	inputs []string
	read   func(r runner, in actionInputs) (mode, error)
}

// mode is a mode's options, read and checked: the GITHUB_EVENT_NAME values
// it accepts given those options (any other event is refused before
// anything is read or built, naming the event and the mode) and its run,
// which returns the outcome whose outputs action writes (nil when the mode
// wrote its outputs itself).
type mode interface {
	events() []string
	run(ctx context.Context, env modeEnv) (*prcheck.Outcome, error)
}

// modeEnv is what every mode's run is given besides its options.
type modeEnv struct {
	ev event
	// flow is the configuration every mode's flow starts from; each mode
	// completes its own copy and builds its flow once (prcheck.NewFlow).
	flow           prcheck.FlowConfig
	gh             *github.PullComments // nil with comment: false
	gha            runner
	stdout, stderr io.Writer
	// leaderboard is mode leaderboard's flow, as the program wired it.
	leaderboard LeaderboardFlow
}

// actionModes is the Action's mode table (input mode): each mode's read
// returns its options, whose events and run are declared beside it.
func actionModes() []actionMode {
	return []actionMode{
		{modePR, []string{inBaseline, inShard}, readPRMode},
		{modeMerge, []string{inShardsDir, inPlan, inReuse, inWhatIf, inLedgerDir}, readMergeMode},
		{modeComment, []string{inReportDir}, readCommentMode},
		{modeNightlyPlan, []string{inSimulatorRepo, inInferenceXRepo}, readNightlyPlanMode},
		{modeNightly, []string{inPlan, inShard, inLedgerDir, inReuse}, readNightlyMode},
		{modeLeaderboard, []string{inRuns}, readLeaderboardMode},
	}
}

// Events the modes run on.
var (
	// pullRequestEvents: a pull request of this repository or a fork, with
	// the token the pull_request event gives (read-only for a fork).
	pullRequestEvents = []string{"pull_request"}
	// branchEvents run on a branch of the repository itself: its own
	// code, never a pull request's.
	branchEvents = []string{"push", "schedule", "workflow_dispatch"}
)

// checkEvent refuses an event a mode does not run on. pull_request_target
// is explained: it runs with a write token and the repository's secrets
// while the checkout may be the pull request's code.
func checkEvent(mode, name string, accepted []string) error {
	if slices.Contains(accepted, name) {
		return nil
	}
	if name == "pull_request_target" {
		return fmt.Errorf("mode %s refuses the pull_request_target event: it would build and run the pull request's code "+
			"with a write token and the repository's secrets. Use pull_request (same-repository pull requests), or for forks "+
			"the fork-safe pair: accuracy-fork-run.yml on pull_request and accuracy-fork-comment.yml on workflow_run with "+
			"mode: comment (docs/ACTION.md)", mode)
	}
	return fmt.Errorf("mode %s refuses the %s event: it runs on %s (docs/ACTION.md)", mode, name, strings.Join(accepted, ", "))
}

// prModeOptions are mode pr's: score the pull request's head (and base), or on
// a branch event the checked-out commit alone.
type prModeOptions struct {
	actionInputs
	baseline bool
	shard    *runresult.Shard
}

func readPRMode(r runner, in actionInputs) (mode, error) {
	o := prModeOptions{actionInputs: in}
	var err error
	if o.baseline, err = readBaseline(r); err != nil {
		return nil, err
	}
	if o.shard, err = readShard(r); err != nil {
		return nil, err
	}
	return o, nil
}

// events: on a branch event mode pr scores the commit alone (the
// self-test).
func (o prModeOptions) events() []string { return slices.Concat(pullRequestEvents, branchEvents) }

func (o prModeOptions) run(ctx context.Context, env modeEnv) (*prcheck.Outcome, error) {
	return outcome(runScoringMode(ctx, o.actionInputs, scoring{baseline: o.baseline, shard: o.shard}, env))
}

// mergeModeOptions are mode merge's: the shard outputs of a matrix of mode pr
// runs, or with a plan those of mode nightly runs.
type mergeModeOptions struct {
	actionInputs
	shardsDir string
	plan      string
	// reuseDir is, with a plan, the last published snapshot's directory,
	// which the merged run is compared with for the bisect hint ("": none).
	reuseDir string
	// whatIf, with a plan, names the what-ifs the merged run is measured
	// with (the pinned harness's score --what-if: names or all; "": none);
	// ledgerDir is the ledger the plan's InferenceX dump imported, which
	// they score.
	whatIf, ledgerDir string
}

func readMergeMode(r runner, in actionInputs) (mode, error) {
	o := mergeModeOptions{actionInputs: in, shardsDir: in.absInput(r, inShardsDir), plan: r.input(inPlan), reuseDir: in.absInput(r, inReuse),
		whatIf: r.input(inWhatIf), ledgerDir: in.absInput(r, inLedgerDir)}
	if o.shardsDir == "" {
		return nil, inputError(inShardsDir, "required with mode: merge (the directory the shard artifacts were downloaded to)")
	}
	for name, v := range map[string]string{inWhatIf: o.whatIf, inLedgerDir: o.ledgerDir} {
		if v != "" && o.plan == "" {
			return nil, inputError(name, "with mode: merge, only with input plan (the nightly's merge)")
		}
	}
	return o, nil
}

// events: the pull request's shards merge on its event, a nightly's where
// the nightly runs.
func (o mergeModeOptions) events() []string {
	if o.plan != "" {
		return branchEvents
	}
	return pullRequestEvents
}

func (o mergeModeOptions) run(ctx context.Context, env modeEnv) (*prcheck.Outcome, error) {
	if o.plan != "" {
		return outcome(runNightlyMerge(ctx, o, env))
	}
	return outcome(runScoringMode(ctx, o.actionInputs, scoring{shardsDir: o.shardsDir, baseline: true}, env))
}

// commentModeOptions are mode comment's: the report artifact of another run.
type commentModeOptions struct {
	actionInputs
	reportDir string
}

func readCommentMode(r runner, in actionInputs) (mode, error) {
	o := commentModeOptions{actionInputs: in, reportDir: in.absInput(r, inReportDir)}
	if o.reportDir == "" {
		return nil, inputError(inReportDir, "required with mode: comment (the directory the report artifact was downloaded to)")
	}
	return o, nil
}

func (o commentModeOptions) events() []string { return []string{"workflow_run"} }

func (o commentModeOptions) run(ctx context.Context, env modeEnv) (*prcheck.Outcome, error) {
	return outcome(runCommentMode(ctx, o, env))
}

// nightlyPlanModeOptions are mode nightly-plan's: whose releases it resolves.
type nightlyPlanModeOptions struct {
	actionInputs
	// simulatorRepo and inferencexRepo are owner/name; inferencexRepo ""
	// leaves the InferenceX dump out of the plan.
	simulatorRepo, inferencexRepo string
}

func readNightlyPlanMode(r runner, in actionInputs) (mode, error) {
	return nightlyPlanModeOptions{actionInputs: in, simulatorRepo: cmp.Or(r.input(inSimulatorRepo), nightly.DefaultSimulatorRepository),
		inferencexRepo: r.input(inInferenceXRepo)}, nil
}

func (o nightlyPlanModeOptions) events() []string { return branchEvents }

func (o nightlyPlanModeOptions) run(ctx context.Context, env modeEnv) (*prcheck.Outcome, error) {
	return nil, runNightlyPlanMode(ctx, o, env)
}

// nightlyModeOptions are mode nightly's: the plan, one shard of it, the
// ledger imported from its InferenceX dump, and the earlier result (the last
// snapshot) whose predictions are reused by replay digest.
type nightlyModeOptions struct {
	actionInputs
	plan      string
	shard     *runresult.Shard
	ledgerDir string
	// reuseDir is the last published snapshot's directory ("": none).
	reuseDir string
	// merging is set when mode merge prepares the nightly's harness: its
	// shards were scored already, with the plan's ledger.
	merging bool
}

func readNightlyMode(r runner, in actionInputs) (mode, error) {
	o := nightlyModeOptions{actionInputs: in, plan: r.input(inPlan), ledgerDir: in.absInput(r, inLedgerDir),
		reuseDir: in.absInput(r, inReuse)}
	if o.plan == "" {
		return nil, inputError(inPlan, "required with mode: nightly (the plan output of the nightly-plan step)")
	}
	var err error
	if o.shard, err = readShard(r); err != nil {
		return nil, err
	}
	return o, nil
}

func (o nightlyModeOptions) events() []string { return branchEvents }

func (o nightlyModeOptions) run(ctx context.Context, env modeEnv) (*prcheck.Outcome, error) {
	return outcome(runNightlyMode(ctx, o, env))
}

// leaderboardModeOptions are mode leaderboard's: which runs.yaml files to run
// ("": those the pull request changed, or every tracked one).
type leaderboardModeOptions struct {
	actionInputs
	// runs is a path or git glob of runs.yaml files relative to
	// simulator-path.
	runs string
}

func readLeaderboardMode(r runner, in actionInputs) (mode, error) {
	o := leaderboardModeOptions{actionInputs: in, runs: r.input(inRuns)}
	if strings.HasPrefix(o.runs, "/") || strings.HasPrefix(o.runs, ":") {
		return nil, inputError(inRuns, "%q: a path or glob relative to simulator-path (e.g. leaderboard/runs.yaml)", o.runs)
	}
	return o, nil
}

func (o leaderboardModeOptions) events() []string {
	return slices.Concat(pullRequestEvents, []string{"push", "workflow_dispatch"})
}

func (o leaderboardModeOptions) run(ctx context.Context, env modeEnv) (*prcheck.Outcome, error) {
	return nil, runLeaderboardMode(ctx, o, env)
}

// outcome adapts a run that returns its outcome by value.
func outcome(o prcheck.Outcome, err error) (*prcheck.Outcome, error) {
	if err != nil {
		return nil, err
	}
	return &o, nil
}

// startMode looks the mode up in the table, refuses an input of another
// mode (one without a default, given here), reads the mode's own inputs and
// checks the event; it returns the mode to run.
func startMode(r runner, in actionInputs) (mode, error) {
	modes := actionModes()
	var names []string
	var entry *actionMode
	takes := map[string][]string{} // input → the modes that take it
	for i, m := range modes {
		names = append(names, m.name)
		if m.name == in.mode {
			entry = &modes[i]
		}
		for _, name := range m.inputs {
			takes[name] = append(takes[name], m.name)
		}
	}
	if entry == nil {
		return nil, inputError(inMode, "%q: want %s or %s", in.mode, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	}
	for _, name := range modeOnlyInputs {
		if r.input(name) != "" && !slices.Contains(entry.inputs, name) {
			return nil, inputError(name, "only with mode: %s", strings.Join(takes[name], " or "))
		}
	}
	m, err := entry.read(r, in)
	if err != nil {
		return nil, err
	}
	if err := checkEvent(entry.name, in.eventName, m.events()); err != nil {
		return nil, err
	}
	return m, nil
}

// modeOnlyInputs are the inputs of some modes that action.yml gives no
// default, so a value means the workflow set it.
var modeOnlyInputs = []string{inShard, inReportDir, inShardsDir, inPlan, inLedgerDir, inReuse, inWhatIf, inRuns, inInferenceXRepo}
