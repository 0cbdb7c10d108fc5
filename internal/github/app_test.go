package github

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// TestAppInstallationFlow runs the App flow against the fake: a JWT signed
// with a key generated here lists installations, then an installation token
// scoped to one repository reads that repository and not another.
func TestAppInstallationFlow(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	s := githubfake.New(t, githubfake.Options{App: &githubfake.App{
		ID: 42, Slug: "accuracy-bot", Name: "Accuracy Bot", PublicKey: &key.PublicKey,
		Installations: []githubfake.Installation{
			{ID: 7, Account: "inference-sim", Repositories: []string{repoName, "inference-sim/dashboard"}},
			{ID: 8, Account: "someone", Repositories: []string{"someone/fork"}},
		},
	}})
	seed(t, s)
	s.AddRepo("inference-sim/dashboard", "main")
	s.Commit("inference-sim/dashboard", "main", "alice", "init", map[string]string{"data/index.json": "[]\n"})

	at, err := NewAppTransport(42, keyPEM, s.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	appClient, _ := newClient(t, s, Options{HTTPClient: &http.Client{Transport: at}})
	app, err := appClient.App(ctx)
	if err != nil || app.Slug != "accuracy-bot" || app.ID != 42 || app.BotLogin() != "accuracy-bot[bot]" {
		t.Fatalf("App = %+v, %v", app, err)
	}
	insts, err := appClient.ListInstallations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Installation{
		{ID: 7, Account: "inference-sim", AccountType: "User", RepositorySelection: "selected"},
		{ID: 8, Account: "someone", AccountType: "User", RepositorySelection: "selected"},
	}
	if diff := cmp.Diff(want, insts); diff != "" {
		t.Errorf("ListInstallations (-want +got):\n%s", diff)
	}
	inst, err := appClient.RepositoryInstallation(ctx, ident.Repo{Owner: "inference-sim", Name: "dashboard"})
	if err != nil || inst.ID != 7 {
		t.Errorf("RepositoryInstallation = %+v, %v", inst, err)
	}

	// An installation token scoped to the dashboard repository.
	tr := at.Installation(7, "inference-sim/dashboard")
	if at.Installation(7, "dashboard") != tr {
		t.Error("the same installation and scope did not share a transport")
	}
	ic, _ := newClient(t, s, Options{HTTPClient: &http.Client{Transport: tr}, Login: app.BotLogin()})
	repos, err := ic.ListInstallationRepositories(ctx)
	if err != nil || len(repos) != 1 || repos[0].Repo.String() != "inference-sim/dashboard" {
		t.Fatalf("installation repositories = %+v, %v", repos, err)
	}
	dash := ident.Repo{Owner: "inference-sim", Name: "dashboard"}
	if f, err := ic.GetFile(ctx, dash, "data/index.json", ""); err != nil || string(f.Content) != "[]\n" {
		t.Errorf("read in scope = %+v, %v", f, err)
	}
	if _, err := ic.GetFile(ctx, repo, "README.md", ""); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("read out of scope: %v, want ErrNotFound", err)
	}
	if who, err := ic.Self(ctx); err != nil || who != "accuracy-bot[bot]" {
		t.Errorf("Self = %q, %v", who, err)
	}
	if n := s.InstallationTokens(); n != 1 {
		t.Errorf("%d installation tokens minted, want 1 (cached)", n)
	}
	if n := s.Calls("apps/create-installation-access-token"); n != 1 {
		t.Errorf("token requests = %d, want 1", n)
	}

	// An unscoped installation token (every repository of the
	// installation) is a valid request too.
	all, _ := newClient(t, s, Options{HTTPClient: &http.Client{Transport: at.Installation(7)}, Login: app.BotLogin()})
	allRepos, err := all.ListInstallationRepositories(ctx)
	if err != nil || len(allRepos) != 2 {
		t.Errorf("unscoped installation repositories = %+v, %v; want both", allRepos, err)
	}

	// A token for repositories outside the installation is refused.
	bad, _ := newClient(t, s, Options{HTTPClient: &http.Client{Transport: at.Installation(7, "someone/fork")}})
	if _, err := bad.GetRepository(ctx, dash); !errors.Is(err, ghmodel.ErrInstallationToken) || !errors.Is(err, ghmodel.ErrInvalid) {
		t.Errorf("a token for a repository outside the installation: %v, want ErrInstallationToken and ErrInvalid", err)
	}

	// A removed installation gets no token, and its tokens stop working.
	s.Uninstall(7)
	gone, _ := newClient(t, s, Options{HTTPClient: &http.Client{Transport: at.Installation(7, "inference-sim/inference-sim")}})
	if _, err := gone.GetRepository(ctx, repo); !errors.Is(err, ghmodel.ErrInstallationToken) || !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("token of a removed installation: %v, want ErrInstallationToken and ErrNotFound", err)
	}
	if _, err := ic.GetFile(ctx, dash, "data/index.json", ""); !errors.Is(err, ghmodel.ErrUnauthorized) || errors.Is(err, ghmodel.ErrInstallationToken) {
		t.Errorf("revoked token: %v, want ErrUnauthorized", err)
	}

	// A JWT signed by another key is rejected.
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	otherPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(other)})
	wrong, err := NewAppTransport(42, otherPEM, s.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	wc, _ := newClient(t, s, Options{HTTPClient: &http.Client{Transport: wrong}})
	if _, err := wc.ListInstallations(ctx); !errors.Is(err, ghmodel.ErrUnauthorized) {
		t.Errorf("foreign key: %v, want ErrUnauthorized", err)
	}
}

// A refused installation token never reads as the resource's outcome (a
// missing file, say): GitHub's 404 names the installation.
func TestAppErrKeepsRefusedTokensApartFromMissingFiles(t *testing.T) {
	t.Parallel()
	token := fmt.Errorf("read x: %w: %w", ghmodel.ErrInstallationToken, &APIError{StatusCode: 404, Err: ghmodel.ErrNotFound})
	err := appErr(token)
	if errors.Is(err, ghmodel.ErrNotFound) || !errors.Is(err, ghmodel.ErrInstallationToken) || err.Error() != token.Error() {
		t.Errorf("refused token mapped to %v; it must not read as a missing resource", err)
	}
	missing := &APIError{StatusCode: 404, Err: ghmodel.ErrNotFound}
	if err := appErr(missing); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("404 mapped to %v, want ghmodel.ErrNotFound", err)
	}
}
