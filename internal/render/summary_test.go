package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/golden"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

func point(id, unit, model, hw string, c int, tier string, m, p float64, reason string) runresult.Point {
	x := runresult.Point{ID: id, Unit: unit, Model: model, Hardware: hw, Load: runresult.Load{Concurrency: c}, Tier: tier,
		Measured: metric.Values{"ttft_ms": m, "tpot_ms": m / 8, "e2e_ms": m * 20, "p99_ttft_ms": m * 2}}
	if reason == "" {
		// Median TTFT and p99 TPOT are predicted but not measured: not scored.
		x.Scored, x.Predicted = true, metric.Values{"ttft_ms": p, "tpot_ms": p / 7, "e2e_ms": p * 21, "p99_ttft_ms": p * 2.5, "median_ttft_ms": p, "p99_tpot_ms": p / 6}
	} else {
		x.Reason, x.Detail = reason, "detail"
	}
	return x
}

func sampleSummary(t *testing.T, tierOfAll string, release bool) runresult.Summary {
	t.Helper()
	return sampleRun(t, tierOfAll, release, nil).Summary
}

// sampleRun is the run sampleSummary summarizes; a what-if (w non-nil)
// scores the H200 points too and has other predictions.
func sampleRun(t *testing.T, tierOfAll string, release bool, w *runresult.WhatIf) runresult.Result {
	t.Helper()
	pts := []runresult.Point{
		point("ix/gpt-oss/h100/tp4@c=4", "ix/gpt-oss/h100/tp4", "openai/gpt-oss-120b", "H100", 4, tierOfAll, 40, 44, ""),
		point("ix/gpt-oss/h100/tp4@c=8", "ix/gpt-oss/h100/tp4", "openai/gpt-oss-120b", "H100", 8, tierOfAll, 50, 52, ""),
		point("ix/gpt-oss/h100/tp4@c=16", "ix/gpt-oss/h100/tp4", "openai/gpt-oss-120b", "H100", 16, tierOfAll, 70, 63, ""),
		point("ix/gpt-oss/h200/tp4@c=4", "ix/gpt-oss/h200/tp4", "openai/gpt-oss-120b", "H200", 4, tierOfAll, 30, 0, "hardware-unknown-to-simulator"),
		point("ip/evil|model@rate=8", "ip/evil|model", "org/<b>evil</b>|@someone", "H100", 1, "assumed", 20, 30, ""),
		point("ix/gpt-oss/h200/tp4@c=8", "ix/gpt-oss/h200/tp4", "openai/gpt-oss-120b", "H200", 8, tierOfAll, 30, 0, "simulator-run-error"),
		// A rate point the simulator could not keep up with: saturated.
		point("ip/evil|model@rate=20", "ip/evil|model", "org/<b>evil</b>|@someone", "H100", 0, "assumed", 20, 400, ""),
	}
	for k := range pts {
		pts[k].Source = runresult.SourceInferenceX
		if strings.HasPrefix(pts[k].Unit, "ip/") {
			pts[k].Source = runresult.SourceInferencePerf
		}
	}
	// inference-perf sweeps: two rates.
	pts[4].Load, pts[6].Load = runresult.Load{Rate: 8}, runresult.Load{Rate: 20}
	pts[6].CompletionRate, pts[6].Saturated = 16.25, true
	// The simulator's warnings, on scored points and not: one cause over
	// a sweep, one with untrusted text.
	quant := runresult.Warning{Message: "HuggingFace config has quantization_config but weight precision could not be determined", Count: 1}
	for _, k := range []int{0, 1, 2, 5} {
		pts[k].Warnings = []runresult.Warning{quant}
	}
	pts[6].Warnings = []runresult.Warning{{Message: "[tick 0001200] <img src=x> @someone | `evicting` request_12 #1", Count: 40}}
	pts[6].WarningsOmitted = 2
	prov := runresult.Provenance{
		Harness:   runresult.Harness{Commit: strings.Repeat("a", 40), Source: runresult.HarnessCheckout, Version: "v1.0.0"},
		Simulator: runresult.Simulator{Repo: "https://github.com/inference-sim/inference-sim", Ref: "v0.7.15", Commit: strings.Repeat("b", 40), Tag: "v0.7.15", Release: release, BuiltByHarness: true, Driver: "replay-metrics"},
		Ledger:    runresult.DataVersion{Name: "blis-default", Version: "2026.11.0", Digest: "sha256:" + strings.Repeat("c", 64), Release: true},
		Catalog:   &runresult.DataVersion{Name: "blis-default catalog (bundled)", Version: "2026.11.0", Digest: "sha256:" + strings.Repeat("d", 64), Release: true},
	}
	if !release {
		prov.Simulator.Tag, prov.Simulator.Ref = "", prov.Simulator.Commit
	}
	if release { // v0.7.15: closed-loop points through blis run, rate points replayed
		for k := range pts {
			if pts[k].Scored {
				pts[k].Driver = "run-closed-loop"
			}
		}
		pts[4].Driver, pts[6].Driver = "replay-results", "replay-results"
		prov.Simulator.Driver = "replay-results+run-closed-loop"
	}
	if w != nil {
		prov.WhatIf = w
		pts = append(pts[:3:3], point("ix/gpt-oss/h200/tp4@c=4", "ix/gpt-oss/h200/tp4", "openai/gpt-oss-120b", "H200", 4, tierOfAll, 30, 33, ""),
			point("ix/gpt-oss/h200/tp4@c=8", "ix/gpt-oss/h200/tp4", "openai/gpt-oss-120b", "H200", 8, tierOfAll, 30, 36, ""))
		for k := range pts {
			pts[k].Source = runresult.SourceInferenceX
			if pts[k].Hardware == "H100" {
				pts[k].Predicted["tpot_ms"] /= 4
			}
		}
	}
	s, err := runresult.Summarize(pts, prov, nil)
	if err != nil {
		t.Fatal(err)
	}
	return runresult.Result{Summary: s, Points: pts}
}

func TestSummaryGolden(t *testing.T) {
	t.Parallel()
	golden.Assert(t, filepath.Join("testdata", "summary-release.golden"), []byte(Summary(sampleSummary(t, "resolved", true))))
	golden.Assert(t, filepath.Join("testdata", "summary-experimental-fallback.golden"), []byte(Summary(sampleSummary(t, "assumed", false))))
}

func TestSummaryEscapesUntrustedText(t *testing.T) {
	t.Parallel()
	md := Summary(sampleSummary(t, "resolved", true))
	for _, bad := range []string{"<b>", "|@someone", "@someone"} {
		if strings.Contains(md, bad) {
			t.Errorf("rendered Markdown contains raw %q", bad)
		}
	}
}

func TestHeadlineFallsBackToAll(t *testing.T) {
	t.Parallel()
	s := sampleSummary(t, "assumed", false)
	name, _, fell := runresult.Headline(s.Tiers)
	if name != runresult.TierAll || !fell {
		t.Fatalf("Headline = %s, %v; want all, fell back", name, fell)
	}
	md := Summary(s)
	if !strings.Contains(md, "falls back to tier `all`") || !strings.Contains(md, "EXPERIMENTAL") {
		t.Errorf("fallback or label not stated:\n%s", md)
	}
}

// TestProvenanceNotPassed: data the build could not take is listed, escaped,
// and the summary carrying it validates against its schema.
func TestProvenanceNotPassed(t *testing.T) {
	t.Parallel()
	s := sampleSummary(t, "measured", true)
	s.Provenance.Registry = nil
	s.Provenance.NotPassed = []string{"registry <r> v2: this build takes no --registry"}
	md := Provenance(s)
	if !strings.Contains(md, "- Not passed to the simulator: registry &lt;r&gt; v2: this build takes no --registry\n") {
		t.Errorf("provenance:\n%s", md)
	}
	raw, err := jsoncodec.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runresult.ParseSummary(raw); err != nil {
		t.Errorf("a summary with not_passed does not validate: %v", err)
	}
}

// TestProvenanceReuse: a run that reused predictions says how many were
// simulated and how many reused; a run that reused none says nothing.
func TestProvenanceReuse(t *testing.T) {
	t.Parallel()
	s := sampleSummary(t, "measured", true)
	if md := Provenance(s); strings.Contains(md, "reused") {
		t.Errorf("a run without reuse mentions it:\n%s", md)
	}
	s.Coverage.Reused = 3
	if md := Provenance(s); !strings.Contains(md, "- Simulated in this run: 2 of the 5 scored points; 3 reused from an earlier run with the same replay digest") {
		t.Errorf("provenance:\n%s", md)
	}
}
