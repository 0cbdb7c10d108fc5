package bot

import (
	"archive/zip"
	"bytes"
	"path"
	"testing"
)

// FuzzReportFromArtifact: the artifact's zip archive comes from a workflow
// run the bot does not control. Any input yields a report whose parts are
// within the size cap (summary.json present), or an error; never a panic.
// `go test` runs the seeds; .ci/fuzz fuzzes.
func FuzzReportFromArtifact(f *testing.F) {
	for _, files := range []map[string][]byte{
		{"summary.json": []byte(`{"schema_version": 2}`)},
		{"head/summary.json": []byte("s"), "head/points.json": []byte("p"), "head/plan.json": []byte("n"), "base/summary.json": []byte("x")},
		{"a/summary.json": []byte("s"), "b/summary.json": []byte("s")},
		{"a/summary.json": []byte("s"), "b/points.json": []byte("p")},
	} {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for name, data := range files {
			w, err := zw.Create(name)
			if err != nil {
				f.Fatal(err)
			}
			w.Write(data)
		}
		if err := zw.Close(); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte("not a zip"))
	f.Fuzz(func(t *testing.T, zipped []byte) {
		rep, err := ReportFromArtifact(zipped)
		if err != nil {
			return
		}
		for name, b := range map[string][]byte{"summary": rep.Summary, "points": rep.Points, "plan": rep.Plan} {
			if len(b) > MaxSummaryBytes {
				t.Errorf("%s of %d bytes returned", name, len(b))
			}
		}
		// The archive held exactly one summary.json, which was read.
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
		if n != 1 {
			t.Errorf("accepted an archive with %d summary.json entries", n)
		}
	})
}
