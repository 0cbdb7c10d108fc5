package site

import (
	"fmt"
	"os"

	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Comparison is `action compare`'s view of runs a and b, each a result
// directory or a snapshot id published in the dashboard checkout at root
// (dashboard.RunDir) read with runresult.Read (an error reading one is
// prefixed "run <arg>: "): named as RunDir names them, or, when both are
// snapshots the dashboard's index lists, by their labels (release or short commit, and
// publication date) with their ids in a footnote, as the dashboard's
// data/compare/ pages are (render.SnapshotsComparison), so that comparing
// two published snapshots prints their page.
func Comparison(a, b, root string) (render.Comparison, error) {
	var runs [2]runresult.Result
	var names, labels [2]string
	for i, arg := range []string{a, b} {
		dir, name, err := dashboard.RunDir(arg, root)
		if err != nil {
			return render.Comparison{}, err
		}
		if runs[i], err = runresult.Read(dir); err != nil {
			return render.Comparison{}, fmt.Errorf("run %s: %w", arg, err)
		}
		if names[i] = name; name == arg {
			labels[i] = snapshotLabel(root, arg, runs[i].Summary)
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
func snapshotLabel(root, id string, s runresult.Summary) string {
	idx, err := dashboard.ReadIndex(os.DirFS(root))
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
