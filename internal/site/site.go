// Package site reads a dashboard's published data (data/index.json and
// every snapshot it lists) and builds the dashboard's static site from it
// with internal/render: an Overview, the History, the comparison of any two
// snapshots and the sweeps of the newest one. It is pure over an fs.FS:
// cmd/action reads the checkout and writes the files. Every snapshot must
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
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

// Limits on the files read: the index, and each snapshot's summary and
// points (the bot's own caps on what it publishes).
const (
	MaxIndexBytes  = 16 << 20
	MaxSummarySize = 10 << 20
	MaxPointsSize  = 100 << 20
)

// Load reads dash (a dashboard checkout's root) into the snapshots the
// site shows, newest first as the index lists them. Each index entry's
// data/snapshots/<id>/summary.json and points.json must be regular files
// that validate against their schemas, the points must be those the
// summary counts, and the summary the entry's (its scored and corpus
// points); an error names the file and what is wrong.
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
		if seen[e.ID] {
			return nil, fmt.Errorf("%s: snapshot %s is listed twice", nightly.IndexPath, e.ID)
		}
		seen[e.ID] = true
		run, err := loadSnapshot(dash, e)
		if err != nil {
			return nil, err
		}
		out = append(out, render.SiteSnapshot{ID: e.ID, PublishedAt: e.PublishedAt, Run: run})
	}
	return out, nil
}

func loadSnapshot(dash fs.FS, e nightly.IndexEntry) (report.Run, error) {
	dir := nightly.SnapshotsDir + "/" + e.ID + "/"
	raw, err := diskio.ReadFileMax(dash, dir+report.SummaryFile, MaxSummarySize)
	if err != nil {
		return report.Run{}, err
	}
	s, err := report.ParseSummary(raw)
	if err != nil {
		return report.Run{}, fmt.Errorf("%s%w", dir, err)
	}
	raw, err = diskio.ReadFileMax(dash, dir+report.PointsFile, MaxPointsSize)
	if err != nil {
		return report.Run{}, err
	}
	pts, err := report.ParsePoints(raw)
	if err != nil {
		return report.Run{}, fmt.Errorf("%s%w", dir, err)
	}
	scored := 0
	for _, p := range pts {
		if p.Scored {
			scored++
		}
	}
	if len(pts) != s.Coverage.CorpusPoints || scored != s.Coverage.Scored {
		return report.Run{}, fmt.Errorf("%s%s holds %d points (%d scored), its %s counts %d (%d scored)", dir, report.PointsFile,
			len(pts), scored, report.SummaryFile, s.Coverage.CorpusPoints, s.Coverage.Scored)
	}
	if e.Scored != s.Coverage.Scored || e.CorpusPoints != s.Coverage.CorpusPoints {
		return report.Run{}, fmt.Errorf("%s%s counts %d of %d points scored, %s says %d of %d", dir, report.SummaryFile,
			s.Coverage.Scored, s.Coverage.CorpusPoints, nightly.IndexPath, e.Scored, e.CorpusPoints)
	}
	return report.Run{Summary: s, Points: pts}, nil
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
