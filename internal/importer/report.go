package importer

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// Source kinds in the report.
const (
	KindAggBmk        = "inferencex-agg-bmk"
	KindAPI           = "inferencex-api"
	KindInferencePerf = "inference-perf"
)

// result assembles the finished import: the report (per input and overall,
// with the version window) and the manifest, whose sources are the option's
// notes followed by one line per input that gave points.
func (b *builder) result(units []ledger.Unit, kept, present []vllmVersion) *Result {
	res := &Result{Units: units, Report: importreport.Report{
		SchemaVersion: importreport.SchemaVersion,
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
func checkReport(r *importreport.Report) error {
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
func Summary(r *importreport.Report, out string) string {
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
