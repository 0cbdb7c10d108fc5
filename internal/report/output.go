package report

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
)

// Output file names inside an output directory.
const (
	SummaryFile  = "summary.json"
	PointsFile   = "points.json"
	MarkdownFile = "summary.md"
)

// Run is one harness run's result, the one "summary + points" type: what
// the harness returns, what Write writes and Read reads, one shard of a
// merge, one side of a comparison.
type Run struct {
	Summary Summary
	Points  []Point
}

// Output is one run's complete result: its figures and their Markdown.
type Output struct {
	Run
	Markdown string
}

// Write validates the summary and points against their schemas and writes
// summary.json, points.json and summary.md into dir. Each file is written to
// a temporary file in dir and renamed into place, after all three were
// rendered and validated: nothing is written when validation fails.
func Write(dir string, o Output) error {
	sum, err := jsoncodec.Encode(o.Summary)
	if err != nil {
		return fmt.Errorf("encode summary: %w", err)
	}
	pts := SortPoints(o.Points)
	if pts == nil {
		pts = []Point{}
	}
	ptsRaw, err := jsoncodec.Encode(pts)
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

// Size caps of the result files Read accepts. A summary of the bundled
// corpus is about 10 KB and its points about 100 KB; results may come from
// an untrusted run's artifact.
const (
	MaxSummaryBytes = 10 << 20
	MaxPointsBytes  = 100 << 20
)

// Read loads summary.json and points.json from dir (regular files within
// MaxSummaryBytes and MaxPointsBytes), each checked against its schema and
// decoded strictly, and checks that the points are the ones the
// summary counts.
func Read(dir string) (Summary, []Point, error) {
	fsys := os.DirFS(dir)
	rawS, err := diskio.ReadFileMax(fsys, SummaryFile, MaxSummaryBytes)
	if err != nil {
		return Summary{}, nil, fmt.Errorf("%s: %w", dir, err)
	}
	s, err := ParseSummary(rawS)
	if err != nil {
		return Summary{}, nil, fmt.Errorf("%s: %w", dir, err)
	}
	rawP, err := diskio.ReadFileMax(fsys, PointsFile, MaxPointsBytes)
	if err != nil {
		return Summary{}, nil, fmt.Errorf("%s: %w", dir, err)
	}
	p, err := ParsePoints(rawP)
	if err != nil {
		return Summary{}, nil, fmt.Errorf("%s: %w", dir, err)
	}
	if len(p) != s.Coverage.CorpusPoints {
		return Summary{}, nil, fmt.Errorf("%s: points.json holds %d points, summary.json counts %d", dir, len(p), s.Coverage.CorpusPoints)
	}
	return s, p, nil
}
