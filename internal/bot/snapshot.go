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
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
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
	// ReadmePath holds the accuracy table (render.SnapshotTable) between
	// render.TableStart and render.TableEnd.
	ReadmePath = "README.md"
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
	if err := jsoncodec.Decode(raw, &last); err != nil {
		return LastRun{}, fmt.Errorf("%s: %w", LastRunPath, err)
	}
	return last, nil
}

// Snapshot is one run's report to publish.
type Snapshot struct {
	Summary report.Summary
	// Points are the run's points, checked against the summary (nil: the
	// run kept none; the snapshot then has no points.json and no
	// comparison). The snapshot writes their canonical encoding.
	Points []report.Point
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
	if dash.LastRun != nil {
		last, err := ParseLastRun(dash.LastRun)
		if err != nil {
			return nil, err
		}
		if last.Inputs != nil && nightly.Equal(*last.Inputs, snap.Inputs.Normalize()) {
			return nil, ErrUnchanged
		}
	}
	summaryJSON, err := jsoncodec.Encode(s)
	if err != nil {
		return nil, fmt.Errorf("encode summary: %w", err)
	}
	if dash.Existing != nil {
		if !bytes.Equal(dash.Existing, summaryJSON) {
			return nil, fmt.Errorf("%s/%s: %w", SnapshotsDir, id, ErrImmutable)
		}
		return nil, ErrUnchanged
	}
	kept, at, err := placeEntry(dash.Index, snap.entry(id))
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{
		SnapshotsDir + "/" + id + "/summary.json": summaryJSON,
		SnapshotsDir + "/" + id + "/summary.md":   snap.Markdown,
	}
	var pointsJSON []byte
	if snap.Points != nil {
		if pointsJSON, err = jsoncodec.Encode(snap.Points); err != nil {
			return nil, fmt.Errorf("encode points: %w", err)
		}
		files[SnapshotsDir+"/"+id+"/"+report.PointsFile] = pointsJSON
	}
	if prev := dash.Previous; prev != nil && at+1 < len(kept) && prev.ID == kept[at+1].ID && snap.Points != nil {
		if md, ok := comparePage(*prev, report.Run{Summary: s, Points: snap.Points}, id); ok {
			path := CompareDir + "/" + prev.ID + ".." + id + ".md"
			files[path] = md
			kept[at].Compare = path
		}
	}
	idx := Index{Version: IndexVersion, Snapshots: kept}
	indexJSON, err := jsoncodec.Encode(idx)
	if err != nil {
		return nil, err
	}
	newest := kept[0]
	lastJSON, err := jsoncodec.Encode(LastRun{Version: LastRunVersion, SimulatorRelease: newest.Simulator, Data: newest.Data,
		Harness: newest.Harness, Snapshot: newest.ID, PublishedAt: newest.PublishedAt, Inputs: newest.Inputs})
	if err != nil {
		return nil, err
	}
	readme, err := render.ReplaceTable(dash.Readme, render.SnapshotTable(snapshotRows(idx.Snapshots), IndexPath))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ReadmePath, err)
	}
	files[IndexPath], files[LastRunPath], files[ReadmePath] = indexJSON, lastJSON, readme
	// data/latest/ is the newest snapshot, which need not be this one when
	// an older run is published late.
	if newest.ID == id {
		files[LatestDir+"/summary.json"] = summaryJSON
		files[LatestDir+"/summary.md"] = snap.Markdown
		if pointsJSON != nil {
			files[LatestDir+"/"+report.PointsFile] = pointsJSON
		}
	}
	return files, nil
}

// entry is snap's index entry, published under id.
func (snap Snapshot) entry(id string) IndexEntry {
	e := indexEntry(snap.Summary, id, snap.PublishedAt.UTC().Format(time.RFC3339), snap.Source)
	inputs := snap.Inputs.Normalize()
	e.Run, e.Inputs = snap.RunID, &inputs
	return e
}

// placeEntry decodes the index and returns its entries with entry added
// (replacing one of the same id), newest first, and entry's position.
func placeEntry(index []byte, entry IndexEntry) ([]IndexEntry, int, error) {
	idx := Index{Version: IndexVersion}
	if index != nil {
		var err error
		if idx, err = decodeIndex(index); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", IndexPath, err)
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
	return kept, slices.IndexFunc(kept, func(e IndexEntry) bool { return e.ID == entry.ID }), nil
}

// PreviousID names the published snapshot just older than snap, published
// under id (SnapshotID), the one its comparison page compares with ("" for
// none): the entry PlanSnapshot puts after it. A malformed index is
// PlanSnapshot's to report: here it means no previous snapshot.
func PreviousID(snap Snapshot, id string, index []byte) string {
	kept, at, err := placeEntry(index, snap.entry(id))
	if err != nil || at+1 >= len(kept) {
		return ""
	}
	return kept[at+1].ID
}

// comparePage renders the comparison of the previous snapshot with cur,
// published under id; ok is false when the previous snapshot's files do not
// parse (an old snapshot without points.json is not read at all).
func comparePage(prev PreviousSnapshot, cur report.Run, id string) ([]byte, bool) {
	ps, err := report.ParseSummary(prev.Summary)
	if err != nil {
		return nil, false
	}
	pp, err := report.ParsePoints(prev.Points)
	if err != nil {
		return nil, false
	}
	c := report.CompareRuns(report.Run{Summary: ps, Points: pp}, cur, prev.ID, id)
	return []byte(render.CompareMarkdown(render.RunsComparison(c))), true
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
		err := jsoncodec.Decode(raw, &idx)
		return idx, err
	case 1:
		var v1 struct {
			Version   int            `json:"version"`
			Snapshots []indexEntryV1 `json:"snapshots"`
		}
		if err := jsoncodec.Decode(raw, &v1); err != nil {
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

// snapshotRows are the README table's rows of index entries.
func snapshotRows(entries []IndexEntry) []render.SnapshotRow {
	rows := make([]render.SnapshotRow, len(entries))
	for i, e := range entries {
		rows[i] = render.SnapshotRow{PublishedAt: e.PublishedAt, Simulator: e.Simulator, Data: dataText(e.Data), Harness: e.Harness,
			MAPE: e.MAPE, Tier: e.Tier, Scored: e.Scored, CorpusPoints: e.CorpusPoints, ID: e.ID, Summary: e.Path + "summary.md", Compare: e.Compare}
	}
	return rows
}

// dataText lists data versions as "ledger v1.0.0, catalog v1.0.0".
func dataText(refs []DataRef) string {
	var data []string
	for _, d := range refs {
		data = append(data, d.Name+" "+d.Version)
	}
	return strings.Join(data, ", ")
}
