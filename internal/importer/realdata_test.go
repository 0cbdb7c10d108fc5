package importer

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/inference-sim/accuracy-dashboard/internal/importer/importertest"
	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// realOptions are the options the bundled corpus is imported with.
func realOptions() importreport.Options {
	return importreport.Options{
		Sources:                    []string{"inferencex", "inference-perf"},
		Versions:                   DefaultVersions,
		InferencePerfHardware:      "H100",
		InferencePerfEngineVersion: "v0.15.1",
		Name:                       "real",
		Version:                    "test",
	}
}

// realImport is the import of the real data with realOptions, done once for
// every test that reads it (none may change the result).
var realImport = sync.OnceValues(func() (*Result, error) {
	data, err := importertest.SourcesDir()
	if err != nil {
		return nil, err
	}
	return Import(os.DirFS(data), realOptions())
})

// importReal returns the shared real import and the data directory, skipping
// the test when the real data is absent.
func importReal(t *testing.T) (*Result, string) {
	t.Helper()
	data := importertest.Sources(t)
	res, err := realImport()
	if err != nil {
		t.Fatal(err)
	}
	return res, data
}

func readRows(t *testing.T, file string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return rows
}

// TestRealGptOssH100Sweeps checks the gpt-oss-120b H100 vLLM sweeps against
// the source rows: the newest full sweep (v0.13.0, run 20662362255) gives
// every H100 point, one unit per (TP, ISL/OSL), each value the row's
// seconds × 1000.
func TestRealGptOssH100Sweeps(t *testing.T) {
	t.Parallel()
	res, data := importReal(t)
	const newest = "inferencex/agg_bmk/run_20662362255.json"
	rows := readRows(t, filepath.Join(data, filepath.FromSlash(newest)))

	wantPoints := map[string]int{} // unit id -> H100 vLLM rows of the newest sweep
	for _, r := range rows {
		if r["hw"] == "h100" && r["framework"] == "vllm" {
			id := fmt.Sprintf("inferencex/gpt-oss-120b/h100/tp%v/isl%v-osl%v", r["tp"], r["isl"], r["osl"])
			wantPoints[id]++
		}
	}
	gotPoints := map[string]int{}
	checked := 0
	for _, u := range res.Units {
		if !strings.HasPrefix(u.ID, "inferencex/gpt-oss-120b/h100/") {
			continue
		}
		gotPoints[u.ID] = len(u.Points)
		if e := u.Deployment.Engines.MaxModelLen; e.Value != 10240 || e.Evidence != ledger.Resolved {
			t.Errorf("%s: max_model_len %v (%s), want 10240 resolved", u.ID, e.Value, e.Evidence)
		}
		for i, p := range u.Points {
			pr := p.Provenance
			if pr.Artifact != newest || pr.EngineVersion != "v0.13.0" || pr.RunID != "20662362255" {
				t.Errorf("%s@%s comes from %s (%s, run %s), want the v0.13.0 sweep", u.ID, p.Load.Key(), pr.Artifact, pr.EngineVersion, pr.RunID)
				continue
			}
			r := rows[*pr.Row]
			if r["hw"] != "h100" || r["framework"] != "vllm" || r["tp"] != float64(u.Deployment.TensorParallel.Value) ||
				r["isl"] != float64(u.Workload.InferenceX.InputLen) || r["osl"] != float64(u.Workload.InferenceX.OutputLen) ||
				r["conc"] != float64(p.Load.Concurrency) {
				t.Errorf("%s@%s: provenance row %d is %v", u.ID, p.Load.Key(), *pr.Row, r)
				continue
			}
			m := p.Measured
			for name, got := range map[string]float64{
				"mean_ttft": m.TTFTMs, "mean_tpot": m.TPOTMs, "mean_itl": *m.ITLMs, "mean_e2el": *m.E2ELMs,
				"median_ttft": *m.MedianTTFTMs, "p99_ttft": *m.P99TTFTMs, "median_tpot": *m.MedianTPOTMs, "p99_tpot": *m.P99TPOTMs,
			} {
				if want := r[name].(float64) * 1000; got != want {
					t.Errorf("%s@%s: %s = %v ms, source row %d says %v ms", u.ID, p.Load.Key(), name, got, *pr.Row, want)
				}
			}
			if s := u.Settings(i).MaxNumSeqs; s == nil || s.Value != p.Load.Concurrency {
				t.Errorf("%s@%s: max_num_seqs %v, want the concurrency", u.ID, p.Load.Key(), s)
			}
			checked++
		}
	}
	if d := cmp.Diff(wantPoints, gotPoints); d != "" {
		t.Errorf("H100 units and their point counts (-source +ledger):\n%s", d)
	}
	if checked != 43 {
		t.Errorf("checked %d H100 points, corpus/sources/README.md lists 43", checked)
	}
}

func TestRealAccounting(t *testing.T) {
	t.Parallel()
	res, data := importReal(t)
	r := res.Report

	rowsIn, vllmRows := 0, 0
	files, _ := filepath.Glob(filepath.Join(data, "inferencex", "*", "*.json"))
	for _, f := range files {
		for _, row := range readRows(t, f) {
			rowsIn++
			if row["framework"] == "vllm" {
				vllmRows++
			}
		}
	}
	stages, _ := filepath.Glob(filepath.Join(data, "inference-perf", "*", "results", "stage_*_lifecycle_metrics.json"))
	rowsIn += len(stages)
	if r.RowsIn != rowsIn || r.PointsOut+sum(r.Excluded) != r.RowsIn {
		t.Errorf("rows_in %d (files hold %d), points_out %d, excluded %d", r.RowsIn, rowsIn, r.PointsOut, sum(r.Excluded))
	}
	if got := r.Excluded[ReasonNotVLLM]; got != rowsIn-len(stages)-vllmRows {
		t.Errorf("not vllm: %d, the files hold %d non-vLLM rows", got, rowsIn-len(stages)-vllmRows)
	}
	// The v0.11.2 sweep and its retries are all re-measured by v0.13.0.
	if got, want := r.Excluded[ReasonDuplicate], vllmRows-150; got != want {
		t.Errorf("duplicates: %d, want %d (every vLLM row but the 150 of the v0.13.0 sweep)", got, want)
	}
	// The three overloaded reasoning stages of corpus/sources/README.md.
	if r.PointsOut != 150+len(stages) || !cmp.Equal(r.Marked, map[string]int{ReasonOverloaded: 3}) {
		t.Errorf("points_out %d, marked %v; want 150 InferenceX + %d inference-perf, 3 marked overloaded", r.PointsOut, r.Marked, len(stages))
	}
	if r.Corrected[RuleChunkTiming] != len(stages) {
		t.Errorf("corrected %v, want every one of the %d inference-perf stages", r.Corrected, len(stages))
	}
	perHW := map[string]int{}
	for _, u := range res.Units {
		if u.Workload.Client == ledger.ClientInferenceX {
			perHW[u.Deployment.Hardware] += len(u.Points)
		}
	}
	if d := cmp.Diff(map[string]int{"H100": 43, "H200": 51, "B200": 56}, perHW); d != "" {
		t.Errorf("InferenceX points per GPU, as corpus/sources/README.md lists them (-want +got):\n%s", d)
	}
}

func TestRealRecipeByGPU(t *testing.T) {
	t.Parallel()
	res, _ := importReal(t)
	for _, tc := range []struct {
		id          string
		maxModelLen int
		maxNumSeqs  int // 0: per point = concurrency
		kvFP8       bool
	}{
		{"inferencex/gpt-oss-120b/h200/tp1/isl1024-osl1024", 2068, 0, false},
		{"inferencex/gpt-oss-120b/h200/tp8/isl8192-osl1024", 9416, 0, false},
		{"inferencex/gpt-oss-120b/b200/tp2/isl1024-osl8192", 9416, 512, true},
		{"inferencex/gpt-oss-120b/b200/tp4/isl1024-osl1024", 2068, 512, true},
	} {
		u := findUnit(t, res, tc.id)
		e := u.Deployment.Engines
		if e.MaxModelLen.Value != tc.maxModelLen {
			t.Errorf("%s: max_model_len %d, want %d", tc.id, e.MaxModelLen.Value, tc.maxModelLen)
		}
		if (e.KVCacheDtype != nil && e.KVCacheDtype.Value == "fp8") != tc.kvFP8 {
			t.Errorf("%s: kv_cache_dtype %v", tc.id, mustJSON(e.KVCacheDtype))
		}
		for i, p := range u.Points {
			want := tc.maxNumSeqs
			if want == 0 {
				want = p.Load.Concurrency
			}
			if s := u.Settings(i).MaxNumSeqs; s.Value != want {
				t.Errorf("%s@%s: max_num_seqs %d, want %d", tc.id, p.Load.Key(), s.Value, want)
			}
			if u.Evidence(i) != ledger.Resolved {
				t.Errorf("%s@%s: evidence %s, want resolved", tc.id, p.Load.Key(), u.Evidence(i))
			}
		}
	}
}

// TestRealInferencePerf checks every inference-perf point against its stage
// file, read independently: TTFT and E2E as recorded, TPOT derived as
// (E2E − TTFT)/(L − 1) with L from results/config.yaml (about twice the
// recorded figure, which the derivation keeps), the failure counts, and the
// three overloaded stages of corpus/sources/README.md marked.
func TestRealInferencePerf(t *testing.T) {
	t.Parallel()
	res, data := importReal(t)
	byArtifact := map[string]ledger.Point{}
	for _, u := range res.Units {
		for _, p := range u.Points {
			byArtifact[p.Provenance.Artifact] = p
		}
	}
	stages, _ := filepath.Glob(filepath.Join(data, "inference-perf", "*", "results", "stage_*_lifecycle_metrics.json"))
	if len(stages) != 21 {
		t.Errorf("%d stage files, corpus/sources/README.md lists 21 stages of 14 runs", len(stages))
	}
	overloaded := map[string]int{}
	for _, f := range stages {
		rel, _ := filepath.Rel(data, f)
		p, ok := byArtifact[filepath.ToSlash(rel)]
		if !ok {
			t.Errorf("%s: no point", rel)
			continue
		}
		e2e, ttft, tpot, _, _, l := stageFigures(t, f)
		var s struct {
			Successes struct{ Count int }
			Failures  struct{ Count int }
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		m := p.Measured
		derived := (e2e - ttft) / float64(l-1) * 1000
		if m.TTFTMs != ttft*1000 || *m.E2ELMs != e2e*1000 || math.Abs(m.TPOTMs/derived-1) > 1e-12 ||
			m.TPOTDerivation == nil || m.TPOTDerivation.RecordedTPOTMs != tpot*1000 ||
			*m.Requests != s.Successes.Count || *m.FailedRequests != s.Failures.Count {
			t.Errorf("%s: %s does not match the stage file", rel, mustJSON(m))
		}
		if r := m.TPOTMs / (tpot * 1000); r < 1.99 || r > 2.03 {
			t.Errorf("%s: derived / recorded TPOT %.4f, want about 2", rel, r)
		}
		if s.Failures.Count > 0 {
			overloaded[strings.SplitN(rel, string(filepath.Separator), 3)[1]] = s.Failures.Count
			if p.Excluded != ReasonOverloaded {
				t.Errorf("%s: %d failed requests, marked %q", rel, s.Failures.Count, p.Excluded)
			}
		} else if p.Excluded != "" {
			t.Errorf("%s: marked %q", rel, p.Excluded)
		}
	}
	want := map[string]int{
		"20260217-170634-llama-2-7b-tp1-reasoning":     4068,
		"20260218-065057-llama-2-70b-hf-tp4-reasoning": 1600,
		"20260218-160939-codellama-34b-tp2-reasoning":  4,
	}
	if d := cmp.Diff(want, overloaded); d != "" {
		t.Errorf("overloaded stages (-README +found):\n%s", d)
	}
}
