package leaderboard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

const traceDecl = `version: 1
groups:
  - id: recorded
    workload: {trace: {format: otel, file: traces/agent.json}}
    load: {arrival: recorded}
    candidates:
      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1}
`

// A trace is read below the directory of runs.yaml through os.Root, a
// regular file only, its size capped before and while reading; each
// refusal names the runs.yaml line that declares the trace.
func TestResolveTracesRefusesHostileFiles(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "secret.json")
	os.WriteFile(outside, []byte(`{"spans": []}`), 0o644)
	for _, tt := range []struct {
		name  string
		plant func(t *testing.T, dir string) // makes traces/agent.json
		want  string
	}{
		{"symlink to /proc/self/environ", func(t *testing.T, dir string) {
			os.Symlink("/proc/self/environ", filepath.Join(dir, "traces", "agent.json"))
		}, "traces/agent.json is a symbolic link; only regular files are read"},
		{"symlink to /dev/zero", func(t *testing.T, dir string) {
			os.Symlink("/dev/zero", filepath.Join(dir, "traces", "agent.json"))
		}, "is a symbolic link"},
		{"symlink to a file outside", func(t *testing.T, dir string) {
			os.Symlink(outside, filepath.Join(dir, "traces", "agent.json"))
		}, "is a symbolic link"},
		{"a directory symlinked outside", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "traces"))
			os.Symlink(filepath.Dir(outside), filepath.Join(dir, "traces"))
			os.Rename(outside, filepath.Join(filepath.Dir(outside), "agent.json"))
		}, "path escapes from parent"},
		{"a named pipe", func(t *testing.T, dir string) {
			testkit.Fifo(t, filepath.Join(dir, "traces", "agent.json"))
		}, "is a named pipe (FIFO), not a regular file"},
		{"a directory", func(t *testing.T, dir string) {
			os.Mkdir(filepath.Join(dir, "traces", "agent.json"), 0o755)
		}, "is a directory, not a regular file"},
		{"300 MB (sparse, refused before reading)", func(t *testing.T, dir string) {
			f, _ := os.Create(filepath.Join(dir, "traces", "agent.json"))
			f.Truncate(300 << 20)
			f.Close()
		}, "traces/agent.json is larger than 268435456 bytes (314572800)"},
		{"missing", func(t *testing.T, dir string) {}, "no such file or directory"},
	} {
		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "traces"), 0o755)
		tt.plant(t, dir)
		d, err := Decode([]byte(traceDecl), "runs.yaml")
		if err != nil {
			t.Fatal(err)
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = ResolveTraces(d, root.FS())
		root.Close()
		if err == nil || !strings.HasPrefix(err.Error(), "runs.yaml:4: groups[0].workload.trace.file: trace file: ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v; want runs.yaml:4 naming the field and %q", tt.name, err, tt.want)
		}
	}
}

// A result file that is a symbolic link or not a regular file is not
// read: it is named as unexpected, and the other results still read.
func TestReadResultsRefusesLinks(t *testing.T) {
	t.Parallel()
	_, res := fixtureResults(t)
	dir := t.TempDir()
	for k, r := range res {
		raw, _ := r.Encode()
		os.MkdirAll(filepath.Join(dir, filepath.Dir(k)), 0o755)
		os.WriteFile(filepath.Join(dir, k+".json"), raw, 0o644)
	}
	os.Symlink("/dev/zero", filepath.Join(dir, "sweep", "zero.json"))
	os.Symlink(filepath.Join(dir, "chat-4rps", "h100-tp1.json"), filepath.Join(dir, "sweep", "again.json"))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	got, probs, err := ReadResults(root.FS())
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, p := range probs {
		lines = append(lines, p.String())
	}
	want := "unexpected-file: sweep/again.json: not a regular file (L---------); a result is one\n" +
		"unexpected-file: sweep/zero.json: not a regular file (L---------); a result is one"
	if all := strings.Join(lines, "\n"); all != want || len(got) != len(res) {
		t.Errorf("problems:\n%s\nwant\n%s\n(%d of %d results read)", all, want, len(got), len(res))
	}
}
