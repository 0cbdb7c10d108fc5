package whatif

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/inference-sim/accuracy-dashboard/internal/accuracy"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Attribution is what one what-if changed against the plain run it was
// measured against, over the points it affects (the what-if run's points):
// by model × hardware, and over all of them.
type Attribution struct {
	WhatIf runresult.WhatIf
	// Groups holds one entry per model × hardware of the what-if's points,
	// sorted by model, then hardware.
	Groups []Group
	// All is the same over every point the what-if affects.
	All Group
}

// Group is a what-if's effect on one population of its points.
type Group struct {
	Model, Hardware string
	// Points is how many of the what-if's points are in the population;
	// ScoredWithout and ScoredWith how many of them the plain run and the
	// what-if run scored; Common how many both scored.
	Points, ScoredWithout, ScoredWith, Common int
	// Metrics holds each headline metric's MAPE without and with the
	// change over the same points (those both runs scored), in
	// metric.Headline order.
	Metrics []MAPEChange
}

// MAPEChange is one metric's MAPE, in percent, without and with a what-if over
// the same N points (nil when N is 0).
type MAPEChange struct {
	Metric        string
	N             int
	Without, With *float64
}

// Attribute compares a what-if run (whatIf, its points and provenance)
// with the plain run it was measured against (plain, the points of the
// same build on the same ledger). Every point of the what-if must be a
// point of the plain run: a plain run that does not cover the what-if's
// units is an error naming the first missing point. A what-if run without
// a what-if in its provenance is an error.
func Attribute(plain []runresult.Point, whatIf runresult.Result) (Attribution, error) {
	w := whatIf.Summary.Provenance.WhatIf
	if w == nil {
		return Attribution{}, fmt.Errorf("attribute: the run is not a what-if (label %q, no provenance.what_if)", whatIf.Summary.Label)
	}
	byID := make(map[string]runresult.Point, len(plain))
	for _, p := range plain {
		byID[p.ID] = p
	}
	type pair struct{ without, with runresult.Point }
	groups := map[[2]string][]pair{}
	var all []pair
	for _, p := range whatIf.Points {
		b, ok := byID[p.ID]
		if !ok {
			return Attribution{}, fmt.Errorf("attribute %s: the plain run has no point %s: measure the what-if against a run of its units", w.Name, p.ID)
		}
		k := [2]string{p.Model, p.Hardware}
		groups[k] = append(groups[k], pair{b, p})
		all = append(all, pair{b, p})
	}
	compute := func(model, hw string, ps []pair) Group {
		g := Group{Model: model, Hardware: hw, Points: len(ps)}
		for _, p := range ps {
			if p.without.Scored {
				g.ScoredWithout++
			}
			if p.with.Scored {
				g.ScoredWith++
			}
			if p.without.Scored && p.with.Scored {
				g.Common++
			}
		}
		for _, d := range metric.Headline() {
			c := MAPEChange{Metric: d.Key}
			var without, with float64
			for _, p := range ps {
				if !p.without.Scored || !p.with.Scored {
					continue
				}
				m, okM := d.Of(p.without.Measured)
				a, okA := d.Of(p.without.Predicted)
				b, okB := d.Of(p.with.Predicted)
				if !okM || !okA || !okB || !accuracy.Valid(a, m) || !accuracy.Valid(b, m) {
					continue
				}
				c.N++
				without += accuracy.APE(a, m)
				with += accuracy.APE(b, m)
			}
			if c.N > 0 {
				c.Without, c.With = ptr(without/float64(c.N)), ptr(with/float64(c.N))
			}
			g.Metrics = append(g.Metrics, c)
		}
		return g
	}
	a := Attribution{WhatIf: *w, All: compute("", "", all)}
	for k, ps := range groups {
		a.Groups = append(a.Groups, compute(k[0], k[1], ps))
	}
	slices.SortFunc(a.Groups, func(x, y Group) int {
		return cmp.Or(cmp.Compare(x.Model, y.Model), cmp.Compare(x.Hardware, y.Hardware))
	})
	return a, nil
}

func ptr(x float64) *float64 { return &x }

// Dir is where a result directory (a run's --out, a published snapshot)
// keeps the what-ifs measured against it: Dir/<name>/ holds one what-if
// run's summary.json, points.json and summary.md.
const Dir = "whatif"

// ReadRuns reads the what-if runs kept beside the run in dir (dir/Dir/<name>/,
// each read with runresult.Read), sorted by name; none (no Dir) is no error.
// A run there that is not a what-if, or not the what-if its folder names,
// is an error naming it.
func ReadRuns(dir string) ([]runresult.Result, error) {
	// Read from dir's parent, so that an error names dir by its base name.
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	parent := filepath.Dir(dir)
	return ReadRunsFS(os.DirFS(parent), filepath.Base(dir), func(sub string) (runresult.Result, error) {
		return runresult.Read(filepath.Join(parent, filepath.FromSlash(sub)))
	})
}

// ReadRunsFS is ReadRuns over fsys, the run at slash path dir: read reads
// one what-if run's directory (a slash path in fsys, dir/Dir/<name>), as
// the caller reads runs (a dashboard checkout, a result directory). An
// error names the directory.
func ReadRunsFS(fsys fs.FS, dir string, read func(sub string) (runresult.Result, error)) ([]runresult.Result, error) {
	root := path.Join(dir, Dir)
	entries, err := fs.ReadDir(fsys, root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []runresult.Result
	for _, e := range entries {
		sub := path.Join(root, e.Name())
		if !e.IsDir() {
			return nil, fmt.Errorf("%s: not a what-if run's directory", sub)
		}
		r, err := read(sub)
		if err != nil {
			return nil, err
		}
		if w := r.Summary.Provenance.WhatIf; w == nil || w.Name != e.Name() {
			return nil, fmt.Errorf("%s: its summary is not the what-if %s (label %q)", sub, e.Name(), r.Summary.Label)
		}
		out = append(out, r)
	}
	return out, nil
}
