package importer

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

// ReportFile is the import report's name inside the written ledger directory.
const ReportFile = "import-report.json"

// ReportSchemaVersion is the version of the Report format.
const ReportSchemaVersion = 1

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
	Importer *report.Harness `json:"importer,omitempty"`
}

// VersionWindow is the vLLM version window of an import.
type VersionWindow struct {
	Present []string `json:"present"`
	Kept    []string `json:"kept"`
}

// Source kinds in the report.
const (
	KindAggBmk        = "inferencex-agg-bmk"
	KindAPI           = "inferencex-api"
	KindInferencePerf = "inference-perf"
)

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

// result assembles the finished import: the report (per input and overall,
// with the version window) and the manifest, whose sources are the option's
// notes followed by one line per input that gave points.
func (b *builder) result(units []ledger.Unit, kept, present []vllmVersion) *Result {
	res := &Result{Units: units, Report: Report{
		SchemaVersion: ReportSchemaVersion,
		Units:         len(units),
		Excluded:      map[string]int{},
		Marked:        map[string]int{},
		Options:       b.opts,
	}}
	r := &res.Report
	for _, v := range present {
		r.VLLMVersions.Present = append(r.VLLMVersions.Present, v.String())
	}
	for _, v := range kept {
		r.VLLMVersions.Kept = append(r.VLLMVersions.Kept, v.String())
	}
	for _, u := range units {
		r.PointsOut += len(u.Points)
	}
	var lines []string
	for _, p := range slices.Sorted(maps.Keys(b.sources)) {
		s := b.sources[p]
		r.Sources = append(r.Sources, *s)
		r.RowsIn += s.RowsIn
		for k, v := range s.Excluded {
			r.Excluded[k] += v
		}
		for k, v := range s.Marked {
			r.Marked[k] += v
		}
		for k, v := range s.UnknownFields {
			if r.UnknownFields == nil {
				r.UnknownFields = map[string]int{}
			}
			r.UnknownFields[k] += v
		}
		for k, v := range s.Corrected {
			if r.Corrected == nil {
				r.Corrected = map[string]int{}
			}
			r.Corrected[k] += v
		}
		if s.PointsOut > 0 && b.lines[p] != "" {
			lines = append(lines, b.lines[p])
		}
	}
	res.Manifest = ledger.Manifest{
		SchemaVersion: ledger.SchemaVersion,
		Name:          b.opts.Name,
		Version:       b.opts.Version,
		Release:       b.opts.Release,
		Description:   b.opts.Description,
		Sources:       append(append([]string(nil), b.opts.SourceNotes...), lines...),
	}
	return res
}

// check verifies the accounting: per source and overall, every row is a
// point or excluded with one reason.
func (r *Report) check() error {
	rowsIn, pointsOut := 0, 0
	for _, s := range r.Sources {
		if s.PointsOut+sum(s.Excluded) != s.RowsIn {
			return fmt.Errorf("import accounting does not balance for %s: %d points + %d excluded != %d rows",
				s.Path, s.PointsOut, sum(s.Excluded), s.RowsIn)
		}
		rowsIn += s.RowsIn
		pointsOut += s.PointsOut
	}
	if rowsIn != r.RowsIn || pointsOut != r.PointsOut {
		return fmt.Errorf("import accounting does not balance: sources sum to %d rows / %d points, report says %d / %d",
			rowsIn, pointsOut, r.RowsIn, r.PointsOut)
	}
	if r.PointsOut+sum(r.Excluded) != r.RowsIn {
		return fmt.Errorf("import accounting does not balance: %d points + %d excluded != %d rows",
			r.PointsOut, sum(r.Excluded), r.RowsIn)
	}
	return nil
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// Summary is a short human account of an import: rows in, points and units
// out, and the exclusions and markings by reason (largest first).
func Summary(r *Report, out string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ledger import: %d rows from %d sources -> %d points in %d units", r.RowsIn, len(r.Sources), r.PointsOut, r.Units)
	if out != "" {
		fmt.Fprintf(&b, " (%s)", out)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "vLLM versions kept: %s (present: %s)\n", listOrNone(r.VLLMVersions.Kept), listOrNone(r.VLLMVersions.Present))
	writeReasons(&b, "excluded", r.Excluded)
	writeReasons(&b, "marked, kept but not simulable", r.Marked)
	writeReasons(&b, "corrected, TPOT derived", r.Corrected)
	writeReasons(&b, "unknown fields ignored (rows carrying each)", r.UnknownFields)
	fmt.Fprintf(&b, "check: %d points + %d excluded = %d rows\n", r.PointsOut, sum(r.Excluded), r.RowsIn)
	return b.String()
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func writeReasons(b *strings.Builder, title string, m map[string]int) {
	if len(m) == 0 {
		return
	}
	// Most frequent first, then by name.
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b))
	})
	fmt.Fprintf(b, "%s: %d\n", title, sum(m))
	for _, k := range keys {
		fmt.Fprintf(b, "  %6d  %s\n", m[k], k)
	}
}
