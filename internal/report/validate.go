package report

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/schemas"
)

// ParseSummary checks raw summary.json bytes against schemas/summary.v1.json,
// decodes them strictly and checks that the coverage balances: the one way
// to read a summary that came from elsewhere (a file, an artifact).
func ParseSummary(raw []byte) (Summary, error) {
	if err := schemas.Validate(schemas.Summary, raw); err != nil {
		return Summary{}, fmt.Errorf("summary.json: %w", err)
	}
	var s Summary
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
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

// ParsePoints checks raw points.json bytes against schemas/points.v1.json and
// decodes them strictly.
func ParsePoints(raw []byte) ([]Point, error) {
	if err := schemas.Validate(schemas.Points, raw); err != nil {
		return nil, fmt.Errorf("points.json: %w", err)
	}
	var p []Point
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("points.json: %w", err)
	}
	return p, nil
}

// ValidatePoints is ParsePoints without the result.
func ValidatePoints(raw []byte) error {
	_, err := ParsePoints(raw)
	return err
}
