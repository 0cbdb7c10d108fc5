package github

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// newAppClient is an AppClient over a fake where App 42 is installed on
// org/app and org/lib (installation 1) and on inference-sim/dashboard
// (installation 2), each repository with a main branch and one file.
func newAppClient(t *testing.T) (*AppClient, *githubfake.Server) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	s := githubfake.New(t, githubfake.Options{App: &githubfake.App{
		ID: 42, Slug: "accuracy-bot", Name: "Accuracy Bot", PublicKey: &key.PublicKey,
		Installations: []githubfake.Installation{
			{ID: 1, Account: "org", Repositories: []string{"org/app", "org/lib"}},
			{ID: 2, Account: "inference-sim", Repositories: []string{"inference-sim/dashboard"}},
		},
	}})
	for _, r := range []string{"org/app", "org/lib", "inference-sim/dashboard"} {
		s.AddRepo(r, "main")
		s.Commit(r, "main", "dev", "init", map[string]string{"README.md": r + "\n"})
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	at, err := NewAppTransport(42, keyPEM, s.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	clk := newClock()
	a, err := NewAppClient(at, Options{BaseURL: s.URL(), Retry: RetryPolicy{Now: clk.Now, Sleep: clk.Sleep}}, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	return a, s
}

// The App's client caches one installation client per repository; after
// the App is uninstalled and installed again (a new installation id, the
// old tokens revoked) the next call finds the new installation instead of
// failing until a restart; uninstalled for good, a call fails naming the
// installation, never as a missing resource.
func TestAppClientFollowsReinstalls(t *testing.T) {
	t.Parallel()
	a, s := newAppClient(t)
	app := ident.Repo{Owner: "org", Name: "app"}
	if b, err := a.DefaultBranch(ctx, app); err != nil || b != "main" {
		t.Fatalf("DefaultBranch = %q, %v", b, err)
	}
	lookups := s.Calls("apps/get-repo-installation")
	if _, err := a.ReadFile(ctx, app, "main", "README.md"); err != nil {
		t.Fatal(err)
	}
	if n := s.Calls("apps/get-repo-installation") - lookups; n != 0 {
		t.Errorf("%d installation lookups for a cached repository, want 0", n)
	}

	s.Uninstall(1)
	s.Install(githubfake.Installation{ID: 3, Account: "org", Repositories: []string{"org/app", "org/lib"}})
	if src, err := a.ReadFile(ctx, app, "main", "README.md"); err != nil || string(src) != "org/app\n" {
		t.Fatalf("ReadFile after the reinstall = %q, %v", src, err)
	}
	if n := s.Calls("apps/get-repo-installation") - lookups; n != 1 {
		t.Errorf("%d installation lookups after the reinstall, want 1", n)
	}
	if _, err := a.DefaultBranch(ctx, app); err != nil {
		t.Fatal(err)
	}
	if n := s.Calls("apps/get-repo-installation") - lookups; n != 1 {
		t.Errorf("%d installation lookups, want the fresh client cached", n)
	}

	s.Uninstall(3)
	_, err := a.ReadFile(ctx, app, "main", "README.md")
	if err == nil || !strings.Contains(err.Error(), "app installation on org/app") {
		t.Errorf("ReadFile after the uninstall: %v, want the installation named", err)
	}
}

// After GitHub rate-limits a repository call beyond what the client waits,
// no call is sent until the reset: each fails at once with ErrRateLimited.
func TestAppClientRateLimitGate(t *testing.T) {
	t.Parallel()
	a, s := newAppClient(t)
	app := ident.Repo{Owner: "org", Name: "app"}
	if _, err := a.DefaultBranch(ctx, app); err != nil { // the installation client is cached
		t.Fatal(err)
	}
	s.FailNext("repos/get", 1, githubfake.RateLimitExhausted(time.Now().Add(10*time.Minute)))
	if _, err := a.DefaultBranch(ctx, app); !errors.Is(err, ghmodel.ErrRateLimited) {
		t.Fatalf("rate-limited call: %v, want ErrRateLimited", err)
	}
	before := s.CallCounts()
	_, err := a.ReadFile(ctx, ident.Repo{Owner: "org", Name: "lib"}, "main", "README.md")
	if !errors.Is(err, ghmodel.ErrRateLimited) || !strings.Contains(err.Error(), "not calling GitHub until") {
		t.Errorf("a call while the gate is closed: %v", err)
	}
	if after := s.CallCounts(); len(after) != len(before) || sum(after) != sum(before) {
		t.Errorf("calls were sent while the gate was closed: %v then %v", before, after)
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// The App's client is safe for concurrent use, as the webhook's workers use
// it (run with -race).
func TestAppClientConcurrentUse(t *testing.T) {
	t.Parallel()
	a, _ := newAppClient(t)
	var wg sync.WaitGroup
	for _, name := range []string{"org/app", "org/lib", "inference-sim/dashboard"} {
		repo, _ := ident.ParseRepo(name)
		wg.Add(2)
		go func() {
			defer wg.Done()
			if id, err := a.Identity(ctx); err != nil || id.Login != "accuracy-bot[bot]" {
				t.Errorf("Identity = %+v, %v", id, err)
			}
		}()
		go func() {
			defer wg.Done()
			if b, err := a.DefaultBranch(ctx, repo); err != nil || b != "main" {
				t.Errorf("%s: DefaultBranch = %q, %v", repo, b, err)
			}
		}()
	}
	wg.Wait()
	repos, err := a.InstalledRepos(ctx)
	if err != nil || len(repos) != 3 || repos[0].String() != "inference-sim/dashboard" {
		t.Errorf("InstalledRepos = %v, %v", repos, err)
	}
}

// ListFiles lists every file under a directory, at any depth, with its
// path; a missing directory is ErrNotFound.
func TestAppClientListFiles(t *testing.T) {
	a, s := newAppClient(t)
	dash := ident.Repo{Owner: "inference-sim", Name: "dashboard"}
	s.Commit("inference-sim/dashboard", "main", "dev", "snapshot", map[string]string{
		"data/snapshots/a/summary.json": "{}", "data/snapshots/a/whatif/w4/points.json": "[]", "data/snapshots/a/whatif/w4/summary.json": "{}",
		"data/snapshots/b/summary.json": "{}"})
	got, err := a.ListFiles(ctx, dash, "main", "data/snapshots/a")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"data/snapshots/a/summary.json", "data/snapshots/a/whatif/w4/points.json", "data/snapshots/a/whatif/w4/summary.json"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListFiles (-want +got):\n%s", diff)
	}
	if _, err := a.ListFiles(ctx, dash, "main", "data/snapshots/c"); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("a missing directory: %v, want ErrNotFound", err)
	}
}
