package importer

import (
	"math"
	"os"
	"strings"
	"testing"
)

// Fuzz targets for the parsers: any input either parses into values the rest
// of the importer can rely on, or gives an error naming the file; never a
// panic. Interesting inputs found while fuzzing are kept under
// testdata/fuzz/<target>/ and run as ordinary tests by `go test`.
// Fuzz one with: go test ./internal/importer -run '^$' -fuzz FuzzParseAggBmk -fuzztime 30s

func seedFiles(f *testing.F, paths ...string) {
	f.Helper()
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func finiteOrNil(t *testing.T, name string, v *float64) {
	t.Helper()
	if v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0)) {
		t.Errorf("%s parsed as %v", name, *v)
	}
}

func checkXRows(t *testing.T, rows []XRow) {
	t.Helper()
	for i, r := range rows {
		if r.Index != i {
			t.Errorf("row %d has index %d", i, r.Index)
		}
		if r.Hardware == "" || r.Framework == "" || r.Model == "" || r.Precision == "" || r.SpecDecoding == "" {
			t.Errorf("row %d parsed without an identity field: %+v", i, r)
		}
		if r.ISL < 1 || r.OSL < 1 || r.Conc < 1 {
			t.Errorf("row %d parsed with isl %d osl %d conc %d", i, r.ISL, r.OSL, r.Conc)
		}
		if !r.Disagg && !r.MultiNode && (r.TP < 1 || r.EP < 1) {
			t.Errorf("single-node row %d parsed with tp %d ep %d", i, r.TP, r.EP)
		}
		m := r.Metrics
		for name, v := range map[string]*float64{"mean_ttft": m.MeanTTFT, "mean_tpot": m.MeanTPOT, "mean_itl": m.MeanITL, "mean_e2el": m.MeanE2EL} {
			finiteOrNil(t, name, v)
		}
	}
}

func checkErrNames(t *testing.T, err error, name string) {
	t.Helper()
	for _, line := range strings.Split(err.Error(), "\n") {
		if !strings.Contains(line, name) {
			t.Errorf("error line %q does not name the file %s", line, name)
		}
	}
}

func FuzzParseAggBmk(f *testing.F) {
	seedFiles(f, "testdata/fixture/inferencex/run_100.json", "testdata/fixture/inferencex/run_90.json", "testdata/fixture/inferencex/run_400.json")
	f.Add([]byte("[" + goodAggRow + "]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ParseAggBmk("run_1.json", data)
		if err != nil {
			checkErrNames(t, err, "run_1.json")
			return
		}
		checkXRows(t, rows)
	})
}

func FuzzParseAPIRows(f *testing.F) {
	seedFiles(f, "testdata/fixture/api/benchmarks.json")
	f.Add([]byte("[" + goodAPIRow + "]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ParseAPIRows("api.json", data)
		if err != nil {
			checkErrNames(t, err, "api.json")
			return
		}
		checkXRows(t, rows)
		for i, r := range rows {
			if runIDFromURL(r.RunURL) == "" || len(r.Date) != 10 {
				t.Errorf("row %d parsed with run_url %q date %q", i, r.RunURL, r.Date)
			}
		}
	})
}

func FuzzParseStageMetrics(f *testing.F) {
	seedFiles(f,
		"testdata/fixture/inference-perf/20260217-155451-llama-2-7b-tp1-codegen/results/stage_0_lifecycle_metrics.json",
		"testdata/fixture/inference-perf/20260301-120000-tiny-lm-tp1-chat/results/stage_1_lifecycle_metrics.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseStageMetrics("s.json", data)
		if err != nil {
			checkErrNames(t, err, "s.json")
			return
		}
		if m.Successes < 0 {
			t.Errorf("successes %d", m.Successes)
		}
		finiteOrNil(t, "ttft", m.TTFT.Mean)
		finiteOrNil(t, "tpot", m.TPOT.Mean)
	})
}

func FuzzParseProfile(f *testing.F) {
	seedFiles(f,
		"testdata/fixture/inference-perf/20260217-155451-llama-2-7b-tp1-codegen/profile.yaml",
		"testdata/fixture/inference-perf/20260301-120000-tiny-lm-tp1-chat/profile.yaml",
		// results/config.yaml, what the client ran, goes through the same parser.
		"testdata/fixture/inference-perf/20260217-155451-llama-2-7b-tp1-codegen/results/config.yaml",
		"testdata/fixture/inference-perf/20260217-170634-llama-2-7b-tp1-reasoning/results/config.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile("p.yaml", data)
		if err != nil {
			checkErrNames(t, err, "p.yaml")
			return
		}
		if len(p.Stages) == 0 || p.NumUniqueSystemPrompts < 1 || p.NumUsersPerSystemPrompt < 1 || p.QuestionLen < 1 || p.OutputLen < 1 || p.SystemPromptLen < 0 {
			t.Errorf("parsed as %+v", p)
		}
		for _, s := range p.Stages {
			if !(s.Rate > 0) || !(s.Duration > 0) || math.IsInf(s.Rate, 0) || math.IsInf(s.Duration, 0) {
				t.Errorf("stage %+v", s)
			}
		}
	})
}

func FuzzParseExpConfig(f *testing.F) {
	seedFiles(f,
		"testdata/fixture/inference-perf/20260217-155451-llama-2-7b-tp1-codegen/exp-config.yaml",
		"testdata/fixture/inference-perf/20260301-120000-tiny-lm-tp1-chat/exp-config.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseExpConfig("e.yaml", data)
		if err != nil {
			checkErrNames(t, err, "e.yaml")
			return
		}
		if c.Model == "" || c.TensorParallelism < 1 || c.MaxModelLen < 1 || c.MaxNumBatchedTokens < 1 || c.MaxNumSeqs < 1 {
			t.Errorf("parsed as %+v", c)
		}
	})
}

// FuzzDatabaseMetrics: the metrics jsonb of an InferenceX database row
// either decodes into finite numbers or is an error naming the row.
func FuzzDatabaseMetrics(f *testing.F) {
	f.Add([]byte(`{"mean_ttft": 0.0455, "mean_tpot": 0.00431, "avg_util_pct": 87.5}`))
	f.Add([]byte(`{"mean_ttft": 1e400}`))
	f.Add([]byte(`{"mean_ttft": null, "p99_tpot": -1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, metrics []byte) {
		r := dbResult(9)
		r.Metrics = metrics
		x, err := databaseRow(r, 3)
		if err != nil {
			if !strings.Contains(err.Error(), "benchmark_results id 9") {
				t.Errorf("error does not name the row: %v", err)
			}
			return
		}
		if x.Index != 3 {
			t.Errorf("index %d", x.Index)
		}
		m := x.Metrics
		for name, v := range map[string]*float64{"mean_ttft": m.MeanTTFT, "mean_tpot": m.MeanTPOT, "median_ttft": m.MedianTTFT,
			"p99_ttft": m.P99TTFT, "median_tpot": m.MedianTPOT, "p99_tpot": m.P99TPOT, "mean_itl": m.MeanITL, "mean_e2el": m.MeanE2EL} {
			finiteOrNil(t, name, v)
		}
	})
}
