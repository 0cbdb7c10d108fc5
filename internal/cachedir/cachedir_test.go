package cachedir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestFill(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "builds", "abc")
	calls := 0
	fill := func(tmp string) error {
		calls++
		return os.WriteFile(filepath.Join(tmp, "blis"), []byte("bin"), 0o755)
	}
	if cached, err := Fill(dir, fill); err != nil || cached {
		t.Fatalf("first fill: cached %v, err %v", cached, err)
	}
	if cached, err := Fill(dir, fill); err != nil || !cached || calls != 1 {
		t.Fatalf("second fill: cached %v, err %v, fill ran %d times; want a cache hit", cached, err, calls)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "blis")); string(b) != "bin" {
		t.Errorf("cached content = %q", b)
	}

	// A failed fill leaves neither the directory nor a temporary one behind.
	bad := filepath.Join(root, "builds", "def")
	boom := errors.New("boom")
	if _, err := Fill(bad, func(tmp string) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("failed fill: err %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "builds"))
	if len(entries) != 1 || entries[0].Name() != "abc" {
		t.Errorf("after a failed fill the cache holds %v, want only abc", entries)
	}

	// A directory without the marker (an older cache layout) is replaced.
	stale := filepath.Join(root, "repos", "x.git")
	if err := os.MkdirAll(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(stale, "HEAD"), []byte("old"), 0o644)
	if cached, err := Fill(stale, fill); err != nil || cached {
		t.Fatalf("stale directory: cached %v, err %v; want a fresh fill", cached, err)
	}
	if _, err := os.Stat(filepath.Join(stale, "HEAD")); err == nil {
		t.Error("the stale content survived")
	}
}

// TestDefault: the environment variable first, then XDG_CACHE_HOME, then
// HOME, then the temporary directory.
func TestDefault(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"ACCURACY_DASHBOARD_CACHE": "/c", "XDG_CACHE_HOME": "/x", "HOME": "/h"}, "/c"},
		{map[string]string{"XDG_CACHE_HOME": "/x", "HOME": "/h"}, "/x/accuracy-dashboard"},
		{map[string]string{"HOME": "/h"}, "/h/.cache/accuracy-dashboard"},
		{nil, filepath.Join(os.TempDir(), "accuracy-dashboard-cache")},
	} {
		if got := Default(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("Default(%v) = %q, want %q", c.env, got, c.want)
		}
	}
}
