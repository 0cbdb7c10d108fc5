package harness

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// run runs a command in dir and fails the test on error.
func run(t testing.TB, dir string, name string, args ...string) string {
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

func gitInit(t testing.TB, dir string) {
	t.Helper()
	run(t, dir, "git", "init", "-q", "-b", "main")
	run(t, dir, "git", "config", "user.email", "t@example.com")
	run(t, dir, "git", "config", "user.name", "t")
}

func commitAll(t testing.TB, dir, msg string) string {
	t.Helper()
	run(t, dir, "git", "add", "-A")
	run(t, dir, "git", "commit", "-q", "-m", msg)
	return run(t, dir, "git", "rev-parse", "HEAD")
}

// standinRepo is a git repository of the stand-in simulator with history:
//
//	v0.1.0  the "results" variant (like BLIS v0.7.15: --results-path only)
//	v0.2.0  the "metrics" variant (like upstream main: --metrics-path)
//	feature a branch with one more commit (no tag)
//	v0.3.0  on main: a commit that does not compile
type standin struct {
	dir                         string
	v010, v020, feature, broken string
}

func copyStandin(t testing.TB, dst, variant string) {
	t.Helper()
	src := filepath.Join("testdata", "standin-blis")
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
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(dst, "main.go")
	b, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), `const variant = "metrics"`, `const variant = "`+variant+`"`, 1)
	if err := os.WriteFile(main, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

var (
	standinOnce    sync.Once
	standinRepoDir standin
)

// newStandinRepo builds the stand-in repository once per test binary.
func newStandinRepo(t testing.TB) standin {
	t.Helper()
	standinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "standin-repo-")
		if err != nil {
			t.Fatal(err)
		}
		s := standin{dir: dir}
		gitInit(t, dir)
		copyStandin(t, dir, "results")
		s.v010 = commitAll(t, dir, "stand-in, results variant")
		run(t, dir, "git", "tag", "v0.1.0")
		copyStandin(t, dir, "metrics")
		s.v020 = commitAll(t, dir, "stand-in, metrics variant")
		run(t, dir, "git", "tag", "v0.2.0")
		run(t, dir, "git", "checkout", "-q", "-b", "feature")
		os.WriteFile(filepath.Join(dir, "NOTES"), []byte("feature work\n"), 0o644)
		s.feature = commitAll(t, dir, "feature")
		run(t, dir, "git", "checkout", "-q", "main")
		f, _ := os.OpenFile(filepath.Join(dir, "main.go"), os.O_APPEND|os.O_WRONLY, 0o644)
		f.WriteString("\nfunc broken() { this does not compile }\n")
		f.Close()
		s.broken = commitAll(t, dir, "broken build")
		run(t, dir, "git", "tag", "v0.3.0-rc1")
		run(t, dir, "git", "reset", "-q", "--hard", s.v020)
		standinRepoDir = s
	})
	if standinRepoDir.dir == "" {
		t.Fatal("stand-in repository setup failed")
	}
	return standinRepoDir
}

// harnessCheckout makes a clean git checkout that looks like the harness.
func harnessCheckout(t testing.TB) (dir, commit string) {
	t.Helper()
	dir = t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+ModulePath+"\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("harness\n"), 0o644)
	gitInit(t, dir)
	commit = commitAll(t, dir, "harness")
	return dir, commit
}

func TestMain(m *testing.M) {
	code := m.Run()
	if standinRepoDir.dir != "" {
		os.RemoveAll(standinRepoDir.dir)
	}
	os.Exit(code)
}

var _ = context.Background
