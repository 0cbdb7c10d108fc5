// Package simhistory scores the simulator's history through the harness:
// action bisect's search (internal/bisect) over harness builds of each
// commit it picks, and action backfill's release-by-release runs, each
// published into a dashboard checkout as the bot publishes a nightly.
package simhistory

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/bisect"
	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Bisect runs the search of cfg (its commits aside) over the first-parent
// commits of opts.SimRepo from good to bad, scoring each commit it picks
// through the harness with opts (its SimRef and Points set per step).
func Bisect(ctx context.Context, opts harness.Options, good, bad string, cfg bisect.Config) (*bisect.Result, error) {
	b := &harness.Builder{CacheDir: opts.CacheDir, Log: opts.Log}
	history, err := b.FirstParents(ctx, opts.SimRepo, good, bad)
	if err != nil {
		return nil, err
	}
	cfg.Commits = nil
	for _, c := range history {
		cfg.Commits = append(cfg.Commits, bisect.Commit{Hash: c.Hash, Subject: c.Subject, Date: c.Date})
	}
	return bisect.Search(ctx, cfg, harnessScorer{opts})
}

// harnessScorer scores a commit through the harness (bisect.Scorer): a
// build that fails is a skip.
type harnessScorer struct{ opts harness.Options }

func (h harnessScorer) Score(ctx context.Context, c bisect.Commit, ids []string) ([]runresult.Point, error) {
	o := h.opts
	o.SimRef, o.Points = c.Hash, ids
	res, err := harness.Score(ctx, o)
	if errors.Is(err, harness.ErrBuildFailed) {
		return nil, fmt.Errorf("%w: %v", bisect.ErrSkip, err)
	}
	if err != nil {
		return nil, err
	}
	return res.Points, nil
}

// WriteJSON writes a bisect's answer as JSON to path, atomically.
func WriteJSON(path string, res *bisect.Result) error {
	raw, err := jsoncodec.Encode(res)
	if err != nil {
		return err
	}
	if err := diskio.WriteAtomic(path, raw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ReadReuse indexes the scored points of earlier result directories by
// replay digest (harness.NewReuse; nil for none), named by the
// directories' names.
func ReadReuse(dirs []string) (*harness.Reuse, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	var points []runresult.Point
	var names []string
	for _, d := range dirs {
		run, err := runresult.Read(d)
		if err != nil {
			return nil, err
		}
		points, names = append(points, run.Points...), append(names, filepath.Base(filepath.Clean(d)))
	}
	return harness.NewReuse(strings.Join(names, ","), points), nil
}
