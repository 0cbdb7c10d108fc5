package runresult

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
)

// benchRun is a run the size of the bundled corpus's: 171 points, 46 of
// them scored, as summary.json and points.json bytes.
func benchRun(b *testing.B) (Result, []byte, []byte) {
	b.Helper()
	var pts []Point
	for i := range 171 {
		p := 0.0
		if i%4 == 0 {
			p = float64(100 + i)
		}
		x := pt(fmt.Sprintf("u%03d", i/4), 1+i%4, "resolved", float64(90+i), p)
		x.ID = fmt.Sprintf("%s@c=%d", x.Unit, 1+i%4)
		pts = append(pts, x)
	}
	s, err := Summarize(pts, testProvenance(), nil)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := Write(dir, Output{Result: Result{Summary: s, Points: pts}, Markdown: "# x\n"}); err != nil {
		b.Fatal(err)
	}
	sum, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	raw, _ := os.ReadFile(filepath.Join(dir, PointsFile))
	return Result{Summary: s, Points: pts}, sum, raw
}

// BenchmarkParseSummary: one summary.json read, as every reader of a run
// (the bot, the pull-request flow, merge, the site) does it.
//
//	go test ./internal/runresult -run '^$' -bench 'ParseSummary|Write' -benchmem
func BenchmarkParseSummary(b *testing.B) {
	_, sum, _ := benchRun(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseSummary(sum); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrite: one run written (validated, encoded, three files).
func BenchmarkWrite(b *testing.B) {
	r, _, _ := benchRun(b)
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(dir, Output{Result: r, Markdown: "# x\n"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseRunAtPointsCap: one run read whose points.json is just
// under MaxPointsBytes, the most any reader takes: the example dashboard's
// points (the bundled corpus's run) repeated under new ids. B/op is what
// reading it allocates in all (MaxPointsBytes' comment).
//
//	go test ./internal/runresult -run '^$' -bench ParseRunAtPointsCap -benchmem -benchtime 3x
func BenchmarkParseRunAtPointsCap(b *testing.B) {
	example, err := os.ReadFile("../../docs/examples/dashboard/data/latest/points.json")
	if err != nil {
		b.Fatal(err)
	}
	corpus, err := ParsePoints(example)
	if err != nil {
		b.Fatal(err)
	}
	var pts []Point
	var raw []byte
	for copies := MaxPointsBytes / len(example); ; copies-- {
		pts = pts[:0]
		for c := range copies {
			for _, p := range corpus {
				p.ID = fmt.Sprintf("%s#%d", p.ID, c)
				pts = append(pts, p)
			}
		}
		if raw, err = jsoncodec.Encode(pts); err != nil {
			b.Fatal(err)
		}
		if len(raw) <= MaxPointsBytes {
			break
		}
	}
	s, err := Summarize(pts, testProvenance(), nil)
	if err != nil {
		b.Fatal(err)
	}
	sum, err := jsoncodec.Encode(s)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(sum, raw); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(raw))/(1<<20), "points-MiB")
	b.ReportMetric(float64(len(pts)), "points")
}
