// Package nightly is the pure core of the nightly run's detect-diff. A Plan
// names everything a nightly evaluation depends on: the simulator release,
// the harness release that scores it, and the data versions. The plan step
// resolves the current Plan (newest simulator release, the pinned harness,
// the data the pin names, the newest InferenceX dump) and compares it with
// the Plan of the newest published snapshot (state/last-run.json of the
// dashboard repository): no change is a no-op. The evaluation carries its
// Plan in the report artifact (plan.json), the bot checks it against the
// summary and records it as the new last run. Resolve reads tags through
// the small Tags interface and touches no disk; dashboard.ResolvePlan reads
// what it resolves from in a dashboard checkout (the pin file, the last
// run).
package nightly

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
)

// DefaultSimulatorRepository is the simulator whose releases the nightly
// evaluates (owner/name on the GitHub server).
const DefaultSimulatorRepository = "inference-sim/inference-sim"

// File is the plan's file name in the report artifact.
const File = "plan.json"

// Version is the version of the plan format.
const Version = 1

// Data names, besides the pin's ledger, catalog and registry.
const (
	// DataInferenceXDump is the InferenceX weekly database dump the ledger
	// is imported from, when the nightly imports one.
	DataInferenceXDump = "inferencex-dump"
)

// Source is a release of a repository and the commit its tag names.
type Source struct {
	// Repository is owner/name (or, in tests, a path or URL).
	Repository string `json:"repository"`
	// Release is the release tag, vX.Y.Z.
	Release string `json:"release"`
	// Commit is the 40-hex commit Release names.
	Commit string `json:"commit"`
}

// Data is one data input by name and version.
type Data struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Plan is what one nightly evaluation runs.
type Plan struct {
	Version   int    `json:"version"`
	Simulator Source `json:"simulator"`
	Harness   Source `json:"harness"`
	// Data are the data inputs sorted by name: ledger, catalog and
	// registry as the pin names them ("bundled", fixed by the harness
	// commit; "none"; or the content digest of a directory), and
	// DataInferenceXDump when the nightly imports a dump.
	Data []Data `json:"data"`
}

// Validate checks a plan's fields.
func (p Plan) Validate() error {
	if p.Version != Version {
		return fmt.Errorf("version %d, want %d", p.Version, Version)
	}
	for _, s := range []struct {
		name string
		src  Source
	}{{"simulator", p.Simulator}, {"harness", p.Harness}} {
		switch {
		case s.src.Repository == "":
			return fmt.Errorf("%s.repository is empty", s.name)
		case !ident.IsStableRelease(s.src.Release):
			return fmt.Errorf("%s.release %q is not a release tag vX.Y.Z", s.name, s.src.Release)
		case !ident.IsCommit(s.src.Commit):
			return fmt.Errorf("%s.commit %q is not a 40-hex commit", s.name, s.src.Commit)
		}
	}
	seen := map[string]bool{}
	for i, d := range p.Data {
		if d.Name == "" || d.Version == "" {
			return fmt.Errorf("data[%d]: name and version are required", i)
		}
		if seen[d.Name] {
			return fmt.Errorf("data: %q twice", d.Name)
		}
		seen[d.Name] = true
	}
	return nil
}

// Normalize sorts the data by name, so equal plans encode equally.
func (p Plan) Normalize() Plan {
	p.Data = append([]Data(nil), p.Data...)
	sort.Slice(p.Data, func(i, j int) bool { return p.Data[i].Name < p.Data[j].Name })
	return p
}

// Parse decodes a plan strictly (unknown fields and trailing data are
// errors) and validates it.
func Parse(raw []byte) (Plan, error) {
	var p Plan
	if err := jsoncodec.Decode(raw, &p); err != nil {
		return Plan{}, fmt.Errorf("%s: %w", File, err)
	}
	if err := p.Validate(); err != nil {
		return Plan{}, fmt.Errorf("%s: %w", File, err)
	}
	return p.Normalize(), nil
}

// Encode is the plan as one line of JSON (a step output).
func (p Plan) Encode() []byte {
	b, err := json.Marshal(p.Normalize())
	if err != nil {
		panic(err) // only strings and ints
	}
	return b
}

// Changes lists what differs from last (nil: no previous run) to now, one
// plain sentence per change; empty when nothing changed.
func Changes(last *Plan, now Plan) []string {
	if last == nil {
		return []string{"no previous run is recorded"}
	}
	var out []string
	for _, s := range []struct {
		name      string
		old, next Source
	}{{"simulator", last.Simulator, now.Simulator}, {"harness", last.Harness, now.Harness}} {
		switch {
		case s.old.Repository != s.next.Repository:
			out = append(out, fmt.Sprintf("%s repository %s → %s", s.name, s.old.Repository, s.next.Repository))
		case s.old.Release != s.next.Release:
			out = append(out, fmt.Sprintf("%s release %s → %s", s.name, s.old.Release, s.next.Release))
		case s.old.Commit != s.next.Commit:
			out = append(out, fmt.Sprintf("%s %s now names commit %s (was %s)", s.name, s.next.Release, ident.Short(s.next.Commit), ident.Short(s.old.Commit)))
		}
	}
	old := map[string]string{}
	for _, d := range last.Data {
		old[d.Name] = d.Version
	}
	for _, d := range now.Normalize().Data {
		v, ok := old[d.Name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("data %s %s (new)", d.Name, d.Version))
		case v != d.Version:
			out = append(out, fmt.Sprintf("data %s %s → %s", d.Name, v, d.Version))
		}
		delete(old, d.Name)
	}
	gone := slices.Sorted(maps.Keys(old))
	for _, name := range gone {
		out = append(out, fmt.Sprintf("data %s dropped (was %s)", name, old[name]))
	}
	return out
}

// DataVersion is the version of the data input named name, "" when the
// plan has none.
func (p Plan) DataVersion(name string) string {
	for _, d := range p.Data {
		if d.Name == name {
			return d.Version
		}
	}
	return ""
}

// Equal reports whether two plans name the same inputs.
func Equal(a, b Plan) bool { return bytes.Equal(a.Encode(), b.Encode()) }

// NewestDump returns the newest weekly dump tag (db-dump/YYYY-MM-DD, a real
// date) among tag names, "" for none.
func NewestDump(tags []string) string {
	newest, newestDate := "", ""
	for _, t := range tags {
		t = strings.TrimSpace(t)
		date, ok := ident.DumpTagDate(t)
		if ok && date > newestDate {
			newest, newestDate = t, date
		}
	}
	return newest
}

// ErrNoRelease is returned when a repository has no stable release tag.
var ErrNoRelease = errors.New("no release tag vX.Y.Z")
