package ghaction

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// hintRun is a run of one measured point at simulator commit, its TTFT
// predicted ttft× the measurement.
func hintRun(t *testing.T, commit string, ttft float64) runresult.Result {
	t.Helper()
	pts := []runresult.Point{{ID: "u/a@c=1", Unit: "u/a", Model: "m", Hardware: "H100", Load: runresult.Load{Concurrency: 1}, Tier: "measured", Scored: true, Driver: "replay-metrics", Source: runresult.SourceInferenceX,
		Measured: metric.Values{"ttft_ms": 100, "tpot_ms": 10}, Predicted: metric.Values{"ttft_ms": 100 * ttft, "tpot_ms": 10}}}
	prov := runresult.Provenance{Simulator: runresult.Simulator{Repo: "inference-sim/inference-sim", Commit: commit},
		Harness:   runresult.Harness{Commit: strings.Repeat("c", 40), Source: runresult.HarnessCheckout},
		Selection: &runresult.Selection{All: true, Units: []string{}}, Ledger: runresult.DataVersion{Name: "ledger", Version: "1", Digest: "sha256:" + strings.Repeat("0", 64)}}
	s, err := runresult.Summarize(pts, prov, nil)
	if err != nil {
		t.Fatal(err)
	}
	return runresult.Result{Summary: s, Points: pts}
}

// The nightly's merge compares the merged run with the last snapshot and,
// past the alert-threshold, writes the bisect command into the job summary.
func TestBisectHint(t *testing.T) {
	prevDir, summary := t.TempDir(), filepath.Join(t.TempDir(), "summary.md")
	if err := runresult.Write(prevDir, runresult.Output{Result: hintRun(t, strings.Repeat("a", 40), 1.1), Markdown: "x\n"}); err != nil {
		t.Fatal(err)
	}
	cur := hintRun(t, strings.Repeat("b", 40), 1.3).Summary
	var log bytes.Buffer
	gha := newRunner(fakeEnv(map[string]string{"GITHUB_STEP_SUMMARY": summary}), &log)
	alert := 5.0
	in := mergeModeOptions{actionInputs: actionInputs{summaryPath: summary}, reuseDir: prevDir}
	in.thresholds.Alert = &alert
	if err := bisectHint(in, cur, gha); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	want := "action bisect --sim-repo inference-sim/inference-sim --good " + strings.Repeat("a", 40) + " --bad " + strings.Repeat("b", 40) + " --metric ttft --threshold 5"
	if !strings.Contains(string(md), want) || !strings.Contains(string(md), "10.00% → 30.00% (+20.00 pp)") {
		t.Errorf("job summary:\n%s\nwant %q", md, want)
	}
	if !strings.Contains(log.String(), "::notice::headline ttft MAPE 10.00%25 → 30.00%25 since the last snapshot: action bisect --sim-repo") {
		t.Errorf("no notice:\n%s", log.String())
	}

	// Within the threshold, or without one: nothing.
	for _, a := range []*float64{nil, func() *float64 { v := 25.0; return &v }()} {
		os.Remove(summary)
		in.thresholds.Alert = a
		if err := bisectHint(in, cur, gha); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(summary); err == nil {
			t.Errorf("alert-threshold %v: a job summary was written", a)
		}
	}
}
