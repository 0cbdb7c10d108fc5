package site

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// ReadRun reads the run arg names (`action compare`'s A or B): a directory
// holding summary.json, else the id of a snapshot published in the
// dashboard checkout at dashboard (data/snapshots/<id>/), read with
// runresult.Read. name is how a comparison shows the run: the directory's
// base name, or the snapshot id. A snapshot without points.json (published
// before snapshots kept their points) cannot be compared point by point and
// is an error saying so; an error reading the run is prefixed
// "run <arg>: ".
func ReadRun(arg, dashboard string) (run runresult.Result, name string, err error) {
	dir, name, err := resolveRun(arg, dashboard)
	if err != nil {
		return runresult.Result{}, "", err
	}
	rr, err := runresult.Read(dir)
	s, p := rr.Summary, rr.Points
	if err != nil {
		return runresult.Result{}, "", fmt.Errorf("run %s: %w", arg, err)
	}
	return runresult.Result{Summary: s, Points: p}, name, nil
}

// Comparison is `action compare`'s view of runs a and b (ReadRun's
// arguments): named as ReadRun names them, or, when both are snapshots the
// dashboard's index lists, by their labels (release or short commit, and
// publication date) with their ids in a footnote, as the dashboard's
// data/compare/ pages are (render.SnapshotsComparison), so that comparing
// two published snapshots prints their page.
func Comparison(a, b, dashboard string) (render.Comparison, error) {
	var runs [2]runresult.Result
	var names, labels [2]string
	for i, arg := range []string{a, b} {
		var err error
		if runs[i], names[i], err = ReadRun(arg, dashboard); err != nil {
			return render.Comparison{}, err
		}
		if names[i] == arg {
			labels[i] = snapshotLabel(dashboard, arg, runs[i].Summary)
		}
	}
	c := runresult.CompareRuns(runs[0], runs[1], names[0], names[1])
	if labels[0] == "" || labels[1] == "" {
		return render.RunsComparison(c), nil
	}
	return render.SnapshotsComparison(c, labels[0], names[0], labels[1], names[1]), nil
}

// snapshotLabel is the label of the snapshot id the dashboard's index
// lists (render.SnapshotLabel), "" when the index does not list it or
// cannot be read (the comparison then names the snapshot by its id).
func snapshotLabel(dashboard, id string, s runresult.Summary) string {
	raw, err := diskio.ReadFileMax(os.DirFS(dashboard), nightly.IndexPath, MaxIndexBytes)
	if err != nil {
		return ""
	}
	idx, err := nightly.DecodeIndex(raw)
	if err != nil {
		return ""
	}
	for _, e := range idx.Snapshots {
		if e.ID == id {
			return render.SnapshotLabel(s.Provenance.Simulator, e.PublishedAt)
		}
	}
	return ""
}

// resolveRun finds the directory of the run arg names and its name.
func resolveRun(arg, dashboard string) (dir, name string, err error) {
	if st, err := os.Stat(filepath.Join(arg, runresult.SummaryFile)); err == nil && st.Mode().IsRegular() {
		return arg, filepath.Base(filepath.Clean(arg)), nil
	}
	snapshots := filepath.Join(dashboard, filepath.FromSlash(nightly.SnapshotsDir))
	if filepath.Base(arg) == arg && arg != "." && arg != ".." {
		snap := filepath.Join(snapshots, arg)
		if _, err := os.Stat(filepath.Join(snap, runresult.SummaryFile)); err == nil {
			if _, err := os.Stat(filepath.Join(snap, runresult.PointsFile)); errors.Is(err, os.ErrNotExist) {
				return "", "", fmt.Errorf("snapshot %s in %s has no %s (published before snapshots kept their points): it cannot be compared point by point", arg, dashboard, runresult.PointsFile)
			}
			return snap, arg, nil
		}
	}
	return "", "", fmt.Errorf("run %q is neither a result directory (with %s) nor a snapshot id in %s", arg, runresult.SummaryFile, snapshots)
}
