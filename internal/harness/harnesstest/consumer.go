package harnesstest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// ModuleTag is the release tag ModuleRepo gives the module's working tree.
const ModuleTag = "v9.9.9"

// moduleRoot is this module's root directory.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// ModuleRepo is this module's working tree as a git repository tagged
// ModuleTag (WorkingTreeRepo): the harness a pin names in tests of the
// Action and its workflows.
func ModuleRepo(t testing.TB) (dir, commit string) {
	t.Helper()
	return WorkingTreeRepo(t, moduleRoot(), ModuleTag)
}

// ConsumerRepo makes the simulator repository a pull request runs in: a
// clone of the stand-in simulator whose head commit (on top of v0.2.0, on
// branch feature) adds the pin file (.github/accuracy-harness.yaml, the
// harness at harnessDir tagged ModuleTag at harnessCommit) and the
// harness's test ledger (accuracy/ledger); the base is v0.1.0.
func ConsumerRepo(t testing.TB, harnessDir, harnessCommit string) (dir, head, base string) {
	t.Helper()
	sim := StandinRepo(t)
	dir = filepath.Join(t.TempDir(), "simulator")
	Run(t, "", "git", "clone", "--quiet", sim.Dir, dir)
	Run(t, dir, "git", "checkout", "--quiet", "-B", "feature", sim.V020)
	if err := os.CopyFS(filepath.Join(dir, "accuracy", "ledger"), os.DirFS(filepath.Join(moduleRoot(), "internal", "harness", "testdata", "ledger"))); err != nil {
		t.Fatal(err)
	}
	pinFile := filepath.Join(dir, ".github", "accuracy-harness.yaml")
	if err := os.MkdirAll(filepath.Dir(pinFile), 0o755); err != nil {
		t.Fatal(err)
	}
	pin := "harness:   # pinned for pull-request accuracy checks\n  repository: " + harnessDir + "\n  tag: " + ModuleTag + "   # release\n  commit: " + harnessCommit + "\n" +
		"data:\n  ledger: accuracy/ledger\n  catalog: none\n  registry: none\n"
	if err := os.WriteFile(pinFile, []byte(pin), 0o644); err != nil {
		t.Fatal(err)
	}
	head = CommitAll(t, dir, "pin the accuracy harness")
	return dir, head, sim.V010
}

// GPTOSSSweep is the bundled corpus's gpt-oss-120b H100 TP4 1k/1k sweep (5
// points), the units of the shipped gpt-oss-120b-mxfp4 what-if.
const GPTOSSSweep = "inferencex/gpt-oss-120b/h100/tp4/isl1024-osl1024"

// SweepLedger writes into dir a ledger of one unit of the bundled corpus
// (e.g. GPTOSSSweep): its whole corpus, as a publish's gate wants one,
// without scoring the bundled corpus.
func SweepLedger(t testing.TB, dir, unit string) {
	t.Helper()
	name := filepath.Join("units", filepath.FromSlash(unit)+".json")
	raw, err := os.ReadFile(filepath.Join(moduleRoot(), "corpus", "ledger", name))
	if err != nil {
		t.Fatal(err)
	}
	for file, data := range map[string][]byte{name: raw,
		"ledger.json": []byte(`{"schema_version": 1, "name": "one-sweep", "version": "0.0.1", "release": true, "sources": ["` + unit + ` of the bundled corpus"]}`)} {
		path := filepath.Join(dir, file)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
