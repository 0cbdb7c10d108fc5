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
func Build(dash fs.FS) (files map[string][]byte, skipped []dashboard.Skipped, err error) {
	snaps, skipped, err := dashboard.Load(dash)
	if err != nil {
		return nil, nil, err
	}
	pages := make([]render.SiteSnapshot, len(snaps))
	for i, s := range snaps {
		pages[i] = render.SiteSnapshot{ID: s.ID, PublishedAt: s.PublishedAt, BackfilledAt: s.BackfilledAt, Result: s.Result}
		for _, w := range s.WhatIfs {
			a, err := whatif.Attribute(s.Result.Points, w) // checked by dashboard.Load
			if err != nil {
				return nil, nil, fmt.Errorf("%s/%s/%s/%s: %w", dashboard.SnapshotsDir, s.ID, whatif.Dir, w.Summary.Provenance.WhatIf.Name, err)
			}
			pages[i].WhatIfs = append(pages[i].WhatIfs, a)
		}
	}
	notes := make([]render.SkippedSnapshot, len(skipped))
	for i, s := range skipped {
		notes[i] = render.SkippedSnapshot{ID: s.ID, PublishedAt: s.PublishedAt, Reason: s.Reason}
	}
	files, err = render.Site(pages, notes...)
	return files, skipped, err
}
