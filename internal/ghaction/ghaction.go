// Package ghaction is the GitHub Action's runtime (`action github-action`,
// action.yml): it reads its inputs (INPUT_*) and the event from the runner,
// runs one mode's flow, writes the step outputs and the job summary, and
// neutralises workflow commands in every log line it did not write itself.
// It is the only package that talks to the Actions runner, all through
// go-githubactions (runner.go).
//
// The mode table (actionModes, modes.go) is the heart: each mode (pr,
// merge, comment, nightly-plan, nightly, leaderboard) is one entry naming
// the inputs only it takes and the plain function that reads them into its
// typed options (readPRMode, ...), whose methods beside it give the events
// it runs on and its run, which builds its flow once (prcheck.NewFlow; mode leaderboard's is the
// LeaderboardFlow the program gives Run, lbpr.Flow) over the pinned
// harness (harness/pinned) and the GitHub client (internal/github). The
// inputs every mode shares are read in inputs.go, the event in event.go; the
// flows of the modes are in pr.go (pr, merge, comment), nightly.go and
// leaderboard.go, over the pinned harness (pinned.go: the pin file, the
// harness it pins, prepared and made the flow's scorer), the simulator
// checkout (checkout.go) and the comment client (github.go); outputs.go
// writes what a step leaves behind, log.go keeps untrusted text from being
// read as workflow commands. Run is the one entry point.
package ghaction

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/github"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
)

// Run runs the Action once, as a step of a job: it reads the inputs
// (INPUT_*, as action.yml maps them) and the runner's context from getenv,
// the event from $GITHUB_EVENT_PATH, runs the mode's flow, and writes the
// step outputs ($GITHUB_OUTPUT) and the job summary ($GITHUB_STEP_SUMMARY).
// The flow's log goes to stdout and stderr; the runner's commands (groups,
// annotations, the token's mask) to stdout.
//
// Everything it prints goes through logStreams: only the runner's own
// commands (go-githubactions) can be read as workflow commands, on either
// stream. A failure returns an error (the step fails, exit status 1),
// annotated once as an error; its text reads as no workflow command either,
// so the caller may print it as it is. An invalid input is an error naming
// the input; an event the mode does not run on is refused before anything
// is read or built; accuracy past the fail-threshold input is an error too,
// each metric annotated already. leaderboard is mode leaderboard's flow
// (cmd/action wires internal/leaderboard/lbpr's in).
func Run(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer, leaderboard LeaderboardFlow) error {
	logs := newLogStreams(stdout, stderr)
	defer logs.Flush()
	gha := newRunner(getenv, logs.Commands)
	err := action(ctx, gha, logs.Stdout, logs.Stderr, leaderboard)
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

// action reads the inputs and the event, runs the mode and writes the
// outputs.
func action(ctx context.Context, gha runner, stdout, stderr io.Writer, leaderboard LeaderboardFlow) error {
	in, err := readInputs(gha)
	if err != nil {
		return err
	}
	gha.mask(in.token)
	m, err := startMode(gha, in)
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
	out, err := m.run(ctx, modeEnv{ev: ev, flow: flow, gh: gh, gha: gha, stdout: stdout, stderr: stderr, leaderboard: leaderboard})
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
