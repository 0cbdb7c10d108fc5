package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/publish"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

const publishUsage = `Usage: action publish --dashboard DIR [flags] RESULT_DIR

Publishes a result directory (summary.json, points.json and, from a
nightly, plan.json, as 'action score --out' or 'action merge' write them)
into a dashboard checkout exactly as the accuracy bot commits it: the
snapshot data/snapshots/<id>/, data/latest/, data/index.json,
state/last-run.json, the comparison page with the previous snapshot
(data/compare/<previous>..<id>.md) and the README table, through the bot's
own code and gate. This is how a maintainer without the App publishes;
commit the files it writes.

A run the gate refuses (not a release, a shard, unbalanced coverage, points
that are not the summary's, an asserted harness commit, which this command
cannot check against GitHub, ...) is an error naming every reason, exit
status 3, and nothing is written. --experimental waives the release
requirement alone, for examples and previews: the snapshot is labelled
experimental wherever it is shown. A run already published (same inputs,
or the same snapshot) changes nothing. Every file is written atomically
after all of them were planned.

Examples:
  action publish --dashboard . out/
  action publish --dashboard ~/src/accuracy-dashboard --dry-run out/
  action publish --dashboard docs/examples/dashboard --experimental --published-at 2026-12-01T12:00:00Z out-f90a1e3a/

Flags:
`

// publishOptions are the flags and argument of `action publish`.
type publishOptions struct {
	dashboard    string
	result       string
	dryRun       bool
	experimental bool
	// publishedAt is when the snapshot is recorded as published (the
	// index's order); zero: now.
	publishedAt time.Time
	source      string
}

// publishCommand is `action publish`.
var publishCommand = cli.Spec[publishOptions]{
	Name:    "publish",
	Summary: "publish a result directory into a dashboard checkout, as the bot does",
	Usage:   publishUsage,
	Flags: func(fs *flag.FlagSet, o *publishOptions, _ func(string) string) {
		fs.StringVar(&o.dashboard, "dashboard", "", "the dashboard `checkout` to write into (e.g. --dashboard .)")
		fs.BoolVar(&o.dryRun, "dry-run", false, "list the files a publish would write, write nothing (e.g. --dry-run)")
		fs.BoolVar(&o.experimental, "experimental", false, "publish a run the gate refuses only for not being a release (e.g. --experimental)")
		fs.Func("published-at", "the publication `time`, RFC 3339; default now (e.g. --published-at 2026-12-01T12:00:00Z)", func(s string) error {
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return errors.New("want an RFC 3339 time, e.g. 2026-12-01T12:00:00Z")
			}
			o.publishedAt = t
			return nil
		})
		fs.StringVar(&o.source, "source", "", "a `URL` of what produced the run, recorded in the index (e.g. --source https://github.com/o/r/actions/runs/42)")
	},
	Required: []string{"dashboard"},
	Check: func(o *publishOptions, args []string) error {
		if len(args) != 1 {
			return fmt.Errorf("want one result directory, got %d arguments", len(args))
		}
		o.result = args[0]
		return nil
	},
	Run: runPublish,
}

// errPublishRefused is a publish the gate refused (exit status 3, as the
// bot's publish).
var errPublishRefused = &cli.ExitError{Code: 3, Err: errors.New("refused by the gate")}

func runPublish(_ context.Context, o publishOptions, env cli.Env) error {
	rep, err := readResultReport(o.result)
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	how := publish.AdmitRelease
	if o.experimental {
		how = publish.AdmitExperimental
	}
	when := o.publishedAt
	if when.IsZero() {
		when = time.Now()
	}
	// No GitHub here: an asserted harness commit cannot be checked, so it
	// is refused with the gate's reasons.
	snap, reasons, err := publish.Admit(rep, how, when, o.source, func(report.Summary) (publish.HarnessCheck, error) { return publish.HarnessCheck{}, nil })
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if len(reasons) > 0 {
		return refusePublish(env.Stdout, o.result, reasons)
	}
	id := publish.SnapshotID(snap.Summary, rep.RunID)
	dash, err := publish.LoadDashboard(dashboardReader(o.dashboard), snap, id)
	if err != nil {
		return fmt.Errorf("publish: dashboard %s: %w", o.dashboard, err)
	}
	files, err := publish.PlanSnapshot(snap, dash)
	switch {
	case errors.Is(err, publish.ErrUnchanged):
		_, err := fmt.Fprintf(env.Stdout, "unchanged: snapshot %s; its inputs or the same snapshot are already published in %s\n", id, o.dashboard)
		return err
	case errors.Is(err, publish.ErrImmutable):
		return refusePublish(env.Stdout, o.result, []string{err.Error()})
	case err != nil:
		return fmt.Errorf("publish: dashboard %s: %w", o.dashboard, err)
	}
	if o.dryRun {
		fmt.Fprintf(env.Stdout, "would publish snapshot %s into %s:\n", id, o.dashboard)
		return listFiles(env.Stdout, files)
	}
	if err := writeFiles(o.dashboard, files); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	fmt.Fprintf(env.Stdout, "published snapshot %s into %s:\n", id, o.dashboard)
	return listFiles(env.Stdout, files)
}

// refusePublish prints each reason and returns the refusal (exit 3).
func refusePublish(w io.Writer, result string, reasons []string) error {
	for _, r := range reasons {
		fmt.Fprintf(w, "refused: %s\n", r)
	}
	return fmt.Errorf("publish %s: %w: %s", result, errPublishRefused, strings.Join(reasons, "; "))
}

// readResultReport reads a result directory as the bot reads a report
// artifact: summary.json (required), points.json and plan.json (when
// present), each a regular file within its cap (report.MaxSummaryBytes,
// report.MaxPointsBytes; the plan's as a summary's).
func readResultReport(dir string) (publish.Report, error) {
	var rep publish.Report
	for _, f := range []struct {
		name     string
		dst      *[]byte
		required bool
		max      int64
	}{{report.SummaryFile, &rep.Summary, true, report.MaxSummaryBytes}, {report.PointsFile, &rep.Points, false, report.MaxPointsBytes},
		{nightly.File, &rep.Plan, false, report.MaxSummaryBytes}} {
		data, err := diskio.ReadPathMax(filepath.Join(dir, f.name), f.max)
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

// dashboardReader reads a dashboard checkout's files (slash paths) for
// publish.LoadDashboard: a missing file is ghmodel.ErrNotFound, and each is a
// regular file of at most publish.MaxSummaryBytes.
func dashboardReader(root string) publish.ReadDashboardFile {
	return func(path string) ([]byte, error) {
		data, err := diskio.ReadPathMax(filepath.Join(root, filepath.FromSlash(path)), publish.MaxSummaryBytes)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", path, ghmodel.ErrNotFound)
		}
		return data, err
	}
}

// writeFiles writes files (slash paths under root) all or nothing as far
// as the file system allows: every file is first written to a temporary
// sibling, then each is renamed into place.
func writeFiles(root string, files map[string][]byte) error {
	type staged struct{ tmp, dst string }
	var done []staged
	cleanup := func() {
		for _, s := range done {
			os.Remove(s.tmp)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		dst := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			cleanup()
			return err
		}
		tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-")
		if err != nil {
			cleanup()
			return err
		}
		done = append(done, staged{tmp.Name(), dst})
		_, err = tmp.Write(files[p])
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(tmp.Name(), 0o644)
		}
		if err != nil {
			cleanup()
			return fmt.Errorf("write %s: %w", dst, err)
		}
	}
	for _, s := range done {
		if err := os.Rename(s.tmp, s.dst); err != nil {
			cleanup()
			return fmt.Errorf("write %s: %w", s.dst, err)
		}
	}
	return nil
}

// listFiles prints each path with its size, sorted.
func listFiles(w io.Writer, files map[string][]byte) error {
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if _, err := fmt.Fprintf(w, "  %s (%d bytes)\n", p, len(files[p])); err != nil {
			return err
		}
	}
	return nil
}
