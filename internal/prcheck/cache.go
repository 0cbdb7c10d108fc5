package prcheck

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/inference-sim/accuracy-dashboard/internal/cachedir"
	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// CacheKey identifies one harness result: the same key means the same
// figures, so a cached result can stand in for a new run.
type CacheKey struct {
	// HarnessCommit is the pinned harness commit (it also fixes the
	// bundled data).
	HarnessCommit string
	// SimCommit is the simulator commit scored.
	SimCommit string
	// Data maps "ledger", "catalog", "registry" to "bundled", "none" or the
	// digest of the directory handed in (harness.DigestFS, the digest its
	// provenance records).
	Data map[string]string
	// Shard is "k/n" for a slice, "" for the whole corpus.
	Shard string
}

// String is the key's stable hex name.
func (k CacheKey) String() string {
	h := sha256.New()
	fmt.Fprintf(h, "accuracy-dashboard result v1\nharness %s\nsimulator %s\nshard %s\n", k.HarnessCommit, k.SimCommit, k.Shard)
	names := slices.Sorted(maps.Keys(k.Data))
	for _, n := range names {
		fmt.Fprintf(h, "data %s %s\n", n, k.Data[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Cache keeps harness results in a directory that actions/cache can save
// and restore: Dir/results/<key>/ holds a result's summary.json, points.json
// and summary.md. Entries are written atomically (cachedir.Fill) and
// never modified.
type Cache struct {
	Dir string
}

// resultFiles are the files of a harness result.
var resultFiles = []string{runresult.SummaryFile, runresult.PointsFile, runresult.MarkdownFile}

func (c Cache) entry(key CacheKey) string { return filepath.Join(c.Dir, "results", key.String()) }

// Lookup returns the directory holding the result for key and the result,
// read with runresult.Read, and whether there is one. An entry is used only when
// its files are all present and valid and its summary names the key's
// harness and simulator commits.
func (c Cache) Lookup(key CacheKey) (string, runresult.Result, bool) {
	dir := c.entry(key)
	if _, err := os.Stat(filepath.Join(dir, runresult.MarkdownFile)); err != nil {
		return "", runresult.Result{}, false
	}
	r, err := runresult.Read(dir)
	if p := r.Summary.Provenance; err != nil || p.Harness.Commit != key.HarnessCommit || p.Simulator.Commit != key.SimCommit {
		return "", runresult.Result{}, false
	}
	return dir, r, true
}

// Store copies the result in src into the cache under key. An entry that
// already exists is left as it is.
func (c Cache) Store(key CacheKey, src string) error {
	if _, err := cachedir.Fill(c.entry(key), func(tmp string) error { return CopyResult(src, tmp) }); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// CopyResult copies a harness result (summary.json, points.json,
// summary.md) from src to dst, creating dst.
func CopyResult(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, f := range resultFiles {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// readSummary reads one summary.json with runresult.ParseSummary.
func readSummary(path string) (runresult.Summary, error) {
	b, err := diskio.ReadFileMax(os.DirFS(filepath.Dir(path)), filepath.Base(path), runresult.MaxSummaryBytes)
	if err != nil {
		return runresult.Summary{}, err
	}
	s, err := runresult.ParseSummary(b)
	if err != nil {
		return runresult.Summary{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}
