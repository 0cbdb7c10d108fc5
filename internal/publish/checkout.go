package publish

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// Checkout is a publish of a result directory into a dashboard checkout on
// disk (`action publish`): what the bot commits, written as files.
type Checkout struct {
	// Dashboard is the checkout's root; Result the result directory
	// (summary.json, points.json and plan.json, as `action score --out` or
	// `action merge` write them).
	Dashboard, Result string
	// Experimental admits with AdmitExperimental instead of AdmitRelease.
	Experimental bool
	// PublishedAt is when the snapshot is recorded as published (the
	// index's order); zero: now.
	PublishedAt time.Time
	// Source is a URL of what produced the run, recorded in the index.
	Source string
	// BackfilledAt, when set, publishes a past release's run as
	// backfilled (Snapshot.BackfilledAt): PublishedAt is the release's
	// date, BackfilledAt when it was scored.
	BackfilledAt time.Time
	// DryRun plans the files and writes nothing.
	DryRun bool
}

// PublishCheckout publishes c.Result into c.Dashboard as the bot publishes
// a run's report: it reads the result directory (ReadResult), admits it
// (Admit; there is no GitHub here, so an asserted harness commit cannot be
// checked and is refused with the gate's reasons), plans the snapshot's
// files over the checkout (LoadDashboard, PlanSnapshot) and, unless
// c.DryRun, writes them all or nothing. Every read and write of the
// checkout goes through one diskio.Tree of it (the files the retention
// prunes are removed after the others are written, ApplyFiles): nothing outside it is read
// or written, and a symbolic link at any depth below it (a committed
// state, data, data/latest or data/snapshots, or a file) is refused,
// naming it.
//
// The outcome is PublishRefused with the reasons (the gate's, or
// PlanSnapshot's ErrImmutable), PublishUnchanged with the reason (the
// run's inputs or the same snapshot are published already, or the
// dashboard's retention would prune it), PublishPlanned (a dry run) or
// PublishPublished, the last two with the files. An error is the result
// directory's, the checkout's (prefixed "dashboard <dir>: ") or a write's;
// ID is set once the run is admitted.
func PublishCheckout(c Checkout) (PublishResult, error) {
	rep, err := ReadResult(c.Result)
	if err != nil {
		return PublishResult{}, err
	}
	how := AdmitRelease
	if c.Experimental {
		how = AdmitExperimental
	}
	when := c.PublishedAt
	if when.IsZero() {
		when = time.Now()
	}
	if rep.WhatIfs, err = whatif.ReadRuns(c.Result); err != nil {
		return PublishResult{}, err
	}
	snap, reasons, err := Admit(rep, how, when, c.Source, func(runresult.Summary) (HarnessCheck, error) { return HarnessCheck{}, nil })
	if err != nil {
		return PublishResult{}, err
	}
	if len(reasons) > 0 {
		return Refused(reasons...), nil
	}
	snap.BackfilledAt = c.BackfilledAt
	res := PublishResult{ID: SnapshotID(snap.Summary, rep.RunID)}
	tree, err := diskio.OpenTree(c.Dashboard)
	if err != nil {
		return res, fmt.Errorf("dashboard %s: %w", c.Dashboard, err)
	}
	defer tree.Close()
	dash, err := LoadDashboard(DirReader(tree), DirLister(tree), snap, res.ID)
	if err != nil {
		return res, fmt.Errorf("dashboard %s: %w", c.Dashboard, err)
	}
	files, err := PlanSnapshot(snap, dash)
	switch {
	case errors.Is(err, ErrUnchanged):
		res.Outcome, res.Reasons = PublishUnchanged, []string{"its inputs or the same snapshot are already published in " + c.Dashboard}
		return res, nil
	case errors.Is(err, ErrPruned):
		res.Outcome, res.Reasons = PublishUnchanged, []string{err.Error()}
		return res, nil
	case errors.Is(err, ErrImmutable):
		res.Outcome, res.Reasons = PublishRefused, []string{err.Error()}
		return res, nil
	case err != nil:
		return res, fmt.Errorf("dashboard %s: %w", c.Dashboard, err)
	}
	res.Files = files
	if c.DryRun {
		res.Outcome = PublishPlanned
		return res, nil
	}
	if err := tree.ApplyFiles(files); err != nil {
		return res, err
	}
	res.Outcome = PublishPublished
	return res, nil
}

// ReadResult reads a result directory as the bot reads a report artifact:
// summary.json (required), points.json and plan.json (when present), each a
// regular file within its cap (runresult.MaxSummaryBytes,
// runresult.MaxPointsBytes; the plan's as a summary's). An error names the
// directory and the file.
func ReadResult(dir string) (Report, error) {
	return ReadResultOf(filepath.Join(dir, runresult.SummaryFile))
}

// ReadResultOf is ReadResult of the summary at summaryPath (whatever its
// name): points.json and plan.json are read from its directory.
func ReadResultOf(summaryPath string) (Report, error) {
	dir := filepath.Dir(summaryPath)
	var rep Report
	for _, f := range []struct {
		path     string
		dst      *[]byte
		required bool
		max      int64
	}{{summaryPath, &rep.Summary, true, runresult.MaxSummaryBytes},
		{filepath.Join(dir, runresult.PointsFile), &rep.Points, false, runresult.MaxPointsBytes},
		{filepath.Join(dir, nightly.File), &rep.Plan, false, runresult.MaxSummaryBytes}} {
		data, err := diskio.ReadPathMax(f.path, f.max)
		switch {
		case err == nil:
			*f.dst = data
		case errors.Is(err, fs.ErrNotExist) && !f.required:
		default:
			return rep, fmt.Errorf("result %s: %w", dir, err)
		}
	}
	return rep, nil
}

// DirReader reads a dashboard checkout's files (slash paths in the tree)
// for LoadDashboard: a missing file is ghmodel.ErrNotFound, and each is a
// regular file of at most MaxFileBytes with no link in its path.
func DirReader(tree *diskio.Tree) ReadDashboardFile {
	return func(path string) ([]byte, error) {
		data, err := tree.ReadMax(path, MaxFileBytes)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", path, ghmodel.ErrNotFound)
		}
		return data, err
	}
}

// DirLister lists a dashboard checkout's files under a directory for
// LoadDashboard (diskio.Tree.Files): a missing directory is
// ghmodel.ErrNotFound, a link below it an error naming it.
func DirLister(tree *diskio.Tree) ListDashboardFiles {
	return func(dir string) ([]string, error) {
		files, err := tree.Files(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", dir, ghmodel.ErrNotFound)
		}
		return files, err
	}
}
