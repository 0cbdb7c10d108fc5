package dashboard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// ConfigPath is the dashboard's own settings, which every publish into
// it reads (the bot's and `action publish`): absent, every default holds.
const ConfigPath = ".github/accuracy-dashboard.yaml"

// MaxConfigBytes caps ConfigPath (a few lines as a maintainer writes it).
const MaxConfigBytes = 64 << 10

// Config is ConfigPath: the dashboard's settings.
type Config struct {
	Retention Retention `yaml:"retention"`
}

// Retention is which snapshots a publish keeps. Every snapshot labelled
// release is kept, always; KeepExperimental, when set, keeps only the
// newest that many snapshots labelled experimental (0: none), and a
// publish removes the older ones' files in the same commit as the new
// snapshot. Unset (nil), every snapshot is kept. A snapshot whose index
// entry records no label (written before the index recorded labels) is
// not known to be experimental and is kept.
type Retention struct {
	KeepExperimental *int `yaml:"keep_experimental"`
}

// ParseConfig decodes ConfigPath strictly: one YAML document, every key
// known, keep_experimental a whole number not below 0, the file within
// MaxConfigBytes. An empty file is
// the defaults. An error names the file and, where YAML knows it, the
// line.
func ParseConfig(raw []byte) (Config, error) {
	if len(raw) > MaxConfigBytes {
		return Config{}, fmt.Errorf("%s: %d bytes, over its cap of %d", ConfigPath, len(raw), MaxConfigBytes)
	}
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	err := dec.Decode(&c)
	switch {
	case errors.Is(err, io.EOF):
		return Config{}, nil
	case err != nil:
		return Config{}, fmt.Errorf("%s: %s", ConfigPath, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("%s: holds more than one YAML document", ConfigPath)
	}
	if k := c.Retention.KeepExperimental; k != nil && *k < 0 {
		return Config{}, fmt.Errorf("%s: retention.keep_experimental is %d: want the number of experimental snapshots to keep, 0 or more (leave it out to keep them all)", ConfigPath, *k)
	}
	return c, nil
}

// Apply splits entries (newest first, the index's order) into those r
// keeps and those it prunes, each in the order given: every release and
// unlabelled entry kept, and of the experimental ones the newest
// KeepExperimental (all when unset).
func (r Retention) Apply(entries []IndexEntry) (kept, pruned []IndexEntry) {
	if r.KeepExperimental == nil {
		return entries, nil
	}
	seen := 0
	for _, e := range entries {
		if e.Label == runresult.LabelExperimental {
			if seen++; seen > *r.KeepExperimental {
				pruned = append(pruned, e)
				continue
			}
		}
		kept = append(kept, e)
	}
	return kept, pruned
}

// Pruned is what retention has removed from the dashboard since it was
// first applied: the index carries it, and the site says it.
type Pruned struct {
	// Count is how many snapshots were pruned, every one experimental.
	Count int `json:"count"`
	// Oldest and Newest are the first and last published of them.
	Oldest PrunedSnapshot `json:"oldest"`
	Newest PrunedSnapshot `json:"newest"`
	// KeepExperimental is the setting the last prune applied.
	KeepExperimental int `json:"keep_experimental"`
}

// PrunedSnapshot names a pruned snapshot as its index entry did.
type PrunedSnapshot struct {
	ID          string `json:"id"`
	PublishedAt string `json:"published_at"`
	Simulator   string `json:"simulator"`
}

// Add records entries pruned under keep in p (nil: none pruned before).
func (p *Pruned) Add(entries []IndexEntry, keep int) *Pruned {
	if len(entries) == 0 {
		return p
	}
	out := Pruned{}
	if p != nil {
		out = *p
	}
	for _, e := range entries {
		s := PrunedSnapshot{ID: e.ID, PublishedAt: e.PublishedAt, Simulator: e.Simulator}
		if out.Count == 0 || e.PublishedAt < out.Oldest.PublishedAt {
			out.Oldest = s
		}
		if out.Count == 0 || e.PublishedAt > out.Newest.PublishedAt {
			out.Newest = s
		}
		out.Count++
	}
	out.KeepExperimental = keep
	return &out
}
