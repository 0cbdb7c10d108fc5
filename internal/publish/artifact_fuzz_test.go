package publish

import (
	"archive/zip"
	"bytes"
	"path"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// FuzzReportFromArtifact: the artifact's zip archive comes from a workflow
// run the bot does not control. Any input yields a report whose parts are
// within the size cap (summary.json present, and the what-if runs beside
// it), or an error; never a panic.
// `go test` runs the seeds; .ci/fuzz fuzzes.
func FuzzReportFromArtifact(f *testing.F) {
	for _, files := range []map[string][]byte{
		{"summary.json": []byte(`{"schema_version": 2}`)},
		{"head/summary.json": []byte("s"), "head/points.json": []byte("p"), "head/plan.json": []byte("n"), "base/summary.json": []byte("x")},
		{"a/summary.json": []byte("s"), "b/summary.json": []byte("s")},
		{"a/summary.json": []byte("s"), "b/points.json": []byte("p")},
		{"summary.json": []byte("s"), "whatif/x/summary.json": []byte("s"), "whatif/x/points.json": []byte("p")},
	} {
		f.Add(testkit.Zip(f, files))
	}
	f.Add([]byte("not a zip"))
	f.Add(bytes.Repeat([]byte("PK\x01\x02"), 40))
	f.Add(shortZip64())
	f.Fuzz(func(t *testing.T, zipped []byte) {
		// The entry count is never below what archive/zip builds.
		if zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped))); err == nil && centralRecords(zipped, 1<<30) < len(zr.File) {
			t.Errorf("centralRecords = %d, archive/zip builds %d entries", centralRecords(zipped, 1<<30), len(zr.File))
		}
		rep, err := ReportFromArtifact(zipped)
		if err != nil {
			return
		}
		for name, b := range map[string][]byte{"summary": rep.Summary, "points": rep.Points, "plan": rep.Plan} {
			if len(b) > MaxFileBytes {
				t.Errorf("%s of %d bytes returned", name, len(b))
			}
		}
		// The archive held exactly one summary.json beside the what-ifs'
		// (each a what-if run), and it was read.
		for _, w := range rep.WhatIfs {
			if w.Summary.Provenance.WhatIf == nil {
				t.Errorf("a what-if run %q without its what-if", w.Summary.Label)
			}
		}
		zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
		if err != nil {
			t.Fatalf("accepted an archive zip cannot read: %v", err)
		}
		n := 0
		for _, zf := range zr.File {
			if path.Base(zf.Name) == "summary.json" && !zf.FileInfo().IsDir() {
				n++
			}
		}
		if n != 1+len(rep.WhatIfs) {
			t.Errorf("accepted an archive with %d summary.json entries and %d what-ifs", n, len(rep.WhatIfs))
		}
	})
}
