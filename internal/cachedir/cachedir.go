// Package cachedir fills a cache directory atomically: a reader sees it
// complete or not at all. The harness caches simulator clones, builds and
// catalog copies with it, the Action's pull-request check its results.
package cachedir

import (
	"fmt"
	"os"
	"path/filepath"
)

// marker marks a cache directory as complete.
const marker = ".complete"

// Fill makes sure the cache directory dir exists complete. When it does, it
// returns cached = true and does nothing else. Otherwise fill populates a
// fresh temporary sibling, which is then marked complete and renamed to dir,
// so a reader never sees a half-filled directory; when a concurrent run
// finished dir first, its result is used. A dir without the marker (left by
// an older cache layout) is replaced.
func Fill(dir string, fill func(tmp string) error) (cached bool, err error) {
	if _, err := os.Stat(filepath.Join(dir, marker)); err == nil {
		return true, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return false, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".tmp-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	if err := fill(tmp); err != nil {
		return false, err
	}
	if err := os.WriteFile(filepath.Join(tmp, marker), nil, 0o644); err != nil {
		return false, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, marker)); statErr == nil {
			return true, nil
		}
		// dir exists without the marker: it was left by an older layout of
		// the cache (complete directories are only ever renamed in with
		// their marker), so it is replaced.
		if rmErr := os.RemoveAll(dir); rmErr != nil {
			return false, fmt.Errorf("cache %s: %w", dir, rmErr)
		}
		if err := os.Rename(tmp, dir); err != nil {
			return false, fmt.Errorf("cache %s: %w", dir, err)
		}
	}
	return false, nil
}

// Default is the cache directory of a run given no other (getenv reads the
// environment): $ACCURACY_DASHBOARD_CACHE, else accuracy-dashboard under
// $XDG_CACHE_HOME, else ~/.cache/accuracy-dashboard, else a directory under
// the system's temporary directory.
func Default(getenv func(string) string) string {
	if d := getenv("ACCURACY_DASHBOARD_CACHE"); d != "" {
		return d
	}
	if d := getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "accuracy-dashboard")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".cache", "accuracy-dashboard")
	}
	return filepath.Join(os.TempDir(), "accuracy-dashboard-cache")
}
