package prcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

func TestCacheKey(t *testing.T) {
	t.Parallel()
	base := CacheKey{HarnessCommit: harnessCommit, SimCommit: headSHA, Data: map[string]string{"ledger": "bundled", "catalog": "sha256:1"}}
	seen := map[string]string{base.String(): "base"}
	variants := map[string]CacheKey{
		"harness": {HarnessCommit: baseSHA, SimCommit: headSHA, Data: base.Data},
		"sim":     {HarnessCommit: harnessCommit, SimCommit: baseSHA, Data: base.Data},
		"data":    {HarnessCommit: harnessCommit, SimCommit: headSHA, Data: map[string]string{"ledger": "bundled", "catalog": "sha256:2"}},
		"shard":   {HarnessCommit: harnessCommit, SimCommit: headSHA, Data: base.Data, Shard: "1/2"},
	}
	for name, k := range variants {
		if prev, dup := seen[k.String()]; dup {
			t.Errorf("key of %s equals key of %s", name, prev)
		}
		seen[k.String()] = name
	}
	same := CacheKey{HarnessCommit: harnessCommit, SimCommit: headSHA, Data: map[string]string{"catalog": "sha256:1", "ledger": "bundled"}}
	if same.String() != base.String() {
		t.Error("key depends on map order")
	}
}

func TestCacheStoreLookup(t *testing.T) {
	t.Parallel()
	c := Cache{Dir: t.TempDir()}
	key := CacheKey{HarnessCommit: harnessCommit, SimCommit: headSHA}
	if _, _, ok := c.Lookup(key); ok {
		t.Fatal("hit in an empty cache")
	}
	src := filepath.Join(t.TempDir(), "r")
	stored := mkRun(t, headSHA, pt{"a1", "measured", 1, 100, 10, 110, 10})
	writeRun(t, src, stored)
	if err := c.Store(key, src); err != nil {
		t.Fatal(err)
	}
	dir, got, ok := c.Lookup(key)
	if !ok {
		t.Fatal("miss after store")
	}
	if d := cmp.Diff(stored, got); d != "" {
		t.Errorf("cached result (-stored +got):\n%s", d)
	}
	if again, err := runresult.Read(dir); err != nil || !cmp.Equal(again, got) {
		t.Errorf("cached directory does not hold the result Lookup returned: %v", err)
	}
	// A result filed under the wrong key is not used.
	wrong := CacheKey{HarnessCommit: harnessCommit, SimCommit: baseSHA}
	if err := c.Store(wrong, src); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := c.Lookup(wrong); ok {
		t.Error("entry whose summary names another simulator commit was used")
	}
	// Storing again leaves the entry as it is.
	if err := c.Store(key, src); err != nil {
		t.Errorf("second store: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(c.Dir, "results"))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary directory left: %s", e.Name())
		}
	}
}

func TestResultReadRefuses(t *testing.T) {
	t.Parallel()
	r := mkRun(t, headSHA, pt{"a1", "measured", 1, 100, 10, 110, 10}, pt{"a2", "measured", 2, 100, 10, 0, 0})
	encode := func(v any) []byte {
		b, err := jsoncodec.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	unbalanced := r.Summary
	unbalanced.Coverage.Scored = 2
	badCommit := r.Summary
	badCommit.Provenance.Harness.Commit = "x` @org/team"
	tests := map[string]struct {
		file string
		data []byte
		want string
		pad  int64
	}{
		"unbalanced":     {runresult.SummaryFile, encode(unbalanced), "coverage does not balance", 0},
		"points missing": {runresult.PointsFile, encode(r.Points[:1]), "points.json holds 1 points", 0},
		"unknown field":  {runresult.SummaryFile, []byte(`{"schema_version":1,"surprise":true}`), "surprise", 0},
		"not a commit":   {runresult.SummaryFile, encode(badCommit), "does not match its schema", 0},
		// Results may be an untrusted run's artifact: sizes are capped.
		// (a sparse file: the cap's worth of zero bytes, then the JSON).
		"summary too large": {runresult.SummaryFile, encode(r.Summary), "larger than", runresult.MaxSummaryBytes},
		"points too large":  {runresult.PointsFile, encode(r.Points), "larger than", runresult.MaxPointsBytes},
	}
	for name, tt := range tests {
		dir := filepath.Join(t.TempDir(), "r")
		writeRun(t, dir, r)
		if err := os.WriteFile(filepath.Join(dir, tt.file), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(filepath.Join(dir, tt.file), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt(tt.data, tt.pad); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if _, err := runresult.Read(dir); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tt.want)
		}
	}
	// A symbolic link is not followed: it could point anywhere on the runner.
	dir := filepath.Join(t.TempDir(), "r")
	writeRun(t, dir, r)
	os.Rename(filepath.Join(dir, runresult.PointsFile), filepath.Join(dir, "elsewhere.json"))
	if err := os.Symlink(filepath.Join(dir, "elsewhere.json"), filepath.Join(dir, runresult.PointsFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := runresult.Read(dir); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("symlinked points.json: err = %v", err)
	}
}

// pr.json comes from an untrusted run's artifact: read with a size cap.
func TestReadPRCapsSize(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), prFile)
	big := strings.Repeat(" ", maxPRFileBytes) + `{"number": 1, "head_sha": "` + headSHA + `", "base_sha": "` + baseSHA + `"}`
	if err := os.WriteFile(path, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readPR(path); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized pr.json: err = %v", err)
	}
}

func TestPlanMerge(t *testing.T) {
	t.Parallel()
	shardRun := func(k, n int) runresult.Result {
		r := mkRun(t, headSHA, pt{"a1", "measured", 1, 100, 10, 110, 10})
		r.Summary.Shard = &runresult.Shard{Index: k, Count: n}
		return r
	}
	t.Run("complete", func(t *testing.T) {
		dir := t.TempDir()
		for k := 1; k <= 3; k++ {
			name := filepath.Join(dir, "accuracy-shard-"+string(rune('0'+k)))
			writeRun(t, filepath.Join(name, "head"), shardRun(k, 3))
			writeRun(t, filepath.Join(name, "base"), shardRun(k, 3))
		}
		set, err := PlanMerge(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(set.Head) != 3 || len(set.Base) != 3 || !strings.HasSuffix(set.Head[2], "accuracy-shard-3/head") {
			t.Errorf("set = %+v", set)
		}
	})
	bad := map[string]func(dir string){
		"missing": func(dir string) {
			writeRun(t, filepath.Join(dir, "s1", "head"), shardRun(1, 3))
			writeRun(t, filepath.Join(dir, "s3", "head"), shardRun(3, 3))
		},
		"duplicate": func(dir string) {
			writeRun(t, filepath.Join(dir, "s1", "head"), shardRun(1, 2))
			writeRun(t, filepath.Join(dir, "s1b", "head"), shardRun(1, 2))
		},
		"mixed counts": func(dir string) {
			writeRun(t, filepath.Join(dir, "s1", "head"), shardRun(1, 2))
			writeRun(t, filepath.Join(dir, "s2", "head"), shardRun(2, 3))
		},
		"partial base": func(dir string) {
			writeRun(t, filepath.Join(dir, "s1", "head"), shardRun(1, 2))
			writeRun(t, filepath.Join(dir, "s1", "base"), shardRun(1, 2))
			writeRun(t, filepath.Join(dir, "s2", "head"), shardRun(2, 2))
		},
		"not a shard": func(dir string) {
			writeRun(t, filepath.Join(dir, "s1", "head"), mkRun(t, headSHA, pt{"a1", "measured", 1, 100, 10, 110, 10}))
		},
		"empty": func(string) {},
	}
	for name, setup := range bad {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			setup(dir)
			if set, err := PlanMerge(dir); err == nil {
				t.Errorf("accepted: %+v", set)
			}
		})
	}
}
