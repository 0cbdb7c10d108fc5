package publish

import (
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

const (
	harnessCommit = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	simCommit     = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// releaseSummary builds a publishable summary through runresult.Summarize:
// released simulator v0.7.15, released ledger, three scored points and
// one not scored.
func releaseSummary(t *testing.T, simTag, ledgerVersion string) runresult.Summary {
	t.Helper()
	s, _ := releaseRun(t, simTag, ledgerVersion)
	return s
}

// releaseReport is releaseSummary's summary.json and points.json.
func releaseReport(t *testing.T, simTag, ledgerVersion string) Report {
	t.Helper()
	s, points := releaseRun(t, simTag, ledgerVersion)
	raw, err := jsoncodec.Encode(points)
	if err != nil {
		t.Fatal(err)
	}
	return Report{Summary: encode(t, s), Points: raw}
}

func releaseRun(t *testing.T, simTag, ledgerVersion string) (runresult.Summary, []runresult.Point) {
	t.Helper()
	prov := runresult.Provenance{
		Harness:   runresult.Harness{Commit: harnessCommit, Source: runresult.HarnessCheckout, Version: "v1.1.0"},
		Simulator: runresult.Simulator{Repo: "https://github.com/inference-sim/inference-sim", Ref: simTag, Commit: simCommit, Tag: simTag, Release: true, BuiltByHarness: true, Driver: "replay"},
		Ledger:    runresult.DataVersion{Name: "ledger", Version: ledgerVersion, Digest: "sha256:" + strings.Repeat("c", 64), Release: true},
		Selection: &runresult.Selection{All: true, Units: []string{}},
	}
	var points []runresult.Point
	for i, m := range []float64{100, 120, 150, 200} {
		p := runresult.Point{ID: "qwen-h100@c=" + string(rune('1'+i)), Unit: "qwen-h100", Model: "Qwen/Qwen3-8B", Hardware: "H100",
			Load: runresult.Load{Concurrency: 1 << i}, Tier: "measured", Measured: metric.Values{"ttft_ms": m, "tpot_ms": m / 10}}
		if i < 3 {
			p.Scored = true
			p.Predicted = metric.Values{"ttft_ms": m * 1.1, "tpot_ms": m / 10 * 0.95}
		} else {
			p.Reason, p.Detail = "timeout", "simulator did not finish"
		}
		points = append(points, p)
	}
	s, err := runresult.Summarize(points, prov, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Label != runresult.LabelRelease {
		t.Fatalf("fixture labelled %s: %v", s.Label, s.LabelReasons)
	}
	return s, runresult.SortPoints(points)
}

func encode(t *testing.T, s runresult.Summary) []byte {
	t.Helper()
	b, err := jsoncodec.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
