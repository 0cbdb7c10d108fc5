package importer

import (
	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// A Source is one kind of measured input (InferenceX artifacts,
// inference-perf run folders, ...). It reads its inputs and hands every row
// it finds to the corpus rules, which are the same for all sources: the
// version window, dedup, grouping into units and the report's accounting.
// Adding a data source is one file implementing Source, plus fixtures.
type Source interface {
	// Read opens one report entry per input it reads (rows.Input) and adds
	// each of its rows there, in a stable order. Input problems are returned
	// together (errors.Join), each naming its input, row and field; the
	// import then fails and nothing is written.
	Read(rows *Rows) error
}

// Rows collects the rows the sources of one import read.
type Rows struct {
	b *builder
}

// Input starts the report entry of one input: an artifact file, a run
// folder, a database table. path names it in the report (unique within the
// import), kind is its source kind (KindAggBmk, ...), and line, when not
// empty, describes it in the manifest's sources.
func (r *Rows) Input(path, kind, line string) *Input {
	s := &importreport.SourceReport{Path: path, Kind: kind, Excluded: map[string]int{}}
	r.b.sources[path] = s
	r.b.lines[path] = line
	return &Input{b: r.b, report: s}
}

// Input is one input's report entry; its rows are added with Add.
type Input struct {
	b      *builder
	report *importreport.SourceReport
}

// Row is one input row (an InferenceX row, an inference-perf stage) on its
// way to becoming a point. The source fills what the version rules need;
// Build makes the point, and only for rows those rules keep.
type Row struct {
	// Artifact is the file the row came from (provenance), Index its
	// 0-based position there; both order duplicates and name the row in
	// errors.
	Artifact string
	Index    int
	// RunID is the benchmark run's id; the later run wins a duplicate.
	RunID string
	// Exclude, when set, excludes the row before the version rules (for
	// example ReasonNotVLLM, ReasonUnnumbered); Build is then not called.
	Exclude string
	// Version is the row's numbered vLLM version, vX.Y.Z; anything else
	// (empty included) excludes it as ReasonUnnumbered.
	Version string
	// Build makes the point once the row is inside the version window. It
	// returns the point, or an exclusion reason.
	Build func() (Built, string)
}

// Built is a row made into a point, with the sweep it belongs to.
type Built struct {
	// UnitID names the sweep; every point of one id must have the same
	// deployment and workload.
	UnitID     string
	Deployment ledger.Deployment
	Workload   ledger.Workload
	// Point is the measurement. A Point.Excluded reason keeps it in the
	// ledger as not simulable (counted in the report's marked).
	Point ledger.Point
	// Spec is the speculative-decoding method, "" when none; part of the
	// simulator-input identity.
	Spec string
	// For the plausibility checks (rule_plausible.go): the fewest output
	// tokens a request of the point generated (0: unknown) and the client's
	// mean interactivity, tokens per second per request (nil: not reported).
	MinOutputTokens int
	Interactivity   *float64
}

// Note adds a line to the input's report entry: something the reader of the
// report should know, such as a setting in which two of its files disagree.
func (in *Input) Note(line string) {
	in.report.Notes = append(in.report.Notes, line)
}

// Unknown counts, for each field named, one row of the input that carried
// it although the parser does not know it (the field was ignored).
func (in *Input) Unknown(fields []string) {
	for _, f := range fields {
		if in.report.UnknownFields == nil {
			in.report.UnknownFields = map[string]int{}
		}
		in.report.UnknownFields[f]++
	}
}

// Add queues one row of the input.
func (in *Input) Add(r Row) {
	in.report.RowsIn++
	c := &candidate{src: in.report, row: r, reason: r.Exclude}
	if c.reason == "" {
		var ok bool
		if c.version, ok = parseVersion(r.Version); !ok {
			c.reason = ReasonUnnumbered
		} else {
			c.numbered = true
		}
	}
	in.b.cands = append(in.b.cands, c)
}

// candidate is a queued row and what the rules decided about it.
type candidate struct {
	src      *importreport.SourceReport
	row      Row
	reason   string // exclusion reason; empty while the row survives
	version  vllmVersion
	numbered bool
	built    Built
	identity string
}
