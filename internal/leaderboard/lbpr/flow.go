// Package lbpr is the leaderboard's pull-request flow (the Action's mode
// leaderboard), beside prcheck's accuracy flow: which runs.yaml a pull
// request (or the runs input) names, each decoded strictly, run by the
// pinned harness's `leaderboard run` on the pin file's simulator/catalog
// pair reusing the committed results, checked as `validate --pin` does,
// rendered, and reported in the job summary, a file and one sticky comment
// of its own (internal/sticky). The git work, the pinned harness and the
// reporting are small interfaces the wiring implements (cmd/action).
package lbpr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbview"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/sticky"
)

// MarkdownFile is the file of the output directory holding the whole
// report (the comment's and the job summary's Markdown).
const MarkdownFile = "leaderboard.md"

// RunsFileName is the name of a leaderboard declaration.
const RunsFileName = "runs.yaml"

// ErrRefused fails the step of a leaderboard run that refused a runs.yaml
// or its results; the report says why, file by file.
var ErrRefused = errors.New("leaderboard refused")

// Git is the git work on the checkout: tracked files by glob, the files a
// pull request changes, commits fetched when a shallow checkout lacks
// them, and a directory of a commit exported.
type Git interface {
	// Tracked lists the tracked files matching a git glob, slash paths
	// relative to the checkout, sorted.
	Tracked(ctx context.Context, pattern string) ([]string, error)
	// Changed lists the files changed between base and head
	// (base...head, no renames), sorted.
	Changed(ctx context.Context, base, head string) ([]string, error)
	// Fetch makes sure the checkout has every commit.
	Fetch(ctx context.Context, commits ...string) error
	// Export writes directory dir (slash path) of commit into dst; nothing
	// when the commit has no such directory.
	Export(ctx context.Context, commit, dir, dst string) error
}

// Harness runs the pinned harness's `leaderboard run` with args.
type Harness interface {
	RunCommand(ctx context.Context, args []string) error
}

// Reporter is where the flow reports: the runner's log (notices, warnings,
// groups, error annotations by file and line) and the job summary.
type Reporter interface {
	Notice(msg string)
	Warning(msg string)
	Group(title string)
	EndGroup()
	ErrorAt(file string, line int, msg string)
	// WriteSummary writes md to the job summary (cut to GitHub's limit,
	// pointing at file of the output directory).
	WriteSummary(md, file string) error
}

// PR is the pull request a run is for.
type PR struct {
	Number           int
	BaseSHA, HeadSHA string
}

// Flow is one run of mode leaderboard. Its fields are set once, by the
// wiring.
type Flow struct {
	// Checkout is the repository's checkout; PinRel the pin file's slash
	// path in it; Pin the pin file, whose leaderboard pair is set.
	Checkout, PinRel string
	Pin              pin.Pin
	// Runs is the runs input: a path or git glob of runs.yaml ("" picks
	// them from the pull request, or every one).
	Runs string
	// OutDir receives the results, tables and report; CacheDir is the
	// harness's cache; Jobs the simulations at once (0: the harness's
	// default).
	OutDir, CacheDir string
	Jobs             int
	// SimRepo is the clone URL of the pinned simulator.
	SimRepo string
	Git     Git
	Report  Reporter
	// Comments reaches the pull request's comments, where the report is
	// one sticky comment of its own (lbview.Marker); nil: no comment.
	// DetailsURL is where a cut comment's note points ("": none).
	Comments   sticky.Commenter
	DetailsURL string
	// PrepareHarness readies the pinned harness; it is called once, when
	// a declaration decodes.
	PrepareHarness func(ctx context.Context) (Harness, error)
}

// Outcome is what a run produced: one report per declaration with its
// results directory ("" when refused), the report's file and the
// comment's URL.
type Outcome struct {
	Reports      []lbview.Report
	ResultDirs   []string
	MarkdownPath string
	CommentURL   string
}

// Run runs the flow for pr (isPR false: a push to the default branch).
// The outcome is returned even with ErrRefused (a declaration or its
// results refused: the report says why); another error stops the flow.
func (f *Flow) Run(ctx context.Context, pr PR, isPR bool) (Outcome, error) {
	pair := *f.Pin.Leaderboard
	files, editsResults, why, err := f.toRun(ctx, pr, isPR)
	if err != nil {
		return Outcome{}, err
	}
	if len(files) == 0 {
		f.Report.Notice(why)
		if err := f.Report.WriteSummary(lbview.NothingToRun(why), MarkdownFile); err != nil {
			return Outcome{}, err
		}
		// A pull request whose later push reverted its leaderboard changes
		// must not keep the tables of the earlier push: an existing
		// comment says there is nothing to run now; none is opened.
		url := ""
		if isPR {
			if url, err = f.comment(ctx, pr.Number, lbview.NothingToRunComment(why), false); err != nil {
				return Outcome{}, err
			}
		}
		return Outcome{CommentURL: url}, nil
	}
	// The pinned catalog must still be what the pin says before anything
	// runs: a catalog edited without moving the pair would give results
	// off the pair.
	if probs, err := lbrun.PinPairProblems(ctx, pair, f.PinRel, f.Checkout, nil); err != nil || len(probs) > 0 {
		if err == nil {
			err = fmt.Errorf("leaderboard: %w", &leaderboard.ProblemsError{Dir: f.PinRel, Problems: probs})
		}
		return Outcome{}, err
	}

	// On a pull request the results to reuse are the base commit's: what
	// the pull request itself commits under results/ is not taken as run.
	committedRoot := f.Checkout
	if isPR {
		// A shallow checkout lacks the base commit: fetch it.
		if err := f.Git.Fetch(ctx, pr.BaseSHA); err != nil {
			return Outcome{}, err
		}
		tmp, err := os.MkdirTemp("", "leaderboard-base-")
		if err != nil {
			return Outcome{}, err
		}
		defer os.RemoveAll(tmp)
		committedRoot = tmp
	}
	var h Harness
	out := Outcome{Reports: make([]lbview.Report, len(files)), ResultDirs: make([]string, len(files))}
	for i, rel := range files {
		rep := &out.Reports[i]
		*rep = lbview.Report{Path: rel}
		committed := filepath.Join(committedRoot, filepath.FromSlash(path.Dir(rel)), "results")
		if isPR {
			if err := f.Git.Export(ctx, pr.BaseSHA, path.Join(path.Dir(rel), "results"), committed); err != nil {
				return Outcome{}, err
			}
		}
		if editsResults[rel] {
			rep.Notes = append(rep.Notes, "This pull request edits committed results beside "+rel+
				". They are not used: every result shown is the base branch's, reused because its declaration and build are unchanged, or was run here. The bot publishes results from the default branch's leaderboard run.")
		}
		d, err := f.decode(rel)
		if err != nil {
			rep.Refused = strings.Split(err.Error(), "\n")
			continue
		}
		if h == nil {
			if h, err = f.PrepareHarness(ctx); err != nil {
				return Outcome{}, err
			}
		}
		dir := filepath.Join(f.OutDir, filepath.FromSlash(path.Dir(rel)))
		out.ResultDirs[i] = filepath.Join(dir, "results")
		board, res, refused, err := f.runOne(ctx, h, pair, rel, d, committed, dir)
		if err != nil {
			return Outcome{}, err
		}
		rep.Refused, rep.Board, rep.Results = refused, board, len(res)
		rep.Unchanged = unchangedResults(res, committed, out.ResultDirs[i])
	}

	md := lbview.Comment(out.Reports)
	out.MarkdownPath = filepath.Join(f.OutDir, MarkdownFile)
	if err := os.MkdirAll(f.OutDir, 0o755); err != nil {
		return Outcome{}, fmt.Errorf("output directory: %w", err)
	}
	if err := diskio.WriteAtomic(out.MarkdownPath, []byte(md)); err != nil {
		return Outcome{}, err
	}
	if err := f.Report.WriteSummary(md, MarkdownFile); err != nil {
		return Outcome{}, err
	}
	if isPR {
		if out.CommentURL, err = f.comment(ctx, pr.Number, md, true); err != nil {
			return Outcome{}, err
		}
	}
	var refused []string
	for _, r := range out.Reports {
		if len(r.Refused) > 0 {
			refused = append(refused, r.Path)
		}
	}
	if len(refused) > 0 {
		return out, fmt.Errorf("%w: %s (the job summary says why, line by line)", ErrRefused, strings.Join(refused, ", "))
	}
	return out, nil
}

// toRun lists the runs.yaml files to run, slash-separated and relative to
// the checkout: those the runs input names (a path or a git glob such as
// leaderboards/**/runs.yaml), else on a pull request those it changed, or
// whose committed results/ it changed (editsResults), or every one when it
// changed the pin file, which pins their simulator; else every tracked
// one. why says so when there are none.
func (f *Flow) toRun(ctx context.Context, pr PR, isPR bool) (files []string, editsResults map[string]bool, why string, err error) {
	if f.Runs != "" {
		if files, err = f.Git.Tracked(ctx, f.Runs); err != nil {
			return nil, nil, "", err
		}
		if len(files) == 0 {
			return nil, nil, "", fmt.Errorf("input runs: %q matches no file tracked in %s", f.Runs, f.Checkout)
		}
		return files, nil, "", nil
	}
	all, err := f.Git.Tracked(ctx, "**/"+RunsFileName)
	if err != nil || !isPR {
		return all, nil, "The repository has no `runs.yaml`: nothing to run.", err
	}
	if err := f.Git.Fetch(ctx, pr.HeadSHA, pr.BaseSHA); err != nil {
		return nil, nil, "", err
	}
	changed, err := f.Git.Changed(ctx, pr.BaseSHA, pr.HeadSHA)
	if err != nil {
		return nil, nil, "", fmt.Errorf("files changed by the pull request: %w", err)
	}
	if slices.Contains(changed, f.PinRel) {
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
		for _, tp := range f.declaredTraces(runs) {
			watched[path.Join(dir, tp)] = true
		}
		touched := false
		for _, c := range changed {
			touched = touched || watched[c]
			if strings.HasPrefix(c, results) {
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
func (f *Flow) declaredTraces(rel string) []string {
	src, err := diskio.ReadPathMax(filepath.Join(f.Checkout, filepath.FromSlash(rel)), leaderboard.MaxDeclarationBytes)
	if err != nil {
		return nil
	}
	d, err := leaderboard.Decode(src, rel)
	if err != nil {
		return nil
	}
	return d.TracePaths()
}

// decode reads and decodes the runs.yaml at rel (slash path in the
// checkout) and resolves its traces; each declaration problem is also an
// error annotation on its file and line.
func (f *Flow) decode(rel string) (*leaderboard.Declaration, error) {
	src, err := diskio.ReadPathMax(filepath.Join(f.Checkout, filepath.FromSlash(rel)), leaderboard.MaxDeclarationBytes)
	if err != nil {
		return nil, err
	}
	d, err := leaderboard.Decode(src, rel)
	if err == nil {
		_, err = lbrun.ResolveTraces(d, filepath.Join(f.Checkout, filepath.FromSlash(path.Dir(rel))))
	}
	var es leaderboard.Errors
	if errors.As(err, &es) {
		for _, e := range es {
			f.Report.ErrorAt(e.File, e.Line, e.Error())
		}
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// runOne runs the pinned harness's `leaderboard run` for the declaration
// at rel into dir/results, reusing the committed results in committed,
// checks the results (as validate --pin does) and renders README.md and
// index.html into dir. A run that fails or results that do not check are
// refused (the reasons); err is for what stops the flow.
func (f *Flow) runOne(ctx context.Context, h Harness, pair pin.LeaderboardPair, rel string, d *leaderboard.Declaration, committed, dir string) (leaderboard.Board, map[string]*leaderboard.Result, []string, error) {
	results := filepath.Join(dir, "results")
	if err := os.RemoveAll(results); err != nil {
		return leaderboard.Board{}, nil, nil, err
	}
	args := []string{"leaderboard", "run",
		"--runs", filepath.Join(f.Checkout, filepath.FromSlash(rel)),
		"--sim", pair.Simulator.Commit,
		"--sim-repo", f.SimRepo,
		"--catalog", lbrun.CatalogArg(pair.Catalog, f.Checkout),
		"--cache-dir", f.CacheDir,
		"--out", results,
		"--reuse", committed,
	}
	if f.Jobs > 0 {
		args = append(args, "--jobs", strconv.Itoa(f.Jobs))
	}
	f.Report.Group("Run the leaderboard " + rel)
	err := h.RunCommand(ctx, args)
	f.Report.EndGroup()
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
	more, err := lbrun.PinPairProblems(ctx, pair, f.PinRel, f.Checkout, res)
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
	files, err := lbview.Files(board)
	if err != nil {
		return leaderboard.Board{}, nil, nil, err
	}
	if err := lbrun.WriteBoardFiles(dir, files); err != nil {
		return leaderboard.Board{}, nil, nil, err
	}
	return board, res, nil, nil
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

// Outputs are the step outputs of an outcome. Several runs.yaml give their
// results directories one per line.
func (o Outcome) Outputs() [][2]string {
	var runs, dirs []string
	var total lbview.Counts
	for i, r := range o.Reports {
		runs = append(runs, r.Path)
		if len(r.Refused) > 0 {
			continue
		}
		dirs = append(dirs, o.ResultDirs[i])
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
		{"markdown-path", o.MarkdownPath},
		{"comment-url", o.CommentURL},
	}
}

// Step runs the flow as one step of the Action (ghaction.LeaderboardFlow):
// the step's outputs, also with ErrRefused (the step fails after writing
// them), and nil outputs with any other error.
func (f *Flow) Step(ctx context.Context, pr PR, isPR bool) ([][2]string, error) {
	out, err := f.Run(ctx, pr, isPR)
	if err != nil && !errors.Is(err, ErrRefused) {
		return nil, err
	}
	return out.Outputs(), err
}

// comment posts md as the pull request's leaderboard comment (create
// false: edits an existing one only, sticky.Comment.Refresh) and returns
// its URL: "" when there is none, or when the flow or its token may not
// comment.
func (f *Flow) comment(ctx context.Context, number int, md string, create bool) (string, error) {
	if f.Comments == nil {
		return "", nil
	}
	c := &sticky.Comment{Comments: f.Comments, Log: f.Report, Marker: lbview.Marker, DetailsURL: f.DetailsURL}
	post := c.Refresh
	if create {
		post = c.Post
	}
	url, _, err := post(ctx, number, md)
	return url, err
}
