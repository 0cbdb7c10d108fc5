// Package site builds the dashboard's static site from its published data
// (data/index.json and every snapshot it lists, read by dashboard.Load)
// with internal/render: an Overview, the History, the comparison of any two
// snapshots and the sweeps of the newest one. Build is pure over an fs.FS;
// BuildDir reads a checkout and replaces the site's directory with the
// files. Every snapshot must be there and well-formed (a summary and points
// that validate and agree with each other and with the index), or Build
// fails naming the file, so a site is never built from part of its data.
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
// points: a what-if with a point the snapshot lacks is an error naming
// it).
func Build(dash fs.FS) (map[string][]byte, error) {
	snaps, err := dashboard.Load(dash)
	if err != nil {
		return nil, err
	}
	pages := make([]render.SiteSnapshot, len(snaps))
	for i, s := range snaps {
		pages[i] = render.SiteSnapshot{ID: s.ID, PublishedAt: s.PublishedAt, BackfilledAt: s.BackfilledAt, Result: s.Result}
		for _, w := range s.WhatIfs {
			a, err := whatif.Attribute(s.Result.Points, w)
			if err != nil {
				return nil, fmt.Errorf("%s/%s/%s/%s: %w", dashboard.SnapshotsDir, s.ID, whatif.Dir, w.Summary.Provenance.WhatIf.Name, err)
			}
			pages[i].WhatIfs = append(pages[i].WhatIfs, a)
		}
	}
	return render.Site(pages)
}
