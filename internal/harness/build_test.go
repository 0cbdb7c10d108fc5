package harness

import (
	"context"
	"errors"
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
	if err == nil || !strings.Contains(err.Error(), "v0.3.0-rc1") || !strings.Contains(err.Error(), "go build failed") || !strings.Contains(err.Error(), "main.go") {
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

func TestReleaseTags(t *testing.T) {
	t.Parallel()
	got := ReleaseTags([]string{"v0.7.9", "v0.7.15", "v0.10.0", "latest", "v1.0.0-rc1", "db-dump/2026-09-28", "v0.7.10"})
	want := []string{"v0.10.0", "v0.7.15", "v0.7.10", "v0.7.9"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("ReleaseTags = %v, want %v", got, want)
	}
}
