package leaderboard

import (
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

func TestCheckPair(t *testing.T) {
	t.Parallel()
	const (
		otherSim = "3260837d16048bdfe7cd45d0dc3d3c6a688c645b"
		catA     = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		catB     = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	)
	d := readDecl(t)
	runs := d.Runs()
	withCat := func(r *Result, digest string) *Result {
		if digest != "" {
			r.Provenance.Catalog = &runresult.DataVersion{Name: "catalog c", Version: digest[:19], Digest: digest}
		}
		return r
	}
	res := map[string]*Result{
		"g/same":    withCat(okResult(t, runs[0], figures(100, 30, 1000)), catA),
		"g/catonly": withCat(okResult(t, runs[1], figures(100, 30, 1000)), catB),
		"g/both":    withCat(failedResult(t, runs[2], "crash", "x"), catB),
	}
	simOnly := withCat(okResult(t, runs[3], figures(100, 30, 1000)), catA)
	simOnly.Provenance.Simulator.Commit = otherSim
	res["g/simonly"] = simOnly

	probs := CheckPair(res, PinnedPair{SimulatorCommit: otherSim, CatalogDigest: catA})
	var got []string
	for _, p := range probs {
		got = append(got, p.String())
	}
	if len(got) != 3 {
		t.Fatalf("CheckPair = %q, want 3 problems (both, catonly, same; simonly matches)", got)
	}
	checks := []struct{ prefix, contains string }{
		{"simulator-drift: g/both.json: ran on simulator " + simCommit + " with catalog " + catB + "; the pinned pair is simulator " + otherSim + " with catalog " + catA, "re-run it on the pinned pair"},
		{"simulator-drift: g/catonly.json: ", "re-run"},
		{"half-moved-pin: g/same.json: ran on simulator " + simCommit + " with catalog " + catA, "only the simulator differs; the simulator and catalog are pinned and moved as a pair, never one at a time"},
	}
	for i, c := range checks {
		if !strings.HasPrefix(got[i], c.prefix) || !strings.Contains(got[i], c.contains) {
			t.Errorf("problem %d = %q, want prefix %q containing %q", i, got[i], c.prefix, c.contains)
		}
	}

	// Pinned at the results' simulator and catalog A: only the catalog-B results.
	probs = CheckPair(res, PinnedPair{SimulatorCommit: simCommit, CatalogDigest: catA})
	got = got[:0]
	for _, p := range probs {
		got = append(got, p.String())
	}
	if len(got) != 3 || !strings.HasPrefix(got[0], "half-moved-pin: g/both.json") || !strings.Contains(got[0], "only the catalog differs") ||
		!strings.HasPrefix(got[1], "half-moved-pin: g/catonly.json") || !strings.HasPrefix(got[2], "half-moved-pin: g/simonly.json") {
		t.Errorf("CheckPair at (results' simulator, catalog A) = %q", got)
	}

	// No catalog on either side: the simulator moves alone, which is drift.
	plain := map[string]*Result{"g/a": okResult(t, runs[0], figures(100, 30, 1000))}
	probs = CheckPair(plain, PinnedPair{SimulatorCommit: otherSim})
	if len(probs) != 1 || probs[0].Kind != problemDrift || !strings.Contains(probs[0].Msg, "with catalog none") {
		t.Errorf("CheckPair without catalogs = %v, want one simulator-drift", probs)
	}
	if probs := CheckPair(plain, PinnedPair{SimulatorCommit: simCommit}); len(probs) != 0 {
		t.Errorf("CheckPair on the pinned pair = %v, want none", probs)
	}
}
