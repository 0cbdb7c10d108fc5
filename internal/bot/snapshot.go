package bot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

// Paths in the dashboard repository.
const (
	SnapshotsDir = "data/snapshots"
	LatestDir    = "data/latest"
	IndexPath    = "data/index.json"
	LastRunPath  = "state/last-run.json"
	ReadmePath   = "README.md"
	// TableStart and TableEnd enclose the accuracy table in README.md.
	TableStart = "<!-- accuracy-table:start -->"
	TableEnd   = "<!-- accuracy-table:end -->"
	// ReadmeRows is how many snapshots the README table shows.
	ReadmeRows = 20
	// IndexVersion is the version of data/index.json and state/last-run.json.
	IndexVersion = 1
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
	Tier         string   `json:"tier"`
	TTFTMAPE     *float64 `json:"ttft_mape"`
	TPOTMAPE     *float64 `json:"tpot_mape"`
	Scored       int      `json:"scored"`
	CorpusPoints int      `json:"corpus_points"`
	Path         string   `json:"path"`
	Source       string   `json:"source,omitempty"`
}

// Index is data/index.json: every snapshot, newest first.
type Index struct {
	Version   int          `json:"version"`
	Snapshots []IndexEntry `json:"snapshots"`
}

// LastRun is state/last-run.json: the (simulator release, data versions)
// pair of the newest published snapshot (the first entry of the index).
type LastRun struct {
	Version          int       `json:"version"`
	SimulatorRelease string    `json:"simulator_release"`
	Data             []DataRef `json:"data"`
	Snapshot         string    `json:"snapshot"`
	PublishedAt      string    `json:"published_at"`
}

// Snapshot is one summary to publish.
type Snapshot struct {
	Summary report.Summary
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
}

// ErrUnchanged is returned by PlanSnapshot when the (simulator release,
// data versions) pair is the newest published one, or its snapshot is
// already published with the same content: publishing is a no-op.
var ErrUnchanged = errors.New("simulator release and data versions already published")

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

// SnapshotID names a snapshot by its simulator release and data versions,
// e.g. "v0.7.15_ledger-v1.0.0_catalog-2026.08". The same pair always gets
// the same id.
func SnapshotID(s report.Summary) string {
	parts := []string{s.Provenance.Simulator.Tag}
	for _, d := range DataRefs(s) {
		parts = append(parts, d.Name+"-"+d.Version)
	}
	id := idUnsafe.ReplaceAllString(strings.Join(parts, "_"), "-")
	return strings.Trim(id, "-.")
}

// PlanSnapshot returns the files one publish writes (path → content):
// data/snapshots/<id>/summary.json and summary.md, data/index.json,
// state/last-run.json, README.md and, when the snapshot is the newest in
// the index, data/latest/ (the same two files). data/latest/ and
// state/last-run.json always describe the newest index entry, so a late
// publish of an older pair does not move them back. It returns
// ErrUnchanged when the pair is the newest published or the id exists with
// the same content, ErrImmutable when the id exists with other content, and
// an error naming the file when a dashboard file is malformed.
func PlanSnapshot(snap Snapshot, dash Dashboard) (map[string][]byte, error) {
	s := snap.Summary
	id := SnapshotID(s)
	refs := DataRefs(s)
	published := snap.PublishedAt.UTC().Format(time.RFC3339)
	if dash.LastRun != nil {
		var last LastRun
		if err := decodeStrict(dash.LastRun, &last); err != nil {
			return nil, fmt.Errorf("%s: %w", LastRunPath, err)
		}
		if last.SimulatorRelease == s.Provenance.Simulator.Tag && equalRefs(last.Data, refs) {
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
	idx := Index{Version: IndexVersion}
	if dash.Index != nil {
		if err := decodeStrict(dash.Index, &idx); err != nil {
			return nil, fmt.Errorf("%s: %w", IndexPath, err)
		}
	}
	entry := indexEntry(s, id, published, snap.Source)
	kept := []IndexEntry{entry}
	for _, e := range idx.Snapshots {
		if e.ID != id {
			kept = append(kept, e)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		if kept[i].PublishedAt != kept[j].PublishedAt {
			return kept[i].PublishedAt > kept[j].PublishedAt
		}
		return kept[i].ID > kept[j].ID
	})
	idx.Version, idx.Snapshots = IndexVersion, kept
	indexJSON, err := report.EncodeJSON(idx)
	if err != nil {
		return nil, err
	}
	newest := kept[0]
	lastJSON, err := report.EncodeJSON(LastRun{Version: IndexVersion, SimulatorRelease: newest.Simulator, Data: newest.Data,
		Snapshot: newest.ID, PublishedAt: newest.PublishedAt})
	if err != nil {
		return nil, err
	}
	readme, err := ReplaceTable(dash.Readme, Table(idx.Snapshots))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ReadmePath, err)
	}
	files := map[string][]byte{
		SnapshotsDir + "/" + id + "/summary.json": summaryJSON,
		SnapshotsDir + "/" + id + "/summary.md":   snap.Markdown,
		IndexPath:                                 indexJSON,
		LastRunPath:                               lastJSON,
		ReadmePath:                                readme,
	}
	// data/latest/ is the newest snapshot, which need not be this one when
	// an older run is published late.
	if newest.ID == id {
		files[LatestDir+"/summary.json"] = summaryJSON
		files[LatestDir+"/summary.md"] = snap.Markdown
	}
	return files, nil
}

func indexEntry(s report.Summary, id, published, source string) IndexEntry {
	tier, scores, _ := render.HeadlineTier(s.Tiers)
	harness := s.Provenance.Harness.Version
	if harness == "" {
		harness = short(s.Provenance.Harness.Commit)
	}
	return IndexEntry{
		ID:           id,
		PublishedAt:  published,
		Simulator:    s.Provenance.Simulator.Tag,
		Harness:      harness,
		Data:         DataRefs(s),
		Tier:         tier,
		TTFTMAPE:     scores.TTFT.MAPE,
		TPOTMAPE:     scores.TPOT.MAPE,
		Scored:       s.Coverage.Scored,
		CorpusPoints: s.Coverage.CorpusPoints,
		Path:         SnapshotsDir + "/" + id + "/",
		Source:       source,
	}
}

func equalRefs(a, b []DataRef) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// Table renders the README's accuracy table from index entries, newest
// first, at most ReadmeRows rows. Untrusted text is escaped.
func Table(entries []IndexEntry) string {
	var b strings.Builder
	b.WriteString("| Published | Simulator | Data | Harness | TTFT MAPE | TPOT MAPE | Tier | Scored | Snapshot |\n")
	b.WriteString("|---|---|---|---|---:|---:|---|---:|---|\n")
	for i, e := range entries {
		if i == ReadmeRows {
			break
		}
		var data []string
		for _, d := range e.Data {
			data = append(data, d.Name+" "+d.Version)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %d / %d | [%s](%s) |\n",
			render.Cell(dateOf(e.PublishedAt)), render.Cell(e.Simulator), render.Cell(strings.Join(data, ", ")),
			render.Cell(e.Harness), render.Pct(e.TTFTMAPE), render.Pct(e.TPOTMAPE), render.Cell(e.Tier),
			e.Scored, e.CorpusPoints, render.Cell(e.ID), e.Path+"summary.md")
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
