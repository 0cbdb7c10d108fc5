package site

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// dashboard is a dashboard's data/ with one snapshot per id, each of two
// points (one scored), as the bot publishes them.
func dashboard(t testing.TB, ids ...string) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	idx := nightly.Index{Version: nightly.IndexVersion}
	for i, id := range ids {
		pts := []runresult.Point{
			{ID: "u@c=1", Unit: "u", Model: "m", Hardware: "H100", Load: runresult.Load{Concurrency: 1}, Tier: "measured", Scored: true,
				Measured: metric.Values{"ttft_ms": 10, "tpot_ms": 1}, Predicted: metric.Values{"ttft_ms": 11, "tpot_ms": 1}},
			{ID: "u@c=2", Unit: "u", Model: "m", Hardware: "H100", Load: runresult.Load{Concurrency: 2}, Tier: "measured", Reason: "timeout",
				Measured: metric.Values{"ttft_ms": 20, "tpot_ms": 2}},
		}
		prov := runresult.Provenance{
			Harness:   runresult.Harness{Commit: strings.Repeat("1", 40), Source: runresult.HarnessCheckout},
			Simulator: runresult.Simulator{Repo: "r", Ref: "v0.1.0", Commit: strings.Repeat("2", 40), Tag: "v0.1.0", Release: true, BuiltByHarness: true, Driver: "replay-metrics"},
			Ledger:    runresult.DataVersion{Name: "l", Version: "1", Digest: "sha256:" + strings.Repeat("c", 64), Release: true},
		}
		s, err := runresult.Summarize(pts, prov, nil)
		if err != nil {
			t.Fatal(err)
		}
		sum, _ := jsoncodec.Encode(s)
		pj, _ := jsoncodec.Encode(runresult.SortPoints(pts))
		dir := nightly.SnapshotsDir + "/" + id + "/"
		fsys[dir+runresult.SummaryFile] = &fstest.MapFile{Data: sum}
		fsys[dir+runresult.PointsFile] = &fstest.MapFile{Data: pj}
		idx.Snapshots = append(idx.Snapshots, nightly.IndexEntry{ID: id, PublishedAt: "2026-11-0" + string(rune('9'-i)) + "T00:00:00Z",
			Simulator: "v0.1.0", Harness: "111111111111", Tier: runresult.TierMeasuredResolved, MAPE: map[string]*float64{},
			Scored: 1, CorpusPoints: 2, Path: dir})
	}
	raw, _ := jsoncodec.Encode(idx)
	fsys[nightly.IndexPath] = &fstest.MapFile{Data: raw}
	return fsys
}

func TestBuild(t *testing.T) {
	t.Parallel()
	files, err := Build(dashboard(t, "new", "old"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"index.html", "history.html", "snapshots/new.html", "snapshots/old.html", "data/new.js", "sweeps/u.html"} {
		if _, ok := files[p]; !ok {
			t.Errorf("no %s", p)
		}
	}
}

// Every defect of data/ is an error naming the file.
func TestLoadRefuses(t *testing.T) {
	t.Parallel()
	snap := nightly.SnapshotsDir + "/old/"
	for name, tc := range map[string]struct {
		edit func(fstest.MapFS)
		want string
	}{
		"no index":        {func(f fstest.MapFS) { delete(f, nightly.IndexPath) }, nightly.IndexPath},
		"malformed index": {func(f fstest.MapFS) { f[nightly.IndexPath] = &fstest.MapFile{Data: []byte(`{"version":2,`)} }, nightly.IndexPath},
		"empty index": {func(f fstest.MapFS) {
			f[nightly.IndexPath] = &fstest.MapFile{Data: []byte(`{"version":2,"snapshots":[]}`)}
		}, "no snapshot"},
		"missing summary":    {func(f fstest.MapFS) { delete(f, snap+runresult.SummaryFile) }, snap + runresult.SummaryFile},
		"missing points":     {func(f fstest.MapFS) { delete(f, snap+runresult.PointsFile) }, snap + runresult.PointsFile},
		"malformed summary":  {func(f fstest.MapFS) { f[snap+runresult.SummaryFile] = &fstest.MapFile{Data: []byte(`{}`)} }, snap + runresult.SummaryFile},
		"malformed points":   {func(f fstest.MapFS) { f[snap+runresult.PointsFile] = &fstest.MapFile{Data: []byte(`[{}]`)} }, snap + runresult.PointsFile},
		"points not counted": {func(f fstest.MapFS) { f[snap+runresult.PointsFile] = &fstest.MapFile{Data: []byte(`[]`)} }, snap + runresult.PointsFile + " holds 0 points"},
		"path in an id": {func(f fstest.MapFS) {
			f[nightly.IndexPath] = &fstest.MapFile{Data: []byte(strings.Replace(string(f[nightly.IndexPath].Data), `"id": "old"`, `"id": "../old"`, 1))}
		}, `snapshot id "../old"`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fsys := dashboard(t, "new", "old")
			tc.edit(fsys)
			_, err := Build(fsys)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Build = %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

// FuzzLoad: no index, however malformed, makes Load panic, and what it
// accepts builds a site.
func FuzzLoad(f *testing.F) {
	base := dashboard(f, "a")
	f.Add(base[nightly.IndexPath].Data)
	f.Add([]byte(`{"version":1,"snapshots":[{"id":"a","ttft_mape":1,"tpot_mape":null}]}`))
	f.Add([]byte(`{"version":3}`))
	f.Fuzz(func(t *testing.T, index []byte) {
		fsys := dashboard(t, "a")
		fsys[nightly.IndexPath] = &fstest.MapFile{Data: index}
		snaps, err := Load(fsys)
		if err != nil {
			return
		}
		if len(snaps) == 0 {
			t.Fatal("Load accepted an index of no snapshot")
		}
	})
}
