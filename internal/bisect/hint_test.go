package bisect

import (
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// HintSummary is a run of two measured points at simulator commit, each
// TTFT predicted ttft× its measurement and TPOT exactly.
func hintSummary(t *testing.T, commit, tag string, ttft float64) runresult.Summary {
	t.Helper()
	var pts []runresult.Point
	for _, id := range []string{"u/a@c=1", "u/a@c=2"} {
		pts = append(pts, runresult.Point{ID: id, Unit: "u/a", Tier: "measured", Scored: true, Driver: "replay-metrics",
			Measured: metric.Values{"ttft_ms": 100, "tpot_ms": 10}, Predicted: metric.Values{"ttft_ms": 100 * ttft, "tpot_ms": 10}})
	}
	prov := runresult.Provenance{Simulator: runresult.Simulator{Repo: "https://github.com/inference-sim/inference-sim", Commit: commit, Tag: tag},
		Selection: &runresult.Selection{All: true}}
	s, err := runresult.Summarize(pts, prov, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestHints(t *testing.T) {
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	prev := hintSummary(t, a, "v0.7.14", 1.10)
	cur := hintSummary(t, b, "", 1.15)
	hints := Hints(prev, cur, 2)
	if len(hints) != 1 {
		t.Fatalf("hints %+v, want the TTFT MAPE's alone (10 %% → 15 %%)", hints)
	}
	h := hints[0]
	want := []string{"--sim-repo", "https://github.com/inference-sim/inference-sim", "--good", "v0.7.14", "--bad", b, "--metric", "ttft", "--threshold", "2"}
	if h.Metric != "ttft" || h.Tier != runresult.TierMeasuredResolved || !near(&h.Before, 10) || !near(&h.After, 15) || !slices.Equal(h.Args, want) {
		t.Errorf("hint %+v", h)
	}
	if got := Hints(prev, cur, 5); len(got) != 0 {
		t.Errorf("a move of 5 pp is not more than a threshold of 5: %+v", got)
	}
	if got := Hints(prev, hintSummary(t, a, "v0.7.14", 1.5), 2); len(got) != 0 {
		t.Errorf("the same simulator commit (the data or harness moved the figure) gave hints %+v", got)
	}
}
