package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
)

func TestDirVersion(t *testing.T) {
	ctx := context.Background()

	plain := t.TempDir()
	os.WriteFile(filepath.Join(plain, "a.json"), []byte("{}"), 0o644)
	v, err := DirVersion(ctx, "catalog", plain)
	if err != nil {
		t.Fatal(err)
	}
	if v.Release || !strings.HasPrefix(v.Version, "sha256:") || !strings.HasPrefix(v.Digest, "sha256:") || v.Name != "catalog "+filepath.Base(plain) {
		t.Errorf("plain directory: %+v, want a digest version, not a release", v)
	}

	repo := t.TempDir()
	os.WriteFile(filepath.Join(repo, "models.json"), []byte("{}"), 0o644)
	gitInit := func(args ...string) { harnesstest.Run(t, repo, "git", args...) }
	gitInit("init", "-q", "-b", "main")
	gitInit("add", "-A")
	gitInit("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "data")
	head := harnesstest.Run(t, repo, "git", "rev-parse", "HEAD")
	if v, _ := DirVersion(ctx, "catalog", repo); v.Release || v.Version != head {
		t.Errorf("untagged checkout: %+v, want version %s, not a release", v, head)
	}
	gitInit("tag", "v1.4.0")
	if v, _ := DirVersion(ctx, "catalog", repo); !v.Release || v.Version != "v1.4.0" {
		t.Errorf("tagged clean checkout: %+v, want release v1.4.0", v)
	}
	os.WriteFile(filepath.Join(repo, "models.json"), []byte(`{"changed":true}`), 0o644)
	if v, _ := DirVersion(ctx, "catalog", repo); v.Release || v.Version != head+"+modified" {
		t.Errorf("modified checkout: %+v, want %s+modified, not a release", v, head)
	}
	sub := filepath.Join(repo, "sub")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "x"), []byte("x"), 0o644)
	if v, _ := DirVersion(ctx, "catalog", sub); v.Release {
		t.Errorf("directory inside a repository: %+v, want not a release", v)
	}
	if _, err := DirVersion(ctx, "catalog", filepath.Join(repo, "missing")); err == nil {
		t.Error("a missing directory was accepted")
	}
}

func TestDigestFS(t *testing.T) {
	t.Parallel()
	a := fstest.MapFS{"x/a": {Data: []byte("1")}, "b": {Data: []byte("2")}}
	b := fstest.MapFS{"b": {Data: []byte("2")}, "x/a": {Data: []byte("1")}}
	c := fstest.MapFS{"x/a": {Data: []byte("1")}, "b": {Data: []byte("3")}}
	da, _ := DigestFS(a)
	db, _ := DigestFS(b)
	dc, _ := DigestFS(c)
	if da != db || da == dc {
		t.Errorf("digests: %s %s %s; want equal for equal content, different otherwise", da, db, dc)
	}
}

// DigestFS refuses a symbolic link rather than skip it: a data directory
// whose digest did not cover a file the simulator reads would name the
// wrong data in provenance and in the Action's cache key.
func TestDigestFSRefusesSymlinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "b.json")); err != nil {
		t.Fatal(err)
	}
	if d, err := DigestFS(os.DirFS(dir)); err == nil || !strings.Contains(err.Error(), "b.json") || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("DigestFS = %q, %v; want an error naming the link", d, err)
	}
}
