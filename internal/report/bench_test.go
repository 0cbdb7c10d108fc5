package report

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchRun is a run the size of the bundled corpus's: 171 points, 46 of
// them scored, as summary.json and points.json bytes.
func benchRun(b *testing.B) (Run, []byte, []byte) {
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
	if err := Write(dir, Output{Run: Run{Summary: s, Points: pts}, Markdown: "# x\n"}); err != nil {
		b.Fatal(err)
	}
	sum, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	raw, _ := os.ReadFile(filepath.Join(dir, PointsFile))
	return Run{Summary: s, Points: pts}, sum, raw
}

// BenchmarkParseSummary: one summary.json read, as every reader of a run
// (the bot, the pull-request flow, merge, the site) does it.
//
//	go test ./internal/report -run '^$' -bench 'ParseSummary|Write' -benchmem
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
		if err := Write(dir, Output{Run: r, Markdown: "# x\n"}); err != nil {
			b.Fatal(err)
		}
	}
}
