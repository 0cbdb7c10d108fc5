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
	"io/fs"

	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
)

// Build loads dash (dashboard.Load) and renders its site: the files by
// slash path (render.Site).
func Build(dash fs.FS) (map[string][]byte, error) {
	snaps, err := dashboard.Load(dash)
	if err != nil {
		return nil, err
	}
	pages := make([]render.SiteSnapshot, len(snaps))
	for i, s := range snaps {
		pages[i] = render.SiteSnapshot{ID: s.ID, PublishedAt: s.PublishedAt, BackfilledAt: s.BackfilledAt, Result: s.Result}
	}
	return render.Site(pages)
}
