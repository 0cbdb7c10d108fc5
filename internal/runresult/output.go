package runresult

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/schemas"
)

// Output file names inside an output directory.
const (
	SummaryFile  = "summary.json"
	PointsFile   = "points.json"
	MarkdownFile = "summary.md"
)

// Result is one harness run's result, the one "summary + points" type: what
// the harness returns, what Write writes and Read reads, one shard of a
// merge, one side of a comparison.
type Result struct {
	Summary Summary
	Points  []Point
}

// Output is one run's complete result: its figures and their Markdown.
type Output struct {
	Result
	Markdown string
}

// Write validates the summary and points and writes summary.json,
// points.json and summary.md into dir. It validates what it encoded, once:
// each file's bytes against its schema, the coverage balanced and the
// points the ones the summary counts (CheckPoints); it does not decode
// them again, and refuses a file over its cap (MaxSummaryBytes,
// MaxPointsBytes), which no reader would take. Each file is written to a
// temporary file in dir and renamed into place, after all three were
// rendered and validated: nothing is written when validation fails. A
// reader in another process reads them back with Read.
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
	// What a reader would refuse for its size is not written.
	if len(sum) > MaxSummaryBytes {
		return fmt.Errorf("%s is larger than %d bytes", SummaryFile, MaxSummaryBytes)
	}
	if len(ptsRaw) > MaxPointsBytes {
		return fmt.Errorf("%s is larger than %d bytes", PointsFile, MaxPointsBytes)
	}
	if err := schemas.Validate(summarySchema(o.Summary.SchemaVersion), sum); err != nil {
		return fmt.Errorf("%s: %w", SummaryFile, err)
	}
	if err := o.Summary.Coverage.check(); err != nil {
		return err
	}
	if err := schemas.Validate(schemas.Points, ptsRaw); err != nil {
		return fmt.Errorf("%s: %w", PointsFile, err)
	}
	if err := CheckPoints(o.Summary, pts); err != nil {
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

// Size caps of a run's files, wherever they are read from (a directory,
// an artifact, a published snapshot): one set, the bot's archive reader's
// too. A summary of the bundled corpus is about 10 KB and its points about
// 185 KB (171 points); results may come from an untrusted run's artifact.
// Reading a points.json of 10 MiB allocates about 220 MiB in all (schema
// check and decoding; BenchmarkParseRunAtPointsCap, the corpus's points
// repeated): ten times that would not fit the bot's 256 MiB.
const (
	MaxSummaryBytes = 10 << 20
	MaxPointsBytes  = 10 << 20
)

// Parse reads one run from the bytes of its summary.json and
// points.json: each within its cap (MaxSummaryBytes, MaxPointsBytes),
// checked against its schema and decoded strictly (ParseSummary,
// ParsePoints), and the points checked against the summary (CheckPoints).
// It is the one way a run that came from elsewhere is read: Read, the
// pull-request flow, merge, the site and the bot's publish all go through
// it.
//
// A nil points is a run without points.json (a summary published by hand
// without one, which the bot's publish admits): the run is its summary,
// with nil Points. A file that is there is never nil as diskio reads it,
// even empty. When the summary reads and the points do not, the error is a
// *PointsError holding the summary; any other error is the summary's.
func Parse(summary, points []byte) (Result, error) {
	s, err := ParseSummary(summary)
	if err != nil {
		return Result{}, err
	}
	if points == nil {
		return Result{Summary: s}, nil
	}
	p, err := ParsePoints(points)
	if err == nil {
		err = CheckPoints(s, p)
	}
	if err != nil {
		return Result{}, &PointsError{Summary: s, Err: err}
	}
	return Result{Summary: s, Points: p}, nil
}

// PointsError is Parse's error for a run whose summary.json read but
// whose points.json did not (over its cap, not its schema, not the points
// the summary counts); its message is the points' error.
type PointsError struct {
	// Summary is the summary read.
	Summary Summary
	Err     error
}

func (e *PointsError) Error() string { return e.Err.Error() }

func (e *PointsError) Unwrap() error { return e.Err }

// CheckPoints is the one check that points are the ones summary s counts:
// as many as its corpus points, as many of them scored as it scored.
func CheckPoints(s Summary, points []Point) error {
	scored := 0
	for _, pt := range points {
		if pt.Scored {
			scored++
		}
	}
	if len(points) != s.Coverage.CorpusPoints || scored != s.Coverage.Scored {
		return fmt.Errorf("%s holds %d points (%d scored), %s counts %d (%d scored)",
			PointsFile, len(points), scored, SummaryFile, s.Coverage.CorpusPoints, s.Coverage.Scored)
	}
	return nil
}

// Read reads the result in dir, summary.json and points.json (regular
// files within MaxSummaryBytes and MaxPointsBytes), with Parse.
func Read(dir string) (Result, error) {
	fsys := os.DirFS(dir)
	rawS, err := diskio.ReadFileMax(fsys, SummaryFile, MaxSummaryBytes)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", dir, err)
	}
	rawP, err := diskio.ReadFileMax(fsys, PointsFile, MaxPointsBytes)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", dir, err)
	}
	r, err := Parse(rawS, rawP)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", dir, err)
	}
	return r, nil
}
