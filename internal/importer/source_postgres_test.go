package importer

import (
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/inferencexdb"
)

// dbResult is a database row of the vLLM v0.13.0 H100 TP4 1k/1k point at
// concurrency 4 (run 20662362255; figures from testdata/postgres).
func dbResult(id int64) inferencexdb.Result {
	return inferencexdb.Result{
		ID: id, GitHubRunID: 20662362255, RunAttempt: 1, LatestAttempt: true,
		BenchmarkType: "single_turn", Date: "2026-01-05", ISL: 1024, OSL: 1024, Conc: 4,
		Image:    "vllm/vllm-openai:v0.13.0",
		Metrics:  []byte(`{"mean_ttft": 0.0455, "mean_tpot": 0.00431, "avg_util_pct": 87.5}`),
		Hardware: "h100", Framework: "vllm", Model: "gptoss120b", Precision: "fp4", SpecMethod: "none",
		DecodeTP: 4, DecodeEP: 1,
	}
}

func TestImportPostgresRows(t *testing.T) {
	opts := importreport.Options{Versions: 5, Name: "t", Version: "1", Postgres: `database "x" on /tmp port 5432`}
	unknown := dbResult(2)
	unknown.Model, unknown.Conc = "kimik2.5", 8
	failed := dbResult(3)
	failed.Error = "timeout"
	agentic := dbResult(4)
	agentic.BenchmarkType = "agentic_traces"
	// Not read: agentic rows keep strings in metrics too.
	agentic.Metrics = []byte(`{"offload_mode": "on", "mean_tpot": "n/a"}`)
	res, err := ImportPostgres(opts, []inferencexdb.Result{dbResult(1), unknown, failed, agentic})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Report
	if r.PointsOut != 1 || r.Excluded[ReasonUnknownModel] != 1 || r.Excluded[ReasonFailedResult] != 1 || r.Excluded[ReasonNotFixedLength] != 1 {
		t.Fatalf("report: %+v", r)
	}
	p := res.Units[0].Points[0]
	if res.Units[0].Deployment.Model != "openai/gpt-oss-120b" || p.Provenance.Artifact != "run_20662362255.json" ||
		*p.Provenance.Row != 0 || p.Provenance.Date != "2026-01-05" || p.Measured.TTFTMs != 45.5 {
		t.Errorf("point: %+v in %+v", p, res.Units[0].Deployment)
	}
	if len(r.Sources) != 1 || r.Sources[0].Kind != KindPostgres || r.Sources[0].RowsIn != 4 {
		t.Errorf("sources: %+v", r.Sources)
	}
}

func TestImportPostgresRefusesBadMetrics(t *testing.T) {
	bad := dbResult(77)
	bad.Metrics = []byte(`{"mean_ttft": "fast", "mean_tpot": 0.004}`)
	_, err := ImportPostgres(importreport.Options{Versions: 5, Name: "t", Version: "1", Postgres: "db"}, []inferencexdb.Result{bad})
	if err == nil || !strings.Contains(err.Error(), "benchmark_results id 77") || !strings.Contains(err.Error(), "mean_ttft") {
		t.Fatalf("err = %v", err)
	}
	if _, err := ImportPostgres(importreport.Options{Versions: 5, Name: "t", Version: "1"}, nil); err == nil {
		t.Error("an unnamed database imported")
	}
}
