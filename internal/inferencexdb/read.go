// Package inferencexdb reads benchmark results out of the InferenceX
// database (PostgreSQL; schema of the InferenceX app repository,
// github.com/SemiAnalysisAI/InferenceX-app, packages/db/migrations) with
// pgx. It is the one package that talks to PostgreSQL: it returns plain
// rows, and package importer applies the corpus rules to them.
//
// What the tables hold (facts from the app's migrations and its ingest):
//
//   - configs: one serving deployment: hardware (a lowercase GPU key such
//     as "h100"), framework ("vllm", "sglang", ...), model (a lowercase
//     model key such as "gptoss120b" or "dsr1", not the HuggingFace id),
//     precision (vendor forms folded: "mxfp4" and "nvfp4" are "fp4"),
//     spec_method ("none" when absent), disagg, is_multinode and the
//     prefill_*/decode_* topology (single-node rows carry tp/ep/dp_attention
//     in both).
//   - benchmark_results: one measured point of one workflow run:
//     workflow_run_id (the id of a workflow_runs row, not the GitHub run id),
//     config_id, benchmark_type ("single_turn" for fixed ISL/OSL sweeps),
//     date (the run's date), isl, osl, conc, image (null before 2025-12-08),
//     metrics (jsonb: the agg_bmk row's numeric fields under their own names,
//     latencies in seconds), error (null on success), server_log_id.
//   - server_logs: the serving engine's log of a benchmark job
//     (server_log text), shared by the results of that job.
//   - workflow_runs: the GitHub Actions run: github_run_id and run_attempt
//     (one row per attempt), html_url, date. It is the only table naming the
//     GitHub run, so an import needs it.
//
// Read uses configs, benchmark_results and workflow_runs; server_logs is
// not read yet (see docs/LEDGER.md, "Known gaps").
package inferencexdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Tables are the tables Read needs. (A restore brings server_logs too, for
// reading the engine's arguments from its log, which Read does not do yet.)
var Tables = []string{"configs", "benchmark_results", "workflow_runs"}

// Result is one benchmark_results row joined with its config and its
// workflow run.
type Result struct {
	// ID is benchmark_results.id.
	ID int64
	// GitHubRunID and RunAttempt identify the workflow run; LatestAttempt
	// is true when no other attempt of the same GitHub run has a higher
	// run_attempt (the attempt InferenceX itself shows).
	GitHubRunID   int64
	RunAttempt    int
	LatestAttempt bool
	// BenchmarkType is "single_turn" for fixed-length sweeps.
	BenchmarkType string
	// Date is the run's date, YYYY-MM-DD.
	Date         string
	ISL, OSL     int
	Conc         int
	Image        string // "" when null
	Metrics      []byte // the metrics jsonb as JSON text
	Error        string // "" when null (success)
	Hardware     string
	Framework    string
	Model        string
	Precision    string
	SpecMethod   string
	Disagg       bool
	MultiNode    bool
	DecodeTP     int
	DecodeEP     int
	DecodeDPAttn bool
}

// query reads every result, ordered so that a run's rows come together in
// the order they were stored (by id). isl and osl are null for agentic
// rows in newer schemas; they read as 0 then.
const query = `
select br.id, wr.github_run_id, wr.run_attempt,
       wr.run_attempt = max(wr.run_attempt) over (partition by wr.github_run_id) as latest_attempt,
       br.benchmark_type, to_char(br.date, 'YYYY-MM-DD'),
       coalesce(br.isl, 0), coalesce(br.osl, 0), br.conc,
       coalesce(br.image, ''), br.metrics::text, coalesce(br.error, ''),
       c.hardware, c.framework, c.model, c.precision, c.spec_method,
       c.disagg, c.is_multinode, c.decode_tp, c.decode_ep, c.decode_dp_attention
from benchmark_results br
join configs c on c.id = br.config_id
join workflow_runs wr on wr.id = br.workflow_run_id
order by wr.github_run_id, wr.run_attempt, br.id`

// Read connects to the database named by connString (a libpq connection
// string or postgres:// URL; libpq's PG* environment variables apply, so a
// password can stay out of it in PGPASSWORD) and reads every benchmark
// result. A missing table is an error naming it; so is a connection string
// that does not parse (the message never repeats a password).
func Read(ctx context.Context, connString string) ([]Result, error) {
	cfg, err := parse(connString)
	if err != nil {
		return nil, err
	}
	where := describe(cfg)
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres %s: %w", where, err)
	}
	defer conn.Close(context.Background())

	var missing []string
	for _, t := range Tables {
		var ok bool
		if err := conn.QueryRow(ctx, "select to_regclass($1) is not null", t).Scan(&ok); err != nil {
			return nil, fmt.Errorf("postgres %s: %w", where, err)
		}
		if !ok {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("postgres %s: table(s) %v missing: restore %v from an InferenceX dump (scripts/restore-inferencex-dump.sh)", where, missing, Tables)
	}

	rows, err := conn.Query(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("postgres %s: reading benchmark_results: %w", where, err)
	}
	var out []Result
	for rows.Next() {
		var r Result
		if err := rows.Scan(&r.ID, &r.GitHubRunID, &r.RunAttempt, &r.LatestAttempt,
			&r.BenchmarkType, &r.Date, &r.ISL, &r.OSL, &r.Conc,
			&r.Image, &r.Metrics, &r.Error,
			&r.Hardware, &r.Framework, &r.Model, &r.Precision, &r.SpecMethod,
			&r.Disagg, &r.MultiNode, &r.DecodeTP, &r.DecodeEP, &r.DecodeDPAttn); err != nil {
			rows.Close()
			return nil, fmt.Errorf("postgres %s: reading benchmark_results: %w", where, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres %s: reading benchmark_results: %w", where, err)
	}
	return out, nil
}

// Name names the database of connString for messages and reports, without
// its password: `database "D" on HOST port P` (a Unix socket directory is a
// host).
func Name(connString string) (string, error) {
	cfg, err := parse(connString)
	if err != nil {
		return "", err
	}
	return describe(cfg), nil
}

func parse(connString string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		// pgconn's parse errors may quote the string; say only what failed.
		var pe *pgconn.ParseConfigError
		if errors.As(err, &pe) {
			return nil, errors.New("postgres connection string: does not parse (want a libpq key=value string or a postgres:// URL)")
		}
		return nil, fmt.Errorf("postgres connection string: %w", err)
	}
	return cfg, nil
}

func describe(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("database %q on %s port %d", cfg.Database, cfg.Host, cfg.Port)
}
