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

// modeSpec is one mode of the Action, declared as a cli.Spec declares a
// subcommand: its name, its own typed options O (the inputs every mode
// shares, actionInputs, and the inputs of this mode alone), the events it
// runs on, and its run. Read reads and checks the mode's own inputs (an
// invalid one is an error naming it); Events lists the GITHUB_EVENT_NAME
// values it accepts given those options (any other event is refused before
// anything is read or built, naming the event and the mode); Run runs it and
// returns the outcome whose outputs action writes (nil when the mode
// wrote its outputs itself).
type modeSpec[O any] struct {
	Name string
	// Inputs are the inputs of this mode alone (not actionInputs'): giving
	// one that action.yml has no default for (modeOnlyInputs) to another
	// mode is an error naming the modes that take it.
	Inputs []string
	Read   func(r runner, in actionInputs) (O, error)
	Events func(o O) []string
	Run    func(ctx context.Context, o O, env modeEnv) (*prcheck.Outcome, error)
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
}

// actionMode is a modeSpec with its options type erased, as the mode table
// holds it.
type actionMode struct {
	name   string
	inputs []string
	// start reads the mode's inputs and checks the event; it returns the
	// mode's run.
	start func(r runner, in actionInputs) (func(context.Context, modeEnv) (*prcheck.Outcome, error), error)
}

// mode erases s's options type: its start reads the options (Read), checks
// the event against Events(options) and returns Run bound to the options.
func (s modeSpec[O]) mode() actionMode {
	return actionMode{name: s.Name, inputs: s.Inputs, start: func(r runner, in actionInputs) (func(context.Context, modeEnv) (*prcheck.Outcome, error), error) {
		o, err := s.Read(r, in)
		if err != nil {
			return nil, err
		}
		if err := checkEvent(s.Name, in.eventName, s.Events(o)); err != nil {
			return nil, err
		}
		return func(ctx context.Context, env modeEnv) (*prcheck.Outcome, error) { return s.Run(ctx, o, env) }, nil
	}}
}

// actionModes is the Action's mode table (input mode).
func actionModes() []actionMode {
	return []actionMode{prMode.mode(), mergeMode.mode(), commentMode.mode(), nightlyPlanMode.mode(), nightlyMode.mode(), leaderboardMode.mode()}
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

// always is the Events of a mode whose events do not depend on its options.
func always[O any](events ...[]string) func(O) []string {
	all := slices.Concat(events...)
	return func(O) []string { return all }
}

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

var prMode = modeSpec[prModeOptions]{
	Name:   modePR,
	Inputs: []string{inBaseline, inShard},
	Read: func(r runner, in actionInputs) (prModeOptions, error) {
		o := prModeOptions{actionInputs: in}
		var err error
		if o.baseline, err = readBaseline(r); err != nil {
			return o, err
		}
		o.shard, err = readShard(r)
		return o, err
	},
	// On a branch event mode pr scores the commit alone (the self-test).
	Events: always[prModeOptions](pullRequestEvents, branchEvents),
	Run: func(ctx context.Context, o prModeOptions, env modeEnv) (*prcheck.Outcome, error) {
		return outcome(runScoringMode(ctx, o.actionInputs, scoring{baseline: o.baseline, shard: o.shard}, env))
	},
}

// mergeModeOptions are mode merge's: the shard outputs of a matrix of mode pr
// runs, or with a plan those of mode nightly runs.
type mergeModeOptions struct {
	actionInputs
	shardsDir string
	plan      string
}

var mergeMode = modeSpec[mergeModeOptions]{
	Name:   modeMerge,
	Inputs: []string{inShardsDir, inPlan},
	Read: func(r runner, in actionInputs) (mergeModeOptions, error) {
		o := mergeModeOptions{actionInputs: in, shardsDir: in.absInput(r, inShardsDir), plan: r.input(inPlan)}
		if o.shardsDir == "" {
			return o, inputError(inShardsDir, "required with mode: merge (the directory the shard artifacts were downloaded to)")
		}
		return o, nil
	},
	// The pull request's shards merge on its event, a nightly's where the
	// nightly runs.
	Events: func(o mergeModeOptions) []string {
		if o.plan != "" {
			return branchEvents
		}
		return pullRequestEvents
	},
	Run: func(ctx context.Context, o mergeModeOptions, env modeEnv) (*prcheck.Outcome, error) {
		if o.plan != "" {
			return outcome(runNightlyMerge(ctx, o, env))
		}
		return outcome(runScoringMode(ctx, o.actionInputs, scoring{shardsDir: o.shardsDir, baseline: true}, env))
	},
}

// commentModeOptions are mode comment's: the report artifact of another run.
type commentModeOptions struct {
	actionInputs
	reportDir string
}

var commentMode = modeSpec[commentModeOptions]{
	Name:   modeComment,
	Inputs: []string{inReportDir},
	Read: func(r runner, in actionInputs) (commentModeOptions, error) {
		o := commentModeOptions{actionInputs: in, reportDir: in.absInput(r, inReportDir)}
		if o.reportDir == "" {
			return o, inputError(inReportDir, "required with mode: comment (the directory the report artifact was downloaded to)")
		}
		return o, nil
	},
	Events: always[commentModeOptions]([]string{"workflow_run"}),
	Run: func(ctx context.Context, o commentModeOptions, env modeEnv) (*prcheck.Outcome, error) {
		return outcome(runCommentMode(ctx, o, env))
	},
}

// nightlyPlanModeOptions are mode nightly-plan's: whose releases it resolves.
type nightlyPlanModeOptions struct {
	actionInputs
	// simulatorRepo and inferencexRepo are owner/name; inferencexRepo ""
	// leaves the InferenceX dump out of the plan.
	simulatorRepo, inferencexRepo string
}

var nightlyPlanMode = modeSpec[nightlyPlanModeOptions]{
	Name:   modeNightlyPlan,
	Inputs: []string{inSimulatorRepo, inInferenceXRepo},
	Read: func(r runner, in actionInputs) (nightlyPlanModeOptions, error) {
		return nightlyPlanModeOptions{actionInputs: in, simulatorRepo: cmp.Or(r.input(inSimulatorRepo), nightly.DefaultSimulatorRepository),
			inferencexRepo: r.input(inInferenceXRepo)}, nil
	},
	Events: always[nightlyPlanModeOptions](branchEvents),
	Run: func(ctx context.Context, o nightlyPlanModeOptions, env modeEnv) (*prcheck.Outcome, error) {
		return nil, runNightlyPlanMode(ctx, o, env)
	},
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

var nightlyMode = modeSpec[nightlyModeOptions]{
	Name:   modeNightly,
	Inputs: []string{inPlan, inShard, inLedgerDir, inReuse},
	Read: func(r runner, in actionInputs) (nightlyModeOptions, error) {
		o := nightlyModeOptions{actionInputs: in, plan: r.input(inPlan), ledgerDir: in.absInput(r, inLedgerDir),
			reuseDir: in.absInput(r, inReuse)}
		if o.plan == "" {
			return o, inputError(inPlan, "required with mode: nightly (the plan output of the nightly-plan step)")
		}
		var err error
		o.shard, err = readShard(r)
		return o, err
	},
	Events: always[nightlyModeOptions](branchEvents),
	Run: func(ctx context.Context, o nightlyModeOptions, env modeEnv) (*prcheck.Outcome, error) {
		return outcome(runNightlyMode(ctx, o, env))
	},
}

// leaderboardModeOptions are mode leaderboard's: which runs.yaml files to run
// ("": those the pull request changed, or every tracked one).
type leaderboardModeOptions struct {
	actionInputs
	// runs is a path or git glob of runs.yaml files relative to
	// simulator-path.
	runs string
}

var leaderboardMode = modeSpec[leaderboardModeOptions]{
	Name:   modeLeaderboard,
	Inputs: []string{inRuns},
	Read: func(r runner, in actionInputs) (leaderboardModeOptions, error) {
		o := leaderboardModeOptions{actionInputs: in, runs: r.input(inRuns)}
		if strings.HasPrefix(o.runs, "/") || strings.HasPrefix(o.runs, ":") {
			return o, inputError(inRuns, "%q: a path or glob relative to simulator-path (e.g. leaderboard/runs.yaml)", o.runs)
		}
		return o, nil
	},
	Events: always[leaderboardModeOptions](pullRequestEvents, []string{"push", "workflow_dispatch"}),
	Run: func(ctx context.Context, o leaderboardModeOptions, env modeEnv) (*prcheck.Outcome, error) {
		return nil, runLeaderboardMode(ctx, o, env)
	},
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
// checks the event.
func startMode(r runner, in actionInputs) (func(context.Context, modeEnv) (*prcheck.Outcome, error), error) {
	modes := actionModes()
	var names []string
	var mode *actionMode
	takes := map[string][]string{} // input → the modes that take it
	for i, m := range modes {
		names = append(names, m.name)
		if m.name == in.mode {
			mode = &modes[i]
		}
		for _, name := range m.inputs {
			takes[name] = append(takes[name], m.name)
		}
	}
	if mode == nil {
		return nil, inputError(inMode, "%q: want %s or %s", in.mode, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	}
	for _, name := range modeOnlyInputs {
		if r.input(name) != "" && !slices.Contains(mode.inputs, name) {
			return nil, inputError(name, "only with mode: %s", strings.Join(takes[name], " or "))
		}
	}
	return mode.start(r, in)
}

// modeOnlyInputs are the inputs of some modes that action.yml gives no
// default, so a value means the workflow set it.
var modeOnlyInputs = []string{inShard, inReportDir, inShardsDir, inPlan, inLedgerDir, inReuse, inRuns, inInferenceXRepo}
