package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
)

// Output file names inside an output directory.
const (
	SummaryFile  = "summary.json"
	PointsFile   = "points.json"
	MarkdownFile = "summary.md"
)

// Output is one run's complete result.
type Output struct {
	Summary  Summary
	Points   []Point
	Markdown string
}

// EncodeJSON renders v as indented JSON with a trailing newline; the same value
// always gives the same bytes.
func EncodeJSON(v any) ([]byte, error) { return diskio.JSON(v) }

// Write validates the summary and points against their schemas and writes
// summary.json, points.json and summary.md into dir. Each file is written to
// a temporary file in dir and renamed into place, after all three were
// rendered and validated: nothing is written when validation fails.
func Write(dir string, o Output) error {
	sum, err := EncodeJSON(o.Summary)
	if err != nil {
		return fmt.Errorf("encode summary: %w", err)
	}
	pts := SortPoints(o.Points)
	if pts == nil {
		pts = []Point{}
	}
	ptsRaw, err := EncodeJSON(pts)
	if err != nil {
		return fmt.Errorf("encode points: %w", err)
	}
	if err := ValidateSummary(sum); err != nil {
		return err
	}
	if err := ValidatePoints(ptsRaw); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{SummaryFile, sum}, {PointsFile, ptsRaw}, {MarkdownFile, []byte(o.Markdown)}} {
		if err := diskio.WriteAtomic(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}

// Read loads and validates summary.json and points.json from dir.
func Read(dir string) (Summary, []Point, error) {
	rawS, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return Summary{}, nil, err
	}
	if err := ValidateSummary(rawS); err != nil {
		return Summary{}, nil, fmt.Errorf("%s: %w", dir, err)
	}
	rawP, err := os.ReadFile(filepath.Join(dir, PointsFile))
	if err != nil {
		return Summary{}, nil, err
	}
	if err := ValidatePoints(rawP); err != nil {
		return Summary{}, nil, fmt.Errorf("%s: %w", dir, err)
	}
	var s Summary
	if err := json.Unmarshal(rawS, &s); err != nil {
		return Summary{}, nil, fmt.Errorf("%s: %w", filepath.Join(dir, SummaryFile), err)
	}
	var p []Point
	if err := json.Unmarshal(rawP, &p); err != nil {
		return Summary{}, nil, fmt.Errorf("%s: %w", filepath.Join(dir, PointsFile), err)
	}
	return s, p, nil
}
