package ghaction

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/internal/git"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/pinned"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"github.com/inference-sim/accuracy-dashboard/internal/sticky"
)

// LeaderboardFlow is mode leaderboard's flow, which the program wires in
// (cmd/action: internal/leaderboard/lbpr's Flow), so that the Action's
// runtime imports no leaderboard package. It runs the pinned harness's
// `leaderboard run` over the runs.yaml files m names and reports them; it
// returns the step's outputs, also with an error when the flow refused a
// declaration or its results (the step fails after its outputs are
// written), and nil outputs with any other error.
type LeaderboardFlow func(ctx context.Context, m LeaderboardRun) (outputs [][2]string, err error)

// LeaderboardRun is one run of mode leaderboard as the runtime prepared it.
type LeaderboardRun struct {
	// Checkout is the repository's checkout (simulator-path); PinRel the
	// pin file's slash path in it; Pin the pin file, whose leaderboard
	// pair is set.
	Checkout, PinRel string
	Pin              pin.Pin
	// Runs is the runs input: a path or git glob of runs.yaml ("": those
	// the pull request changed, or every one).
	Runs string
	// OutDir, CacheDir and Jobs are the inputs of those names.
	OutDir, CacheDir string
	Jobs             int
	// SimRepo is the clone URL of the pinned simulator.
	SimRepo string
	// PR is the pull request (IsPR false: a push or a dispatch on a branch).
	PR   PullRequest
	IsPR bool
	// Git is the git work on the checkout; Report the runner's log and
	// the job summary.
	Git    CheckoutGit
	Report LeaderboardReport
	// Comments reaches the pull request's comments (nil: comment: false);
	// DetailsURL is the run's page, where a cut comment's note points.
	Comments   sticky.Commenter
	DetailsURL string
	// PrepareHarness readies the pinned harness, checking that it has
	// `leaderboard run --reuse`.
	PrepareHarness func(ctx context.Context) (*pinned.Harness, error)
}

// PullRequest is the pull request an event names.
type PullRequest struct {
	Number           int
	BaseSHA, HeadSHA string
}

// runLeaderboardMode runs mode leaderboard (the program's LeaderboardFlow):
// the pinned harness's `leaderboard run` over each runs.yaml the pull
// request changed (or the runs input names) on the pin file's
// simulator/catalog pair, reusing the results committed beside it; the
// tables, the job summary, one sticky comment of its own and the outputs. A
// declaration that does not decode, or results that do not check, are
// reported file by file and fail the step.
func runLeaderboardMode(ctx context.Context, in leaderboardModeOptions, env modeEnv) error {
	gha := env.gha
	p, err := readPin(in.actionInputs)
	if err != nil {
		return err
	}
	pinRel := relPath(in.simulatorPath, in.pinFile)
	if p.Leaderboard == nil {
		return fmt.Errorf("%s pins no leaderboard pair: add a leaderboard: section with simulator and catalog (docs/ACTION.md, \"The leaderboard pair\")", pinRel)
	}
	pr, isPR, err := env.ev.pullRequest()
	if err != nil {
		return err
	}
	m := LeaderboardRun{Checkout: in.simulatorPath, PinRel: pinRel, Pin: p, Runs: in.runs, OutDir: in.outDir, CacheDir: in.cacheDir, Jobs: in.jobs,
		SimRepo: cloneURL(p.Leaderboard.Simulator, in.actionInputs), PR: PullRequest{Number: pr.Number, BaseSHA: pr.BaseSHA, HeadSHA: pr.HeadSHA}, IsPR: isPR,
		Git: CheckoutGit{in.simulatorPath}, Report: LeaderboardReport{prcheck.NewFlow(env.flow), gha}, DetailsURL: env.flow.DetailsURL,
		PrepareHarness: func(ctx context.Context) (*pinned.Harness, error) {
			h, err := preparePinned(ctx, p, in.actionInputs, env)
			if err == nil {
				err = needsLeaderboardReuse(ctx, h, p.Harness)
			}
			return h, err
		}}
	if env.gh != nil {
		m.Comments = env.gh
	}
	if env.leaderboard == nil {
		return errors.New("mode leaderboard: no leaderboard flow was wired into the Action's runtime")
	}
	out, err := env.leaderboard(ctx, m)
	if out == nil {
		return err
	}
	if oerr := gha.setOutputs(out); oerr != nil {
		return fmt.Errorf("outputs: %w", oerr)
	}
	return err
}

// LeaderboardReport is where mode leaderboard reports: the runner's log and
// annotations, and the job summary.
type LeaderboardReport struct {
	flow *prcheck.Flow
	gha  runner
}

func (r LeaderboardReport) Notice(msg string)  { r.gha.Notice(msg) }
func (r LeaderboardReport) Warning(msg string) { r.gha.Warning(msg) }
func (r LeaderboardReport) Group(title string) { r.gha.Group(title) }
func (r LeaderboardReport) EndGroup()          { r.gha.EndGroup() }

// ErrorAt is an error annotation on a line of a file of the repository
// (line 0: the file).
func (r LeaderboardReport) ErrorAt(file string, line int, msg string) { r.gha.errorAt(file, line, msg) }

// WriteSummary writes md to the job summary, cut to GitHub's limit with a
// note pointing at file of the output directory.
func (r LeaderboardReport) WriteSummary(md, file string) error { return r.flow.WriteSummary(md, file) }

// CheckoutGit is the git work mode leaderboard does on the checkout dir:
// tracked files by glob, the files a pull request changes, commits fetched
// when a shallow checkout lacks them, a directory of a commit exported.
type CheckoutGit struct{ dir string }

// Tracked lists the tracked files matching a git glob.
func (g CheckoutGit) Tracked(ctx context.Context, pattern string) ([]string, error) {
	files, err := git.TrackedFiles(ctx, g.dir, pattern)
	if err != nil {
		return nil, fmt.Errorf("checkout %s: %w", g.dir, err)
	}
	return files, nil
}

// Changed lists the files changed between base and head.
func (g CheckoutGit) Changed(ctx context.Context, base, head string) ([]string, error) {
	return git.ChangedFiles(ctx, g.dir, base, head)
}

// Fetch makes sure the checkout has every commit.
func (g CheckoutGit) Fetch(ctx context.Context, commits ...string) error {
	return prepareSimulator(ctx, g.dir, commits...)
}

// Export writes directory dir (slash path) of commit into dst (nothing
// when the commit has no such directory).
func (g CheckoutGit) Export(ctx context.Context, commit, dir, dst string) error {
	tree := commit + ":" + dir
	if !git.IsTree(ctx, g.dir, tree) {
		return nil
	}
	if err := harness.ExportTree(ctx, g.dir, tree, dst); err != nil {
		return fmt.Errorf("results committed at %s: %w", commit, err)
	}
	return nil
}

// needsLeaderboardReuse checks that the pinned harness h (release ph) has
// `leaderboard run --reuse`, which mode leaderboard needs: an older release
// gets an error saying so instead of a usage error from its flag parser.
func needsLeaderboardReuse(ctx context.Context, h *pinned.Harness, ph pin.Harness) error {
	help, err := h.Output(ctx, "leaderboard", "run", "--help") // the help's exit status varies between releases
	if len(help) == 0 && err != nil {
		return fmt.Errorf("the pinned harness %s: leaderboard run --help: %w", ph.Tag, err)
	}
	if !bytes.Contains(help, []byte("-reuse")) {
		return fmt.Errorf("the pinned harness %s (%s) has no `leaderboard run --reuse`: mode leaderboard needs a harness release that has it; move the pin file's harness to one", ph.Tag, ph.Commit)
	}
	return nil
}
