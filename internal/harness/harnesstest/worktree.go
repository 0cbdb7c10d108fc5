package harnesstest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// WorkingTreeRepo copies the working tree of the module at root (tracked
// files and untracked files that git does not ignore) into a new git
// repository, commits it and tags the commit tag, so that the pinned-harness
// paths (clone, verify, build, run from the clone) and workflows run on the
// code under test.
func WorkingTreeRepo(t testing.TB, root, tag string) (dir, commit string) {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dir = filepath.Join(t.TempDir(), "harness")
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, f)
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the working tree, or not a file
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	GitInit(t, dir)
	commit = CommitAll(t, dir, "harness under test")
	Run(t, dir, "git", "tag", tag)
	return dir, commit
}

// FindAct locates nektos/act: on PATH or in $GOPATH/bin (where .ci/run
// installs it). Without it the test is skipped, or fails when CI=true.
func FindAct(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("act"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "act")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	testkit.Missing(t, "act", errors.New("not on PATH nor in $GOPATH/bin"),
		"go install github.com/nektos/act@v0.2.89 (.ci/install-act.sh installs it)")
	return ""
}
