package dashboard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// MaxIndexBytes bounds data/index.json; each snapshot's summary and points
// are read within runresult's caps (runresult.Parse, the one run reader).
const MaxIndexBytes = 16 << 20

// Snapshot is one published snapshot as Load reads it.
type Snapshot struct {
	ID          string
	PublishedAt string
	// BackfilledAt is the index's backfilled_at ("" for a snapshot not
	// backfilled).
	BackfilledAt string
	Result       runresult.Result
	// WhatIfs are the what-if runs published beside the snapshot as its
	// diagnosis (data/snapshots/<id>/whatif/<name>/, whatif.ReadRunsFS),
	// sorted by name; nil for none.
	WhatIfs []runresult.Result
}

// Skipped is a snapshot the index lists that Load could not read: its
// id, publication time and why (the error, naming the file).
type Skipped struct {
	ID, PublishedAt string
	Reason          string
}

// Load reads dash (a dashboard checkout's root) into its published
// snapshots, newest first as the index lists them. Each index entry's
// data/snapshots/<id>/summary.json and points.json must be regular files
// within runresult's caps that validate against their schemas, the points
// must be those the summary counts (runresult.Parse), the summary the
// entry's (its scored and corpus points) and its what-ifs readable: a
// snapshot that is not is skipped, listed with why (the error names the
// file), so that one unreadable or oversized snapshot in the history does
// not stop every later site. The index itself must be well-formed (its
// ids directory names within MaxSnapshotIDBytes, each listed once) and
// some snapshot readable, or Load fails naming what is wrong.
func Load(dash fs.FS) ([]Snapshot, []Skipped, error) {
	entries, err := Entries(dash)
	if err != nil {
		return nil, nil, err
	}
	var out []Snapshot
	skipped, err := Readable(dash, entries, func(s Snapshot) { out = append(out, s) })
	if err != nil {
		return nil, nil, err
	}
	return out, skipped, nil
}

// Entries are the snapshots of dash's index (CheckedIndex).
func Entries(dash fs.FS) ([]IndexEntry, error) {
	idx, err := CheckedIndex(dash)
	return idx.Snapshots, err
}

// CheckedIndex reads dash's index (ReadIndex) and checks it: some snapshot
// listed, each id a directory name within MaxSnapshotIDBytes and listed
// once; an error names the index and what is wrong.
func CheckedIndex(dash fs.FS) (Index, error) {
	idx, err := ReadIndex(dash)
	if err != nil {
		return Index{}, err
	}
	if len(idx.Snapshots) == 0 {
		return Index{}, fmt.Errorf("%s: no snapshot is published", IndexPath)
	}
	seen := map[string]bool{}
	for _, e := range idx.Snapshots {
		if e.ID == "" || e.ID != path.Base(e.ID) || e.ID == "." || e.ID == ".." {
			return Index{}, fmt.Errorf("%s: snapshot id %q is not a directory name", IndexPath, e.ID)
		}
		if len(e.ID) > MaxSnapshotIDBytes {
			return Index{}, fmt.Errorf("%s: snapshot id %q is %d bytes, over %d (dashboard.MaxSnapshotIDBytes): its pages' file names would be too long", IndexPath, e.ID, len(e.ID), MaxSnapshotIDBytes)
		}
		if seen[e.ID] {
			return Index{}, fmt.Errorf("%s: snapshot %s is listed twice", IndexPath, e.ID)
		}
		seen[e.ID] = true
	}
	return idx, nil
}

// Readable reads the snapshot of each of entries in turn (LoadEntry),
// hands each that reads to keep and lets it go, and returns those that do
// not read, with why: Load's rule, one snapshot in memory at a time. It is
// an error, naming every file, when none reads.
func Readable(dash fs.FS, entries []IndexEntry, keep func(Snapshot)) ([]Skipped, error) {
	var skipped []Skipped
	var errs []error
	for _, e := range entries {
		s, err := LoadEntry(dash, e)
		if err != nil {
			skipped = append(skipped, Skipped{ID: e.ID, PublishedAt: e.PublishedAt, Reason: err.Error()})
			errs = append(errs, err)
			continue
		}
		keep(s)
	}
	if len(skipped) == len(entries) {
		return nil, fmt.Errorf("%s: no snapshot it lists could be read: %w", IndexPath, errors.Join(errs...))
	}
	return skipped, nil
}

// LoadEntry reads the snapshot of index entry e with its what-ifs, each
// measured against its points (whatif.Attribute: a what-if of a point the
// snapshot lacks is an error naming it), as Load does (an error names the
// file).
func LoadEntry(dash fs.FS, e IndexEntry) (Snapshot, error) {
	run, err := loadSnapshot(dash, e)
	if err != nil {
		return Snapshot{}, err
	}
	whatIfs, err := whatif.ReadRunsFS(dash, SnapshotsDir+"/"+e.ID, func(dir string) (runresult.Result, error) {
		return readRun(dash, dir+"/")
	})
	if err != nil {
		return Snapshot{}, err
	}
	for _, w := range whatIfs {
		// The site draws what each changed against the snapshot's points.
		if _, err := whatif.Attribute(run.Points, w); err != nil {
			return Snapshot{}, fmt.Errorf("%s/%s/%s/%s: %w", SnapshotsDir, e.ID, whatif.Dir, w.Summary.Provenance.WhatIf.Name, err)
		}
	}
	return Snapshot{ID: e.ID, PublishedAt: e.PublishedAt, BackfilledAt: e.BackfilledAt, Result: run, WhatIfs: whatIfs}, nil
}

// ReadIndex reads dash's data/index.json (a regular file of at most
// MaxIndexBytes; DecodeIndex); a malformed index is an error naming it.
func ReadIndex(dash fs.FS) (Index, error) {
	raw, err := diskio.ReadFileMax(dash, IndexPath, MaxIndexBytes)
	if err != nil {
		return Index{}, err
	}
	idx, err := DecodeIndex(raw)
	if err != nil {
		return Index{}, fmt.Errorf("%s: %w", IndexPath, err)
	}
	return idx, nil
}

func loadSnapshot(dash fs.FS, e IndexEntry) (runresult.Result, error) {
	dir := SnapshotsDir + "/" + e.ID + "/"
	run, err := readRun(dash, dir)
	if err != nil {
		return runresult.Result{}, err
	}
	s := run.Summary
	if e.Scored != s.Coverage.Scored || e.CorpusPoints != s.Coverage.CorpusPoints {
		return runresult.Result{}, fmt.Errorf("%s%s counts %d of %d points scored, %s says %d of %d", dir, runresult.SummaryFile,
			s.Coverage.Scored, s.Coverage.CorpusPoints, IndexPath, e.Scored, e.CorpusPoints)
	}
	return run, nil
}

// readRun reads the summary.json and points.json of the result directory
// dir (a slash path ending in /) in dash, each within its cap, through
// runresult.Parse; an error names the file.
func readRun(dash fs.FS, dir string) (runresult.Result, error) {
	rawS, err := diskio.ReadFileMax(dash, dir+runresult.SummaryFile, runresult.MaxSummaryBytes)
	if err != nil {
		return runresult.Result{}, err
	}
	rawP, err := diskio.ReadFileMax(dash, dir+runresult.PointsFile, runresult.MaxPointsBytes)
	if err != nil {
		return runresult.Result{}, err
	}
	run, err := runresult.Parse(rawS, rawP)
	if err != nil {
		return runresult.Result{}, fmt.Errorf("%s%w", dir, err)
	}
	return run, nil
}

// RunDir finds the result directory of the run arg names (`action
// compare`'s A or B), to read with runresult.Read: a directory holding
// summary.json, else the id of a snapshot published in the dashboard
// checkout at root (data/snapshots/<id>/). name is how a comparison shows
// the run: the directory's base name, or the snapshot id. A snapshot
// without points.json (published before snapshots kept their points)
// cannot be compared point by point and is an error saying so.
func RunDir(arg, root string) (dir, name string, err error) {
	if st, err := os.Stat(filepath.Join(arg, runresult.SummaryFile)); err == nil && st.Mode().IsRegular() {
		return arg, filepath.Base(filepath.Clean(arg)), nil
	}
	snapshots := filepath.Join(root, filepath.FromSlash(SnapshotsDir))
	if filepath.Base(arg) == arg && arg != "." && arg != ".." {
		snap := filepath.Join(snapshots, arg)
		if _, err := os.Stat(filepath.Join(snap, runresult.SummaryFile)); err == nil {
			if _, err := os.Stat(filepath.Join(snap, runresult.PointsFile)); errors.Is(err, os.ErrNotExist) {
				return "", "", fmt.Errorf("snapshot %s in %s has no %s (published before snapshots kept their points): it cannot be compared point by point", arg, root, runresult.PointsFile)
			}
			return snap, arg, nil
		}
	}
	return "", "", fmt.Errorf("run %q is neither a result directory (with %s) nor a snapshot id in %s", arg, runresult.SummaryFile, snapshots)
}
