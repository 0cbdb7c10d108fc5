package harness

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
)

func TestBuildFromRefs(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	ctx := context.Background()
	b := &Builder{CacheDir: t.TempDir()}

	t.Run("branch is refused", func(t *testing.T) {
		_, err := b.Build(ctx, repo.Dir, "feature")
		if !errors.Is(err, ErrNotPinned) || !strings.Contains(err.Error(), "branch") {
			t.Fatalf("Build(feature) error = %v, want ErrNotPinned naming a branch", err)
		}
	})
	t.Run("neither tag nor commit is refused", func(t *testing.T) {
		for _, ref := range []string{"no-such-ref", repo.V020[:8], "HEAD", "main~1", ""} {
			if _, err := b.Build(ctx, repo.Dir, ref); !errors.Is(err, ErrNotPinned) {
				t.Errorf("Build(%q) error = %v, want ErrNotPinned", ref, err)
			}
		}
	})
	t.Run("unknown commit", func(t *testing.T) {
		_, err := b.Build(ctx, repo.Dir, strings.Repeat("0", 40))
		if err == nil || !strings.Contains(err.Error(), "not in") {
			t.Fatalf("Build(unknown commit) error = %v", err)
		}
	})

	first, err := b.Build(ctx, repo.Dir, "v0.2.0")
	if err != nil {
		t.Fatal(err)
	}
	if first.Commit != repo.V020 || first.Tag != "v0.2.0" || first.Cached || !first.BuiltByHarness {
		t.Fatalf("Build(v0.2.0) = %+v, want commit %s, tag v0.2.0, fresh build", first, repo.V020)
	}
	again, err := b.Build(ctx, repo.Dir, repo.V020)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Cached || again.Binary != first.Binary || again.Tag != "v0.2.0" {
		t.Fatalf("second build of the same commit = %+v, want a cache hit naming tag v0.2.0", again)
	}

	untagged, err := b.Build(ctx, repo.Dir, repo.Feature)
	if err != nil {
		t.Fatal(err)
	}
	if untagged.Tag != "" || untagged.Commit != repo.Feature {
		t.Errorf("untagged commit build = %+v, want no tag", untagged)
	}

	_, err = b.Build(ctx, repo.Dir, "v0.3.0-rc1")
	if err == nil || !strings.Contains(err.Error(), "v0.3.0-rc1") || !errors.Is(err, ErrBuildFailed) || !strings.Contains(err.Error(), "main.go") {
		t.Fatalf("broken build error = %v, want one naming the ref and carrying the compiler's message", err)
	}
}

func TestDefaultRefIsNewestRelease(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	b := &Builder{CacheDir: t.TempDir()}
	ref, err := b.DefaultRef(context.Background(), repo.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if ref != "v0.2.0" {
		t.Errorf("DefaultRef = %q, want v0.2.0 (v0.3.0-rc1 is not a release tag)", ref)
	}
}

// extractTar never writes through a symbolic link, whether the archive
// places a file under a link to a directory or over a link to a file.
func TestExtractTarDoesNotFollowLinks(t *testing.T) {
	t.Parallel()
	type entry struct {
		name, link, body string
		typ              byte
	}
	for name, entries := range map[string][]entry{
		"file under a link to a directory": {{name: "evil", link: "OUTSIDE", typ: tar.TypeSymlink}, {name: "evil/pwned", body: "x", typ: tar.TypeReg}},
		"file over a link to a file":       {{name: "evil", link: "OUTSIDE/pwned", typ: tar.TypeSymlink}, {name: "evil", body: "x", typ: tar.TypeReg}},
		"directory under a link":           {{name: "evil", link: "OUTSIDE", typ: tar.TypeSymlink}, {name: "evil/sub/", typ: tar.TypeDir}},
		"parent directory":                 {{name: "../pwned", body: "x", typ: tar.TypeReg}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			outside := t.TempDir()
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			for _, e := range entries {
				h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: 0o644, Size: int64(len(e.body)), Linkname: strings.ReplaceAll(e.link, "OUTSIDE", outside)}
				if e.typ != tar.TypeReg {
					h.Size = 0
				}
				if err := tw.WriteHeader(h); err != nil {
					t.Fatal(err)
				}
				tw.Write([]byte(e.body))
			}
			tw.Close()
			dir := filepath.Join(t.TempDir(), "export")
			err := extractTar(&buf, dir)
			if err == nil {
				t.Error("archive extracted without error")
			}
			if left, _ := os.ReadDir(outside); len(left) > 0 {
				t.Errorf("extraction wrote outside the export directory: %v", left)
			}
		})
	}
}
