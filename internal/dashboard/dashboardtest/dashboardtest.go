// Package dashboardtest holds the dashboard fixture the tests of several
// packages share: a dashboard's published data/ as the bot writes it.
// Only tests import it.
package dashboardtest

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Published is a dashboard's data/ with one snapshot per id, newest first,
// each of two points (one scored), as the bot publishes them.
func Published(t testing.TB, ids ...string) fstest.MapFS {
	t.Helper()
	fsys := fstest.MapFS{}
	idx := dashboard.Index{Version: dashboard.IndexVersion}
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
		dir := dashboard.SnapshotsDir + "/" + id + "/"
		fsys[dir+runresult.SummaryFile] = &fstest.MapFile{Data: sum}
		fsys[dir+runresult.PointsFile] = &fstest.MapFile{Data: pj}
		idx.Snapshots = append(idx.Snapshots, dashboard.IndexEntry{ID: id, PublishedAt: "2026-11-0" + string(rune('9'-i)) + "T00:00:00Z",
			Simulator: "v0.1.0", Harness: "111111111111", Tier: runresult.TierMeasuredResolved, MAPE: map[string]*float64{},
			Scored: 1, CorpusPoints: 2, Path: dir})
	}
	raw, _ := jsoncodec.Encode(idx)
	fsys[dashboard.IndexPath] = &fstest.MapFile{Data: raw}
	return fsys
}
