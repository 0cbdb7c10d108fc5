package leaderboard

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
)

// A workload saved through `leaderboard serve` (a trace uploaded from the
// browser) is a group with no candidate yet: its id, title, offered work
// (the stored trace) and load. The server keeps them in the workloads file
// beside the results; a candidate declared for one is filed in the
// declarations file under a group of that id restating its offered work,
// whose trace names the stored files (SavedTracePaths), so run, validate
// and verify read it back like any declared group.
const (
	// WorkloadsFile is the saved workloads' file, beside the results
	// directory (SavedWorkloads, JSON).
	WorkloadsFile = "workloads.json"
	// MaxWorkloadsBytes caps it.
	MaxWorkloadsBytes = 1 << 20
)

// SavedWorkloads is the workloads file's content.
type SavedWorkloads struct {
	Version   int     `json:"version"`
	Workloads []Group `json:"workloads"`
}

// DecodeSavedWorkloads reads a workloads file (strict JSON) and checks each
// workload as runs.yaml decoding checks a group (CheckWorkloadGroup).
func DecodeSavedWorkloads(raw []byte) ([]Group, error) {
	var s SavedWorkloads
	if err := jsoncodec.Decode(raw, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", WorkloadsFile, err)
	}
	if s.Version != FormatVersion {
		return nil, fmt.Errorf("%s: version %d; want %d", WorkloadsFile, s.Version, FormatVersion)
	}
	seen := map[string]bool{}
	for i, g := range s.Workloads {
		if err := CheckWorkloadGroup(g); err != nil {
			return nil, fmt.Errorf("%s: workloads[%d]: %w", WorkloadsFile, i, err)
		}
		if seen[g.ID] {
			return nil, fmt.Errorf("%s: workloads[%d]: id %s is given twice", WorkloadsFile, i, g.ID)
		}
		seen[g.ID] = true
	}
	return s.Workloads, nil
}

// EncodeSavedWorkloads is the workloads file of ws (their candidates and
// trace hashes left out).
func EncodeSavedWorkloads(ws []Group) ([]byte, error) {
	out := SavedWorkloads{Version: FormatVersion, Workloads: []Group{}}
	for _, g := range ws {
		out.Workloads = append(out.Workloads, Group{ID: g.ID, Title: g.Title, Workload: OfferedAsWritten(g.Workload), Load: g.Load, KeepUp: g.KeepUp})
	}
	return jsoncodec.Encode(out)
}

// CheckWorkloadGroup checks a saved workload g (a group without
// candidates) as runs.yaml decoding checks a group: the schema's bounds,
// the trace's format and files, the load a trace may be offered at. Each
// problem names its field ("workload.trace", "load", ...).
func CheckWorkloadGroup(g Group) error {
	if len(g.Candidates) > 0 {
		return errors.New("candidates: a saved workload has none (declare them for it)")
	}
	// A placeholder candidate: a group needs one to decode.
	g.Candidates = []Candidate{{ID: "placeholder", Model: "org/placeholder", Hardware: "H100", TP: 1}}
	g.Workload = OfferedAsWritten(g.Workload)
	doc, err := json.Marshal(map[string]any{"version": FormatVersion, "groups": []Group{g}})
	if err != nil {
		return err
	}
	_, err = Decode(doc, "workload")
	var es Errors
	if !errors.As(err, &es) {
		return err
	}
	var msgs []string
	for _, e := range es {
		field := strings.TrimPrefix(strings.TrimPrefix(e.Field, "groups[0]"), ".")
		if field == "" {
			field = "workload"
		}
		msgs = append(msgs, field+": "+e.Msg)
	}
	return errors.New(strings.Join(msgs, "; "))
}

// SavedTracePaths are the paths, relative to the directory holding the
// results directory named results (its base name), that a declared group
// of a saved workload names its stored trace of format and hash by: the
// files of results/traces/<sha256>/.
func SavedTracePaths(results, format, sum string) Trace {
	dir := path.Join(results, TracesDir, sum) + "/"
	if name := TraceSourceFile(format); name != "" {
		return Trace{Format: format, File: dir + name}
	}
	return Trace{Format: format, Header: dir + traceHeaderFile, Data: dir + traceDataFile}
}

// MaxTraceV2Columns bounds the columns of a TraceV2 data file's rows.
const MaxTraceV2Columns = 256

// CheckTraceV2 checks an uploaded TraceV2 pair as far as this project
// reads it (BLIS reads the rest when it replays it): the header is one
// YAML mapping with a positive integer trace_version, and the data is CSV
// whose first row names its columns (unique, non-empty) and whose every
// other row (at least one) has as many fields. Each problem names the
// file ("header", "data") and the line.
func CheckTraceV2(header, data []byte) error {
	var h map[string]any
	if err := yaml.Unmarshal(header, &h); err != nil {
		return fmt.Errorf("header: not a YAML mapping: %w", err)
	}
	v, ok := h["trace_version"].(int)
	if !ok || v < 1 {
		return fmt.Errorf("header: trace_version: %s; want a positive integer (a TraceV2 header starts with trace_version: 2)", shown(h["trace_version"]))
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.ReuseRecord = true
	cols, err := r.Read()
	if err != nil {
		return fmt.Errorf("data: the header row: %w", err)
	}
	if len(cols) > MaxTraceV2Columns {
		return fmt.Errorf("data: the header row has %d columns, over %d", len(cols), MaxTraceV2Columns)
	}
	seen := map[string]bool{}
	for i, c := range cols {
		if c == "" || seen[c] {
			return fmt.Errorf("data: the header row: column %d is empty or named twice (%q)", i+1, c)
		}
		seen[c] = true
	}
	rows := 0
	for {
		_, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("data: %w", err)
		}
		rows++
	}
	if rows == 0 {
		return errors.New("data: no request rows after the header row")
	}
	return nil
}
