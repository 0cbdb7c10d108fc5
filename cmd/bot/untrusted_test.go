package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLocalFilesAreReadWithinCaps: the files `bot publish` and `bot
// publish-leaderboard` read (a summary, its points, a runs.yaml, a pin
// file) are regular files read within their caps: a named pipe (which
// would block), a link to /dev/zero (which would exhaust memory) or a 100 MB
// pin file is refused, naming the file, before GitHub is called.
func TestLocalFilesAreReadWithinCaps(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/dev/zero", filepath.Join(dir, "summary.json"))
	sums := t.TempDir()
	writeFile(t, filepath.Join(sums, "summary.json"), "{}")
	os.Symlink("/dev/zero", filepath.Join(sums, "points.json"))
	big := filepath.Join(dir, "big.yaml")
	writeFile(t, big, "harness:\n")
	if err := os.Truncate(big, 100<<20); err != nil { // sparse
		t.Fatal(err)
	}
	results := t.TempDir()
	runs := filepath.Join(t.TempDir(), "runs.yaml")
	writeFile(t, runs, "version: 1\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"publish-leaderboard", "--runs", filepath.Join(dir, "fifo.yaml"), "--results", results}, "fifo.yaml is a named pipe"},
		{[]string{"publish-leaderboard", "--runs", runs, "--pin", big, "--results", results}, "big.yaml is larger than 65536 bytes"},
		{[]string{"publish", "--summary", filepath.Join(dir, "summary.json")}, "summary.json is a symbolic link"},
		{[]string{"publish", "--summary", filepath.Join(sums, "summary.json")}, "points.json is a symbolic link"},
	} {
		done := make(chan error, 1)
		go func() { done <- w.run(t, c.args...) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v: err = %v, want %q", c.args, err, c.want)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%v: blocked", c.args)
		}
	}
	if n := w.fake.Calls("apps/create-installation-access-token"); n != 0 {
		t.Errorf("%d installation tokens made for refused files", n)
	}
}
