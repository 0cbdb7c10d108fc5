package simhistory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/publish"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// BackfillConfig is one backfill: the releases From..To of
// Options.SimRepo, each scored on the whole corpus with Options (its
// SimRef set per release) and published into Dashboard.
type BackfillConfig struct {
	Options   harness.Options
	Dashboard string
	From, To  string
	// Work keeps each release's run (Work/<tag>/, as action score --out
	// writes it) until it is published, so that an interrupted backfill
	// publishes a finished run without scoring it again.
	Work string
	// Now is the clock of BackfilledAt (default time.Now).
	Now func() time.Time
	// Step, when set, is told each release's outcome as it is decided.
	Step func(BackfillStep)
}

// BackfillStep is what a backfill did with one release.
type BackfillStep struct {
	Tag, Commit string
	// Released is the release's date (its commit's), the snapshot's
	// published_at.
	Released time.Time
	// Outcome is one of the Backfill* outcomes; Snapshot the id published
	// (or found published).
	Outcome, Snapshot string
	// Resumed: the run was read from Work/<tag>/, scored by an earlier,
	// interrupted backfill.
	Resumed        bool
	Scored, Corpus int
}

// String is the step as action backfill prints it: the release, what was
// done and the points scored.
func (s BackfillStep) String() string {
	line := fmt.Sprintf("%s (%s, released %s): %s %s", s.Tag, ident.Short(s.Commit), s.Released.UTC().Format("2006-01-02"), s.Outcome, s.Snapshot)
	if s.Outcome == BackfillAlready {
		return line
	}
	line += fmt.Sprintf(" (%d of %d points scored", s.Scored, s.Corpus)
	if s.Resumed {
		line += ", the run resumed from the work directory"
	}
	return line + ")"
}

// What a backfill did with a release.
const (
	BackfillPublished = "published"
	// BackfillAlready: the dashboard has a snapshot of the release's
	// commit, from an earlier backfill or a nightly.
	BackfillAlready = "already published"
	// BackfillUnchanged: the publish found the same inputs published.
	BackfillUnchanged = "unchanged"
)

// Backfill scores each stable release tag from From to To, oldest first,
// each its own whole run, and publishes it into the dashboard through
// action publish's path (publish.PublishCheckout) with the release's date
// as its publication time and the time it was scored as BackfilledAt. A
// release the dashboard already has a snapshot of is skipped, and a run
// finished in Work is published without scoring it again: run Backfill
// again after an interruption and it goes on where it stopped. A release
// whose build cannot run a point scores what it can, as any run; one the
// publish gate refuses, or whose build fails, stops the backfill with an
// error naming it, after the releases before it were published.
func Backfill(ctx context.Context, cfg BackfillConfig) ([]BackfillStep, error) {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	if cfg.Work == "" {
		return nil, errors.New("backfill: no work directory")
	}
	b := &harness.Builder{CacheDir: cfg.Options.CacheDir, Log: cfg.Options.Log}
	releases, err := b.Releases(ctx, cfg.Options.SimRepo, cfg.From, cfg.To)
	if err != nil {
		return nil, fmt.Errorf("backfill: %w", err)
	}
	var steps []BackfillStep
	for _, rel := range releases {
		step, err := backfillOne(ctx, cfg, rel, now)
		if err != nil {
			return steps, fmt.Errorf("backfill %s: %w", rel.Tag, err)
		}
		if cfg.Step != nil {
			cfg.Step(step)
		}
		steps = append(steps, step)
	}
	return steps, nil
}

func backfillOne(ctx context.Context, cfg BackfillConfig, rel harness.SimRelease, now func() time.Time) (BackfillStep, error) {
	step := BackfillStep{Tag: rel.Tag, Commit: rel.Commit.Hash, Released: rel.Commit.Date}
	published, err := publishedSnapshot(cfg.Dashboard, rel.Commit.Hash)
	if err != nil {
		return step, err
	}
	if published != "" {
		step.Outcome, step.Snapshot = BackfillAlready, published
		return step, nil
	}
	dir := filepath.Join(cfg.Work, rel.Tag)
	var scoredAt time.Time
	run, err := runresult.Read(dir)
	switch {
	case err == nil && run.Summary.Provenance.Simulator.Commit == rel.Commit.Hash && run.Summary.Provenance.Selection.Whole():
		step.Resumed = true
		// Scored when its summary was written, not now: the mark says
		// when the release was scored.
		if fi, err := os.Stat(filepath.Join(dir, runresult.SummaryFile)); err == nil {
			scoredAt = fi.ModTime()
		}
	case err == nil || errors.Is(err, fs.ErrNotExist):
		o := cfg.Options
		o.SimRef, o.Points = rel.Tag, nil
		res, err := harness.Score(ctx, o)
		if err != nil {
			return step, err
		}
		run = res.Result
		if err := runresult.Write(dir, runresult.Output{Result: run, Markdown: render.Summary(run.Summary)}); err != nil {
			return step, fmt.Errorf("write %s: %w", dir, err)
		}
		scoredAt = now()
	default:
		return step, fmt.Errorf("the run kept in %s: %w (remove it to score the release again)", dir, err)
	}
	if scoredAt.IsZero() {
		scoredAt = now()
	}
	step.Scored, step.Corpus = run.Summary.Coverage.Scored, run.Summary.Coverage.CorpusPoints
	res, err := publish.PublishCheckout(publish.Checkout{Dashboard: cfg.Dashboard, Result: dir, PublishedAt: rel.Commit.Date, BackfilledAt: scoredAt.UTC().Truncate(time.Second)})
	if err != nil {
		return step, err
	}
	step.Snapshot = res.ID
	switch res.Outcome {
	case publish.PublishRefused:
		return step, fmt.Errorf("refused by the gate: %s", strings.Join(res.Reasons, "; "))
	case publish.PublishUnchanged:
		step.Outcome = BackfillUnchanged
	default:
		step.Outcome = BackfillPublished
	}
	return step, nil
}

// publishedSnapshot is the id of a snapshot of the dashboard whose inputs
// name simulator commit, "" for none (or no index yet).
func publishedSnapshot(dir, commit string) (string, error) {
	path := filepath.Join(dir, filepath.FromSlash(dashboard.IndexPath))
	raw, err := diskio.ReadPathMax(path, dashboard.MaxIndexBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	idx, err := dashboard.DecodeIndex(raw)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	for _, e := range idx.Snapshots {
		if e.Inputs != nil && e.Inputs.Simulator.Commit == commit {
			return e.ID, nil
		}
	}
	return "", nil
}

// WorkDir is the default work directory of a backfill into dashboard:
// under the cache, one per dashboard (by its absolute path).
func WorkDir(cacheDir, dashboard string) (string, error) {
	abs, err := filepath.Abs(dashboard)
	if err != nil {
		return "", err
	}
	name := strings.Trim(strings.NewReplacer(string(os.PathSeparator), "_", ":", "_").Replace(abs), "_")
	return filepath.Join(cacheDir, "backfill", name), nil
}
