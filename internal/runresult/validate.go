package runresult

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/schemas"
)

// summarySchemas maps each readable summary.json version to its schema.
var summarySchemas = map[int]string{1: schemas.SummaryV1, 2: schemas.Summary}

// summarySchema is the schema of a summary of version v: its own when v
// is readable, else the current one (which then names what is wrong).
func summarySchema(v int) string {
	if slices.Contains(ReadableVersions, v) {
		return summarySchemas[v]
	}
	return schemas.Summary
}

// ParseSummary checks raw summary.json bytes against the schema of their
// schema_version (schemas/summary.v2.json, or summary.v1.json for a summary
// of an older harness), decodes them strictly and checks that the coverage
// balances: the one way to read a summary that came from elsewhere (a file,
// an artifact), at most MaxSummaryBytes. A version 1 summary decodes with
// the headline metrics only. The bytes are parsed once for the version and the schema (one JSON
// document) and once into the Summary.
func ParseSummary(raw []byte) (Summary, error) {
	if len(raw) > MaxSummaryBytes {
		return Summary{}, fmt.Errorf("%s is larger than %d bytes", SummaryFile, MaxSummaryBytes)
	}
	doc, err := schemas.Parse(raw)
	if err != nil {
		return Summary{}, fmt.Errorf("summary.json: %w", err)
	}
	version := SchemaVersion
	if m, ok := doc.(map[string]any); ok {
		if v, ok := m["schema_version"].(json.Number); ok {
			if n, err := strconv.Atoi(v.String()); err == nil {
				version = n
			}
		}
	}
	if err := schemas.ValidateDoc(summarySchema(version), doc); err != nil {
		return Summary{}, fmt.Errorf("summary.json: %w", err)
	}
	var s Summary
	if err := jsoncodec.Decode(raw, &s); err != nil {
		return Summary{}, fmt.Errorf("summary.json: %w", err)
	}
	if err := s.Coverage.check(); err != nil {
		return Summary{}, err
	}
	return s, nil
}

// check is the coverage rule every summary keeps: scored and not scored
// add up to the corpus points.
func (c Coverage) check() error {
	if !c.Balanced() {
		return fmt.Errorf("summary.json: coverage does not balance: scored %d + not scored %d != corpus points %d", c.Scored, c.NotScored, c.CorpusPoints)
	}
	return nil
}

// ParsePoints checks raw points.json bytes against schemas/points.v2.json
// (which a version 1 document also matches) and decodes them strictly; at
// most MaxPointsBytes.
func ParsePoints(raw []byte) ([]Point, error) {
	if len(raw) > MaxPointsBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes", PointsFile, MaxPointsBytes)
	}
	if err := schemas.Validate(schemas.Points, raw); err != nil {
		return nil, fmt.Errorf("points.json: %w", err)
	}
	var p []Point
	if err := jsoncodec.Decode(raw, &p); err != nil {
		return nil, fmt.Errorf("points.json: %w", err)
	}
	return p, nil
}
