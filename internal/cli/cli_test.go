package cli

import (
	"flag"
	"strings"
	"testing"
)

func TestPrintFlags(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("out", "", "write into this `directory` (e.g. --out out/)")
	fs.Int("jobs", 2, "parallel runs")
	fs.Bool("quiet", false, "say nothing")
	var b strings.Builder
	PrintFlags(&b, fs)
	want := "  --jobs int\n    \tparallel runs (default \"2\")\n" +
		"  --out directory\n    \twrite into this directory (e.g. --out out/)\n" +
		"  --quiet\n    \tsay nothing\n"
	if b.String() != want {
		t.Errorf("PrintFlags =\n%s\nwant\n%s", b.String(), want)
	}
}
