package prcheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/sticky"
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

// Scorer runs the pinned harness.
type Scorer interface {
	// ScoreCommit scores simulator commit sim (a 40-hex commit present in
	// the simulator repository) into dir, writing summary.json, points.json
	// and summary.md. shard nil scores the whole corpus.
	ScoreCommit(ctx context.Context, sim string, shard *runresult.Shard, dir string) error
	// Merge combines the result directories of the shards of one run into
	// dir, as if the run had not been sharded.
	Merge(ctx context.Context, dir string, shards []string) error
}

// PullRequests reads pull requests of the repository at hand.
type PullRequests interface {
	// PullRequestHead returns the head commit of pull request number.
	PullRequestHead(ctx context.Context, number int) (string, error)
}

// Log is the run's log as the person reading it sees it: collapsible
// groups around long steps, and annotations. cmd/action implements it with
// the runner's workflow commands (go-githubactions), which escape the text.
type Log interface {
	Group(title string)
	EndGroup()
	Notice(msg string)
	Warning(msg string)
	Error(msg string)
}

// FlowConfig is everything a Flow works with; each mode of the Action
// completes one and builds its Flow from it once (NewFlow).
type FlowConfig struct {
	Scorer Scorer
	// Comments is nil when the run must not comment.
	Comments sticky.Commenter
	// Cache is nil when results are not cached.
	Cache *Cache
	// Key holds the harness commit and data versions; Flow fills in the
	// simulator commit and shard of each run.
	Key CacheKey
	// Log receives the run's log groups and annotations.
	Log Log
	// Summary appends Markdown to the job summary.
	Summary func(markdown string) error
	// OutDir receives head/, base/, comparison.md and pr.json.
	OutDir string
	// DetailsURL links this run (job summary), "" for none.
	DetailsURL string
	Thresholds Thresholds
}

// Flow runs one Action invocation: scoring, merging or commenting, then
// reporting, over the configuration it was built with, which nothing
// changes afterwards.
type Flow struct{ c FlowConfig }

// NewFlow builds the flow of one mode from its configuration.
func NewFlow(c FlowConfig) *Flow { return &Flow{c: c} }

// comparisonFile is the file of OutDir that holds the whole report.
const comparisonFile = "comparison.md"

// prFile is the file of OutDir that names the pull request (PR) a run is
// about.
const prFile = "pr.json"

// maxPRFileBytes bounds pr.json (a few hundred bytes when written here).
const maxPRFileBytes = 64 << 10

// PR is the pull request a run is about.
type PR struct {
	Number  int    `json:"number"`
	HeadSHA string `json:"head_sha"`
	BaseSHA string `json:"base_sha"`
}

// Outcome is what a run produced.
type Outcome struct {
	// HeadDir and BaseDir hold the results ("" BaseDir without baseline).
	HeadDir, BaseDir string
	// Head is the summary of the head result, read (once) from HeadDir; for
	// a shard run it covers the shard's slice only.
	Head runresult.Summary
	// Markdown is the full comparison; MarkdownPath is where it was written.
	Markdown     string
	MarkdownPath string
	Comparison   runresult.Comparison
	Verdict      Verdict
	// CommentURL is the sticky comment's address ("" when none was posted).
	CommentURL string
	// ReadOnly is true when commenting was skipped for a read-only token.
	ReadOnly bool
}

// Failed reports whether the run must exit non-zero (fail threshold).
func (o Outcome) Failed() bool { return len(o.Verdict.Failures) > 0 }

// RunPR scores the pull request's head and, with baseline, its base, then
// reports. With shard set it scores that slice of both and stops: the merge
// job reports. A base that cannot be scored degrades to no baseline, with a
// warning; a head that cannot be scored is an error.
func (f *Flow) RunPR(ctx context.Context, pr PR, baseline bool, shard *runresult.Shard) (Outcome, error) {
	out := Outcome{HeadDir: filepath.Join(f.c.OutDir, "head")}
	if err := f.writePR(pr); err != nil {
		return out, err
	}
	var notes []string
	head, cached, err := f.score(ctx, "head", pr.HeadSHA, shard, out.HeadDir)
	if err != nil {
		return out, err
	}
	out.Head = head.Summary
	if cached {
		notes = append(notes, "Head result reused from the cache (same harness, simulator commit and data).")
	}
	var base *runresult.Result
	if baseline {
		dir := filepath.Join(f.c.OutDir, "base")
		b, cached, err := f.score(ctx, "base", pr.BaseSHA, shard, dir)
		switch {
		case err != nil && shard != nil:
			return out, err // a merge needs every shard's base
		case err != nil:
			f.c.Log.Warning(fmt.Sprintf("The base commit could not be scored; reporting without a baseline: %v", err))
			notes = append(notes, "The base commit "+pr.BaseSHA+" could not be scored, so there is no baseline.")
			os.RemoveAll(dir)
		default:
			out.BaseDir, base = dir, &b
			if cached {
				notes = append(notes, "Base result reused from the cache (same harness, simulator commit and data).")
			}
		}
	}
	if shard != nil {
		md := fmt.Sprintf("Accuracy shard %s scored (head %s). The merge job posts the report.\n", shard.String(), pr.HeadSHA)
		out.Markdown = md
		return out, f.WriteSummary(md, comparisonFile)
	}
	return f.report(ctx, out, head, base, notes, pr)
}

// RunMerge combines the shard outputs found under shardsDir (see PlanMerge)
// into OutDir/head and OutDir/base and reports.
func (f *Flow) RunMerge(ctx context.Context, pr PR, shardsDir string) (Outcome, error) {
	set, err := PlanMerge(shardsDir)
	if err != nil {
		return Outcome{}, err
	}
	return f.RunMergeSet(ctx, pr, set)
}

// RunMergeSet is RunMerge of shards the caller found already (PlanMerge,
// which reads each shard's summary): they are merged as given, not looked
// for or read again in this process.
func (f *Flow) RunMergeSet(ctx context.Context, pr PR, set ShardSet) (Outcome, error) {
	if err := f.writePR(pr); err != nil {
		return Outcome{}, err
	}
	out := Outcome{HeadDir: filepath.Join(f.c.OutDir, "head")}
	f.c.Log.Group(fmt.Sprintf("Merge %d shards", len(set.Head)))
	err := f.c.Scorer.Merge(ctx, out.HeadDir, set.Head)
	if err == nil && len(set.Base) > 0 {
		out.BaseDir = filepath.Join(f.c.OutDir, "base")
		err = f.c.Scorer.Merge(ctx, out.BaseDir, set.Base)
	}
	f.c.Log.EndGroup()
	if err != nil {
		return out, fmt.Errorf("merge: %w", err)
	}
	head, base, err := f.readResults(out, pr)
	if err != nil {
		return out, err
	}
	return f.report(ctx, out, head, base, nil, pr)
}

// RunComment posts the report of another (untrusted) run, whose artifact was
// downloaded to reportDir, on behalf of a trusted workflow_run job. The
// artifact is data, not Markdown to paste: its pr.json must name a pull
// request and two full commits, the head being headSHA (the commit the
// untrusted run was for, from the workflow_run event) and the pull
// request's current head; its results must match their schemas (runresult.Read)
// and be for those commits; and the comment is rendered again here from
// the validated results.
func (f *Flow) RunComment(ctx context.Context, reportDir, headSHA string, prs PullRequests) (Outcome, error) {
	pr, err := readPR(filepath.Join(reportDir, prFile))
	if err != nil {
		return Outcome{}, fmt.Errorf("comment: report artifact: %w", err)
	}
	if pr.HeadSHA != headSHA {
		return Outcome{}, fmt.Errorf("comment: report is for commit %q but the workflow run is for %s", pr.HeadSHA, headSHA)
	}
	actual, err := prs.PullRequestHead(ctx, pr.Number)
	if err != nil {
		return Outcome{}, fmt.Errorf("comment: pull request #%d: %w", pr.Number, err)
	}
	if actual != headSHA {
		return Outcome{}, fmt.Errorf("comment: pull request #%d is at %s, not %s (the report is stale or not for this pull request)", pr.Number, actual, headSHA)
	}
	out := Outcome{HeadDir: filepath.Join(reportDir, "head")}
	if _, err := os.Stat(filepath.Join(reportDir, "base", runresult.SummaryFile)); err == nil {
		out.BaseDir = filepath.Join(reportDir, "base")
	}
	head, base, err := f.readResults(out, pr)
	if err != nil {
		return out, err
	}
	return f.report(ctx, out, head, base, nil, pr)
}

// readResults reads the head result in out.HeadDir and, when out.BaseDir is
// set, the base result, each checked by readChecked.
func (f *Flow) readResults(out Outcome, pr PR) (runresult.Result, *runresult.Result, error) {
	head, err := f.readChecked(out.HeadDir, pr.HeadSHA)
	if err != nil {
		return head, nil, err
	}
	if out.BaseDir == "" {
		return head, nil, nil
	}
	base, err := f.readChecked(out.BaseDir, pr.BaseSHA)
	if err != nil {
		return head, nil, err
	}
	return head, &base, nil
}

// report compares the checked results head and base (nil: no baseline),
// renders, writes comparison.md and the job summary, comments, and applies
// the thresholds.
func (f *Flow) report(ctx context.Context, out Outcome, head runresult.Result, base *runresult.Result, notes []string, pr PR) (Outcome, error) {
	out.Head = head.Summary
	out.Comparison = runresult.Compare(head, base)
	out.Verdict = Evaluate(out.Comparison, f.c.Thresholds)
	out.Markdown = render.CompareMarkdown(render.Comparison{Comparison: out.Comparison, Threshold: f.c.Thresholds.Verdict(),
		Alerts: append(append([]string{}, out.Verdict.Failures...), out.Verdict.Alerts...), Notes: notes, DetailsURL: f.c.DetailsURL})
	out.MarkdownPath = filepath.Join(f.c.OutDir, comparisonFile)
	if err := os.MkdirAll(f.c.OutDir, 0o755); err != nil {
		return out, fmt.Errorf("output directory: %w", err)
	}
	if err := diskio.WriteAtomic(out.MarkdownPath, []byte(out.Markdown)); err != nil {
		return out, fmt.Errorf("write comparison: %w", err)
	}
	if err := f.WriteSummary(out.Markdown, comparisonFile); err != nil {
		return out, err
	}
	for _, a := range out.Verdict.Alerts {
		f.c.Log.Warning(a)
	}
	for _, a := range out.Verdict.Failures {
		f.c.Log.Error(a)
	}
	if sticky := f.Sticky(render.PRMarker); sticky != nil && pr.Number > 0 {
		url, readOnly, err := sticky.Post(ctx, pr.Number, out.Markdown)
		if err != nil {
			return out, err
		}
		out.CommentURL, out.ReadOnly = url, readOnly
	}
	return out, nil
}

// readChecked reads a result with runresult.Read, the one way results
// enter prcheck, whether the harness just wrote them or they come from an
// untrusted run's artifact (summary.json and points.json checked against
// their schemas and decoded strictly, the coverage balanced, the points the
// ones the summary counts), and checks it is for sim (when known) and, when
// a pin is in force, from the pinned harness commit.
func (f *Flow) readChecked(dir, sim string) (runresult.Result, error) {
	r, err := runresult.Read(dir)
	if err != nil {
		return r, fmt.Errorf("read result: %w", err)
	}
	p := r.Summary.Provenance
	if sim != "" && p.Simulator.Commit != sim {
		return r, fmt.Errorf("%s: result is for simulator commit %q, want %s", dir, p.Simulator.Commit, sim)
	}
	if f.c.Key.HarnessCommit != "" && p.Harness.Commit != f.c.Key.HarnessCommit {
		return r, fmt.Errorf("%s: result is from harness commit %q, want the pinned %s", dir, p.Harness.Commit, f.c.Key.HarnessCommit)
	}
	return r, nil
}

// Sticky is the pull request's sticky comment of marker, posted through
// f's Commenter and log with a cut note pointing at f's job summary; nil
// when f must not comment.
func (f *Flow) Sticky(marker string) *sticky.Comment {
	if f.c.Comments == nil {
		return nil
	}
	return &sticky.Comment{Comments: f.c.Comments, Log: f.c.Log, Marker: marker, DetailsURL: f.c.DetailsURL}
}

// score produces a result in dir, from the cache when it holds one, and
// returns it read and checked.
func (f *Flow) score(ctx context.Context, what, sim string, shard *runresult.Shard, dir string) (r runresult.Result, cached bool, err error) {
	key := f.c.Key
	key.SimCommit, key.Shard = sim, shard.String()
	if err := os.RemoveAll(dir); err != nil {
		return runresult.Result{}, false, err
	}
	if f.c.Cache != nil {
		if src, r, ok := f.c.Cache.Lookup(key); ok {
			f.c.Log.Notice(fmt.Sprintf("Using the cached %s result for %s.", what, sim))
			return r, true, CopyResult(src, dir)
		}
	}
	title := fmt.Sprintf("Score %s %s", what, sim)
	if shard != nil {
		title += " (shard " + shard.String() + ")"
	}
	f.c.Log.Group(title)
	err = f.c.Scorer.ScoreCommit(ctx, sim, shard, dir)
	f.c.Log.EndGroup()
	if err != nil {
		return runresult.Result{}, false, fmt.Errorf("score %s %s: %w", what, sim, err)
	}
	if r, err = f.readChecked(dir, sim); err != nil {
		return runresult.Result{}, false, fmt.Errorf("score %s: %w", what, err)
	}
	if f.c.Cache != nil {
		if err := f.c.Cache.Store(key, dir); err != nil {
			f.c.Log.Warning(fmt.Sprintf("Could not cache the %s result: %v", what, err))
		}
	}
	return r, false, nil
}

// WriteSummary appends md to the job summary (nothing when the run has
// none), cut to the summary's limit with a note naming file, the output
// file that holds it whole.
func (f *Flow) WriteSummary(md, file string) error {
	if f.c.Summary == nil {
		return nil
	}
	if err := f.c.Summary(render.Truncate(md, textcut.MaxStepSummary, render.SummaryCutNote(file))); err != nil {
		return fmt.Errorf("job summary: %w", err)
	}
	return nil
}

func (f *Flow) writePR(pr PR) error {
	b, err := jsoncodec.Encode(pr)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(f.c.OutDir, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	return diskio.WriteAtomic(filepath.Join(f.c.OutDir, prFile), b)
}

// readPR reads a pr.json (a regular file of at most maxPRFileBytes) with
// parsePR.
func readPR(path string) (PR, error) {
	b, err := diskio.ReadFileMax(os.DirFS(filepath.Dir(path)), filepath.Base(path), maxPRFileBytes)
	if err != nil {
		return PR{}, err
	}
	return parsePR(b)
}

// parsePR decodes pr.json strictly (unknown fields and trailing data are
// errors) and checks it names a pull request and two full commits.
func parsePR(b []byte) (PR, error) {
	var pr PR
	if err := jsoncodec.Decode(b, &pr); err != nil {
		return pr, fmt.Errorf("%s: %w", prFile, err)
	}
	if pr.Number <= 0 {
		return pr, fmt.Errorf("%s: no pull request number", prFile)
	}
	if err := ident.CheckCommit(pr.HeadSHA); err != nil {
		return pr, fmt.Errorf("%s: head_sha: %w", prFile, err)
	}
	if err := ident.CheckCommit(pr.BaseSHA); err != nil {
		return pr, fmt.Errorf("%s: base_sha: %w", prFile, err)
	}
	return pr, nil
}
