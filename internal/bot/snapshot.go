package bot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/jsonstrict"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

// Paths in the dashboard repository.
const (
	SnapshotsDir = "data/snapshots"
	LatestDir    = "data/latest"
	// CompareDir holds one Markdown comparison per published snapshot with
	// the one before it: <previous>..<id>.md.
	CompareDir  = "data/compare"
	IndexPath   = "data/index.json"
	LastRunPath = "state/last-run.json"
	ReadmePath  = "README.md"
	// TableStart and TableEnd enclose the accuracy table in README.md.
	TableStart = "<!-- accuracy-table:start -->"
	TableEnd   = "<!-- accuracy-table:end -->"
	// ReadmeRows is how many snapshots the README table shows.
	ReadmeRows = 20
	// IndexVersion is the version of data/index.json. Version 2 holds each
	// snapshot's MAPE by metric key (every metric of internal/metric);
	// version 1 (ttft_mape, tpot_mape) is still read and rewritten as
	// version 2 on the next publish.
	IndexVersion = 2
	// LastRunVersion is the version of state/last-run.json.
	LastRunVersion = 1
)

// DataRef names one data set by name and version.
type DataRef struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// IndexEntry describes one published snapshot in data/index.json.
type IndexEntry struct {
	ID          string    `json:"id"`
	PublishedAt string    `json:"published_at"`
	Simulator   string    `json:"simulator"`
	Harness     string    `json:"harness"`
	Data        []DataRef `json:"data"`
	// Tier is the tier the headline figures come from.
	Tier string `json:"tier"`
	// MAPE is the tier's MAPE by metric key (metric.Def.Key), null where
	// no point was scored; the README table shows the headline metrics.
	MAPE         map[string]*float64 `json:"mape"`
	Scored       int                 `json:"scored"`
	CorpusPoints int                 `json:"corpus_points"`
	Path         string              `json:"path"`
	Source       string              `json:"source,omitempty"`
	// Run is the workflow run that produced the snapshot (0: published by hand).
	Run int64 `json:"run,omitempty"`
	// Compare is the comparison with the previous snapshot
	// (data/compare/<previous>..<id>.md), "" when there is none.
	Compare string `json:"compare,omitempty"`
	// Inputs is what the run evaluated: the nightly plan it carried, or
	// what its summary names.
	Inputs *nightly.Plan `json:"inputs,omitempty"`
}

// Index is data/index.json: every snapshot, newest first.
type Index struct {
	Version   int          `json:"version"`
	Snapshots []IndexEntry `json:"snapshots"`
}

// LastRun is state/last-run.json: the inputs of the newest published
// snapshot (the first entry of the index), which the nightly plan compares
// with the current ones.
type LastRun struct {
	Version          int       `json:"version"`
	SimulatorRelease string    `json:"simulator_release"`
	Data             []DataRef `json:"data"`
	Harness          string    `json:"harness,omitempty"`
	Snapshot         string    `json:"snapshot"`
	PublishedAt      string    `json:"published_at"`
	// Inputs is the newest snapshot's plan (absent in files written before
	// plans existed: then any plan counts as a change).
	Inputs *nightly.Plan `json:"inputs,omitempty"`
}

// ParseLastRun decodes state/last-run.json strictly.
func ParseLastRun(raw []byte) (LastRun, error) {
	var last LastRun
	if err := jsonstrict.Decode(raw, &last); err != nil {
		return LastRun{}, fmt.Errorf("%s: %w", LastRunPath, err)
	}
	return last, nil
}

// Snapshot is one run's report to publish.
type Snapshot struct {
	Summary report.Summary
	// Points is the canonical points.json (nil: the run kept none; the
	// snapshot then has no points.json and no comparison).
	Points []byte
	// Inputs is what the run evaluated (its plan, or InputsOf the summary).
	Inputs nightly.Plan
	// RunID is the workflow run (0: published by hand).
	RunID int64
	// Markdown is the rendered summary (summary.md).
	Markdown []byte
	// PublishedAt orders the index.
	PublishedAt time.Time
	// Source links to what produced it (a workflow run), may be empty.
	Source string
}

// Dashboard is what the dashboard repository holds at its head; nil means
// the file is absent.
type Dashboard struct {
	Index   []byte
	LastRun []byte
	Readme  []byte
	// Existing is data/snapshots/<id>/summary.json of this snapshot's id.
	Existing []byte
	// Previous is the snapshot just older than this one, when its files
	// could be read (PreviousID names it).
	Previous *PreviousSnapshot
}

// PreviousSnapshot is a published snapshot's summary.json and points.json.
type PreviousSnapshot struct {
	ID              string
	Summary, Points []byte
}

// ErrUnchanged is returned by PlanSnapshot when the snapshot's inputs
// (simulator release, harness, data versions) are those of the newest
// published snapshot, or its snapshot is already published with the same
// content: publishing is a no-op.
var ErrUnchanged = errors.New("simulator release, harness and data versions already published")

// ErrImmutable is returned by PlanSnapshot when a snapshot with the same id
// and different content is already published.
var ErrImmutable = errors.New("snapshot already published with different content")

var idUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// DataRefs lists a summary's data versions: ledger, then catalog and
// registry when given.
func DataRefs(s report.Summary) []DataRef {
	refs := []DataRef{{Name: "ledger", Version: s.Provenance.Ledger.Version}}
	if c := s.Provenance.Catalog; c != nil {
		refs = append(refs, DataRef{Name: "catalog", Version: c.Version})
	}
	if r := s.Provenance.Registry; r != nil {
		refs = append(refs, DataRef{Name: "registry", Version: r.Version})
	}
	return refs
}

// SnapshotID names a snapshot by its simulator release, data versions,
// harness version and run, e.g.
// "v0.7.15_ledger-v1.0.0_catalog-v1.0.0_harness-v1.2.0_run-4242": one per
// run (a snapshot published by hand, runID 0, has no run part).
func SnapshotID(s report.Summary, runID int64) string {
	parts := []string{s.Provenance.Simulator.Tag}
	for _, d := range DataRefs(s) {
		parts = append(parts, d.Name+"-"+d.Version)
	}
	parts = append(parts, "harness-"+harnessLabel(s.Provenance.Harness))
	if runID > 0 {
		parts = append(parts, fmt.Sprintf("run-%d", runID))
	}
	id := idUnsafe.ReplaceAllString(strings.Join(parts, "_"), "-")
	return strings.Trim(id, "-.")
}

// harnessLabel is the harness's release, or its short commit without one.
func harnessLabel(h report.Harness) string {
	if h.Version != "" {
		return h.Version
	}
	return ident.Short(h.Commit)
}

// InputsOf is what a summary says it evaluated, for a run that carried no
// plan: the simulator release, the harness and the data versions.
func InputsOf(s report.Summary) nightly.Plan {
	p := nightly.Plan{Version: nightly.Version,
		Simulator: nightly.Source{Repository: s.Provenance.Simulator.Repo, Release: s.Provenance.Simulator.Tag, Commit: s.Provenance.Simulator.Commit},
		Harness:   nightly.Source{Release: s.Provenance.Harness.Version, Commit: s.Provenance.Harness.Commit},
	}
	for _, d := range DataRefs(s) {
		p.Data = append(p.Data, nightly.Data{Name: d.Name, Version: d.Version})
	}
	return p.Normalize()
}

// PlanSnapshot returns the files one publish writes (path → content):
// data/snapshots/<id>/summary.json, points.json and summary.md,
// data/index.json, state/last-run.json, README.md, the comparison with the
// previous snapshot (data/compare/<previous>..<id>.md, when both have
// points) and, when the snapshot is the newest in the index, data/latest/
// (the same three files). data/latest/ and state/last-run.json always
// describe the newest index entry, so a late publish of an older run does
// not move them back. It returns ErrUnchanged when the inputs are those of
// the newest published snapshot or the id exists with the same content,
// ErrImmutable when the id exists with other content, and an error naming
// the file when a dashboard file is malformed.
func PlanSnapshot(snap Snapshot, dash Dashboard) (map[string][]byte, error) {
	s := snap.Summary
	id := SnapshotID(s, snap.RunID)
	published := snap.PublishedAt.UTC().Format(time.RFC3339)
	inputs := snap.Inputs.Normalize()
	if dash.LastRun != nil {
		last, err := ParseLastRun(dash.LastRun)
		if err != nil {
			return nil, err
		}
		if last.Inputs != nil && nightly.Equal(*last.Inputs, inputs) {
			return nil, ErrUnchanged
		}
	}
	summaryJSON, err := report.EncodeJSON(s)
	if err != nil {
		return nil, fmt.Errorf("encode summary: %w", err)
	}
	if dash.Existing != nil {
		if !bytes.Equal(dash.Existing, summaryJSON) {
			return nil, fmt.Errorf("%s/%s: %w", SnapshotsDir, id, ErrImmutable)
		}
		return nil, ErrUnchanged
	}
	entry := indexEntry(s, id, published, snap.Source)
	entry.Run, entry.Inputs = snap.RunID, &inputs
	kept, err := insertEntry(dash.Index, entry)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{
		SnapshotsDir + "/" + id + "/summary.json": summaryJSON,
		SnapshotsDir + "/" + id + "/summary.md":   snap.Markdown,
	}
	if snap.Points != nil {
		files[SnapshotsDir+"/"+id+"/"+report.PointsFile] = snap.Points
	}
	at := slices.IndexFunc(kept, func(e IndexEntry) bool { return e.ID == id })
	if prev := dash.Previous; prev != nil && at+1 < len(kept) && prev.ID == kept[at+1].ID && snap.Points != nil {
		if md, ok := comparePage(*prev, s, snap.Points, id); ok {
			path := CompareDir + "/" + prev.ID + ".." + id + ".md"
			files[path] = md
			kept[at].Compare = path
		}
	}
	idx := Index{Version: IndexVersion, Snapshots: kept}
	indexJSON, err := report.EncodeJSON(idx)
	if err != nil {
		return nil, err
	}
	newest := kept[0]
	lastJSON, err := report.EncodeJSON(LastRun{Version: LastRunVersion, SimulatorRelease: newest.Simulator, Data: newest.Data,
		Harness: newest.Harness, Snapshot: newest.ID, PublishedAt: newest.PublishedAt, Inputs: newest.Inputs})
	if err != nil {
		return nil, err
	}
	readme, err := ReplaceTable(dash.Readme, Table(idx.Snapshots))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ReadmePath, err)
	}
	files[IndexPath], files[LastRunPath], files[ReadmePath] = indexJSON, lastJSON, readme
	// data/latest/ is the newest snapshot, which need not be this one when
	// an older run is published late.
	if newest.ID == id {
		files[LatestDir+"/summary.json"] = summaryJSON
		files[LatestDir+"/summary.md"] = snap.Markdown
		if snap.Points != nil {
			files[LatestDir+"/"+report.PointsFile] = snap.Points
		}
	}
	return files, nil
}

// insertEntry decodes the index and returns its entries with entry added
// (replacing one of the same id), newest first.
func insertEntry(index []byte, entry IndexEntry) ([]IndexEntry, error) {
	idx := Index{Version: IndexVersion}
	if index != nil {
		var err error
		if idx, err = decodeIndex(index); err != nil {
			return nil, fmt.Errorf("%s: %w", IndexPath, err)
		}
	}
	kept := []IndexEntry{entry}
	for _, e := range idx.Snapshots {
		if e.ID != entry.ID {
			kept = append(kept, e)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		if kept[i].PublishedAt != kept[j].PublishedAt {
			return kept[i].PublishedAt > kept[j].PublishedAt
		}
		// Runs finished in the same second: the later run is newer.
		if kept[i].Run != kept[j].Run {
			return kept[i].Run > kept[j].Run
		}
		return kept[i].ID > kept[j].ID
	})
	return kept, nil
}

// PreviousID names the published snapshot just older than snap, the one its
// comparison page compares with ("" for none). A malformed index is
// PlanSnapshot's to report: here it means no previous snapshot.
func PreviousID(snap Snapshot, index []byte) string {
	id := SnapshotID(snap.Summary, snap.RunID)
	kept, err := insertEntry(index, IndexEntry{ID: id, PublishedAt: snap.PublishedAt.UTC().Format(time.RFC3339)})
	if err != nil {
		return ""
	}
	at := slices.IndexFunc(kept, func(e IndexEntry) bool { return e.ID == id })
	if at+1 < len(kept) {
		return kept[at+1].ID
	}
	return ""
}

// comparePage renders the comparison of the previous snapshot with this
// one; ok is false when the previous snapshot's files do not parse (an old
// snapshot without points.json is not read at all).
func comparePage(prev PreviousSnapshot, s report.Summary, points []byte, id string) ([]byte, bool) {
	ps, err := report.ParseSummary(prev.Summary)
	if err != nil {
		return nil, false
	}
	pp, err := report.ParsePoints(prev.Points)
	if err != nil {
		return nil, false
	}
	cur, err := report.ParsePoints(points)
	if err != nil {
		return nil, false
	}
	c := prcheck.CompareRuns(report.Run{Summary: ps, Points: pp}, report.Run{Summary: s, Points: cur}, prev.ID, id)
	return []byte(render.CompareMarkdown(c)), true
}

// indexEntryV1 is an entry of a version 1 index.
type indexEntryV1 struct {
	IndexEntry
	TTFTMAPE *float64 `json:"ttft_mape"`
	TPOTMAPE *float64 `json:"tpot_mape"`
}

// decodeIndex reads data/index.json of version 2, or of version 1
// converted to version 2.
func decodeIndex(raw []byte) (Index, error) {
	var head struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return Index{}, err
	}
	switch head.Version {
	case IndexVersion:
		var idx Index
		err := jsonstrict.Decode(raw, &idx)
		return idx, err
	case 1:
		var v1 struct {
			Version   int            `json:"version"`
			Snapshots []indexEntryV1 `json:"snapshots"`
		}
		if err := jsonstrict.Decode(raw, &v1); err != nil {
			return Index{}, err
		}
		idx := Index{Version: IndexVersion, Snapshots: []IndexEntry{}}
		for _, e := range v1.Snapshots {
			if e.MAPE != nil {
				return Index{}, fmt.Errorf("snapshot %s: a version 1 entry has no mape", e.ID)
			}
			e.IndexEntry.MAPE = map[string]*float64{metric.TTFT.Key: e.TTFTMAPE, metric.TPOT.Key: e.TPOTMAPE}
			idx.Snapshots = append(idx.Snapshots, e.IndexEntry)
		}
		return idx, nil
	}
	return Index{}, fmt.Errorf("version %d is not supported (want 1 or %d)", head.Version, IndexVersion)
}

func indexEntry(s report.Summary, id, published, source string) IndexEntry {
	tier, scores, _ := report.Headline(s.Tiers)
	mape := map[string]*float64{}
	for _, d := range metric.All {
		if m, ok := scores.Of(d); ok {
			mape[d.Key] = m.MAPE
		}
	}
	harness := harnessLabel(s.Provenance.Harness)
	return IndexEntry{
		ID:           id,
		PublishedAt:  published,
		Simulator:    s.Provenance.Simulator.Tag,
		Harness:      harness,
		Data:         DataRefs(s),
		Tier:         tier,
		MAPE:         mape,
		Scored:       s.Coverage.Scored,
		CorpusPoints: s.Coverage.CorpusPoints,
		Path:         SnapshotsDir + "/" + id + "/",
		Source:       source,
	}
}

// Table renders the README's accuracy table from index entries, newest
// first, at most ReadmeRows rows. Untrusted text is escaped.
func Table(entries []IndexEntry) string {
	var b strings.Builder
	b.WriteString("| Published | Simulator | Data | Harness |")
	align := "|---|---|---|---|"
	for _, d := range metric.Headline() {
		fmt.Fprintf(&b, " %s MAPE |", d.Short)
		align += "---:|"
	}
	b.WriteString(" Tier | Scored | Snapshot | Change |\n" + align + "---|---:|---|---|\n")
	for i, e := range entries {
		if i == ReadmeRows {
			break
		}
		var data []string
		for _, d := range e.Data {
			data = append(data, d.Name+" "+d.Version)
		}
		change := ""
		if e.Compare != "" {
			change = "[vs previous](" + e.Compare + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |",
			render.Cell(dateOf(e.PublishedAt)), render.Cell(e.Simulator), render.Cell(strings.Join(data, ", ")), render.Cell(e.Harness))
		for _, d := range metric.Headline() {
			fmt.Fprintf(&b, " %s |", render.Pct(e.MAPE[d.Key]))
		}
		fmt.Fprintf(&b, " %s | %d / %d | [%s](%s) | %s |\n", render.Cell(e.Tier), e.Scored, e.CorpusPoints, render.Cell(e.ID), e.Path+"summary.md", change)
	}
	if len(entries) > ReadmeRows {
		fmt.Fprintf(&b, "\n%d older snapshots are listed in [%s](%s).\n", len(entries)-ReadmeRows, IndexPath, IndexPath)
	}
	return b.String()
}

// ReplaceTable puts table between TableStart and TableEnd in readme,
// keeping everything else byte for byte. A README without the markers gets
// an "Accuracy" section with them appended; a nil README becomes a new one.
// Markers out of order or repeated are an error.
func ReplaceTable(readme []byte, table string) ([]byte, error) {
	block := TableStart + "\n" + table + TableEnd
	if readme == nil {
		return []byte("# Accuracy dashboard\n\nPublished accuracy of the BLIS simulator, newest first.\n\n" + block + "\n"), nil
	}
	s := string(readme)
	ns, ne := strings.Count(s, TableStart), strings.Count(s, TableEnd)
	switch {
	case ns == 0 && ne == 0:
		if !strings.HasSuffix(s, "\n") && s != "" {
			s += "\n"
		}
		return []byte(s + "\n## Accuracy\n\n" + block + "\n"), nil
	case ns != 1 || ne != 1:
		return nil, fmt.Errorf("want exactly one %s and one %s, found %d and %d", TableStart, TableEnd, ns, ne)
	}
	i, j := strings.Index(s, TableStart), strings.Index(s, TableEnd)
	if j < i {
		return nil, fmt.Errorf("%s comes before %s", TableEnd, TableStart)
	}
	return []byte(s[:i] + block + s[j+len(TableEnd):]), nil
}

// dateOf returns the date part of an RFC 3339 time.
func dateOf(ts string) string {
	if len(ts) >= 10 {
		return ts[:10]
	}
	return ts
}
