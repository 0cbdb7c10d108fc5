package dashboard_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/dashboard/dashboardtest"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// A defect of the index is an error naming it; a defect of one snapshot's
// files skips that snapshot, saying why (naming the file), and the others
// load; when no snapshot loads, the error names every file.
func TestLoadRefuses(t *testing.T) {
	t.Parallel()
	snap := dashboard.SnapshotsDir + "/old/"
	for name, tc := range map[string]struct {
		edit func(fstest.MapFS)
		want string
		// skip: the defect is the snapshot's: "old" is skipped, "new" loads.
		skip bool
	}{
		"no index":        {func(f fstest.MapFS) { delete(f, dashboard.IndexPath) }, dashboard.IndexPath, false},
		"malformed index": {func(f fstest.MapFS) { f[dashboard.IndexPath] = &fstest.MapFile{Data: []byte(`{"version":2,`)} }, dashboard.IndexPath, false},
		"empty index": {func(f fstest.MapFS) {
			f[dashboard.IndexPath] = &fstest.MapFile{Data: []byte(`{"version":2,"snapshots":[]}`)}
		}, "no snapshot", false},
		"missing summary":    {func(f fstest.MapFS) { delete(f, snap+runresult.SummaryFile) }, snap + runresult.SummaryFile, true},
		"missing points":     {func(f fstest.MapFS) { delete(f, snap+runresult.PointsFile) }, snap + runresult.PointsFile, true},
		"malformed summary":  {func(f fstest.MapFS) { f[snap+runresult.SummaryFile] = &fstest.MapFile{Data: []byte(`{}`)} }, snap + runresult.SummaryFile, true},
		"malformed points":   {func(f fstest.MapFS) { f[snap+runresult.PointsFile] = &fstest.MapFile{Data: []byte(`[{}]`)} }, snap + runresult.PointsFile, true},
		"points not counted": {func(f fstest.MapFS) { f[snap+runresult.PointsFile] = &fstest.MapFile{Data: []byte(`[]`)} }, snap + runresult.PointsFile + " holds 0 points", true},
		"oversized points": {func(f fstest.MapFS) {
			f[snap+runresult.PointsFile] = &fstest.MapFile{Data: make([]byte, runresult.MaxPointsBytes+1)}
		}, snap + runresult.PointsFile, true},
		// A snapshot's whatif/ holds only what-if runs, each in the
		// folder of its name.
		"a run in whatif/ that is no what-if": {func(f fstest.MapFS) {
			f[snap+"whatif/x/"+runresult.SummaryFile] = f[snap+runresult.SummaryFile]
			f[snap+"whatif/x/"+runresult.PointsFile] = f[snap+runresult.PointsFile]
		}, snap + `whatif/x: its summary is not the what-if x`, true},
		"a malformed what-if": {func(f fstest.MapFS) {
			f[snap+"whatif/x/"+runresult.SummaryFile] = &fstest.MapFile{Data: []byte(`{}`)}
			f[snap+"whatif/x/"+runresult.PointsFile] = f[snap+runresult.PointsFile]
		}, snap + "whatif/x/" + runresult.SummaryFile, true},
		"a file in whatif/": {func(f fstest.MapFS) { f[snap+"whatif/x"] = &fstest.MapFile{Data: []byte(`{}`)} }, snap + "whatif/x: not a what-if run's directory", true},
		"a what-if of another run's points": {func(f fstest.MapFS) {
			f[snap+"whatif/x/"+runresult.SummaryFile], f[snap+"whatif/x/"+runresult.PointsFile] = whatIfOfOther(t, f, snap)
		}, snap + "whatif/x: attribute x: the plain run has no point", true},
		"path in an id": {func(f fstest.MapFS) {
			f[dashboard.IndexPath] = &fstest.MapFile{Data: []byte(strings.Replace(string(f[dashboard.IndexPath].Data), `"id": "old"`, `"id": "../old"`, 1))}
		}, `snapshot id "../old"`, false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fsys := dashboardtest.Published(t, "new", "old")
			tc.edit(fsys)
			snaps, skipped, err := dashboard.Load(fsys)
			if !tc.skip {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Load = %v, want an error naming %q", err, tc.want)
				}
				return
			}
			if err != nil || len(snaps) != 1 || snaps[0].ID != "new" || len(skipped) != 1 || skipped[0].ID != "old" || !strings.Contains(skipped[0].Reason, tc.want) {
				t.Fatalf("Load = %d snapshots, skipped %+v, %v; want new loaded and old skipped naming %q", len(snaps), skipped, err, tc.want)
			}
			// With the other snapshot unreadable too, nothing is left.
			delete(fsys, dashboard.SnapshotsDir+"/new/"+runresult.PointsFile)
			if _, _, err := dashboard.Load(fsys); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "new/"+runresult.PointsFile) {
				t.Errorf("no snapshot readable: Load = %v, want an error naming both files", err)
			}
		})
	}
}

// whatIfOfOther is a what-if x (summary.json, points.json) of the run in
// snap but for its point ids, which no point of snap has.
func whatIfOfOther(t *testing.T, f fstest.MapFS, snap string) (*fstest.MapFile, *fstest.MapFile) {
	t.Helper()
	r, err := runresult.Parse(f[snap+runresult.SummaryFile].Data, f[snap+runresult.PointsFile].Data)
	if err != nil {
		t.Fatal(err)
	}
	prov := r.Summary.Provenance
	prov.WhatIf = &runresult.WhatIf{Name: "x", Version: 1, Title: "x", Limitation: "l", Units: []string{"u"}, Kind: "model_config",
		Change: "c", Patch: `{"a":1}`, Digest: "sha256:" + strings.Repeat("a", 64)}
	for i := range r.Points {
		r.Points[i].ID += "-other"
	}
	s, err := runresult.Summarize(r.Points, prov, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := jsoncodec.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := jsoncodec.Encode(r.Points)
	if err != nil {
		t.Fatal(err)
	}
	return &fstest.MapFile{Data: sum}, &fstest.MapFile{Data: pts}
}

// FuzzLoad: no index, however malformed, makes Load panic, and what it
// accepts holds a snapshot.
func FuzzLoad(f *testing.F) {
	base := dashboardtest.Published(f, "a")
	f.Add(base[dashboard.IndexPath].Data)
	f.Add([]byte(`{"version":1,"snapshots":[{"id":"a","ttft_mape":1,"tpot_mape":null}]}`))
	f.Add([]byte(`{"version":3}`))
	f.Fuzz(func(t *testing.T, index []byte) {
		fsys := dashboardtest.Published(t, "a")
		fsys[dashboard.IndexPath] = &fstest.MapFile{Data: index}
		snaps, _, err := dashboard.Load(fsys)
		if err != nil {
			return
		}
		if len(snaps) == 0 {
			t.Fatal("Load accepted an index of no snapshot")
		}
	})
}

// TestRunDir: a result directory is named by its base name, a snapshot by
// its id; a snapshot without points.json and an unknown run are errors
// saying which.
func TestRunDir(t *testing.T) {
	t.Parallel()
	dash := t.TempDir()
	if err := os.CopyFS(dash, dashboardtest.Published(t, "new", "old")); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dash, filepath.FromSlash(dashboard.SnapshotsDir), "old")
	dir, name, err := dashboard.RunDir(snap+string(filepath.Separator), "nowhere")
	if err != nil || name != "old" || dir != snap+string(filepath.Separator) {
		t.Fatalf("by directory: %s, %s, %v", dir, name, err)
	}
	dir, name, err = dashboard.RunDir("old", dash)
	if err != nil || name != "old" || dir != snap {
		t.Errorf("by id: %s, %s, %v", dir, name, err)
	}
	for _, tc := range []struct{ arg, want string }{
		{"nope", `run "nope" is neither a result directory (with summary.json) nor a snapshot id in ` + filepath.Join(dash, "data", "snapshots")},
		{"..", `run ".." is neither`},
	} {
		if _, _, err := dashboard.RunDir(tc.arg, dash); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("RunDir(%q) = %v, want %q", tc.arg, err, tc.want)
		}
	}
	os.Remove(filepath.Join(snap, runresult.PointsFile))
	if _, _, err := dashboard.RunDir("old", dash); err == nil || !strings.Contains(err.Error(), "snapshot old in "+dash+" has no points.json") {
		t.Errorf("snapshot without points: %v", err)
	}
}
