// Package dashboard is the dashboard repository's layout and its reading:
// where a publish puts each file (data/index.json, the snapshots, latest,
// the comparison pages, state/last-run.json, the README's table), the
// formats of the index and the last run, the reading of a checkout's
// published snapshots (Load, what the site draws), of the run `action
// compare` names (RunDir) and of the nightly plan of a checkout
// (ResolvePlan). internal/publish writes a dashboard through this layout,
// internal/site builds its pages from Load, internal/render draws them.
package dashboard

import (
	"encoding/json"
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
)

// The dashboard's files: the snapshots a publish writes and its state, the
// files besides the snapshot itself, which the nightly plan
// (state/last-run.json), `action site` and `action compare` read back.

// Paths in the dashboard repository.
const (
	SnapshotsDir = "data/snapshots"
	LatestDir    = "data/latest"
	// CompareDir holds one Markdown comparison per published snapshot with
	// the one before it: <previous>..<id>.md.
	CompareDir  = "data/compare"
	IndexPath   = "data/index.json"
	LastRunPath = "state/last-run.json"
	// ReadmePath holds the accuracy table between its
	// markers (internal/render).
	ReadmePath = "README.md"
	// IndexVersion is the version of data/index.json. Version 2 holds each
	// snapshot's MAPE by metric key (every metric of internal/metric);
	// version 1 (ttft_mape, tpot_mape) is still read and rewritten as
	// version 2 on the next publish.
	IndexVersion = 2
	// LastRunVersion is the version of state/last-run.json.
	LastRunVersion = 1
	// MaxLastRunBytes caps state/last-run.json as the nightly plan reads it
	// from a checkout (a few hundred bytes as the bot writes it).
	MaxLastRunBytes = 1 << 20
)

// MaxSnapshotIDBytes is the longest snapshot id, the one bound publish
// names a snapshot within (publish.SnapshotID shortens a longer one) and
// the site refuses an index beyond: every file named by an id (the
// snapshot's directory data/snapshots/<id>, the site's
// snapshots/<id>.html and data/<id>.js, ".html" the longest suffix) is
// written under a temporary name diskio.TempNameExtra bytes longer, which
// must fit diskio.MaxFileName (a 249-byte id was published, and every
// site build after failed: "file name too long").
const MaxSnapshotIDBytes = diskio.MaxFileName - diskio.TempNameExtra - len(".html")

// DataRef names one data set by name and version.
type DataRef struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// IndexEntry describes one published snapshot in data/index.json.
type IndexEntry struct {
	ID string `json:"id"`
	// PublishedAt orders the index: when the snapshot was published, or,
	// for a backfilled one, when its simulator release was made.
	PublishedAt string `json:"published_at"`
	// BackfilledAt, on a snapshot of a past release scored by action
	// backfill, is when it was scored and published (RFC 3339); absent
	// otherwise.
	BackfilledAt string    `json:"backfilled_at,omitempty"`
	Simulator    string    `json:"simulator"`
	Harness      string    `json:"harness"`
	Data         []DataRef `json:"data"`
	// Label is the snapshot's label ("release" or "experimental", the
	// summary's); "" in entries written before the index recorded it,
	// which count as not known to be a release.
	Label string `json:"label,omitempty"`
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
	// Pruned is what the dashboard's retention (ConfigPath) removed, nil
	// while it has removed nothing.
	Pruned *Pruned `json:"pruned,omitempty"`
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

// indexEntryV1 is an entry of a version 1 index.
type indexEntryV1 struct {
	IndexEntry
	TTFTMAPE *float64 `json:"ttft_mape"`
	TPOTMAPE *float64 `json:"tpot_mape"`
}

// DecodeIndex reads data/index.json of version 2, or of version 1
// converted to version 2 (version 1 held the MAPE of "ttft" and "tpot",
// the metric keys of internal/metric, as two fields).
func DecodeIndex(raw []byte) (Index, error) {
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
			e.IndexEntry.MAPE = map[string]*float64{"ttft": e.TTFTMAPE, "tpot": e.TPOTMAPE}
			idx.Snapshots = append(idx.Snapshots, e.IndexEntry)
		}
		return idx, nil
	}
	return Index{}, fmt.Errorf("version %d is not supported (want 1 or %d)", head.Version, IndexVersion)
}
