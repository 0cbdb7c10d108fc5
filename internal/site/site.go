// Package site reads a dashboard's published data (data/index.json and
// every snapshot it lists) and builds the dashboard's static site from it
// with internal/render: an Overview, the History, the comparison of any two
// snapshots and the sweeps of the newest one. Build is pure over an fs.FS;
// BuildDir reads a checkout and replaces the site's directory with the
// files, and ReadRun reads a run `action compare` names (a result
// directory or a published snapshot). Every snapshot must
// be there and well-formed (a summary and points that validate and agree
// with each other and with the index), or Build fails naming the file, so
// a site is never built from part of its data.
package site

import (
	"fmt"
	"io/fs"
	"path"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// MaxIndexBytes bounds data/index.json; each snapshot's summary and points
// are read within report's caps (runresult.Parse, the one run reader).
const MaxIndexBytes = 16 << 20

// Load reads dash (a dashboard checkout's root) into the snapshots the
// site shows, newest first as the index lists them. Each index entry's
// data/snapshots/<id>/summary.json and points.json must be regular files
// that validate against their schemas, the points must be those the
// summary counts (runresult.Parse), and the summary the entry's (its
// scored and corpus points); an error names the file and what is wrong.
func Load(dash fs.FS) ([]render.SiteSnapshot, error) {
	raw, err := diskio.ReadFileMax(dash, nightly.IndexPath, MaxIndexBytes)
	if err != nil {
		return nil, err
	}
	idx, err := nightly.DecodeIndex(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", nightly.IndexPath, err)
	}
	if len(idx.Snapshots) == 0 {
		return nil, fmt.Errorf("%s: no snapshot is published", nightly.IndexPath)
	}
	seen := map[string]bool{}
	var out []render.SiteSnapshot
	for _, e := range idx.Snapshots {
		if e.ID == "" || e.ID != path.Base(e.ID) || e.ID == "." || e.ID == ".." {
			return nil, fmt.Errorf("%s: snapshot id %q is not a directory name", nightly.IndexPath, e.ID)
		}
		if len(e.ID) > nightly.MaxSnapshotIDBytes {
			return nil, fmt.Errorf("%s: snapshot id %q is %d bytes, over %d (nightly.MaxSnapshotIDBytes): its pages' file names would be too long", nightly.IndexPath, e.ID, len(e.ID), nightly.MaxSnapshotIDBytes)
		}
		if seen[e.ID] {
			return nil, fmt.Errorf("%s: snapshot %s is listed twice", nightly.IndexPath, e.ID)
		}
		seen[e.ID] = true
		run, err := loadSnapshot(dash, e)
		if err != nil {
			return nil, err
		}
		out = append(out, render.SiteSnapshot{ID: e.ID, PublishedAt: e.PublishedAt, Result: run})
	}
	return out, nil
}

func loadSnapshot(dash fs.FS, e nightly.IndexEntry) (runresult.Result, error) {
	dir := nightly.SnapshotsDir + "/" + e.ID + "/"
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
	s := run.Summary
	if e.Scored != s.Coverage.Scored || e.CorpusPoints != s.Coverage.CorpusPoints {
		return runresult.Result{}, fmt.Errorf("%s%s counts %d of %d points scored, %s says %d of %d", dir, runresult.SummaryFile,
			s.Coverage.Scored, s.Coverage.CorpusPoints, nightly.IndexPath, e.Scored, e.CorpusPoints)
	}
	return run, nil
}

// Build loads dash and renders its site: the files by slash path
// (render.Site).
func Build(dash fs.FS) (map[string][]byte, error) {
	snaps, err := Load(dash)
	if err != nil {
		return nil, err
	}
	return render.Site(snaps)
}
