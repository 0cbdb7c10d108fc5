package ledger

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

const testManifest = `{"schema_version":1,"name":"t","version":"1","release":false}`

const testUnitID = "inferencex/m/h100/tp1/isl8-osl8"

const testUnit = `{
  "schema_version": 1,
  "id": "inferencex/m/h100/tp1/isl8-osl8",
  "deployment": {
    "model": "org/m", "hardware": "H100", "engine": "vllm",
    "tensor_parallel": {"value": 1, "evidence": "measured"},
    "expert_parallel": {"value": 1, "evidence": "measured"},
    "data_parallel": {"value": 1, "evidence": "measured"},
    "precision": {"value": "fp8", "evidence": "measured"},
    "engine_settings": {"max_num_batched_tokens": {"value": 8192, "evidence": "resolved", "note": "recipe"}}
  },
  "workload": {"client": "inferencex-closed-loop", "seed": 7,
    "inferencex": {"input_len": 8, "output_len": 8, "range_ratio": 0.8, "prompts_per_concurrency": 10, "warmups_per_concurrency": 0, "ignore_eos": true}},
  "points": [
    {"load": {"concurrency": 4}, "measured": {"ttft_ms": 10, "tpot_ms": 2},
     "provenance": {"artifact": "a.json", "row": 0, "run_id": "1", "engine_version": "v0.13.0"},
     "overrides": {"max_num_seqs": {"value": 4, "evidence": "assumed"}}},
    {"load": {"concurrency": 8}, "measured": {"ttft_ms": 12, "tpot_ms": 2.5},
     "provenance": {"artifact": "a.json", "row": 1, "run_id": "1", "engine_version": "v0.13.0"}}
  ]
}`

func ledgerFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for p, s := range files {
		m[p] = &fstest.MapFile{Data: []byte(s)}
	}
	return m
}

func TestLoadValid(t *testing.T) {
	t.Parallel()
	l, err := Load(ledgerFS(map[string]string{ManifestFile: testManifest, UnitPath(testUnitID): testUnit}))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Units) != 1 || l.NumPoints() != 2 || !strings.HasPrefix(l.Digest, "sha256:") {
		t.Fatalf("loaded %d units, %d points, digest %q", len(l.Units), l.NumPoints(), l.Digest)
	}
	u := &l.Units[0]
	if u.Evidence(0) != Assumed || u.Evidence(1) != Resolved {
		t.Errorf("evidence: point 0 %s (override assumed), point 1 %s", u.Evidence(0), u.Evidence(1))
	}
	s0, s1 := u.Settings(0), u.Settings(1)
	if s0.MaxNumSeqs == nil || s0.MaxNumSeqs.Value != 4 || s0.MaxNumBatchedTokens.Value != 8192 {
		t.Errorf("point 0 settings: %+v, want the override max_num_seqs 4 over the deployment's", s0)
	}
	if s1.MaxNumSeqs != nil || s1.MaxNumBatchedTokens.Value != 8192 {
		t.Errorf("point 1 settings: %+v, want the deployment's only", s1)
	}
	if u.PointID(1) != testUnitID+"@c=8" {
		t.Errorf("point id %s", u.PointID(1))
	}
}

// TestLoadNamesFileAndField breaks the unit or the manifest one way at a time
// and checks the error names the file and the field.
func TestLoadNamesFileAndField(t *testing.T) {
	t.Parallel()
	unitFile := UnitPath(testUnitID)
	tests := []struct {
		name     string
		manifest string
		unit     string
		want     []string
	}{
		{"manifest unknown field", strings.Replace(testManifest, `"release"`, `"colour":1,"release"`, 1), testUnit, []string{ManifestFile, `unknown field "colour"`}},
		{"manifest empty name", strings.Replace(testManifest, `"name":"t"`, `"name":" "`, 1), testUnit, []string{ManifestFile, "name: must not be empty"}},
		{"manifest wrong version", strings.Replace(testManifest, `"schema_version":1`, `"schema_version":2`, 1), testUnit, []string{ManifestFile, "schema_version: 2 is not supported"}},
		{"manifest not JSON", "{", testUnit, []string{ManifestFile, "truncated JSON"}},
		{"string for number", testManifest, strings.Replace(testUnit, `"ttft_ms": 10`, `"ttft_ms": "10"`, 1), []string{unitFile, "ttft_ms"}},
		{"unknown field", testManifest, strings.Replace(testUnit, `"engine": "vllm"`, `"engine": "vllm", "gpu": "x"`, 1), []string{unitFile, `unknown field "gpu"`}},
		{"trailing data", testManifest, testUnit + "{}", []string{unitFile, "trailing data"}},
		{"empty unit", testManifest, "", []string{unitFile, "empty file"}},
		{"id differs from file", testManifest, strings.Replace(testUnit, `"id": "inferencex/m/h100/tp1/isl8-osl8"`, `"id": "inferencex/m/h100/tp1/other"`, 1), []string{unitFile, "id:", "does not match its file name"}},
		{"bad evidence", testManifest, strings.Replace(testUnit, `"precision": {"value": "fp8", "evidence": "measured"}`, `"precision": {"value": "fp8", "evidence": "guess"}`, 1), []string{unitFile, "deployment.precision", `"guess"`}},
		{"zero tp", testManifest, strings.Replace(testUnit, `"tensor_parallel": {"value": 1`, `"tensor_parallel": {"value": 0`, 1), []string{unitFile, "deployment.tensor_parallel.value", "less than 1"}},
		{"negative ttft", testManifest, strings.Replace(testUnit, `"ttft_ms": 10`, `"ttft_ms": -1`, 1), []string{unitFile, "points[0].measured.ttft_ms", "positive"}},
		{"unsorted loads", testManifest, strings.Replace(testUnit, `"concurrency": 8`, `"concurrency": 2`, 1), []string{unitFile, "points[1].load", "sorted"}},
		{"duplicate load", testManifest, strings.Replace(testUnit, `"concurrency": 8`, `"concurrency": 4`, 1), []string{unitFile, "points[1].load", "duplicates points[0]"}},
		{"rate on closed loop", testManifest, strings.Replace(testUnit, `{"concurrency": 8}`, `{"rate": 8, "duration_s": 5}`, 1), []string{unitFile, "points[1].load.concurrency"}},
		{"missing run id", testManifest, strings.Replace(testUnit, `"row": 1, "run_id": "1"`, `"row": 1, "run_id": ""`, 1), []string{unitFile, "points[1].provenance.run_id", "must not be empty"}},
		{"bad override", testManifest, strings.Replace(testUnit, `"max_num_seqs": {"value": 4, "evidence": "assumed"}`, `"max_num_seqs": {"value": 0, "evidence": "assumed"}`, 1), []string{unitFile, "points[0].overrides.max_num_seqs.value"}},
		{"missing workload section", testManifest, strings.Replace(testUnit, `"inferencex": {`, `"inference_perf_x": {`, 1), []string{unitFile, "unknown field"}},
		{"range ratio out of range", testManifest, strings.Replace(testUnit, `"range_ratio": 0.8`, `"range_ratio": 1.5`, 1), []string{unitFile, "workload.inferencex.range_ratio", "not in (0, 1]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(ledgerFS(map[string]string{ManifestFile: tc.manifest, unitFile: tc.unit}))
			if err == nil {
				t.Fatal("loaded a broken ledger")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestLoadReportsEveryBrokenUnit(t *testing.T) {
	t.Parallel()
	other := strings.ReplaceAll(testUnit, "isl8-osl8", "isl9-osl9")
	_, err := Load(ledgerFS(map[string]string{
		ManifestFile:         testManifest,
		UnitPath(testUnitID): strings.Replace(testUnit, `"tpot_ms": 2}`, `"tpot_ms": 0}`, 1),
		"units/inferencex/m/h100/tp1/isl9-osl9.json": strings.Replace(other, `"hardware": "H100"`, `"hardware": ""`, 1),
	}))
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{UnitPath(testUnitID) + ": points[0].measured.tpot_ms", "isl9-osl9.json: deployment.hardware"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

func TestLoadRefusesOddFiles(t *testing.T) {
	t.Parallel()
	if _, err := Load(ledgerFS(map[string]string{ManifestFile: testManifest})); err == nil || !strings.Contains(err.Error(), "no unit files") {
		t.Errorf("no units: %v", err)
	}
	_, err := Load(ledgerFS(map[string]string{ManifestFile: testManifest, UnitPath(testUnitID): testUnit, "units/notes.txt": "x"}))
	if err == nil || !strings.Contains(err.Error(), "units/notes.txt") {
		t.Errorf("stray file: %v", err)
	}
	if _, err := Load(ledgerFS(map[string]string{UnitPath(testUnitID): testUnit})); err == nil || !strings.Contains(err.Error(), ManifestFile) {
		t.Errorf("no manifest: %v", err)
	}
}

func TestWriteDirRoundTrip(t *testing.T) {
	t.Parallel()
	l, err := Load(ledgerFS(map[string]string{ManifestFile: testManifest, UnitPath(testUnitID): testUnit}))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteDir(dir, l.Manifest, l.Units); err != nil {
		t.Fatal(err)
	}
	back, err := Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if back.NumPoints() != l.NumPoints() || back.Units[0].ID != testUnitID {
		t.Errorf("round trip: %d points, id %s", back.NumPoints(), back.Units[0].ID)
	}
	// Writing the same ledger again gives the same bytes.
	if err := WriteDir(dir, back.Manifest, back.Units); err != nil {
		t.Fatal(err)
	}
	again, err := Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if again.Digest != back.Digest {
		t.Errorf("digest changed on rewrite: %s -> %s", back.Digest, again.Digest)
	}
}

// TestWriteDirReplacesAsDiskio: WriteDir swaps the directory as
// diskio.ReplaceDir does (mode 0755) and, as it does, refuses an output
// directory that is a symbolic link, naming it, leaving the link and its
// target's ledger as they were.
func TestWriteDirReplacesAsDiskio(t *testing.T) {
	t.Parallel()
	l, err := Load(ledgerFS(map[string]string{ManifestFile: testManifest, UnitPath(testUnitID): testUnit}))
	if err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	target := filepath.Join(parent, "target")
	if err := WriteDir(target, l.Manifest, l.Units); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(target); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("the written ledger's directory: %v (%v), want mode 0755", st.Mode().Perm(), err)
	}
	before, err := Load(os.DirFS(target))
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, "out")
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	m := l.Manifest
	m.Version = "2"
	err = WriteDir(link, m, l.Units)
	if err == nil || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("WriteDir over a symbolic link: %v, want a refusal naming %s", err, link)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s is no longer a symbolic link (%v)", link, err)
	}
	after, err := Load(os.DirFS(target))
	if err != nil || after.Digest != before.Digest {
		t.Errorf("the link's target changed (%v)", err)
	}
}

// writeLedgerDir writes files into a new directory and returns it.
func writeLedgerDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, s := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A symbolic link in a ledger is refused: it would be read from outside the
// ledger while the digest behind provenance and the Action's cache key
// (regular files only) did not cover it.
func TestLoadRefusesSymlinks(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "unit.json")
	if err := os.WriteFile(outside, []byte(testUnit), 0o644); err != nil {
		t.Fatal(err)
	}
	unit := writeLedgerDir(t, map[string]string{ManifestFile: testManifest})
	if err := os.MkdirAll(filepath.Dir(filepath.Join(unit, UnitPath(testUnitID))), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(unit, UnitPath(testUnitID))); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(os.DirFS(unit)); err == nil || !strings.Contains(err.Error(), UnitPath(testUnitID)) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("symlinked unit: err = %v", err)
	}

	manifest := writeLedgerDir(t, map[string]string{UnitPath(testUnitID): testUnit, "m.json": testManifest})
	if err := os.Symlink(filepath.Join(manifest, "m.json"), filepath.Join(manifest, ManifestFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(os.DirFS(manifest)); err == nil || !strings.Contains(err.Error(), ManifestFile) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("symlinked manifest: err = %v", err)
	}

	units := writeLedgerDir(t, map[string]string{ManifestFile: testManifest, "elsewhere/" + strings.TrimPrefix(UnitPath(testUnitID), UnitsDir+"/"): testUnit})
	if err := os.Symlink(filepath.Join(units, "elsewhere"), filepath.Join(units, UnitsDir)); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(os.DirFS(units)); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("symlinked units directory: err = %v", err)
	}
}

// Every file is read with a size cap: an oversized file is an error naming
// it, not a read of whatever size it has.
func TestLoadCapsFileSize(t *testing.T) {
	t.Parallel()
	big := strings.Repeat(" ", MaxFileBytes) + testUnit
	_, err := Load(ledgerFS(map[string]string{ManifestFile: testManifest, UnitPath(testUnitID): big}))
	if err == nil || !strings.Contains(err.Error(), UnitPath(testUnitID)) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized unit: err = %v", err)
	}
}
