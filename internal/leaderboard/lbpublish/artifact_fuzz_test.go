package lbpublish

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbview"
	"github.com/inference-sim/accuracy-dashboard/internal/publish"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

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
		fsys, err := publish.ResultsFromArtifact(zipped)
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
			if !fs.ValidPath(name) || path.Clean(name) != name || len(raw) > publish.MaxFileBytes {
				t.Errorf("accepted %q (%d bytes)", name, len(raw))
			}
			total += len(raw)
			return nil
		})
		if err != nil {
			t.Fatalf("walking the accepted results: %v", err)
		}
		if total > publish.MaxArtifactBytes {
			t.Errorf("accepted %d bytes in all", total)
		}
		checked, reasons := lbview.Check(lbview.CheckInput{Runs: runs, RunsName: "runs.yaml", Pin: pinFile, PinName: "pin.yaml", Traces: fstest.MapFS{}, Results: fsys})
		if len(reasons) > 0 && checked.Files != nil {
			t.Errorf("refused (%v) yet files to publish", reasons)
		}
		if len(reasons) == 0 && checked.Files[lbview.MarkdownFile] == nil {
			t.Error("accepted without tables")
		}
	})
}
