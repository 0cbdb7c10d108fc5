package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// An installed binary (built as a release builds it, with its commit and
// version linked in, into a directory of its own) runs the leaderboard
// commands from a directory outside any checkout: run records the
// binary's own identity, validate and render accept what it wrote.
func TestInstalledBinaryRunsOutsideACheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/action")
	}
	const stated = "0123456789abcdef0123456789abcdef01234567"
	bin := filepath.Join(t.TempDir(), "action")
	build := exec.Command("go", "build", "-buildvcs=false", "-ldflags", "-X main.commit="+stated+" -X main.version=v9.8.7", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	runsOutsideACheckout(t, bin, runresult.Harness{Commit: stated, Source: runresult.HarnessAssertion, Version: "v9.8.7"})
}

// `go install github.com/inference-sim/accuracy-dashboard/cmd/action@vX.Y.Z`
// as docs/LEADERBOARD.md gives it: the module as the proxy serves it (this
// commit's tree zipped as release v1.9.7 into a file proxy; no checkout,
// no VCS stamp) installed from a directory outside any module, the tag's
// commit and the version linked in; the binary runs the leaderboard
// commands anywhere and states them.
func TestGoInstallRunsOutsideACheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/action")
	}
	const mod, ver = "github.com/inference-sim/accuracy-dashboard", "v1.9.7"
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	commit := strings.TrimSpace(string(head))
	proxy := t.TempDir()
	dir := filepath.Join(proxy, mod, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": ver, "Time": "2026-12-04T00:00:00Z"})
	for name, content := range map[string][]byte{"list": []byte(ver + "\n"), ver + ".info": info, ver + ".mod": gomod} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	zf, err := os.Create(filepath.Join(dir, ver+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	// The committed tree, as a release's module zip holds it.
	tree := t.TempDir()
	if out, err := exec.Command("sh", "-c", `git -C "$1" archive HEAD | tar -x -C "$2"`, "sh", root, tree).CombinedOutput(); err != nil {
		t.Fatalf("git archive: %v\n%s", err, out)
	}
	if err := modzip.CreateFromDir(zf, module.Version{Path: mod, Version: ver}, tree); err != nil {
		t.Fatal(err)
	}
	zf.Close()
	gobin := t.TempDir()
	install := exec.Command("go", "install", "-ldflags", "-X main.commit="+commit+" -X main.version="+ver, mod+"/cmd/action@"+ver)
	install.Dir = t.TempDir() // no go.mod at or above it
	install.Env = append(os.Environ(), "GOPROXY=file://"+filepath.ToSlash(proxy), "GOSUMDB=off", "GOBIN="+gobin, "GOFLAGS=")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	runsOutsideACheckout(t, filepath.Join(gobin, "action"), runresult.Harness{Commit: commit, Source: runresult.HarnessAssertion, Version: ver})
}

// runsOutsideACheckout runs the binary bin's leaderboard run, validate,
// render and serve --prepare-only from a directory outside any checkout,
// and wants each to work and run to record want as the tool.
func runsOutsideACheckout(t *testing.T, bin string, want runresult.Harness) {
	t.Helper()
	e := newLBEnv(t)
	work := t.TempDir() // no go.mod at or above it
	os.WriteFile(filepath.Join(work, "runs.yaml"), []byte(strings.Split(standinRuns, "      - {id: a100-tp2")[0]), 0o644)
	// The simulator is built with the test's Go caches (a HOME of its
	// own would start them empty).
	goenv, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	caches := strings.Fields(string(goenv))
	action := func(args ...string) (string, error) {
		cmd := exec.Command(bin, append([]string{"leaderboard"}, args...)...)
		cmd.Dir = work
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GOCACHE=" + caches[0], "GOMODCACHE=" + caches[1]}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := action("run", "--runs", "runs.yaml", "--sim", "v0.2.0", "--sim-repo", e.repo.Dir, "--cache-dir", e.cache, "--quiet", "--jobs", "2"); err != nil {
		t.Fatalf("run outside a checkout: %v\n%s", err, out)
	}
	res := leaderboardtest.ReadResult(t, filepath.Join(work, "results"), "chat/h100.json")
	if res.Provenance.Harness != want || res.Status != leaderboard.StatusOK {
		t.Errorf("the result records the tool %+v (status %s); want the binary's own %+v", res.Provenance.Harness, res.Status, want)
	}
	if out, err := action("validate", "--runs", "runs.yaml", "--sim", e.repo.V020); err != nil || !strings.Contains(out, "ok: 1 results") {
		t.Errorf("validate outside a checkout: %v\n%s", err, out)
	}
	if out, err := action("render", "--runs", "runs.yaml", "--out", "page"); err != nil {
		t.Errorf("render outside a checkout: %v\n%s", err, out)
	} else if _, err := os.Stat(filepath.Join(work, "page", "index.html")); err != nil {
		t.Errorf("render wrote no page: %v", err)
	}
	if out, err := action("serve", "--runs", "runs.yaml", "--sim", "v0.2.0", "--sim-repo", e.repo.Dir, "--cache-dir", e.cache, "--quiet", "--prepare-only"); err != nil ||
		!strings.Contains(out, `"commit": "`+want.Commit+`"`) {
		t.Errorf("serve --prepare-only outside a checkout: %v\n%s", err, out)
	}
}
