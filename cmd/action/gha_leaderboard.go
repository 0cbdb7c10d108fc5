package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/git"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/pinned"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
)

// leaderboardMarkdownFile is the file of out-dir holding the leaderboard
// mode's whole report (the comment's and job summary's Markdown).
const leaderboardMarkdownFile = "leaderboard.md"

// runsFileName is the name of a leaderboard declaration.
const runsFileName = "runs.yaml"

// errLeaderboardRefused fails the step of a leaderboard run that refused a
// runs.yaml or its results; the report says why, file by file.
var errLeaderboardRefused = errors.New("leaderboard refused")

// runLeaderboardMode runs mode leaderboard: the pinned harness's
// `leaderboard run` over each runs.yaml the pull request changed (or the
// runs input names) on the pin file's simulator/catalog pair, reusing the
// results committed beside it whose declaration and build are unchanged;
// then the tables, the job summary, one sticky comment of its own and the
// outputs. A declaration that does not decode, or results that do not
// check, are reported file by file (line and field) and fail the step.
func runLeaderboardMode(ctx context.Context, in leaderboardModeOptions, ev event, flow *prcheck.Flow, gha runner, stdout, stderr io.Writer) error {
	p, err := readPin(in.actionInputs)
	if err != nil {
		return err
	}
	pinRel := relPath(in.simulatorPath, in.pinFile)
	if p.Leaderboard == nil {
		return fmt.Errorf("%s pins no leaderboard pair: add a leaderboard: section with simulator and catalog (docs/ACTION.md, \"The leaderboard pair\")", pinRel)
	}
	pair := *p.Leaderboard
	pr, isPR, err := ev.pullRequest()
	if err != nil {
		return err
	}
	files, editsResults, why, err := leaderboardsToRun(ctx, in, pr, isPR, pinRel)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		gha.Notice(why)
		if err := flow.WriteSummary(render.LeaderboardNothingToRun(why), leaderboardMarkdownFile); err != nil {
			return err
		}
		// A pull request whose later push reverted its leaderboard changes
		// must not keep the tables of the earlier push: an existing
		// comment says there is nothing to run now; none is opened.
		url := ""
		if sticky := flow.Sticky(render.LeaderboardMarker); isPR && sticky != nil {
			if url, _, err = sticky.Refresh(ctx, pr.Number, render.LeaderboardNothingToRunComment(why)); err != nil {
				return err
			}
		}
		return gha.setOutputs(leaderboardOutputs(nil, nil, "", url))
	}
	// The pinned catalog must still be what the pin says before anything
	// runs: a catalog edited without moving the pair would give results
	// off the pair.
	if probs, err := pinPairProblems(ctx, pair, pinRel, in.simulatorPath, nil); err != nil || len(probs) > 0 {
		if err == nil {
			err = problemsError("leaderboard", pinRel, probs)
		}
		return err
	}

	// On a pull request the results to reuse are the base commit's: what
	// the pull request itself commits under results/ is not taken as run.
	committedRoot := in.simulatorPath
	if isPR {
		// A shallow checkout lacks the base commit: fetch it.
		if err := prepareSimulator(ctx, in.simulatorPath, pr.BaseSHA); err != nil {
			return err
		}
		tmp, err := os.MkdirTemp("", "leaderboard-base-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		committedRoot = tmp
	}
	var h *pinned.Harness
	reports := make([]render.LeaderboardReport, len(files))
	resultDirs := make([]string, len(files))
	for i, rel := range files {
		reports[i] = render.LeaderboardReport{Path: rel}
		committed := filepath.Join(committedRoot, filepath.FromSlash(path.Dir(rel)), "results")
		if isPR {
			if err := extractCommitted(ctx, in.simulatorPath, pr.BaseSHA, path.Join(path.Dir(rel), "results"), committed); err != nil {
				return err
			}
		}
		if editsResults[rel] {
			reports[i].Notes = append(reports[i].Notes, "This pull request edits committed results beside "+rel+
				". They are not used: every result shown is the base branch's, reused because its declaration and build are unchanged, or was run here. The bot publishes results from the default branch's leaderboard run.")
		}
		d, err := decodeLeaderboard(in.simulatorPath, rel, gha)
		if err != nil {
			reports[i].Refused = strings.Split(err.Error(), "\n")
			continue
		}
		if h == nil {
			gha.Group(fmt.Sprintf("Prepare the pinned harness %s (%s)", p.Harness.Tag, p.Harness.Commit))
			h, err = pinned.Prepare(ctx, p, cloneURL(p.Harness, in.actionInputs), in.cacheDir, harness.CleanEnv(os.Environ()), stdout, stderr)
			gha.EndGroup()
			if err == nil {
				err = needsLeaderboardReuse(ctx, h, p.Harness)
			}
			if err != nil {
				return err
			}
		}
		dir := filepath.Join(in.outDir, filepath.FromSlash(path.Dir(rel)))
		resultDirs[i] = filepath.Join(dir, "results")
		board, res, refused, err := runOneLeaderboard(ctx, in.actionInputs, h, pair, pinRel, rel, d, committed, dir, gha)
		if err != nil {
			return err
		}
		reports[i].Refused, reports[i].Board, reports[i].Results = refused, board, len(res)
		reports[i].Unchanged = unchangedResults(res, committed, resultDirs[i])
	}

	md := render.LeaderboardComment(reports)
	mdPath := filepath.Join(in.outDir, leaderboardMarkdownFile)
	if err := os.MkdirAll(in.outDir, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	if err := diskio.WriteAtomic(mdPath, []byte(md)); err != nil {
		return err
	}
	if err := flow.WriteSummary(md, leaderboardMarkdownFile); err != nil {
		return err
	}
	var url string
	if sticky := flow.Sticky(render.LeaderboardMarker); isPR && sticky != nil {
		if url, _, err = sticky.Post(ctx, pr.Number, md); err != nil {
			return err
		}
	}
	if err := gha.setOutputs(leaderboardOutputs(reports, resultDirs, mdPath, url)); err != nil {
		return fmt.Errorf("outputs: %w", err)
	}
	var refused []string
	for _, r := range reports {
		if len(r.Refused) > 0 {
			refused = append(refused, r.Path)
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf("%w: %s (the job summary says why, line by line)", errLeaderboardRefused, strings.Join(refused, ", "))
	}
	return nil
}

// leaderboardsToRun lists the runs.yaml files to run, slash-separated and
// relative to the checkout: those the runs input names (a path or a git
// glob such as leaderboards/**/runs.yaml), else on a pull request those it
// changed, or whose committed results/ it changed (editsResults), or every
// one when it changed the pin file, which pins their simulator; else every
// tracked one. why says so when there are none.
func leaderboardsToRun(ctx context.Context, in leaderboardModeOptions, pr prcheck.PR, isPR bool, pinRel string) (files []string, editsResults map[string]bool, why string, err error) {
	checkout := in.simulatorPath
	tracked := func(pattern string) ([]string, error) {
		files, err := git.TrackedFiles(ctx, checkout, pattern)
		if err != nil {
			return nil, fmt.Errorf("checkout %s: %w", checkout, err)
		}
		return files, nil
	}
	if in.runs != "" {
		if files, err = tracked(in.runs); err != nil {
			return nil, nil, "", err
		}
		if len(files) == 0 {
			return nil, nil, "", fmt.Errorf("input runs: %q matches no file tracked in %s", in.runs, checkout)
		}
		return files, nil, "", nil
	}
	all, err := tracked("**/" + runsFileName)
	if err != nil || !isPR {
		return all, nil, "The repository has no `runs.yaml`: nothing to run.", err
	}
	if err := prepareSimulator(ctx, checkout, pr.HeadSHA, pr.BaseSHA); err != nil {
		return nil, nil, "", err
	}
	changed, err := git.ChangedFiles(ctx, checkout, pr.BaseSHA, pr.HeadSHA)
	if err != nil {
		return nil, nil, "", fmt.Errorf("files changed by the pull request: %w", err)
	}
	if slices.Contains(changed, pinRel) {
		return all, nil, "The pull request changes the pin file, but the repository has no `runs.yaml`: nothing to run.", nil
	}
	editsResults = map[string]bool{}
	for _, runs := range all {
		dir := path.Dir(runs)
		results := path.Join(dir, "results") + "/"
		if dir == "." {
			results = "results/"
		}
		// A trace the declaration names is part of its offered work: a
		// pull request that changes only the trace runs it again.
		watched := map[string]bool{runs: true}
		for _, tp := range declaredTraces(checkout, runs) {
			watched[path.Join(dir, tp)] = true
		}
		touched := false
		for _, f := range changed {
			touched = touched || watched[f]
			if strings.HasPrefix(f, results) {
				editsResults[runs] = true
			}
		}
		if touched || editsResults[runs] {
			files = append(files, runs)
		}
	}
	return files, editsResults, "This pull request changes no `runs.yaml`, no trace one names, no committed results and not the pin file: nothing to run.", nil
}

// declaredTraces lists the trace files the runs.yaml at rel (slash path in
// the checkout) names, relative to it; none when it does not decode (a
// declaration the pull request does not change is not its to report).
func declaredTraces(checkout, rel string) []string {
	src, err := diskio.ReadPathMax(filepath.Join(checkout, filepath.FromSlash(rel)), leaderboard.MaxDeclarationBytes)
	if err != nil {
		return nil
	}
	d, err := leaderboard.Decode(src, rel)
	if err != nil {
		return nil
	}
	return d.TracePaths()
}

// decodeLeaderboard reads and decodes the runs.yaml at rel (slash path in
// the checkout) and resolves its traces; each declaration problem is also
// an error annotation on its file and line.
func decodeLeaderboard(checkout, rel string, gha runner) (*leaderboard.Declaration, error) {
	src, err := diskio.ReadPathMax(filepath.Join(checkout, filepath.FromSlash(rel)), leaderboard.MaxDeclarationBytes)
	if err != nil {
		return nil, err
	}
	d, err := leaderboard.Decode(src, rel)
	if err == nil {
		_, err = resolveTraces(d, filepath.Join(checkout, filepath.FromSlash(path.Dir(rel))))
	}
	var es leaderboard.Errors
	if errors.As(err, &es) {
		for _, e := range es {
			gha.errorAt(e.File, e.Line, e.Error())
		}
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// runOneLeaderboard runs the pinned harness's `leaderboard run` for the
// declaration at rel into dir/results, reusing the committed results in
// committed, checks the results (as validate --pin does) and renders
// README.md and index.html into dir. A run that fails or results that do
// not check are refused (the reasons); err is for what stops the mode.
func runOneLeaderboard(ctx context.Context, in actionInputs, h *pinned.Harness, pair pin.LeaderboardPair, pinRel, rel string, d *leaderboard.Declaration, committed, dir string, gha runner) (leaderboard.Board, map[string]*leaderboard.Result, []string, error) {
	results := filepath.Join(dir, "results")
	if err := os.RemoveAll(results); err != nil {
		return leaderboard.Board{}, nil, nil, err
	}
	args := []string{"leaderboard", "run",
		"--runs", filepath.Join(in.simulatorPath, filepath.FromSlash(rel)),
		"--sim", pair.Simulator.Commit,
		"--sim-repo", cloneURL(pair.Simulator, in),
		"--catalog", catalogArg(pair.Catalog, in.simulatorPath),
		"--cache-dir", in.cacheDir,
		"--out", results,
		"--reuse", committed,
	}
	if in.jobs > 0 {
		args = append(args, "--jobs", strconv.Itoa(in.jobs))
	}
	gha.Group("Run the leaderboard " + rel)
	err := h.Run(ctx, args)
	gha.EndGroup()
	if err != nil {
		if ctx.Err() != nil {
			return leaderboard.Board{}, nil, nil, ctx.Err()
		}
		return leaderboard.Board{}, nil, []string{fmt.Sprintf("%s: the pinned harness's leaderboard run failed: %v (its log is above)", rel, err)}, nil
	}
	res, probs, err := lbrun.Check(d, results, "")
	if err != nil {
		return leaderboard.Board{}, nil, nil, fmt.Errorf("%s: %w", results, err)
	}
	more, err := pinPairProblems(ctx, pair, pinRel, in.simulatorPath, res)
	if err != nil {
		return leaderboard.Board{}, nil, nil, err
	}
	if probs = append(probs, more...); len(probs) > 0 {
		lines := make([]string, len(probs))
		for i, p := range probs {
			lines[i] = rel + ": results: " + p.String()
		}
		return leaderboard.Board{}, res, lines, nil
	}
	board := leaderboard.BuildBoard(d, res)
	files, err := render.LeaderboardFiles(board)
	if err != nil {
		return leaderboard.Board{}, nil, nil, err
	}
	if err := writeBoardFiles(dir, files); err != nil {
		return leaderboard.Board{}, nil, nil, err
	}
	return board, res, nil, nil
}

// extractCommitted writes directory dir (slash path) of commit of
// repository repo into dst (nothing when the commit has no such directory).
func extractCommitted(ctx context.Context, repo, commit, dir, dst string) error {
	tree := commit + ":" + dir
	if !git.IsTree(ctx, repo, tree) {
		return nil
	}
	if err := harness.ExportTree(ctx, repo, tree, dst); err != nil {
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

// catalogArg is the pinned catalog as `leaderboard run --catalog` takes it:
// none, bundled, or the path in the checkout.
func catalogArg(c pin.LeaderboardCatalog, checkout string) string {
	if c.Source == pin.None || c.Source == pin.Bundled {
		return c.Source
	}
	return filepath.Join(checkout, filepath.FromSlash(c.Source))
}

// unchangedResults counts the results of dir that are byte for byte the
// ones committed in committed.
func unchangedResults(res map[string]*leaderboard.Result, committed, dir string) int {
	n := 0
	for key := range res {
		a, errA := os.ReadFile(filepath.Join(committed, filepath.FromSlash(key)+".json"))
		b, errB := os.ReadFile(filepath.Join(dir, filepath.FromSlash(key)+".json"))
		if errA == nil && errB == nil && bytes.Equal(a, b) {
			n++
		}
	}
	return n
}

// leaderboardOutputs lists the step outputs of mode leaderboard. Several
// runs.yaml give their results directories one per line.
func leaderboardOutputs(reports []render.LeaderboardReport, resultDirs []string, mdPath, url string) [][2]string {
	var runs, dirs []string
	var total render.LeaderboardCounts
	for i, r := range reports {
		runs = append(runs, r.Path)
		if len(r.Refused) > 0 {
			continue
		}
		dirs = append(dirs, resultDirs[i])
		c := r.Counts()
		total.Groups += c.Groups
		total.Disqualified += c.Disqualified
		total.Failed += c.Failed
	}
	return [][2]string{
		{"runs", strings.Join(runs, "\n")},
		{"results-dir", strings.Join(dirs, "\n")},
		{"groups", strconv.Itoa(total.Groups)},
		{"disqualified", strconv.Itoa(total.Disqualified)},
		{"failed", strconv.Itoa(total.Failed)},
		{"markdown-path", mdPath},
		{"comment-url", url},
	}
}

// relPath is p relative to base, slash-separated (p itself when it is not
// under base).
func relPath(base, p string) string {
	rel, err := filepath.Rel(base, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return p
	}
	return filepath.ToSlash(rel)
}
