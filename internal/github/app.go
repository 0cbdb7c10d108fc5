package github

import (
	"context"
	"crypto/rsa"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/golang-jwt/jwt/v4"
	gh "github.com/google/go-github/v60/github"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// AppTransport authenticates as a GitHub App. As an http.RoundTripper it
// signs each request with a fresh JWT (RS256, issued 30 s in the past to
// absorb clock skew, valid 2 minutes), which is what the /app endpoints
// take (ListInstallations, App, RepositoryInstallation). Installation
// returns a RoundTripper that authenticates with an installation token.
type AppTransport struct {
	apps    *ghinstallation.AppsTransport
	base    http.RoundTripper
	baseURL string
	appID   int64
	key     *rsa.PrivateKey

	mu    sync.Mutex
	cache map[string]*ghinstallation.Transport
}

// NewAppTransport builds an App transport from the App's id and private key
// (PEM, as GitHub issues it). baseURL is the API root (GITHUB_API_URL;
// default GitHub.com); base carries the requests, including those that
// fetch installation tokens (default http.DefaultTransport).
func NewAppTransport(appID int64, privateKeyPEM []byte, baseURL string, base http.RoundTripper) (*AppTransport, error) {
	if base == nil {
		base = http.DefaultTransport
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM(privateKeyPEM)
	if err != nil {
		return nil, fmt.Errorf("github app %d: private key: %w", appID, err)
	}
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	t := &AppTransport{base: base, baseURL: strings.TrimRight(baseURL, "/"), appID: appID, key: key,
		cache: map[string]*ghinstallation.Transport{}}
	t.apps = t.newApps()
	return t, nil
}

// newApps returns a JWT transport of the App. Each installation transport
// gets its own: ghinstallation writes to the AppsTransport it was built from
// on every token refresh, unguarded, so a shared one races.
func (t *AppTransport) newApps() *ghinstallation.AppsTransport {
	apps := ghinstallation.NewAppsTransportFromPrivateKey(t.base, t.appID, t.key)
	apps.BaseURL = t.baseURL
	return apps
}

// RoundTrip signs req with the App's JWT.
func (t *AppTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// ghinstallation sets headers on the request it is given; give it a copy.
	return t.apps.RoundTrip(req.Clone(req.Context()))
}

// Installation returns a RoundTripper that authenticates as the
// installation with a token scoped to repositories (names, or "owner/name"
// whose owner is dropped; none means every repository the installation
// can access). Tokens last an hour; ghinstallation refreshes one a minute
// before it expires. The transport is cached per installation and
// repository set, so repeated calls share one token.
func (t *AppTransport) Installation(installationID int64, repositories ...string) http.RoundTripper {
	names := make([]string, 0, len(repositories))
	for _, r := range repositories {
		if _, name, ok := strings.Cut(r, "/"); ok {
			r = name
		}
		names = append(names, r)
	}
	sort.Strings(names)
	key := strconv.FormatInt(installationID, 10) + ":" + strings.Join(names, ",")
	t.mu.Lock()
	defer t.mu.Unlock()
	if tr, ok := t.cache[key]; ok {
		return tr
	}
	tr := ghinstallation.NewFromAppsTransport(t.newApps(), installationID)
	tr.BaseURL = t.baseURL
	// Always send an options object: ghinstallation sends a JSON null body
	// when the options are nil, which is not a valid request body.
	tr.InstallationTokenOptions = &gh.InstallationTokenOptions{}
	if len(names) > 0 {
		tr.InstallationTokenOptions.Repositories = names
	}
	t.cache[key] = tr
	return tr
}

// App describes the authenticated GitHub App.
type App struct {
	ID   int64
	Slug string
	Name string
}

// BotLogin is the login of the App's commits and comments: "<slug>[bot]".
func (a App) BotLogin() string { return a.Slug + "[bot]" }

// App returns the authenticated App (GET /app). It needs a Client built
// over an AppTransport.
func (c *Client) App(ctx context.Context) (App, error) {
	var app *gh.App
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		app, resp, err = c.gh.Apps.Get(ctx, "")
		return resp, err
	})
	if err != nil {
		return App{}, fmt.Errorf("get app: %w", err)
	}
	return App{ID: app.GetID(), Slug: app.GetSlug(), Name: app.GetName()}, nil
}

// Installation is one installation of the App.
type Installation struct {
	ID          int64
	Account     string // user or organization login
	AccountType string // "User" or "Organization"
	// RepositorySelection is "all" or "selected".
	RepositorySelection string
}

func toInstallation(i *gh.Installation) Installation {
	return Installation{
		ID: i.GetID(), Account: i.GetAccount().GetLogin(), AccountType: i.GetAccount().GetType(),
		RepositorySelection: i.GetRepositorySelection(),
	}
}

// ListInstallations lists every installation of the App, all pages. It
// needs a Client built over an AppTransport.
func (c *Client) ListInstallations(ctx context.Context) ([]Installation, error) {
	items, err := listAll(ctx, c, func(opts gh.ListOptions) ([]*gh.Installation, *gh.Response, error) {
		return c.gh.Apps.ListInstallations(ctx, &opts)
	})
	if err != nil {
		return nil, fmt.Errorf("list installations: %w", err)
	}
	out := make([]Installation, 0, len(items))
	for _, i := range items {
		out = append(out, toInstallation(i))
	}
	return out, nil
}

// RepositoryInstallation returns the App's installation on repo, or
// ErrNotFound. It needs a Client built over an AppTransport.
func (c *Client) RepositoryInstallation(ctx context.Context, repo ident.Repo) (Installation, error) {
	var inst *gh.Installation
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		inst, resp, err = c.gh.Apps.FindRepositoryInstallation(ctx, repo.Owner, repo.Name)
		return resp, err
	})
	if err != nil {
		return Installation{}, fmt.Errorf("find installation of %s: %w", repo, err)
	}
	return toInstallation(inst), nil
}

// ListInstallationRepositories lists the repositories the installation
// token can access ("owner/name"), all pages. It needs a Client built over
// AppTransport.Installation.
func (c *Client) ListInstallationRepositories(ctx context.Context) ([]Repository, error) {
	items, err := listAll(ctx, c, func(opts gh.ListOptions) ([]*gh.Repository, *gh.Response, error) {
		list, resp, err := c.gh.Apps.ListRepos(ctx, &opts)
		if list == nil {
			return nil, resp, err
		}
		return list.Repositories, resp, err
	})
	if err != nil {
		return nil, fmt.Errorf("list installation repositories: %w", err)
	}
	out := make([]Repository, 0, len(items))
	for _, r := range items {
		out = append(out, toRepository(r))
	}
	return out, nil
}
