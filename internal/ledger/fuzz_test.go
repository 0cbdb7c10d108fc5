package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// FuzzLoad feeds the loader a manifest and one unit file, as a ledger handed
// in by path (a pin's data.ledger, --ledger) would: any input loads into a
// ledger whose units pass Validate and whose digest is set, or is an error
// naming the file; never a panic. `go test` runs the seeds; .ci/fuzz fuzzes.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(testManifest), []byte(testUnit))
	// A real manifest and unit of the bundled corpus, the unit renamed to
	// the fixed path the target loads it from.
	manifest, err := os.ReadFile("../../corpus/ledger/" + ManifestFile)
	if err != nil {
		f.Fatal(err)
	}
	units, err := filepath.Glob("../../corpus/ledger/units/*/*/*/*/*.json")
	if err != nil || len(units) == 0 {
		f.Fatalf("no bundled units: %v", err)
	}
	for _, p := range units[:2] {
		raw, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		id := strings.TrimSuffix(strings.TrimPrefix(filepath.ToSlash(p), "../../corpus/ledger/units/"), ".json")
		unit := bytes.Replace(raw, []byte(`"`+id+`"`), []byte(`"`+testUnitID+`"`), 1)
		if _, err := Load(fstest.MapFS{ManifestFile: {Data: manifest}, UnitPath(testUnitID): {Data: unit}}); err != nil {
			f.Fatalf("seed %s does not load: %v", p, err)
		}
		f.Add(manifest, unit)
	}
	f.Fuzz(func(t *testing.T, manifest, unit []byte) {
		l, err := Load(fstest.MapFS{ManifestFile: {Data: manifest}, UnitPath(testUnitID): {Data: unit}})
		if err != nil {
			if !strings.Contains(err.Error(), ManifestFile) && !strings.Contains(err.Error(), UnitPath(testUnitID)) {
				t.Errorf("error names no file: %v", err)
			}
			return
		}
		if len(l.Units) != 1 || l.Units[0].ID != testUnitID || !strings.HasPrefix(l.Digest, "sha256:") {
			t.Fatalf("loaded %d units, digest %q", len(l.Units), l.Digest)
		}
		if err := l.Units[0].Validate(); err != nil {
			t.Errorf("a loaded unit fails Validate: %v", err)
		}
		if err := l.Manifest.validate(); err != nil {
			t.Errorf("a loaded manifest fails validate: %v", err)
		}
	})
}
