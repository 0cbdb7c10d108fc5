package importer

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/inferencexdb"
)

// Reasons only a database row can have; they come before the other reasons.
const (
	// ReasonSupersededAttempt: the row belongs to an attempt of a GitHub run
	// that was re-run; InferenceX itself shows only the latest attempt.
	ReasonSupersededAttempt = "superseded run attempt"
	// ReasonFailedResult: the row records a failed benchmark (its error is
	// set), not a measurement.
	ReasonFailedResult = "failed result (error recorded)"
	// ReasonNotFixedLength: the row is not a fixed ISL/OSL sweep point
	// (benchmark_type other than single_turn, e.g. agentic trace replay).
	ReasonNotFixedLength = "not a fixed-length benchmark"
)

// KindPostgres is the report kind of a run read from the InferenceX database.
const KindPostgres = "inferencex-postgres"

// ImportPostgres applies the corpus rules to benchmark results read from the
// InferenceX database (inferencexdb.Read, in its order: by GitHub run,
// attempt and id). opts.Postgres names the database in the report;
// opts.Sources stays empty. The rows become what the same rows give when
// read from the runs' agg_bmk artifacts (see inferenceXDatabase).
func ImportPostgres(opts importreport.Options, results []inferencexdb.Result) (*Result, error) {
	if opts.Postgres == "" {
		return nil, errors.New("postgres import: the database is not named (Options.Postgres)")
	}
	if len(opts.Sources) > 0 {
		return nil, fmt.Errorf("postgres import: artifact sources %v given too; import them separately", opts.Sources)
	}
	return ImportFrom(opts, inferenceXDatabase{results: results})
}

// ImportDatabase reads the InferenceX database at connString (a libpq
// connection string or URL; inferencexdb.Read) and imports its rows
// (ImportPostgres), naming the database in the report as inferencexdb.Name
// does (never its password). The errors are those two's.
func ImportDatabase(ctx context.Context, connString string, opts importreport.Options) (*Result, error) {
	name, err := inferencexdb.Name(connString)
	if err != nil {
		return nil, err
	}
	results, err := inferencexdb.Read(ctx, connString)
	if err != nil {
		return nil, err
	}
	opts.Postgres = name
	return ImportPostgres(opts, results)
}

// inferenceXDatabase is the Source of benchmark results read from the
// InferenceX database. The database stores each workflow run's agg_bmk rows
// (one benchmark_results row each, its config in configs), so a database
// row is read as that artifact's row: one report entry per GitHub run and
// attempt, named run_<github run id>.json like the artifact, the row's
// position among the stored rows of its run attempt (by id) as its index,
// the run's date from the database. InferenceX's ingest stores an
// artifact's rows in order, but skips rows it cannot map (unknown model or
// GPU) and keeps only the last of rows repeating one config, ISL, OSL and
// concurrency; only then does the index differ from the artifact's row.
type inferenceXDatabase struct {
	results []inferencexdb.Result
}

// databaseModels maps the database's model keys (configs.model) to
// HuggingFace ids; other keys go through the API's short names and are
// excluded as unknown there.
var databaseModels = map[string]string{
	"gptoss120b": "openai/gpt-oss-120b",
	"dsr1":       "deepseek-ai/DeepSeek-R1-0528",
}

func (s inferenceXDatabase) Read(rows *Rows) error {
	type attempt struct {
		run     int64
		attempt int
	}
	var (
		errs  []error
		in    *Input
		cur   attempt
		index int
	)
	for i, r := range s.results {
		key := attempt{r.GitHubRunID, r.RunAttempt}
		runID := strconv.FormatInt(r.GitHubRunID, 10)
		artifact := "run_" + runID + ".json"
		if i == 0 || key != cur {
			cur, index = key, 0
			path, line := artifact, fmt.Sprintf("%s: InferenceX agg_bmk artifact of run %s", artifact, aggBmkRunURL(runID))
			if !r.LatestAttempt {
				path, line = fmt.Sprintf("%s (attempt %d)", artifact, r.RunAttempt), ""
			}
			in = rows.Input(path, KindPostgres, line)
		}
		row := Row{Artifact: artifact, Index: index, RunID: runID}
		index++
		switch {
		case !r.LatestAttempt:
			row.Exclude = ReasonSupersededAttempt
		case r.Error != "":
			row.Exclude = ReasonFailedResult
		case r.BenchmarkType != "single_turn":
			// Agentic rows keep other things in metrics (strings too).
			row.Exclude = ReasonNotFixedLength
		default:
			x, err := databaseRow(r, row.Index)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			// Read as an API row: a model key databaseModels does not map
			// is looked up among the API's short names, else unknown.
			row = inferenceXRow(artifact, runID, aggBmkRunURL(runID), true, x, nil)
		}
		in.Add(row)
	}
	return errors.Join(errs...)
}

// databaseRow is the XRow of one database row; its metrics are decoded
// strictly (each one a number or absent), metrics the importer does not
// know are ignored (the database keeps every numeric field of the artifact).
func databaseRow(r inferencexdb.Result, index int) (XRow, error) {
	x := XRow{
		Index:        index,
		Hardware:     r.Hardware,
		Framework:    r.Framework,
		Model:        r.Model,
		Precision:    r.Precision,
		SpecDecoding: r.SpecMethod,
		Disagg:       r.Disagg,
		MultiNode:    r.MultiNode,
		TP:           r.DecodeTP,
		EP:           r.DecodeEP,
		DPAttention:  r.DecodeDPAttn,
		ISL:          r.ISL,
		OSL:          r.OSL,
		Conc:         r.Conc,
		Image:        r.Image,
		Date:         r.Date,
	}
	if m, ok := databaseModels[r.Model]; ok {
		x.Model = m
	}
	o, err := decodeObject(r.Metrics)
	if err == nil {
		checkMetricNumbers(o)
		x.Metrics = readMetrics(o)
		err = o.err()
	}
	if err != nil {
		return XRow{}, fmt.Errorf("benchmark_results id %d (run %d): metrics: %w", r.ID, r.GitHubRunID, err)
	}
	return x, nil
}
