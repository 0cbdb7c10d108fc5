package dashboardtest

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// ReleaseEvery is how often a snapshot of Nightlies is a release: every
// 30th, counting from the oldest; the others are experimental nightlies.
const ReleaseEvery = 30

// Nightlies writes under dir a dashboard's data/ of n snapshots published
// one a day (the newest 2026-12-01), as a year of nightlies makes it: every
// ReleaseEvery-th a release, the others experimental, each of points
// points (sweeps of 8 concurrencies per model × hardware, one point in 7
// not scored) whose predictions drift from day to day. It returns the snapshot ids, newest first as the index lists them.
// The snapshots are written one at a time, so that a benchmark's memory is
// the reader's, not the fixture's.
func Nightlies(tb testing.TB, dir string, n, points int) []string {
	tb.Helper()
	newest := time.Date(2026, 12, 1, 21, 0, 0, 0, time.UTC)
	idx := dashboard.Index{Version: dashboard.IndexVersion}
	var ids []string
	for k := n - 1; k >= 0; k-- { // k days before the newest
		day := n - 1 - k // the oldest is day 0
		release := day%ReleaseEvery == 0
		at := newest.AddDate(0, 0, -k)
		id, entry := nightly(tb, dir, day, release, at, points)
		idx.Snapshots = append([]dashboard.IndexEntry{entry}, idx.Snapshots...)
		ids = append([]string{id}, ids...)
	}
	raw, err := jsoncodec.Encode(idx)
	if err != nil {
		tb.Fatal(err)
	}
	writeFile(tb, filepath.Join(dir, filepath.FromSlash(dashboard.IndexPath)), raw)
	return ids
}

// nightly writes one snapshot of Nightlies and returns its id and entry.
func nightly(tb testing.TB, dir string, day int, release bool, at time.Time, n int) (string, dashboard.IndexEntry) {
	tb.Helper()
	commit := fmt.Sprintf("%08x%032x", uint32(day+1)*2654435761, day+1) // the short commits differ
	sim := runresult.Simulator{Repo: "inference-sim/inference-sim", Ref: commit, Commit: commit, BuiltByHarness: true, Driver: "replay-metrics"}
	if release {
		sim.Tag = fmt.Sprintf("v0.%d.0", day/ReleaseEvery+1)
		sim.Ref, sim.Release = sim.Tag, true
	}
	prov := runresult.Provenance{
		Harness:   runresult.Harness{Commit: strings.Repeat("1", 40), Source: runresult.HarnessCheckout, Version: "v1.0.0"},
		Simulator: sim,
		Ledger:    runresult.DataVersion{Name: "inferencex", Version: "2026.12.0", Digest: "sha256:" + strings.Repeat("c", 64), Release: true},
	}
	// The predictions drift slowly over the year, with a weekly wobble.
	drift := 1 + 0.3*math.Sin(float64(day)/40) + 0.05*math.Sin(float64(day))
	pts := make([]runresult.Point, n)
	for i := range pts {
		group, load := i/8, i%8+1
		unit := fmt.Sprintf("ix/model-%d/gpu-%d", group/4, group%4)
		measured := metric.Values{"ttft_ms": 50 * float64(load), "tpot_ms": 5 + float64(load)}
		p := runresult.Point{ID: fmt.Sprintf("%s@c=%d", unit, load), Unit: unit, Model: fmt.Sprintf("org/model-%d", group/4),
			Hardware: fmt.Sprintf("GPU-%d", group%4), Load: runresult.Load{Concurrency: load}, Tier: "measured", Source: runresult.SourceInferenceX, Measured: measured}
		if i%7 == 6 {
			p.Reason, p.Detail = "timeout", "the simulation ran past its time limit"
		} else {
			f := drift * (1 + 0.1*float64(i%5-2))
			p.Scored, p.Driver = true, "replay-metrics"
			p.Predicted = metric.Values{"ttft_ms": measured["ttft_ms"] * f, "tpot_ms": measured["tpot_ms"] * (1.1 - 0.5*(f-1))}
			p.ReplayDigest = fmt.Sprintf("sha256:%064x", day*n+i)
		}
		pts[i] = p
	}
	s, err := runresult.Summarize(pts, prov, nil)
	if err != nil {
		tb.Fatal(err)
	}
	id := fmt.Sprintf("%s_ledger-2026.12.0_harness-v1.0.0_%s", sim.Tag, at.Format("20060102"))
	if !release {
		id = fmt.Sprintf("%s_ledger-2026.12.0_harness-v1.0.0_%s", commit[:12], at.Format("20060102"))
	}
	sum, err := jsoncodec.Encode(s)
	if err != nil {
		tb.Fatal(err)
	}
	pj, err := jsoncodec.Encode(runresult.SortPoints(pts))
	if err != nil {
		tb.Fatal(err)
	}
	snap := dashboard.SnapshotsDir + "/" + id + "/"
	writeFile(tb, filepath.Join(dir, filepath.FromSlash(snap+runresult.SummaryFile)), sum)
	writeFile(tb, filepath.Join(dir, filepath.FromSlash(snap+runresult.PointsFile)), pj)
	tier, scores, _ := runresult.Headline(s.Tiers)
	mape := map[string]*float64{}
	for _, d := range metric.Headline() {
		m, _ := scores.Of(d)
		mape[d.Key] = m.MAPE
	}
	simName := sim.Tag
	if simName == "" {
		simName = commit[:12]
	}
	return id, dashboard.IndexEntry{ID: id, PublishedAt: at.Format(time.RFC3339), Simulator: simName, Harness: "v1.0.0", Label: s.Label,
		Tier: tier, MAPE: mape, Scored: s.Coverage.Scored, CorpusPoints: s.Coverage.CorpusPoints, Path: snap}
}

func writeFile(tb testing.TB, path string, data []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}
