package testkit

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The files a reader of untrusted input must refuse without opening them for
// reading: each helper plants one at path, failing the test if it cannot.

// Fifo makes a named pipe at path: opening it for reading blocks until a
// writer comes.
func Fifo(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Symlink makes path a symbolic link to target (/dev/zero, which never ends;
// /etc/passwd, outside the tree; a file of the tree, read twice).
func Symlink(t testing.TB, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// Sparse writes content at path and extends the file to size bytes without
// writing them (a sparse file costs no disk): a file over a reader's cap.
func Sparse(t testing.TB, path string, content []byte, size int64) {
	t.Helper()
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

// Refuses runs read, which must return an error containing want: a read
// still running after a minute (a named pipe opened for reading blocks until
// a writer comes) fails the test, an error without want or no error is
// reported. what names the case in the report.
func Refuses(t testing.TB, what, want string, read func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- read() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", what, err, want)
		}
	case <-time.After(time.Minute):
		t.Fatalf("%s: blocked", what)
	}
}
