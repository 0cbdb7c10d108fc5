package publish

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbview"
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

// FuzzResultsFromArtifact: the leaderboard's results artifact comes from a
// workflow run too. Any input yields a results directory of clean relative
// paths within the caps, or an error; never a panic; and checking it against
// the example's declaration never panics and publishes nothing unless no
// reason was found.
func FuzzResultsFromArtifact(f *testing.F) {
	runs, err := os.ReadFile(filepath.Join(lbExample, "runs.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	pinFile := []byte(lbPin(lbSimTag, lbSimCommit))
	add := func(files map[string][]byte) { f.Add(testkit.Zip(f, files)) }
	add(map[string][]byte{"qwen3-14b-chat-8rps/h100-tp1.json": []byte(`{"schema_version": 1}`)})
	add(map[string][]byte{"../escape.json": []byte("{}"), "a/b.json": []byte("{}")})
	add(map[string][]byte{"traces/x/header.yaml": []byte("h"), "g/r.json": []byte("not json")})
	f.Add([]byte("not a zip"))
	f.Fuzz(func(t *testing.T, zipped []byte) {
		fsys, err := ResultsFromArtifact(zipped)
		if err != nil {
			return
		}
		total := 0
		err = fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			raw, err := fs.ReadFile(fsys, name)
			if err != nil {
				return err
			}
			if !fs.ValidPath(name) || path.Clean(name) != name || len(raw) > MaxFileBytes {
				t.Errorf("accepted %q (%d bytes)", name, len(raw))
			}
			total += len(raw)
			return nil
		})
		if err != nil {
			t.Fatalf("walking the accepted results: %v", err)
		}
		if total > MaxArtifactBytes {
			t.Errorf("accepted %d bytes in all", total)
		}
		checked, reasons := CheckLeaderboard(LeaderboardInput{Runs: runs, RunsName: "runs.yaml", Pin: pinFile, PinName: "pin.yaml", Traces: fstest.MapFS{}, Results: fsys})
		if len(reasons) > 0 && checked.Files != nil {
			t.Errorf("refused (%v) yet files to publish", reasons)
		}
		if len(reasons) == 0 && checked.Files[lbview.MarkdownFile] == nil {
			t.Error("accepted without tables")
		}
	})
}
