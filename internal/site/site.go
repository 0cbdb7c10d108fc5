// Package site builds the dashboard's static site from its published data
// (data/index.json and every snapshot it lists, read by dashboard.Load)
// with internal/render: an Overview, the History, the comparison of any two
// snapshots and the sweeps of the newest one. Build is pure over an fs.FS;
// BuildDir reads a checkout and replaces the site's directory with the
// files. A snapshot whose files are missing, malformed or over their cap
// (a summary and points that validate and agree with each other and with
// the index) is left out, and the Overview and History say so, naming the
// file: one bad snapshot in the history does not stop every later site.
package site

import (
	"fmt"
	"io/fs"

	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// Build loads dash (dashboard.Load) and renders its site: the files by
// slash path (render.Site), each snapshot's Overview with the Why section
// of the what-ifs published beside it (whatif.Attribute against its
// points; dashboard.Load leaves out a snapshot with a what-if of a point it
// lacks). skipped are the snapshots the index lists that could not be read,
// left out of the site, which its Overview and History name with why.
// Build holds every file in memory; BuildDir writes them as they come.
func Build(dash fs.FS) (files map[string][]byte, skipped []dashboard.Skipped, err error) {
	files = map[string][]byte{}
	skipped, err = build(dash, func(path string, data []byte) error {
		files[path] = data
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return files, skipped, nil
}

// build renders dash's site as Build does, handing each file to emit as it
// is drawn (render.SiteTo) and reading one snapshot at a time: a first
// pass finds those that read (dashboard.Readable) and keeps their heads
// (render.SiteHead), then the renderer reads each again when it draws it
// (snapshotSource).
func build(dash fs.FS, emit func(path string, data []byte) error) ([]dashboard.Skipped, error) {
	idx, err := dashboard.CheckedIndex(dash)
	if err != nil {
		return nil, err
	}
	entries := idx.Snapshots
	src := snapshotSource{dash: dash}
	byID := map[string]dashboard.IndexEntry{}
	for _, e := range entries {
		byID[e.ID] = e
	}
	var attrErr error
	skipped, err := dashboard.Readable(dash, entries, func(s dashboard.Snapshot) {
		page, err := sitePage(s)
		if err != nil && attrErr == nil {
			attrErr = err
		}
		src.entries, src.heads = append(src.entries, byID[s.ID]), append(src.heads, render.SiteHead(page))
	})
	if err != nil {
		return nil, err
	}
	if attrErr != nil {
		return nil, attrErr
	}
	notes := make([]render.SkippedSnapshot, len(skipped))
	for i, s := range skipped {
		notes[i] = render.SkippedSnapshot{ID: s.ID, PublishedAt: s.PublishedAt, Reason: s.Reason}
	}
	return skipped, render.SiteTo(src, emit, render.SiteNotes{Skipped: notes, Pruned: prunedNote(idx.Pruned)})
}

// prunedNote is what the site says of the snapshots the dashboard's
// retention removed (nil: none).
func prunedNote(p *dashboard.Pruned) *render.PrunedSnapshots {
	if p == nil {
		return nil
	}
	return &render.PrunedSnapshots{Count: p.Count, KeepExperimental: p.KeepExperimental,
		OldestSimulator: p.Oldest.Simulator, OldestPublishedAt: p.Oldest.PublishedAt,
		NewestSimulator: p.Newest.Simulator, NewestPublishedAt: p.Newest.PublishedAt}
}

// snapshotSource is render's SiteSource over the readable snapshots of a
// dashboard: their heads kept, each whole read from disk when asked
// (dashboard.LoadEntry), with its what-ifs attributed (sitePage).
type snapshotSource struct {
	dash    fs.FS
	entries []dashboard.IndexEntry
	heads   []render.SiteSnapshot
}

func (s snapshotSource) Len() int                       { return len(s.entries) }
func (s snapshotSource) Head(i int) render.SiteSnapshot { return s.heads[i] }

func (s snapshotSource) Snapshot(i int) (render.SiteSnapshot, error) {
	snap, err := dashboard.LoadEntry(s.dash, s.entries[i])
	if err != nil {
		return render.SiteSnapshot{}, err
	}
	return sitePage(snap)
}

// sitePage is a snapshot as the site draws it: with its what-ifs
// attributed against its points (whatif.Attribute; a what-if with a point
// the snapshot lacks is an error naming it).
func sitePage(snap dashboard.Snapshot) (render.SiteSnapshot, error) {
	page := render.SiteSnapshot{ID: snap.ID, PublishedAt: snap.PublishedAt, BackfilledAt: snap.BackfilledAt, Result: snap.Result}
	for _, w := range snap.WhatIfs {
		a, err := whatif.Attribute(snap.Result.Points, w)
		if err != nil {
			return render.SiteSnapshot{}, fmt.Errorf("%s/%s/%s/%s: %w", dashboard.SnapshotsDir, snap.ID, whatif.Dir, w.Summary.Provenance.WhatIf.Name, err)
		}
		page.WhatIfs = append(page.WhatIfs, a)
	}
	return page, nil
}
