// Package importreport is the import report: the file an import (`action
// ledger import`, internal/importer) writes beside the ledger it imported
// (File, import-report.json), accounting for every input row, recording
// the import's options and, for an import from an InferenceX weekly dump,
// the harness that ran it. The importer writes it; the harness reads it back
// for a dump-imported ledger's provenance (harness.ReadDumpImport) without
// linking the importer or its database adapter.
package importreport

import (
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// File is the import report's name inside the ledger directory an import
// wrote.
const File = "import-report.json"

// SchemaVersion is the version of the Report format.
const SchemaVersion = 1

// Report accounts for every input row of an import. RowsIn == PointsOut +
// Σ Excluded, overall and per source; Marked counts points that are in the
// ledger (part of PointsOut) with ledger.Point.Excluded set. Rendered with
// sorted map keys and no timestamps, so the same input gives the same bytes.
type Report struct {
	SchemaVersion int `json:"schema_version"`
	// RowsIn counts InferenceX rows (agg_bmk and API) and inference-perf
	// stages read.
	RowsIn    int `json:"rows_in"`
	PointsOut int `json:"points_out"`
	Units     int `json:"units"`
	// Excluded counts the rows that did not become points, by reason.
	Excluded map[string]int `json:"excluded"`
	// Marked counts the points kept but marked not simulable, by reason.
	Marked map[string]int `json:"marked"`
	// Corrected counts the points whose TPOT the importer derived because
	// the client reports it wrongly, by rule (ledger.Derivation.Rule).
	Corrected map[string]int `json:"corrected,omitempty"`
	// UnknownFields counts, per field name, the input rows that carried a
	// field the parser does not know (ignored; known fields stay strict).
	UnknownFields map[string]int `json:"unknown_fields,omitempty"`
	// VLLMVersions are the numbered vLLM versions present in the input and
	// the latest Options.Versions of them that were kept, ascending.
	VLLMVersions VersionWindow `json:"vllm_versions"`
	// Sources has one entry per artifact file or run folder, by path.
	Sources []SourceReport `json:"sources"`
	// Skipped lists what was found under a source directory but is not an
	// artifact: files that are not *.json, JSON files holding an object
	// (not an array of rows), and ledger directories (holding ledger.json,
	// listed with a trailing "/").
	Skipped []string `json:"skipped_files,omitempty"`
	// Options are the options of the import, enough to repeat it.
	Options Options `json:"options"`
	// Importer is the harness that ran the import, recorded for an import
	// from an InferenceX weekly dump (Options.InferenceXDump): with the dump
	// tag and the ledger's digest it makes the ledger regenerable, so the
	// scoring harness can count it as released data (docs/LEDGER.md).
	Importer *runresult.Harness `json:"importer,omitempty"`
}

// VersionWindow is the vLLM version window of an import.
type VersionWindow struct {
	Present []string `json:"present"`
	Kept    []string `json:"kept"`
}

// Options control an import. They are recorded in the report, so an import
// can be repeated from its report alone.
type Options struct {
	// Sources are slash-separated paths inside the import file system: agg_bmk
	// files (run_<run-id>.json), API row files, inference-perf run folders, or
	// directories holding any of these.
	Sources []string `json:"sources"`
	// Versions is N: keep the latest N numbered vLLM versions present.
	Versions int `json:"versions"`
	// MaxFailedFraction is the fraction of a point's requests that may
	// fail before the point is marked ReasonOverloaded: 0 (the default)
	// marks any failure.
	MaxFailedFraction float64 `json:"max_failed_fraction,omitempty"`
	// RunDates gives the date (YYYY-MM-DD) of InferenceX runs by run id, for
	// runs the importer does not know; a run's date decides its warmups.
	RunDates map[string]string `json:"run_dates,omitempty"`
	// InferencePerfHardware and InferencePerfEngineVersion apply to every
	// inference-perf run folder without a blis-import.yaml sidecar.
	InferencePerfHardware      string `json:"inference_perf_hardware,omitempty"`
	InferencePerfEngineVersion string `json:"inference_perf_engine_version,omitempty"`
	// Name, Version, Release and Description go into the ledger manifest.
	Name        string `json:"name"`
	Version     string `json:"version"`
	Release     bool   `json:"release"`
	Description string `json:"description,omitempty"`
	// SourceNotes are extra lines for the manifest's sources, before the
	// generated one-line-per-artifact list.
	SourceNotes []string `json:"source_notes,omitempty"`
	// Postgres names the InferenceX database of a database import
	// (ImportPostgres), without its password; empty otherwise.
	Postgres string `json:"postgres,omitempty"`
	// InferenceXDump is the InferenceX weekly dump release
	// (db-dump/YYYY-MM-DD) the database of a database import was restored
	// from, when the importer was told; empty otherwise.
	InferenceXDump string `json:"inferencex_dump,omitempty"`
}

// SourceReport accounts for one artifact file or run folder.
type SourceReport struct {
	Path      string         `json:"path"`
	Kind      string         `json:"kind"`
	RowsIn    int            `json:"rows_in"`
	PointsOut int            `json:"points_out"`
	Excluded  map[string]int `json:"excluded"`
	Marked    map[string]int `json:"marked,omitempty"`
	Corrected map[string]int `json:"corrected,omitempty"`
	// UnknownFields counts, per field the parser does not know, the rows
	// that carried it; such fields are ignored.
	UnknownFields map[string]int `json:"unknown_fields,omitempty"`
	// Notes are what the reader should know about this input, one line
	// each (for example settings in which two of its files disagree).
	Notes []string `json:"notes,omitempty"`
}
