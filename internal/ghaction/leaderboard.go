package ghaction

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/internal/git"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/pinned"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbpr"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
)

// runLeaderboardMode runs mode leaderboard (lbpr.Flow): the pinned
// harness's `leaderboard run` over each runs.yaml the pull request changed
// (or the runs input names) on the pin file's simulator/catalog pair,
// reusing the results committed beside it; the tables, the job summary, one
// sticky comment of its own and the outputs. A declaration that does not
// decode, or results that do not check, are reported file by file and fail
// the step.
func runLeaderboardMode(ctx context.Context, in leaderboardModeOptions, env modeEnv) error {
	gha := env.gha
	flow := prcheck.NewFlow(env.flow)
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
	f := &lbpr.Flow{Checkout: in.simulatorPath, PinRel: pinRel, Pin: p, Runs: in.runs, OutDir: in.outDir, CacheDir: in.cacheDir, Jobs: in.jobs,
		SimRepo: cloneURL(p.Leaderboard.Simulator, in.actionInputs), Git: checkoutGit{in.simulatorPath}, Report: leaderboardReport{flow, gha},
		PrepareHarness: func(ctx context.Context) (lbpr.Harness, error) {
			h, err := preparePinned(ctx, p, in.actionInputs, env)
			if err == nil {
				err = needsLeaderboardReuse(ctx, h, p.Harness)
			}
			return h, err
		}}
	out, err := f.Run(ctx, lbpr.PR{Number: pr.Number, BaseSHA: pr.BaseSHA, HeadSHA: pr.HeadSHA}, isPR)
	if err != nil && !errors.Is(err, lbpr.ErrRefused) {
		return err
	}
	if oerr := gha.setOutputs(out.Outputs()); oerr != nil {
		return fmt.Errorf("outputs: %w", oerr)
	}
	return err
}

// leaderboardReport is the Action's lbpr.Reporter: the runner's log and
// annotations, the job summary, and the leaderboard's sticky comment (none
// on a run whose token may not comment).
type leaderboardReport struct {
	flow *prcheck.Flow
	gha  runner
}

func (r leaderboardReport) Notice(msg string)                         { r.gha.Notice(msg) }
func (r leaderboardReport) Group(title string)                        { r.gha.Group(title) }
func (r leaderboardReport) EndGroup()                                 { r.gha.EndGroup() }
func (r leaderboardReport) ErrorAt(file string, line int, msg string) { r.gha.errorAt(file, line, msg) }
func (r leaderboardReport) WriteSummary(md, file string) error        { return r.flow.WriteSummary(md, file) }

func (r leaderboardReport) Post(ctx context.Context, number int, marker, md string) (string, error) {
	sticky := r.flow.Sticky(marker)
	if sticky == nil {
		return "", nil
	}
	url, _, err := sticky.Post(ctx, number, md)
	return url, err
}

func (r leaderboardReport) Refresh(ctx context.Context, number int, marker, md string) (string, error) {
	sticky := r.flow.Sticky(marker)
	if sticky == nil {
		return "", nil
	}
	url, _, err := sticky.Refresh(ctx, number, md)
	return url, err
}

// checkoutGit is lbpr.Git over the checkout dir.
type checkoutGit struct{ dir string }

func (g checkoutGit) Tracked(ctx context.Context, pattern string) ([]string, error) {
	files, err := git.TrackedFiles(ctx, g.dir, pattern)
	if err != nil {
		return nil, fmt.Errorf("checkout %s: %w", g.dir, err)
	}
	return files, nil
}

func (g checkoutGit) Changed(ctx context.Context, base, head string) ([]string, error) {
	return git.ChangedFiles(ctx, g.dir, base, head)
}

func (g checkoutGit) Fetch(ctx context.Context, commits ...string) error {
	return prepareSimulator(ctx, g.dir, commits...)
}

// Export writes directory dir (slash path) of commit into dst (nothing
// when the commit has no such directory).
func (g checkoutGit) Export(ctx context.Context, commit, dir, dst string) error {
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
