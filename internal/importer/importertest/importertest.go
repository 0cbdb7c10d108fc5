// Package importertest holds test helpers shared by the importer's tests and
// the tests of what it writes: finding the raw sources of the bundled corpus
// (corpus/sources). Only tests import it (a tree's files: testkit.Files).
package importertest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// SourcesDir returns corpus/sources of the repository the working directory
// lies in (the nearest directory at or above it holding go.mod): the real
// measurements the bundled ledger is imported from, part of the repository.
func SourcesDir() (string, error) {
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
	data := filepath.Join(dir, "corpus", "sources")
	if _, err := os.Stat(filepath.Join(data, "inferencex", "agg_bmk")); err != nil {
		return "", err
	}
	return data, nil
}

// Sources is SourcesDir for a test, which fails when the sources are
// missing (they are committed: a checkout without them is broken).
func Sources(t testing.TB) string {
	t.Helper()
	data, err := SourcesDir()
	if err != nil {
		t.Fatalf("the raw sources (corpus/sources): %v", err)
	}
	return data
}
