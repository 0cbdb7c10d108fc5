// Package testkit holds the small test helpers several packages' tests
// share (one copy each): a buffer safe for concurrent writers, for the logs
// of servers and workers under test, zip archives of files as GitHub
// serves a workflow run's artifact, a tree's files, a file written with its
// directories, and the hostile files (a named pipe, a symbolic link, a
// sparse file over a cap) a reader of untrusted input must refuse without
// blocking (Refuses), a dialer from a loopback address and a process's
// memory for load tests (DialerFrom, ProcMiB), and the one way a test
// stops on a missing test dependency (Missing). Only tests and test
// helpers import it.
package testkit

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// SyncBuffer is a bytes.Buffer safe for concurrent use.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Zip is a zip archive of files (slash path → content), entries in path
// order, as an artifact download serves them.
func Zip(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(files[name]); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Files returns the content of every file of fsys (a directory's tree,
// os.DirFS, or an embedded one) by slash path.
func Files(t testing.TB, fsys fs.FS) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := fs.ReadFile(fsys, p)
		files[p] = string(raw)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// ReadTree is Files of the directory dir, as bytes.
func ReadTree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for p, s := range Files(t, os.DirFS(dir)) {
		files[p] = []byte(s)
	}
	return files
}

// Paths is the slash paths of every file under the directory dir (Files'
// keys), sorted.
func Paths(t testing.TB, dir string) []string {
	t.Helper()
	return slices.Sorted(maps.Keys(Files(t, os.DirFS(dir))))
}

// ZipDir is Zip of every file under dir (ReadTree).
func ZipDir(t testing.TB, dir string) []byte {
	t.Helper()
	return Zip(t, ReadTree(t, dir))
}

// WriteFile writes s to path, making its parent directories.
func WriteFile(t testing.TB, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
