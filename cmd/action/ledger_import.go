package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/importer"
	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

const ledgerImportUsage = `Usage: action ledger import --out DIR [flags] SOURCE...
       action ledger import --out DIR [flags] --postgres CONNECTION

Turn measured benchmark artifacts into a ledger (the corpus 'score' runs
against) and write DIR/import-report.json, which accounts for every input row:
rows_in == points_out + the sum of excluded (reason -> count).

A SOURCE is an InferenceX agg_bmk artifact (run_<run-id>.json), a file of
InferenceX /api/v1/benchmarks rows, an inference-perf run folder
(exp-config.yaml, profile.yaml, results/), or a directory holding any of these.
With --postgres, the rows come from the InferenceX database instead
(tables configs, benchmark_results and workflow_runs, e.g.
restored from a weekly dump by scripts/restore-inferencex-dump.sh), read as
the runs' agg_bmk rows under the same rules. The rules (vLLM only, latest N
versions, dedup, exclusions) are in docs/LEDGER.md.

Examples:
  action ledger import --out ledger corpus/sources/inferencex/agg_bmk
  action ledger import --out ledger run_20662362255/agg_bmk.json
  action ledger import --out ledger --inference-perf-hardware H100 \
      --inference-perf-engine-version v0.15.1 corpus/sources
  PGPASSWORD=... action ledger import --out ledger \
      --postgres "postgres://postgres@localhost:5432/postgres?sslmode=disable"

Flags:
`

// ledgerImportOptions are the flags and sources of `action ledger import`.
type ledgerImportOptions struct {
	out, root            string
	versions             int
	maxFailedFraction    float64
	name, version        string
	release              bool
	description          string
	ipHardware, ipEngine string
	postgres             string
	// inferencexDump is the weekly dump the --postgres database was
	// restored from; harnessDir the importing harness (default: found).
	inferencexDump, harnessDir string
	sourceNotes                listFlag
	runDates                   runDatesFlag
	sources                    []string
}

// ledgerImportCommand is `action ledger import`.
var ledgerImportCommand = cli.Spec[ledgerImportOptions]{
	Name:     "ledger import",
	Summary:  "turn InferenceX and inference-perf artifacts into a ledger",
	Usage:    ledgerImportUsage,
	Flags:    ledgerImportFlags,
	Required: []string{"out"},
	Check: func(o *ledgerImportOptions, args []string) error {
		switch {
		case o.postgres != "" && len(args) > 0:
			return errors.New("give --postgres or SOURCEs, not both")
		case o.postgres == "" && len(args) == 0:
			return errors.New("name at least one SOURCE (or --postgres)")
		case o.inferencexDump != "" && o.postgres == "":
			return errors.New("--inferencex-dump names the dump a --postgres database was restored from; give --postgres")
		}
		if o.inferencexDump != "" {
			date, ok := ident.DumpTagDate(o.inferencexDump)
			if !ok {
				return fmt.Errorf("--inferencex-dump %q: want a weekly dump tag %sYYYY-MM-DD", o.inferencexDump, ident.DumpTagPrefix)
			}
			switch o.version {
			case "dev":
				o.version = date
			case date:
			default:
				return fmt.Errorf("--ledger-version %q: a ledger imported from %s is versioned by the dump's date %s", o.version, o.inferencexDump, date)
			}
		}
		o.sources = args
		if len(o.runDates) == 0 {
			o.runDates = nil
		}
		return nil
	},
	Run: runLedgerImport,
}

func ledgerImportFlags(fl *flag.FlagSet, o *ledgerImportOptions, _ func(string) string) {
	fl.StringVar(&o.out, "out", "", "directory to write the ledger to; replaced if it is a ledger or empty (e.g. --out corpus/ledger)")
	fl.StringVar(&o.root, "root", "", "directory that artifact paths in the ledger are relative to (default: the sources' common parent directory; e.g. --root corpus/sources)")
	fl.IntVar(&o.versions, "versions", importer.DefaultVersions, "keep the latest N numbered vLLM versions present (e.g. --versions 3)")
	fl.Float64Var(&o.maxFailedFraction, "max-failed-fraction", 0, "fraction of a point's requests that may fail before it is marked overloaded; 0 marks any failure (e.g. --max-failed-fraction 0.01)")
	fl.StringVar(&o.name, "name", "local", "ledger name in the manifest (e.g. --name blis-default)")
	fl.StringVar(&o.version, "ledger-version", "dev", "ledger version in the manifest (e.g. --ledger-version 2026.11.0)")
	fl.BoolVar(&o.release, "release", false, "mark the ledger as a published, immutable release (e.g. --release)")
	fl.StringVar(&o.description, "description", "", `free text for the manifest (e.g. --description "weekly InferenceX data")`)
	fl.StringVar(&o.ipHardware, "inference-perf-hardware", "", "GPU of inference-perf runs without a blis-import.yaml, as the simulator spells it (e.g. --inference-perf-hardware H100)")
	fl.StringVar(&o.postgres, "postgres", "", `read the InferenceX database instead of SOURCEs: a libpq connection string or URL; keep the password in PGPASSWORD (e.g. --postgres "host=/tmp port=5432 dbname=inferencex")`)
	fl.StringVar(&o.ipEngine, "inference-perf-engine-version", "", "vLLM version of inference-perf runs without a blis-import.yaml (e.g. --inference-perf-engine-version v0.15.1)")
	fl.StringVar(&o.inferencexDump, "inferencex-dump", "", "with --postgres: the InferenceX weekly dump release the database was restored from; records it and this harness in the import report, the manifest version is the dump's date (e.g. --inferencex-dump db-dump/2026-11-24)")
	fl.StringVar(&o.harnessDir, "harness-dir", "", "with --inferencex-dump: the harness's own `directory`, recorded as the importer (default: found from the working directory)")
	o.runDates = runDatesFlag{}
	fl.Var(&o.sourceNotes, "source-note", `extra line for the manifest's sources, repeatable (e.g. --source-note "SemiAnalysis InferenceX, Dec 2025")`)
	fl.Var(o.runDates, "run-date", "date of an InferenceX run the importer does not know, RUNID=YYYY-MM-DD, repeatable; decides the client's warmups (e.g. --run-date 21484110885=2026-01-29)")
}

// runLedgerImport implements 'ledger import': import, write the ledger and
// its report atomically, print a short summary.
func runLedgerImport(ctx context.Context, o ledgerImportOptions, env cli.Env) error {
	opts := importreport.Options{
		Versions:                   o.versions,
		MaxFailedFraction:          o.maxFailedFraction,
		RunDates:                   o.runDates,
		InferencePerfHardware:      o.ipHardware,
		InferencePerfEngineVersion: o.ipEngine,
		Name:                       o.name,
		Version:                    o.version,
		Release:                    o.release,
		Description:                o.description,
		SourceNotes:                o.sourceNotes,
		InferenceXDump:             o.inferencexDump,
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var importedBy *runresult.Harness
	if o.inferencexDump != "" {
		h, err := harness.IdentifyHarness(ctx, o.harnessDir)
		if err != nil {
			return fmt.Errorf("ledger import: --inferencex-dump: %w", err)
		}
		importedBy = &h
	}
	var res *importer.Result
	var err error
	if o.postgres != "" {
		res, err = importer.ImportDatabase(ctx, o.postgres, opts)
	} else {
		res, err = importer.ImportPaths(o.root, o.sources, opts)
	}
	if err != nil {
		return fmt.Errorf("ledger import: %w", err)
	}
	res.Report.Importer = importedBy
	if err := importer.Write(o.out, res); err != nil {
		return fmt.Errorf("ledger import: %w", err)
	}
	fmt.Fprint(env.Stdout, importer.Summary(&res.Report, o.out))
	return nil
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, "; ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// runDatesFlag is the repeatable RUNID=YYYY-MM-DD flag.
type runDatesFlag map[string]string

func (r runDatesFlag) String() string {
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k+"="+r[k])
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func (r runDatesFlag) Set(v string) error {
	id, date, ok := strings.Cut(v, "=")
	if !ok || id == "" || date == "" {
		return fmt.Errorf("want RUNID=YYYY-MM-DD, got %q", v)
	}
	r[id] = date
	return nil
}
