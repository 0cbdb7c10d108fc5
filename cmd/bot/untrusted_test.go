package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// TestLocalFilesAreReadWithinCaps: the files `bot publish` and `bot
// publish-leaderboard` read (a summary, its points, a runs.yaml, a pin
// file) are regular files read within their caps: a named pipe (which
// would block), a link to /dev/zero (which would exhaust memory) or a 100 MB
// pin file is refused, naming the file, before GitHub is called.
func TestLocalFilesAreReadWithinCaps(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	testkit.Fifo(t, filepath.Join(dir, "fifo.yaml"))
	testkit.Symlink(t, "/dev/zero", filepath.Join(dir, "summary.json"))
	sums := t.TempDir()
	testkit.WriteFile(t, filepath.Join(sums, "summary.json"), "{}")
	testkit.Symlink(t, "/dev/zero", filepath.Join(sums, "points.json"))
	big := filepath.Join(dir, "big.yaml")
	testkit.Sparse(t, big, []byte("harness:\n"), 100<<20)
	results := t.TempDir()
	runs := filepath.Join(t.TempDir(), "runs.yaml")
	testkit.WriteFile(t, runs, "version: 1\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"publish-leaderboard", "--runs", filepath.Join(dir, "fifo.yaml"), "--results", results}, "fifo.yaml is a named pipe"},
		{[]string{"publish-leaderboard", "--runs", runs, "--pin", big, "--results", results}, "big.yaml is larger than 65536 bytes"},
		{[]string{"publish", "--summary", filepath.Join(dir, "summary.json")}, "summary.json is a symbolic link"},
		{[]string{"publish", "--summary", filepath.Join(sums, "summary.json")}, "points.json is a symbolic link"},
	} {
		testkit.Refuses(t, fmt.Sprint(c.args), c.want, func() error { return w.run(t, c.args...) })
	}
	if n := w.fake.Calls("apps/create-installation-access-token"); n != 0 {
		t.Errorf("%d installation tokens made for refused files", n)
	}
}
