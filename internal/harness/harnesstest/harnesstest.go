// Package harnesstest gives tests real parts to run the harness against: a
// git repository of the stand-in simulator (internal/harness/testdata/
// standin-blis, a small program honouring BLIS's replay contract) with tags,
// a branch and a broken commit, and a clean git checkout that passes for the
// harness's own directory.
package harnesstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/corpus"
)

// ModulePath is the harness module, written into fake harness checkouts.
const ModulePath = "github.com/inference-sim/accuracy-dashboard"

// Standin is a git repository of the stand-in simulator:
//
//	V010 (tag v0.1.0)     the "results" variant, like BLIS v0.7.15 (replay --results-path only; run)
//	V020 (tag v0.2.0)     the "metrics" variant, like upstream main (--metrics-path); main points here
//	Feature (branch feature) one more commit, no tag
//	Agentic (branch agentic) the "agentic" variant, like upstream after f90a1e3a
//	                        (convert otel|weka, replay --concurrent-sessions), no tag
//	Broken (tag v0.3.0-rc1) a commit whose main.go does not compile
type Standin struct {
	Dir                                  string
	V010, V020, Feature, Agentic, Broken string
}

var (
	once     sync.Once
	shared   Standin
	setupErr string
)

// Dir is the directory of the stand-in simulator's source.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "standin-blis")
}

// StandinRepo returns the stand-in repository, created once per test binary
// in a temporary directory (removed by Cleanup).
func StandinRepo(t testing.TB) Standin {
	t.Helper()
	once.Do(func() {
		dir, err := os.MkdirTemp("", "standin-repo-")
		if err != nil {
			setupErr = err.Error()
			return
		}
		s := Standin{Dir: dir}
		GitInit(t, dir)
		CopyStandin(t, dir, "results")
		s.V010 = CommitAll(t, dir, "stand-in, results variant")
		Run(t, dir, "git", "tag", "v0.1.0")
		CopyStandin(t, dir, "metrics")
		s.V020 = CommitAll(t, dir, "stand-in, metrics variant")
		Run(t, dir, "git", "tag", "v0.2.0")
		Run(t, dir, "git", "checkout", "-q", "-b", "feature")
		if err := os.WriteFile(filepath.Join(dir, "NOTES"), []byte("feature work\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		s.Feature = CommitAll(t, dir, "feature")
		Run(t, dir, "git", "checkout", "-q", "-b", "agentic", s.V020)
		CopyStandin(t, dir, "agentic")
		s.Agentic = CommitAll(t, dir, "stand-in, agentic variant")
		Run(t, dir, "git", "checkout", "-q", "main")
		f, err := os.OpenFile(filepath.Join(dir, "main.go"), os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("\nfunc broken() { this does not compile }\n")
		f.Close()
		s.Broken = CommitAll(t, dir, "broken build")
		Run(t, dir, "git", "tag", "v0.3.0-rc1")
		Run(t, dir, "git", "reset", "-q", "--hard", s.V020)
		shared = s
	})
	if shared.Dir == "" {
		t.Fatalf("stand-in repository setup failed %s", setupErr)
	}
	return shared
}

// Cleanup removes the shared stand-in repository; call it from TestMain.
func Cleanup() {
	if shared.Dir != "" {
		os.RemoveAll(shared.Dir)
	}
}

// CopyStandin copies the stand-in's source into dst, selecting a variant
// ("metrics", "results" or "agentic").
func CopyStandin(t testing.TB, dst, variant string) {
	t.Helper()
	src := Dir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if rel == "main.go" {
			b = []byte(strings.Replace(string(b), `const variant = "metrics"`, `const variant = "`+variant+`"`, 1))
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// HarnessCheckout makes a clean git checkout whose go.mod declares the
// harness module, so it passes for the harness's own directory. It commits
// the corpus embedded in the test binary under corpus/, as a real checkout
// of the harness has it (score checks the embedded corpus against HEAD).
func HarnessCheckout(t testing.TB) (dir, commit string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "corpus"), corpus.Embedded()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+ModulePath+"\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("harness\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	GitInit(t, dir)
	return dir, CommitAll(t, dir, "harness")
}

// Run runs a command in dir with a neutral git identity and configuration,
// failing the test on error; it returns the trimmed output.
func Run(t testing.TB, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// GitInit makes dir a git repository on branch main.
func GitInit(t testing.TB, dir string) {
	t.Helper()
	Run(t, dir, "git", "init", "-q", "-b", "main")
	Run(t, dir, "git", "config", "user.email", "t@example.com")
	Run(t, dir, "git", "config", "user.name", "t")
}

// CommitAll commits every change in dir and returns the new HEAD.
func CommitAll(t testing.TB, dir, msg string) string {
	t.Helper()
	Run(t, dir, "git", "add", "-A")
	Run(t, dir, "git", "commit", "-q", "-m", msg)
	return Run(t, dir, "git", "rev-parse", "HEAD")
}
