// Package inferencexdbtest gives tests a real PostgreSQL database laid out
// like the InferenceX database, and loads agg_bmk artifact rows into it the
// way InferenceX's ingest stores them. Only tests import it.
//
// The database comes from ACCURACY_TEST_POSTGRES (a connection string;
// .ci/run starts a throwaway cluster and sets it). Each test gets a fresh
// database of its own, dropped when the test ends. Without the variable a
// test is skipped, except in CI (CI=true), where it fails.
package inferencexdbtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
	"github.com/jackc/pgx/v5"
)

// EnvVar names the connection string of the test server.
const EnvVar = "ACCURACY_TEST_POSTGRES"

// Schema creates the four tables the importer reads, with the columns and
// constraints of the InferenceX app's schema (packages/db/migrations,
// 001_initial_schema.sql and later additions) that matter here. Written from
// those facts; the app's other tables and views are left out.
const Schema = `
create table configs (
  id serial primary key,
  hardware text not null check (hardware = lower(hardware)),
  framework text not null check (framework = lower(framework)),
  model text not null check (model = lower(model)),
  precision text not null check (precision = lower(precision)),
  spec_method text not null check (spec_method = lower(spec_method)),
  disagg boolean not null default false,
  is_multinode boolean not null default false,
  prefill_tp smallint not null check (prefill_tp >= 1),
  prefill_ep smallint not null default 1 check (prefill_ep >= 1),
  prefill_dp_attention boolean not null default false,
  prefill_num_workers smallint not null default 0,
  decode_tp smallint not null check (decode_tp >= 1),
  decode_ep smallint not null default 1 check (decode_ep >= 1),
  decode_dp_attention boolean not null default false,
  decode_num_workers smallint not null default 0,
  num_prefill_gpu smallint not null,
  num_decode_gpu smallint not null,
  unique (hardware, framework, model, precision, spec_method, disagg, is_multinode,
    prefill_tp, prefill_ep, prefill_dp_attention, prefill_num_workers,
    decode_tp, decode_ep, decode_dp_attention, decode_num_workers,
    num_prefill_gpu, num_decode_gpu)
);
create table workflow_runs (
  id bigserial primary key,
  github_run_id bigint not null,
  run_attempt smallint not null default 0,
  name text not null,
  html_url text,
  created_at timestamptz not null,
  date date not null,
  unique (github_run_id, run_attempt)
);
create table server_logs (
  id bigserial primary key,
  server_log text not null
);
create table benchmark_results (
  id bigserial primary key,
  workflow_run_id bigint not null references workflow_runs(id),
  config_id integer not null references configs(id),
  benchmark_type text not null,
  date date not null,
  isl integer check (isl is null or isl > 0),
  osl integer check (osl is null or osl > 0),
  conc integer not null check (conc > 0),
  image text,
  metrics jsonb not null,
  error text,
  server_log_id bigint references server_logs(id),
  offload_mode text not null default 'off',
  unique (workflow_run_id, config_id, benchmark_type, isl, osl, conc)
);
`

// Open returns a connection to a fresh, empty database on the test server
// (created for this test, dropped at its end) and that database's
// connection string.
func Open(t testing.TB) (*pgx.Conn, string) {
	t.Helper()
	base := os.Getenv(EnvVar)
	if base == "" {
		testkit.Missing(t, "PostgreSQL", fmt.Errorf("%s is not set", EnvVar),
			"set it to a connection string (bash .ci/start-postgres.sh starts a server and prints it; .ci/run does both)")
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connecting to the test server (%s): %v", EnvVar, err)
	}
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	name := "test_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "create database "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	cfg, err := pgx.ParseConfig(base)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = name
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connecting to %s: %v", name, err)
	}
	t.Cleanup(func() {
		conn.Close(ctx)
		if _, err := admin.Exec(ctx, "drop database if exists "+name); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		admin.Close(ctx)
	})
	return conn, withDatabase(base, name)
}

// withDatabase is connString naming database name instead.
func withDatabase(connString, name string) string {
	if u, err := url.Parse(connString); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + name
		return u.String()
	}
	return connString + " dbname=" + name // a later key wins
}

// OpenWithSchema is Open with Schema created.
func OpenWithSchema(t testing.TB) (*pgx.Conn, string) {
	t.Helper()
	conn, connString := Open(t)
	if _, err := conn.Exec(context.Background(), Schema); err != nil {
		t.Fatalf("creating the schema: %v", err)
	}
	return conn, connString
}

// Run is one workflow run to load: its GitHub run id, attempt and date,
// and its agg_bmk artifact (a JSON array of rows).
type Run struct {
	GitHubRunID int64
	Attempt     int
	Date        string // YYYY-MM-DD
	AggBmk      []byte
	// Error, when set, is stored as every row's error (a failed result).
	Error string
	// BenchmarkType overrides "single_turn" for every row.
	BenchmarkType string
	// ServerLog, when set, is stored once and linked to every row.
	ServerLog string
}

// Load stores run's rows as InferenceX's ingest does: a workflow_runs row;
// each artifact row mapped to a configs row (created once per natural key)
// and a benchmark_results row, in artifact order. The mapping follows the
// app's normalizers (packages/db/src/etl/normalizers.ts and
// benchmark-mapper.ts): model key from infmax_model_prefix (else the
// model path), GPU key = the runner type before the first "-", framework
// lowercased with its aliases, precision lowercased with mxfp4/nvfp4 as
// fp4, an absent speculative method as "none", single-node tp/ep/
// dp_attention copied to both prefill_* and decode_*, "#" in the image
// read as "/", and every numeric field that is not an identity field kept
// in metrics under its own name. A row it cannot map is an error (the
// app's ingest would skip it, which would shift the rows' order).
func Load(ctx context.Context, conn *pgx.Conn, run Run) error {
	var rows []map[string]json.RawMessage
	if err := json.Unmarshal(run.AggBmk, &rows); err != nil {
		return fmt.Errorf("run %d: %w", run.GitHubRunID, err)
	}
	created, err := time.Parse(time.DateOnly, run.Date)
	if err != nil {
		return fmt.Errorf("run %d: %w", run.GitHubRunID, err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var wrID int64
	err = tx.QueryRow(ctx, `insert into workflow_runs (github_run_id, run_attempt, name, html_url, created_at, date)
		values ($1, $2, 'Full Sweep', $3, $4, $5) returning id`,
		run.GitHubRunID, run.Attempt,
		fmt.Sprintf("https://github.com/SemiAnalysisAI/InferenceX/actions/runs/%d", run.GitHubRunID),
		created, run.Date).Scan(&wrID)
	if err != nil {
		return fmt.Errorf("run %d: workflow_runs: %w", run.GitHubRunID, err)
	}
	var logID *int64
	if run.ServerLog != "" {
		var id int64
		if err := tx.QueryRow(ctx, `insert into server_logs (server_log) values ($1) returning id`, run.ServerLog).Scan(&id); err != nil {
			return err
		}
		logID = &id
	}
	btype := run.BenchmarkType
	if btype == "" {
		btype = "single_turn"
	}
	for i, raw := range rows {
		r, err := mapRow(raw)
		if err != nil {
			return fmt.Errorf("run %d row %d: %w", run.GitHubRunID, i, err)
		}
		var configID int
		err = tx.QueryRow(ctx, `
			with ins as (
			  insert into configs (hardware, framework, model, precision, spec_method, disagg, is_multinode,
			    prefill_tp, prefill_ep, prefill_dp_attention, prefill_num_workers,
			    decode_tp, decode_ep, decode_dp_attention, decode_num_workers, num_prefill_gpu, num_decode_gpu)
			  values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17)
			  on conflict do nothing returning id)
			select id from ins
			union all
			select id from configs where (hardware, framework, model, precision, spec_method, disagg, is_multinode,
			    prefill_tp, prefill_ep, prefill_dp_attention, prefill_num_workers,
			    decode_tp, decode_ep, decode_dp_attention, decode_num_workers, num_prefill_gpu, num_decode_gpu)
			  = ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17)
			limit 1`,
			r.hardware, r.framework, r.model, r.precision, r.spec, r.disagg, r.multinode,
			r.prefill.tp, r.prefill.ep, r.prefill.dpa, r.prefill.workers,
			r.decode.tp, r.decode.ep, r.decode.dpa, r.decode.workers, r.prefillGPUs, r.decodeGPUs).Scan(&configID)
		if err != nil {
			return fmt.Errorf("run %d row %d: configs: %w", run.GitHubRunID, i, err)
		}
		var errText *string
		if run.Error != "" {
			errText = &run.Error
		}
		var image *string
		if r.image != "" {
			image = &r.image
		}
		_, err = tx.Exec(ctx, `insert into benchmark_results
			(workflow_run_id, config_id, benchmark_type, date, isl, osl, conc, image, metrics, error, server_log_id)
			values ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11)`,
			wrID, configID, btype, run.Date, r.isl, r.osl, r.conc, image, string(r.metrics), errText, logID)
		if err != nil {
			return fmt.Errorf("run %d row %d: benchmark_results: %w", run.GitHubRunID, i, err)
		}
	}
	return tx.Commit(ctx)
}

type side struct {
	tp, ep, workers int
	dpa             bool
}

type dbRow struct {
	hardware, framework, model, precision, spec string
	disagg, multinode                           bool
	prefill, decode                             side
	prefillGPUs, decodeGPUs                     int
	isl, osl, conc                              int
	image                                       string
	metrics                                     []byte
}

// nonMetric are the artifact fields that are identity or routing, never
// metrics (benchmark-mapper.ts NON_METRIC_KEYS, the part agg_bmk rows use).
var nonMetric = map[string]bool{
	"hw": true, "model": true, "framework": true, "precision": true, "infmax_model_prefix": true,
	"isl": true, "osl": true, "conc": true, "image": true, "disagg": true, "is_multinode": true,
	"spec_decoding": true, "tp": true, "ep": true, "dp_attention": true,
	"prefill_tp": true, "prefill_ep": true, "prefill_dp_attention": true, "prefill_num_workers": true,
	"decode_tp": true, "decode_ep": true, "decode_dp_attention": true, "decode_num_workers": true,
	"num_gpus": true, "num_prefill_gpu": true, "num_decode_gpu": true,
}

// Model keys of the app (normalizers.ts): infmax_model_prefix aliases and
// full model paths, as far as the fixtures need them.
var (
	prefixKeys = map[string]string{"gptoss": "gptoss120b", "gptoss120b": "gptoss120b", "dsr1": "dsr1"}
	modelKeys  = map[string]string{
		"openai/gpt-oss-120b":          "gptoss120b",
		"deepseek-ai/DeepSeek-R1-0528": "dsr1",
		"deepseek-ai/DeepSeek-R1":      "dsr1",
	}
	frameworkAliases = map[string]string{"dynamo-trtllm": "dynamo-trt", "sglang-disagg": "mori-sglang"}
)

func mapRow(raw map[string]json.RawMessage) (*dbRow, error) {
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(raw[k], &s)
		return s
	}
	num := func(k string) int {
		var n int
		_ = json.Unmarshal(raw[k], &n)
		return n
	}
	boolean := func(k string) bool {
		var b bool
		if json.Unmarshal(raw[k], &b) == nil {
			return b
		}
		return strings.EqualFold(str(k), "true")
	}
	r := &dbRow{isl: num("isl"), osl: num("osl"), conc: num("conc")}
	model, ok := prefixKeys[strings.ToLower(str("infmax_model_prefix"))]
	if !ok {
		if model, ok = modelKeys[str("model")]; !ok {
			return nil, fmt.Errorf("no model key for model %q, prefix %q", str("model"), str("infmax_model_prefix"))
		}
	}
	r.model = model
	hw := strings.ToLower(str("hw"))
	if i := strings.LastIndexByte(hw, ':'); i >= 0 {
		hw = hw[i+1:]
	}
	r.hardware, _, _ = strings.Cut(hw, "-")
	r.framework = strings.ToLower(str("framework"))
	r.disagg = boolean("disagg")
	if a, ok := frameworkAliases[r.framework]; ok {
		r.framework = a
		if a == "mori-sglang" {
			r.disagg = true
		}
	}
	r.precision = strings.ToLower(str("precision"))
	if r.precision == "mxfp4" || r.precision == "nvfp4" {
		r.precision = "fp4"
	}
	r.spec = strings.ToLower(str("spec_decoding"))
	if r.spec == "" {
		r.spec = "none"
	}
	r.multinode = boolean("is_multinode")
	if _, v1 := raw["tp"]; v1 {
		s := side{tp: num("tp"), ep: num("ep"), dpa: boolean("dp_attention")}
		r.prefill, r.decode = s, s
		r.prefillGPUs, r.decodeGPUs = s.tp, s.tp
	} else {
		r.prefill = side{tp: num("prefill_tp"), ep: num("prefill_ep"), dpa: boolean("prefill_dp_attention"), workers: num("prefill_num_workers")}
		r.decode = side{tp: num("decode_tp"), ep: num("decode_ep"), dpa: boolean("decode_dp_attention"), workers: num("decode_num_workers")}
		r.prefillGPUs, r.decodeGPUs = num("num_prefill_gpu"), num("num_decode_gpu")
	}
	if r.prefill.ep == 0 {
		r.prefill.ep = 1
	}
	if r.decode.ep == 0 {
		r.decode.ep = 1
	}
	r.image = strings.ReplaceAll(str("image"), "#", "/")

	// Metrics: the numeric fields, digits as written.
	keys := slices.Sorted(maps.Keys(raw))
	var buf bytes.Buffer
	buf.WriteByte('{')
	for _, k := range keys {
		v := bytes.TrimSpace(raw[k])
		if nonMetric[k] || len(v) == 0 {
			continue
		}
		if _, err := strconv.ParseFloat(string(v), 64); err != nil {
			continue // not a JSON number (null, a string, ...)
		}
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	r.metrics = buf.Bytes()
	return r, nil
}
