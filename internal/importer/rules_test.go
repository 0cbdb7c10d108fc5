package importer

import (
	"encoding/json"
	"math"
	"os"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// realAggRow is row 2 of corpus/sources/inferencex/agg_bmk/run_20662362255.json
// (SemiAnalysis InferenceX, vLLM v0.13.0, gpt-oss-120b on H100, TP2,
// 1k/8k, concurrency 64), as published.
const realAggRow = `{"hw": "h100", "conc": 64, "image": "vllm/vllm-openai:v0.13.0", "model": "openai/gpt-oss-120b", "infmax_model_prefix": "gptoss", "framework": "vllm", "precision": "fp4", "spec_decoding": "none", "disagg": false, "isl": 1024, "osl": 8192, "is_multinode": false, "tp": 2, "ep": 1, "dp_attention": "false", "tput_per_gpu": 2397.494732576788, "output_tput_per_gpu": 2131.3734498447698, "input_tput_per_gpu": 266.12128273201824, "mean_ttft": 0.15654434917669277, "median_ttft": 0.0730002336204052, "std_ttft": 0.28009648627355893, "p99_ttft": 1.4885795140452682, "mean_tpot": 0.014636926692797134, "mean_intvty": 68.32035310336714, "median_tpot": 0.014696929405726544, "median_intvty": 68.04142364665356, "std_tpot": 0.00038217542646096046, "std_intvty": 2616.599422051409, "p99_tpot": 0.015085910421981432, "p99_intvty": 66.28701696007133, "mean_itl": 0.014638566929422659, "median_itl": 0.014473398216068745, "std_itl": 0.002986829684915831, "p99_itl": 0.01621236428618432, "mean_e2el": 108.25746623355371, "median_e2el": 107.9914036123082, "std_e2el": 7.570493078096606, "p99_e2el": 122.18816490169614}`

// importRow imports one agg_bmk row as run 20662362255 and returns its
// point (the import must give exactly one).
func importRow(t *testing.T, row string) ledger.Point {
	t.Helper()
	res, err := Import(fstest.MapFS{"run_20662362255.json": {Data: []byte("[" + row + "]")}},
		importreport.Options{Sources: []string{"."}, Versions: 5, Name: "t", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Units) != 1 || len(res.Units[0].Points) != 1 {
		t.Fatalf("got %d units, want one point", len(res.Units))
	}
	return res.Units[0].Points[0]
}

// TestPlausibilityChecks: each check of rule_plausible.go, on the real row
// with one figure made wrong, marks the point with the check's reason; the
// real row itself passes them all.
func TestPlausibilityChecks(t *testing.T) {
	t.Parallel()
	if p := importRow(t, realAggRow); p.Excluded != "" {
		t.Fatalf("the real row is marked %q", p.Excluded)
	}
	for _, tc := range []struct {
		name, key, value, want string
	}{
		// 156.5 "seconds": the figure was written in milliseconds.
		{"TTFT in milliseconds", "mean_ttft", "156.54434917669277", ReasonTTFTAboveE2E},
		{"TPOT in milliseconds", "mean_tpot", "14.636926692797134", ReasonSecondsUnit},
		{"every latency in milliseconds", "mean_e2el", "108257.46623355371", ReasonSecondsUnit},
		{"TTFT above E2E", "mean_ttft", "110.5", ReasonTTFTAboveE2E},
		// 0.0166 s × (floor(0.8 × 8192) − 1) = 108.8 s > 108.26 s.
		{"TPOT too long for E2E", "mean_tpot", "0.0166", ReasonTPOTAboveE2E},
		{"interactivity not 1/TPOT", "mean_intvty", "34.16", ReasonInteractivity},
	} {
		p := importRow(t, withField(realAggRow, tc.key, tc.value))
		if p.Excluded != tc.want {
			t.Errorf("%s: point marked %q, want %q", tc.name, p.Excluded, tc.want)
		}
	}
}

// stageFigures reads the means of an inference-perf stage file and the
// output_len of its run's results/config.yaml with plain encoding/json and
// string search, independently of the parsers under test.
func stageFigures(t *testing.T, stageFile string) (e2e, ttft, tpot, itl, p99 float64, outputLen int) {
	t.Helper()
	var s struct {
		Successes struct {
			Latency map[string]map[string]float64 `json:"latency"`
		} `json:"successes"`
	}
	b, err := os.ReadFile(stageFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	l := s.Successes.Latency
	cfg, err := os.ReadFile(path.Join(path.Dir(stageFile), "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(cfg), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "output_len: "); ok {
			if err := json.Unmarshal([]byte(v), &outputLen); err != nil {
				t.Fatal(err)
			}
		}
	}
	return l["request_latency"]["mean"], l["time_to_first_token"]["mean"], l["time_per_output_token"]["mean"],
		l["inter_token_latency"]["mean"], l["time_per_output_token"]["p99"], outputLen
}

// TestInferencePerfTPOTDerived: the inference-perf client of these runs
// timed chunks, not tokens; the ledger's TPOT is (E2E − TTFT)/(L − 1), about
// twice the recorded figure, with the recorded figures kept in the
// derivation and the underivable ones (ITL, TPOT percentiles) omitted.
func TestInferencePerfTPOTDerived(t *testing.T) {
	t.Parallel()
	res := importFixture(t, fixtureOptions())
	u := findUnit(t, res, "inference-perf/llama-2-7b-hf/h100/tp1/20260217-155451-codegen")
	for _, p := range u.Points {
		e2e, ttft, tpot, itl, p99, l := stageFigures(t, "testdata/fixture/"+p.Provenance.Artifact)
		want := (e2e - ttft) / float64(l-1) * 1000
		m := p.Measured
		if math.Abs(m.TPOTMs/want-1) > 1e-12 {
			t.Errorf("%s: tpot_ms %v, want (E2E − TTFT)/(%d − 1) = %v ms", p.Load.Key(), m.TPOTMs, l, want)
		}
		if r := m.TPOTMs / (tpot * 1000); r < 1.95 || r > 2.05 {
			t.Errorf("%s: derived / recorded TPOT = %.3f, want about 2", p.Load.Key(), r)
		}
		d := m.TPOTDerivation
		if d == nil {
			t.Fatalf("%s: no tpot_derivation", p.Load.Key())
		}
		if d.Evidence != ledger.Derived || d.Rule != RuleChunkTiming || d.OutputTokens != l || d.RecordedTPOTMs != tpot*1000 ||
			d.RecordedITLMs == nil || *d.RecordedITLMs != itl*1000 || d.RecordedP99TPOTMs == nil || *d.RecordedP99TPOTMs != p99*1000 {
			t.Errorf("%s: derivation %s", p.Load.Key(), mustJSON(d))
		}
		if m.ITLMs != nil || m.MedianTPOTMs != nil || m.P99TPOTMs != nil {
			t.Errorf("%s: chunk-timed figures presented as measurements: itl %v, median tpot %v, p99 tpot %v", p.Load.Key(), m.ITLMs, m.MedianTPOTMs, m.P99TPOTMs)
		}
		if m.E2ELMs == nil || *m.E2ELMs != e2e*1000 || m.P99TTFTMs == nil || m.MedianTTFTMs == nil {
			t.Errorf("%s: the client's correct figures (E2E, TTFT median and p99) are missing", p.Load.Key())
		}
	}
	if res.Report.Corrected[RuleChunkTiming] != len(u.Points)+1 { // + the reasoning run's stage
		t.Errorf("report corrected %v", res.Report.Corrected)
	}
}

// TestInferencePerfTPOTChecked: a stage whose TPOT is neither per token nor
// per chunk is marked; one timed per token (ratio 1) is kept as recorded.
func TestInferencePerfTPOTChecked(t *testing.T) {
	t.Parallel()
	const stage = "testdata/fixture/inference-perf/20260217-155451-llama-2-7b-tp1-codegen/results/stage_0_lifecycle_metrics.json"
	b, err := os.ReadFile(stage)
	if err != nil {
		t.Fatal(err)
	}
	e2e, ttft, tpot, _, _, l := stageFigures(t, stage)
	for _, tc := range []struct {
		name      string
		tpot      float64
		want      string
		corrected bool
	}{
		{"per chunk (as recorded)", tpot, "", true},
		{"per token", (e2e - ttft) / float64(l-1), "", false},
		{"neither", tpot * 1.5, ReasonTPOTInconsistent, false},
	} {
		data := strings.Replace(string(b), mustJSON(tpot), mustJSON(tc.tpot), 1)
		m := fstest.MapFS{}
		for _, f := range []string{"exp-config.yaml", "profile.yaml", "blis-import.yaml", "results/config.yaml", "results/stage_1_lifecycle_metrics.json"} {
			raw, err := os.ReadFile(path.Join(path.Dir(path.Dir(stage)), f))
			if err != nil {
				t.Fatal(err)
			}
			m["run/"+f] = &fstest.MapFile{Data: raw}
		}
		m["run/results/stage_0_lifecycle_metrics.json"] = &fstest.MapFile{Data: []byte(data)}
		res, err := Import(m, importreport.Options{Sources: []string{"run"}, Versions: 5, Name: "t", Version: "1"})
		if err != nil {
			t.Fatal(err)
		}
		p := res.Units[0].Points[0]
		if p.Excluded != tc.want || (p.Measured.TPOTDerivation != nil) != tc.corrected {
			t.Errorf("%s: marked %q, derivation %v; want %q, derived %v", tc.name, p.Excluded, p.Measured.TPOTDerivation != nil, tc.want, tc.corrected)
		}
		if !tc.corrected && p.Measured.TPOTMs != tc.tpot*1000 {
			t.Errorf("%s: tpot_ms %v, want the recorded %v", tc.name, p.Measured.TPOTMs, tc.tpot*1000)
		}
	}
}

// TestInferencePerfOverloadedStage: the real Llama-2-7B reasoning stage
// (4 068 of 4 800 requests failed at the client's timeout) is kept marked
// overloaded, with both counts; a tolerance above its failed fraction keeps
// it as an ordinary point.
func TestInferencePerfOverloadedStage(t *testing.T) {
	t.Parallel()
	const id = "inference-perf/llama-2-7b-hf/h100/tp1/20260217-170634-reasoning"
	p := findUnit(t, importFixture(t, fixtureOptions()), id).Points[0]
	if p.Excluded != ReasonOverloaded || p.Measured.FailedRequests == nil || *p.Measured.FailedRequests != 4068 || *p.Measured.Requests != 732 {
		t.Errorf("overloaded stage: marked %q, measured %s", p.Excluded, mustJSON(p.Measured))
	}
	opts := fixtureOptions()
	opts.MaxFailedFraction = 0.9 // 4068/4800 = 0.8475
	if p := findUnit(t, importFixture(t, opts), id).Points[0]; p.Excluded != "" {
		t.Errorf("with --max-failed-fraction 0.9: marked %q", p.Excluded)
	}
	opts.MaxFailedFraction = 1
	if _, err := Import(os.DirFS("testdata/fixture"), opts); err == nil || !strings.Contains(err.Error(), "max failed fraction") {
		t.Errorf("max failed fraction 1: error %v", err)
	}
}

// TestInferencePerfFollowsClientConfig: the workload is what
// results/config.yaml says the client ran (10 groups × 10 prompts, single
// turn), not profile.yaml's settings that client did not know; the
// disagreement is in the report.
func TestInferencePerfFollowsClientConfig(t *testing.T) {
	t.Parallel()
	res := importFixture(t, fixtureOptions())
	w := findUnit(t, res, "inference-perf/llama-2-7b-hf/h100/tp1/20260217-155451-codegen").Workload.InferencePerf
	if w.NumUniqueSystemPrompts != 10 || w.NumUsersPerSystemPrompt != 10 || w.EnableMultiTurnChat {
		t.Errorf("workload %s, want 10 × 10, single turn", mustJSON(w))
	}
	for _, s := range res.Report.Sources {
		if s.Path != "inference-perf/20260217-155451-llama-2-7b-tp1-codegen" {
			continue
		}
		if len(s.Notes) != 3 || !strings.Contains(s.Notes[0], "profile.yaml says 11, results/config.yaml (what the client ran) 10") {
			t.Errorf("notes %q", s.Notes)
		}
		return
	}
	t.Error("no report entry for the codegen run")
}
