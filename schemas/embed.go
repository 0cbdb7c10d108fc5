// Package schemas embeds the project's versioned JSON Schemas (draft
// 2020-12) and validates documents against them: summary.v2.json and
// points.v2.json (the harness's outputs; summary.v1.json is kept for reading
// older summaries, and points.v2.json accepts version 1 points, whose
// latencies are a subset), ledger-manifest.v1.json and
// ledger-unit.v1.json (the measured corpus), leaderboard-runs.v1.json and
// leaderboard-result.v1.json (the leaderboard).
package schemas

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema file names.
const (
	Summary        = "summary.v2.json"
	Points         = "points.v2.json"
	SummaryV1      = "summary.v1.json"
	LedgerManifest = "ledger-manifest.v1.json"
	LedgerUnit     = "ledger-unit.v1.json"
	// LeaderboardRuns is a leaderboard's runs.yaml, LeaderboardResult one
	// of its result files (results/<group>/<run>.json).
	LeaderboardRuns   = "leaderboard-runs.v1.json"
	LeaderboardResult = "leaderboard-result.v1.json"
)

// FS holds every *.json schema of this directory.
//
//go:embed *.json
var FS embed.FS

// compiled holds every schema of FS, compiled once with one compiler.
var compiled = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	names, err := fs.Glob(FS, "*.json")
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	urls := map[string]string{}
	for _, name := range names {
		raw, err := fs.ReadFile(FS, name)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		// Each schema is known by its $id, so that one schema can refer to
		// another by relative URL (leaderboard-runs.v1.json#/$defs/...).
		url := "mem:///" + name
		if m, ok := doc.(map[string]any); ok {
			if id, ok := m["$id"].(string); ok && id != "" {
				url = id
			}
		}
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		urls[name] = url
	}
	out := make(map[string]*jsonschema.Schema, len(names))
	for _, name := range names {
		s, err := c.Compile(urls[name])
		if err != nil {
			return nil, fmt.Errorf("compile schema %s: %w", name, err)
		}
		out[name] = s
	}
	return out, nil
})

// ValidateDetailed is Validate returning the validator's own error (a
// *jsonschema.ValidationError when raw breaks the schema), for callers that
// locate each problem themselves.
func ValidateDetailed(name string, raw []byte) error {
	all, err := compiled()
	if err != nil {
		return err
	}
	s, ok := all[name]
	if !ok {
		return fmt.Errorf("no schema %s", name)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return s.Validate(doc)
}

// Parse parses raw as one JSON document, as the validator reads it (numbers
// kept exact), for ValidateDoc: a caller that also reads the document's
// fields parses it once.
func Parse(raw []byte) (any, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	return doc, nil
}

// ValidateDoc is Validate of a document Parse returned.
func ValidateDoc(name string, doc any) error {
	all, err := compiled()
	if err != nil {
		return err
	}
	s, ok := all[name]
	if !ok {
		return fmt.Errorf("no schema %s", name)
	}
	var ve *jsonschema.ValidationError
	if err := s.Validate(doc); errors.As(err, &ve) {
		return fmt.Errorf("does not match its schema: %s", ve.Error())
	} else if err != nil {
		return err
	}
	return nil
}

// Validate checks the JSON document raw against the schema file name (one of
// the constants above). The error says whether raw is not JSON or where it
// breaks the schema.
func Validate(name string, raw []byte) error {
	err := ValidateDetailed(name, raw)
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		return fmt.Errorf("does not match its schema: %s", ve.Error())
	}
	return err
}
