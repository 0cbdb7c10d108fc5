package architecture

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNothingRefersOutsideTheRepository: no tracked file names the folder
// that once held the raw data beside the repository; a clone has everything
// it needs (the raw sources are in corpus/sources).
func TestNothingRefersOutsideTheRepository(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): nothing to list", err)
	}
	needle := []byte(".." + "/shared")
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		raw, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			continue // listed but absent (deleted in the working tree)
		}
		if i := bytes.Index(raw, needle); i >= 0 {
			line := bytes.Count(raw[:i], []byte("\n")) + 1
			t.Errorf("%s:%d refers to %s, outside the repository", name, line, needle)
		}
	}
}
