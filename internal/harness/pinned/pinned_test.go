package pinned

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// tinyHarness is a repository with a cmd/action that only says hello,
// tagged: a pinned harness that builds in a moment.
func tinyHarness(t *testing.T) (dir string, p pin.Pin) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "harness")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	harnesstest.GitInit(t, dir)
	testkit.WriteFile(t, filepath.Join(dir, "go.mod"), "module example.com/tiny\n\ngo 1.22\n")
	testkit.WriteFile(t, filepath.Join(dir, "cmd", "action", "main.go"), "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"tiny harness\") }\n")
	commit := harnesstest.CommitAll(t, dir, "tiny harness")
	harnesstest.Run(t, dir, "git", "tag", "v1.0.0")
	return dir, pin.Pin{Harness: pin.Harness{Repository: dir, Tag: "v1.0.0", Commit: commit}}
}

// Jobs sharing one cache (a matrix on one machine) prepare the same pinned
// harness at once: every one gets a working build, none removes another's.
func TestPrepareConcurrently(t *testing.T) {
	src, p := tinyHarness(t)
	cache := t.TempDir()
	env := os.Environ()
	const jobs = 4
	var wg sync.WaitGroup
	hs := make([]*Harness, jobs)
	errs := make([]error, jobs)
	for k := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hs[k], errs[k] = Prepare(context.Background(), p, src, cache, env, io.Discard, io.Discard)
		}()
	}
	wg.Wait()
	for k := range jobs {
		if errs[k] != nil {
			t.Fatalf("job %d: %v", k, errs[k])
		}
		out, err := exec.Command(hs[k].Bin).Output()
		if err != nil || strings.TrimSpace(string(out)) != "tiny harness" {
			t.Fatalf("job %d: the build %s: %q, %v", k, hs[k].Bin, out, err)
		}
	}

	// Then a job finds it cached.
	var log bytes.Buffer
	if _, err := Prepare(context.Background(), p, src, cache, env, &log, io.Discard); err != nil || !strings.Contains(log.String(), "Reusing the pinned harness v1.0.0") {
		t.Fatalf("cached: %v\n%s", err, log.String())
	}

	// A cached clone modified since is refused, naming the entry to delete,
	// not rewritten under a job that may be running it.
	testkit.WriteFile(t, filepath.Join(hs[0].Dir, "cmd", "action", "main.go"), "package main\n\nfunc main() {}\n")
	_, err := Prepare(context.Background(), p, src, cache, env, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "is modified") || !strings.Contains(err.Error(), "delete that directory") {
		t.Errorf("modified cache: %v", err)
	}
	if _, statErr := os.Stat(hs[0].Bin); statErr != nil {
		t.Errorf("the refused entry was removed: %v", statErr)
	}
}

// The pin's data: bundled passes nothing, none passes none, a path is
// resolved in the consumer repository; the key names a directory by the
// digest the harness records.
func TestDataArgsAndKey(t *testing.T) {
	repo := t.TempDir()
	testkit.WriteFile(t, filepath.Join(repo, "accuracy", "catalog", "models", "m", "config.json"), "{}\n")
	p := pin.Pin{Data: pin.Data{Ledger: pin.Bundled, Catalog: "accuracy/catalog", Registry: pin.None}}
	want := []string{"--catalog", filepath.Join(repo, "accuracy", "catalog"), "--registry", "none"}
	if got := DataArgs(p, repo); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("DataArgs = %q, want %q", got, want)
	}
	key, err := DataKey(p, repo)
	if err != nil {
		t.Fatal(err)
	}
	digest, err := harness.DigestFS(os.DirFS(filepath.Join(repo, "accuracy", "catalog")))
	if err != nil || key["ledger"] != pin.Bundled || key["registry"] != pin.None || key["catalog"] != digest {
		t.Errorf("DataKey = %v (catalog digest %s, %v)", key, digest, err)
	}
	p.Data.Registry = "missing"
	if _, err := DataKey(p, repo); err == nil || !strings.Contains(err.Error(), "data.registry missing") {
		t.Errorf("a missing directory: %v", err)
	}
}
