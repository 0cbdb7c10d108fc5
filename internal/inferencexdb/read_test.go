package inferencexdb_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/inferencexdb"
	"github.com/inference-sim/accuracy-dashboard/internal/inferencexdb/inferencexdbtest"
)

// TestReadJoinsTheTables loads two real agg_bmk rows (a vLLM row and a
// multi-node Dynamo row) and one later attempt, and checks what Read returns.
func TestReadJoinsTheTables(t *testing.T) {
	t.Parallel()
	conn, connString := inferencexdbtest.OpenWithSchema(t)
	ctx := context.Background()
	agg, err := os.ReadFile("../importer/testdata/postgres/run_20321908209.json")
	if err != nil {
		t.Fatal(err)
	}
	vllm, err := os.ReadFile("../importer/testdata/postgres/run_20662362255.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []inferencexdbtest.Run{
		{GitHubRunID: 20662362255, Attempt: 1, Date: "2026-01-05", AggBmk: vllm, ServerLog: "INFO vLLM API server version 0.13.0"},
		{GitHubRunID: 20321908209, Attempt: 1, Date: "2025-12-12", AggBmk: agg},
		{GitHubRunID: 20321908209, Attempt: 2, Date: "2025-12-13", AggBmk: agg, Error: "timeout"},
	} {
		if err := inferencexdbtest.Load(ctx, conn, run); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := inferencexdb.Read(ctx, connString)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 7+3+3 {
		t.Fatalf("got %d rows, want 13", len(rows))
	}
	// Ordered by GitHub run, attempt, id.
	first := rows[0]
	if first.GitHubRunID != 20321908209 || first.RunAttempt != 1 || first.LatestAttempt || first.Error != "" {
		t.Errorf("first row: %+v", first)
	}
	if first.Framework != "dynamo-trt" || first.Model != "dsr1" || first.Hardware != "gb200" || !first.Disagg || !first.MultiNode ||
		first.SpecMethod != "mtp" || first.DecodeTP != 32 || first.DecodeEP != 32 || !first.DecodeDPAttn || first.Image != "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.5.1-rc0.pre3" {
		t.Errorf("first row config: %+v", first)
	}
	if r := rows[3]; r.RunAttempt != 2 || !r.LatestAttempt || r.Error != "timeout" || r.Date != "2025-12-13" {
		t.Errorf("row of attempt 2: %+v", r)
	}
	v := rows[6]
	if v.GitHubRunID != 20662362255 || v.Framework != "vllm" || v.Model != "gptoss120b" || v.Hardware != "h100" ||
		v.Precision != "fp4" || v.SpecMethod != "none" || v.DecodeTP != 4 || v.DecodeEP != 1 || v.DecodeDPAttn ||
		v.ISL != 1024 || v.OSL != 1024 || v.Conc != 32 || v.Image != "vllm/vllm-openai:v0.13.0" ||
		v.BenchmarkType != "single_turn" || v.Date != "2026-01-05" {
		t.Errorf("vLLM row: %+v", v)
	}
	if !strings.Contains(string(v.Metrics), `"mean_ttft": 0.`) {
		t.Errorf("metrics: %s", v.Metrics)
	}
}

func TestReadNamesMissingTables(t *testing.T) {
	t.Parallel()
	conn, connString := inferencexdbtest.Open(t)
	if _, err := conn.Exec(context.Background(), "create table configs (id serial primary key)"); err != nil {
		t.Fatal(err)
	}
	_, err := inferencexdb.Read(context.Background(), connString)
	if err == nil || !strings.Contains(err.Error(), "[benchmark_results workflow_runs] missing") {
		t.Fatalf("err = %v", err)
	}
}

func TestReadRefusesABadConnectionString(t *testing.T) {
	t.Parallel()
	_, err := inferencexdb.Read(context.Background(), "host=/nonexistent port=notaport password=s3cret")
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("err = %v", err)
	}
}
