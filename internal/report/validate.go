package report

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/schemas"
)

// summarySchemas maps each readable summary.json version to its schema.
var summarySchemas = map[int]string{1: schemas.SummaryV1, 2: schemas.Summary}

// ParseSummary checks raw summary.json bytes against the schema of their
// schema_version (schemas/summary.v2.json, or summary.v1.json for a summary
// of an older harness), decodes them strictly and checks that the coverage
// balances: the one way to read a summary that came from elsewhere (a file,
// an artifact). A version 1 summary decodes with the headline metrics only.
func ParseSummary(raw []byte) (Summary, error) {
	var head struct {
		SchemaVersion *int `json:"schema_version"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return Summary{}, fmt.Errorf("summary.json: not JSON: %w", err)
	}
	name := schemas.Summary
	if head.SchemaVersion != nil && slices.Contains(ReadableVersions, *head.SchemaVersion) {
		name = summarySchemas[*head.SchemaVersion]
	}
	if err := schemas.Validate(name, raw); err != nil {
		return Summary{}, fmt.Errorf("summary.json: %w", err)
	}
	var s Summary
	if err := jsoncodec.Decode(raw, &s); err != nil {
		return Summary{}, fmt.Errorf("summary.json: %w", err)
	}
	if !s.Coverage.Balanced() {
		c := s.Coverage
		return Summary{}, fmt.Errorf("summary.json: coverage does not balance: scored %d + not scored %d != corpus points %d", c.Scored, c.NotScored, c.CorpusPoints)
	}
	return s, nil
}

// ValidateSummary is ParseSummary without the result.
func ValidateSummary(raw []byte) error {
	_, err := ParseSummary(raw)
	return err
}

// ParsePoints checks raw points.json bytes against schemas/points.v2.json
// (which a version 1 document also matches) and decodes them strictly.
func ParsePoints(raw []byte) ([]Point, error) {
	if err := schemas.Validate(schemas.Points, raw); err != nil {
		return nil, fmt.Errorf("points.json: %w", err)
	}
	var p []Point
	if err := jsoncodec.Decode(raw, &p); err != nil {
		return nil, fmt.Errorf("points.json: %w", err)
	}
	return p, nil
}

// ValidatePoints is ParsePoints without the result.
func ValidatePoints(raw []byte) error {
	_, err := ParsePoints(raw)
	return err
}
