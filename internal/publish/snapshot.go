package publish

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// Snapshot is one run's report to publish.
type Snapshot struct {
	Summary runresult.Summary
	// Points are the run's points, checked against the summary (nil: the
	// run kept none; the snapshot then has no points.json and no
	// comparison). The snapshot writes their canonical encoding.
	Points []runresult.Point
	// Inputs is what the run evaluated (its plan, or InputsOf the summary).
	Inputs nightly.Plan
	// RunID is the workflow run (0: published by hand).
	RunID int64
	// Markdown is the rendered summary (summary.md).
	Markdown []byte
	// PublishedAt orders the index.
	PublishedAt time.Time
	// BackfilledAt, when set, marks a snapshot of a past release scored
	// by action backfill (PublishedAt is then the release's date): when it
	// was scored and published.
	BackfilledAt time.Time
	// Source links to what produced it (a workflow run), may be empty.
	Source string
	// WhatIfs are the what-if runs measured against this run, published
	// beside it in its whatif/<name>/ directory (AttachWhatIfs).
	WhatIfs []runresult.Result
	// pointsJSON is Points' canonical encoding when Admit made it (to
	// check its cap); PlanSnapshot encodes Points when it is nil.
	pointsJSON []byte
}

// Dashboard is what the dashboard repository holds at its head; nil means
// the file is absent.
type Dashboard struct {
	Index   []byte
	LastRun []byte
	Readme  []byte
	// Existing is data/snapshots/<id>/summary.json of this snapshot's id.
	Existing []byte
	// Previous is the snapshot just older than this one among those the
	// retention keeps, when its files could be read (PreviousID names it).
	Previous *PreviousSnapshot
	// Config is the dashboard's settings (dashboard.ConfigPath; the zero
	// Config when absent): its retention decides which snapshots the
	// publish removes.
	Config dashboard.Config
	// PrunedFiles are, for each snapshot the retention prunes with this
	// one published, the files under its directory (none when it has
	// none): the publish removes exactly these. ComparePages are the
	// files of data/compare/ when some snapshot is pruned (nil otherwise):
	// a comparison page naming a pruned snapshot is removed when it is
	// there.
	PrunedFiles  map[string][]string
	ComparePages map[string]bool
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

// ErrStale is returned by a RunPublisher's plan (the leaderboard's) when a
// newer run's files are already published: an older run delivered late
// never moves them back. CommitDashboard makes it a no-op.
var ErrStale = errors.New("a newer run's leaderboard is already published")

// ErrPruned is returned by PlanSnapshot when the dashboard's retention
// would remove the snapshot itself (an experimental snapshot older than
// the newest ones it keeps): publishing is a no-op.
var ErrPruned = errors.New("the dashboard's retention keeps newer experimental snapshots only (retention.keep_experimental in " + dashboard.ConfigPath + ")")

// ErrImmutable is returned by PlanSnapshot when a snapshot with the same id
// and different content is already published.
var ErrImmutable = errors.New("snapshot already published with different content")

var idUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// maxFileName is the longest name of a file a publish writes: with the
// temporary name it is first written as, it fits diskio.MaxFileName.
const maxFileName = diskio.MaxFileName - diskio.TempNameExtra

// shorten is s when it has at most n bytes; otherwise its first bytes (a
// whole UTF-8 sequence at the end), "-" and 16 hex digits of the SHA-256
// of all of s, n bytes at most: stable, and two strings sharing the kept
// start stay apart.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	keep := s[:n-1-16]
	for keep != "" && !utf8.ValidString(keep) {
		keep = keep[:len(keep)-1]
	}
	return keep + "-" + hex.EncodeToString(sum[:8])
}

// comparePath is the comparison page of snapshot id with prev, the one
// before it: data/compare/<prev>..<id>.md, or, when that file name would be
// over maxFileName bytes, each id shortened to half of it (shorten).
func comparePath(prev, id string) string {
	name := prev + ".." + id + ".md"
	if len(name) > maxFileName {
		half := (maxFileName - len("...md")) / 2
		name = shorten(prev, half) + ".." + shorten(id, half) + ".md"
	}
	return dashboard.CompareDir + "/" + name
}

// DataRefs lists a summary's data versions: ledger, then catalog and
// registry when given.
func DataRefs(s runresult.Summary) []dashboard.DataRef {
	refs := []dashboard.DataRef{{Name: "ledger", Version: s.Provenance.Ledger.Version}}
	if c := s.Provenance.Catalog; c != nil {
		refs = append(refs, dashboard.DataRef{Name: "catalog", Version: c.Version})
	}
	if r := s.Provenance.Registry; r != nil {
		refs = append(refs, dashboard.DataRef{Name: "registry", Version: r.Version})
	}
	return refs
}

// SnapshotID names a snapshot by its simulator release, data versions,
// harness version and run, e.g.
// "v0.7.15_ledger-v1.0.0_catalog-v1.0.0_harness-v1.2.0_run-4242": one per
// run (a snapshot published by hand, runID 0, has no run part). An id
// longer than dashboard.MaxSnapshotIDBytes is shortened stably (its start,
// "-" and a hash of the whole).
func SnapshotID(s runresult.Summary, runID int64) string {
	parts := []string{simulatorLabel(s.Provenance.Simulator)}
	for _, d := range DataRefs(s) {
		parts = append(parts, d.Name+"-"+d.Version)
	}
	parts = append(parts, "harness-"+harnessLabel(s.Provenance.Harness))
	if runID > 0 {
		parts = append(parts, fmt.Sprintf("run-%d", runID))
	}
	id := idUnsafe.ReplaceAllString(strings.Join(parts, "_"), "-")
	return shorten(strings.Trim(id, "-."), dashboard.MaxSnapshotIDBytes)
}

// simulatorLabel is the simulator's release tag, or its short commit for
// a build no release names (published only as experimental, by hand).
func simulatorLabel(sim runresult.Simulator) string {
	if sim.Tag != "" {
		return sim.Tag
	}
	return ident.Short(sim.Commit)
}

// harnessLabel is the harness's release, or its short commit without one.
func harnessLabel(h runresult.Harness) string {
	if h.Version != "" {
		return h.Version
	}
	return ident.Short(h.Commit)
}

// InputsOf is what a summary says it evaluated, for a run that carried no
// plan: the simulator release, the harness and the data versions.
func InputsOf(s runresult.Summary) nightly.Plan {
	p := nightly.Plan{Version: nightly.Version,
		Simulator: nightly.Source{Repository: s.Provenance.Simulator.Repo, Release: s.Provenance.Simulator.Tag, Commit: s.Provenance.Simulator.Commit},
		Harness:   nightly.Source{Release: s.Provenance.Harness.Version, Commit: s.Provenance.Harness.Commit},
	}
	for _, d := range DataRefs(s) {
		p.Data = append(p.Data, nightly.Data{Name: d.Name, Version: d.Version})
	}
	return p.Normalize()
}

// PlanSnapshot returns the files one publish writes (path → content, a
// nil content removing the path): data/snapshots/<id>/summary.json,
// points.json and summary.md, data/index.json, state/last-run.json,
// README.md, the comparison with the previous snapshot
// (data/compare/<previous>..<id>.md, when both have points; each id
// shortened when the name would be over 255 bytes) and, when the snapshot
// is the index's Published entry (the newest release, or the newest of all
// while none is a release), data/latest/ (the same three files).
// state/last-run.json always describes the newest index entry and
// data/latest/ the Published one, so a late publish of an older run does
// not move them back, and an experimental snapshot never replaces a
// release in data/latest/.
//
// With the dashboard's retention set (dash.Config), the experimental
// snapshots beyond the newest it keeps are pruned in the same files:
// their entries leave the index, which records them (Index.Pruned: how
// many, the oldest and the newest), their files (dash.PrunedFiles) are
// removed, and so is every comparison page naming one (the newer
// snapshot's entry then links none). A release is never pruned.
//
// It returns ErrUnchanged when the inputs are those of the newest
// published snapshot or the id exists with the same content, ErrPruned
// when the retention would prune the snapshot itself, ErrImmutable when
// the id exists with other content, and an error naming the file when a
// dashboard file is malformed.
func PlanSnapshot(snap Snapshot, dash Dashboard) (map[string][]byte, error) {
	s := snap.Summary
	id := SnapshotID(s, snap.RunID)
	if dash.LastRun != nil {
		last, err := dashboard.ParseLastRun(dash.LastRun)
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
			return nil, fmt.Errorf("%s/%s: %w", dashboard.SnapshotsDir, id, ErrImmutable)
		}
		return nil, ErrUnchanged
	}
	pl, err := place(dash.Index, snap.entry(id), dash.Config.Retention)
	if err != nil {
		return nil, err
	}
	if pl.at < 0 {
		return nil, ErrPruned
	}
	kept, at := pl.kept, pl.at
	files := map[string][]byte{
		dashboard.SnapshotsDir + "/" + id + "/summary.json": summaryJSON,
		dashboard.SnapshotsDir + "/" + id + "/summary.md":   snap.Markdown,
	}
	var pointsJSON []byte
	if snap.Points != nil {
		if pointsJSON = snap.pointsJSON; pointsJSON == nil {
			if pointsJSON, err = jsoncodec.Encode(snap.Points); err != nil {
				return nil, fmt.Errorf("encode points: %w", err)
			}
		}
		files[dashboard.SnapshotsDir+"/"+id+"/"+runresult.PointsFile] = pointsJSON
	}
	wf, err := snap.whatIfFiles(id)
	if err != nil {
		return nil, err
	}
	maps.Copy(files, wf)
	if err := pruneFiles(files, kept, pl.pruned, dash); err != nil {
		return nil, err
	}
	if prev := dash.Previous; prev != nil && at+1 < len(kept) && prev.ID == kept[at+1].ID && snap.Points != nil {
		if md, ok := comparePage(*prev, kept[at+1].PublishedAt, runresult.Result{Summary: s, Points: snap.Points}, kept[at]); ok {
			path := comparePath(prev.ID, id)
			files[path] = md
			kept[at].Compare = path
		}
	}
	idx := dashboard.Index{Version: dashboard.IndexVersion, Snapshots: kept, Pruned: pl.record}
	indexJSON, err := jsoncodec.Encode(idx)
	if err != nil {
		return nil, err
	}
	newest := kept[0]
	lastJSON, err := jsoncodec.Encode(dashboard.LastRun{Version: dashboard.LastRunVersion, SimulatorRelease: newest.Simulator, Data: newest.Data,
		Harness: newest.Harness, Snapshot: newest.ID, PublishedAt: newest.PublishedAt, Inputs: newest.Inputs})
	if err != nil {
		return nil, err
	}
	readme, err := render.ReplaceTable(dash.Readme, render.SnapshotTable(snapshotRows(idx.Snapshots), dashboard.IndexPath))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dashboard.ReadmePath, err)
	}
	files[dashboard.IndexPath], files[dashboard.LastRunPath], files[dashboard.ReadmePath] = indexJSON, lastJSON, readme
	// data/latest/ is the published snapshot, which need not be this one
	// when an older run is published late or this one is experimental.
	if latest, _ := Published(kept); latest.ID == id {
		files[dashboard.LatestDir+"/summary.json"] = summaryJSON
		files[dashboard.LatestDir+"/summary.md"] = snap.Markdown
		if pointsJSON != nil {
			files[dashboard.LatestDir+"/"+runresult.PointsFile] = pointsJSON
		}
	}
	return files, nil
}

// pruneFiles adds to files the removal of each pruned snapshot's files
// (dash.PrunedFiles, an error when one was not listed) and comparison
// page, and of every kept entry's comparison page that compares it with a
// pruned one (comparePath of the two), whose link it clears; a page is
// removed only when dash.ComparePages has it, as a commit may remove only
// a file that is there.
func pruneFiles(files map[string][]byte, kept, pruned []dashboard.IndexEntry, dash Dashboard) error {
	gone := map[string]bool{}
	for _, e := range pruned {
		list, ok := dash.PrunedFiles[e.ID]
		if !ok {
			return fmt.Errorf("snapshot %s is pruned by the retention but its files were not listed", e.ID)
		}
		for _, f := range list {
			files[f] = nil
		}
		if e.Compare != "" {
			gone[e.Compare] = true
		}
	}
	for i, e := range kept {
		if e.Compare == "" {
			continue
		}
		for _, x := range pruned {
			if e.Compare == comparePath(x.ID, e.ID) {
				gone[e.Compare], kept[i].Compare = true, ""
				break
			}
		}
	}
	for p := range gone {
		if dash.ComparePages[p] {
			files[p] = nil
		}
	}
	return nil
}

// Published is the entry a dashboard headlines among entries (newest
// first): the newest one labelled release, or the newest of all when none
// is (then it is shown as experimental); ok is false when entries is
// empty. data/latest/ holds it and the site's Overview shows it, so an
// experimental snapshot published after a release never reads as the
// simulator's published accuracy. An entry without a label (written
// before the index recorded labels) is not known to be a release.
func Published(entries []dashboard.IndexEntry) (e dashboard.IndexEntry, ok bool) {
	if len(entries) == 0 {
		return dashboard.IndexEntry{}, false
	}
	for _, e := range entries {
		if e.Label == runresult.LabelRelease {
			return e, true
		}
	}
	return entries[0], true
}

// entry is snap's index entry, published under id.
func (snap Snapshot) entry(id string) dashboard.IndexEntry {
	e := indexEntry(snap.Summary, id, snap.PublishedAt.UTC().Format(time.RFC3339), snap.Source)
	inputs := snap.Inputs.Normalize()
	e.Run, e.Inputs = snap.RunID, &inputs
	if !snap.BackfilledAt.IsZero() {
		e.BackfilledAt = snap.BackfilledAt.UTC().Format(time.RFC3339)
	}
	return e
}

// placed is an index with an entry placed in it and the retention
// applied (place).
type placed struct {
	// kept are the entries kept, newest first; at is the placed entry's
	// position among them, -1 when the retention prunes it.
	kept []dashboard.IndexEntry
	at   int
	// pruned are the entries the retention prunes now, record the index's
	// record of what it pruned with them added.
	pruned []dashboard.IndexEntry
	record *dashboard.Pruned
}

// place decodes the index and returns its entries with entry added
// (replacing one of the same id), newest first, split by the retention r
// (dashboard.Retention.Apply).
func place(index []byte, entry dashboard.IndexEntry, r dashboard.Retention) (placed, error) {
	idx := dashboard.Index{Version: dashboard.IndexVersion}
	if index != nil {
		var err error
		if idx, err = dashboard.DecodeIndex(index); err != nil {
			return placed{}, fmt.Errorf("%s: %w", dashboard.IndexPath, err)
		}
	}
	all := []dashboard.IndexEntry{entry}
	for _, e := range idx.Snapshots {
		if e.ID != entry.ID {
			all = append(all, e)
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].PublishedAt != all[j].PublishedAt {
			return all[i].PublishedAt > all[j].PublishedAt
		}
		// Runs finished in the same second: the later run is newer.
		if all[i].Run != all[j].Run {
			return all[i].Run > all[j].Run
		}
		return all[i].ID > all[j].ID
	})
	p := placed{record: idx.Pruned}
	p.kept, p.pruned = r.Apply(all)
	if len(p.pruned) > 0 {
		p.record = idx.Pruned.Add(p.pruned, *r.KeepExperimental)
	}
	p.at = slices.IndexFunc(p.kept, func(e dashboard.IndexEntry) bool { return e.ID == entry.ID })
	return p, nil
}

// PreviousID names the published snapshot just older than snap, published
// under id (SnapshotID), among those the retention r keeps: the one its
// comparison page compares with ("" for none), the entry PlanSnapshot puts
// after it. A malformed index is PlanSnapshot's to report: here it means
// no previous snapshot.
func PreviousID(snap Snapshot, id string, index []byte, r dashboard.Retention) string {
	p, err := place(index, snap.entry(id), r)
	if err != nil || p.at < 0 || p.at+1 >= len(p.kept) {
		return ""
	}
	return p.kept[p.at+1].ID
}

// comparePage renders the comparison of the previous snapshot (published
// at prevAt) with cur, published as entry, each named by its label
// (render.SnapshotsComparison); ok is false when the previous snapshot's
// files do not parse (an old snapshot without points.json is not read at
// all).
func comparePage(prev PreviousSnapshot, prevAt string, cur runresult.Result, entry dashboard.IndexEntry) ([]byte, bool) {
	if prev.Points == nil {
		return nil, false
	}
	run, err := runresult.Parse(prev.Summary, prev.Points)
	if err != nil {
		return nil, false
	}
	c := runresult.CompareRuns(run, cur, prev.ID, entry.ID)
	v := render.SnapshotsComparison(c, render.SnapshotLabel(run.Summary.Provenance.Simulator, prevAt), prev.ID,
		render.SnapshotLabel(cur.Summary.Provenance.Simulator, entry.PublishedAt), entry.ID)
	return []byte(render.CompareMarkdown(v)), true
}

func indexEntry(s runresult.Summary, id, published, source string) dashboard.IndexEntry {
	tier, scores, _ := runresult.Headline(s.Tiers)
	mape := map[string]*float64{}
	for _, d := range metric.All {
		if m, ok := scores.Of(d); ok {
			mape[d.Key] = m.MAPE
		}
	}
	harness := harnessLabel(s.Provenance.Harness)
	return dashboard.IndexEntry{
		ID:           id,
		PublishedAt:  published,
		Simulator:    simulatorLabel(s.Provenance.Simulator),
		Harness:      harness,
		Data:         DataRefs(s),
		Label:        s.Label,
		Tier:         tier,
		MAPE:         mape,
		Scored:       s.Coverage.Scored,
		CorpusPoints: s.Coverage.CorpusPoints,
		Path:         dashboard.SnapshotsDir + "/" + id + "/",
		Source:       source,
	}
}

// snapshotRows are the README table's rows of index entries.
func snapshotRows(entries []dashboard.IndexEntry) []render.SnapshotRow {
	rows := make([]render.SnapshotRow, len(entries))
	for i, e := range entries {
		rows[i] = render.SnapshotRow{PublishedAt: e.PublishedAt, Simulator: e.Simulator, Label: e.Label, Data: dataText(e.Data), Harness: e.Harness,
			MAPE: e.MAPE, Tier: e.Tier, Scored: e.Scored, CorpusPoints: e.CorpusPoints, ID: e.ID, Summary: e.Path + "summary.md", Compare: e.Compare}
	}
	return rows
}

// dataText lists data versions as "ledger v1.0.0, catalog v1.0.0".
func dataText(refs []dashboard.DataRef) string {
	var data []string
	for _, d := range refs {
		data = append(data, d.Name+" "+d.Version)
	}
	return strings.Join(data, ", ")
}

// AttachWhatIfs sets the what-if runs measured against the snapshot's run
// (whatif.ReadRuns of its result directory), to be published beside it in
// its whatif/<name>/ directory as its diagnosis, and renders the
// snapshot's summary.md with their Why section. It returns the reasons
// they may not be (every one): a run that is no what-if, or was not
// measured against this run (another harness commit, simulator commit or
// ledger, or a point the run lacks).
func (s *Snapshot) AttachWhatIfs(runs []runresult.Result) []string {
	var reasons []string
	var attrs []whatif.Attribution
	p := s.Summary.Provenance
	for _, r := range runs {
		q := r.Summary.Provenance
		name := r.Summary.Label
		if q.WhatIf != nil {
			name = q.WhatIf.Name
		}
		if q.Harness.Commit != p.Harness.Commit || q.Simulator.Commit != p.Simulator.Commit || q.Ledger.Digest != p.Ledger.Digest {
			reasons = append(reasons, fmt.Sprintf("what-if %s was not measured against this run (another harness commit, simulator commit or ledger)", name))
			continue
		}
		a, err := whatif.Attribute(s.Points, r)
		if err != nil {
			reasons = append(reasons, err.Error())
			continue
		}
		attrs = append(attrs, a)
	}
	if len(reasons) > 0 {
		return reasons
	}
	s.WhatIfs = runs
	if len(runs) > 0 {
		s.Markdown = []byte(render.SummaryWhy(s.Summary, attrs))
	}
	return nil
}

// whatIfFiles are the files of the what-ifs published beside snapshot id.
func (s Snapshot) whatIfFiles(id string) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, r := range s.WhatIfs {
		dir := dashboard.SnapshotsDir + "/" + id + "/" + whatif.Dir + "/" + r.Summary.Provenance.WhatIf.Name + "/"
		sum, err := jsoncodec.Encode(r.Summary)
		if err != nil {
			return nil, fmt.Errorf("encode what-if summary: %w", err)
		}
		pts, err := jsoncodec.Encode(runresult.SortPoints(r.Points))
		if err != nil {
			return nil, fmt.Errorf("encode what-if points: %w", err)
		}
		files[dir+runresult.SummaryFile], files[dir+runresult.PointsFile] = sum, pts
		files[dir+runresult.MarkdownFile] = []byte(render.Summary(r.Summary))
	}
	return files, nil
}
