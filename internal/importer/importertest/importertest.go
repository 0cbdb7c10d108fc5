// Package importertest holds test helpers shared by the importer's tests and
// the tests of what it writes: finding the real data beside the repository
// and reading every file of a tree. Only tests import it.
package importertest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// SharedDataEnv names a directory to use as the real data instead of
// ../shared/data (for a checkout that is not beside shared/, such as a git
// worktree elsewhere).
const SharedDataEnv = "BLIS_SHARED_DATA"

// SharedDataDir returns ../shared/data relative to the repository root (the
// nearest directory holding go.mod at or above the working directory), or
// $BLIS_SHARED_DATA when set. The error says why when the root or the data
// (its inferencex/agg_bmk folder) is absent: the real data is not part of
// the repository.
func SharedDataDir() (string, error) {
	if d := os.Getenv(SharedDataEnv); d != "" {
		if _, err := os.Stat(filepath.Join(d, "inferencex", "agg_bmk")); err != nil {
			return "", fmt.Errorf("%s=%s: real data absent (%w)", SharedDataEnv, d, err)
		}
		return d, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (go.mod) not found")
		}
		dir = parent
	}
	data := filepath.Join(dir, "..", "shared", "data")
	if _, err := os.Stat(filepath.Join(data, "inferencex", "agg_bmk")); err != nil {
		return "", fmt.Errorf("real data absent (%w)", err)
	}
	return data, nil
}

// SharedData is SharedDataDir for a test, which it skips when the data is
// absent.
func SharedData(t testing.TB) string {
	t.Helper()
	data, err := SharedDataDir()
	if err != nil {
		t.Skip(err)
	}
	return data
}

// Files returns the content of every file of fsys by slash path.
func Files(t testing.TB, fsys fs.FS) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
