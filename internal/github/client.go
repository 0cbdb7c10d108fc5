// Package github is the project's one adapter to GitHub's REST API. It wraps
// github.com/google/go-github/v60 behind methods over the project's plain
// types: a repository is an ident.Repo, and commits, pull requests,
// releases, comments and the App's identity are ghmodel's, so no other
// package imports go-github or handles its types. Consumers declare the
// small interfaces they need over those types; the clients here implement
// them directly (AppClient the bot's, PullComments and Tags the Action's)
// and tests fake them with plain structs.
//
// A Client authenticates with a token (a personal token, a workflow's
// GITHUB_TOKEN, or an App installation token through NewAppTransport), talks
// to GitHub.com or GitHub Enterprise Server (BaseURL from GITHUB_API_URL),
// retries transient failures with exponential backoff, honours Retry-After and
// X-RateLimit-Reset within a bounded wait, and serializes mutating calls, as
// GitHub asks of integrations. Errors are wrapped with short context and
// carry one of ghmodel's sentinels (ErrNotFound, ErrForbidden, ErrConflict,
// ErrRateLimited, …) for callers to branch on with errors.Is. An AppClient
// adds the App's side: an installation client per repository, cached, the
// call made again once with a fresh one when a cached token is refused
// (401), and a gate that sends nothing while a rate limit holds.
package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	gh "github.com/google/go-github/v60/github"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
)

// DefaultBaseURL is GitHub.com's API root.
const DefaultBaseURL = "https://api.github.com/"

// DefaultUserAgent is sent when Options.UserAgent is empty.
const DefaultUserAgent = "inference-sim-accuracy-dashboard"

// Options configures New.
type Options struct {
	// Token authenticates every request ("Authorization: Bearer Token"):
	// a personal token, a workflow's GITHUB_TOKEN, or an installation token.
	// Leave it empty when HTTPClient already authenticates (App transports).
	Token string
	// HTTPClient carries the requests; its Transport is wrapped with the
	// retry layer. Default a client over http.DefaultTransport.
	HTTPClient *http.Client
	// BaseURL is the API root, GITHUB_API_URL: https://api.github.com/ or
	// https://HOST/api/v3/ for GitHub Enterprise Server. A trailing slash is
	// added when missing. Default DefaultBaseURL.
	BaseURL string
	// UserAgent names the client. Default DefaultUserAgent.
	UserAgent string
	// Login is the identity Self reports when the token cannot read its own
	// user (GET /user answers 403 for a GITHUB_TOKEN and for installation
	// tokens): "github-actions[bot]" for GITHUB_TOKEN, "<app-slug>[bot]" for
	// an App (see AppTransport.BotLogin).
	Login string
	// Retry is the retry and rate-limit policy. Zero fields take defaults.
	Retry RetryPolicy
	// DownloadClient fetches artifact archives from the storage URL GitHub
	// redirects to; it must not add GitHub credentials (the URL is
	// pre-signed). Its Transport is wrapped with the retry layer, as
	// HTTPClient's is. Default a client over http.DefaultTransport.
	DownloadClient *http.Client
}

// Client is a GitHub API client. It is safe for concurrent use.
type Client struct {
	gh       *gh.Client
	download *http.Client
	retry    RetryPolicy
	login    string

	selfMu sync.Mutex
	self   string
}

// New builds a Client. It fails on a malformed BaseURL. A
// Client serializes its own mutating requests (every method but GET and
// HEAD, retries included); share one Client per credential so that all
// writes made with it are serialized, as GitHub asks.
func New(opts Options) (*Client, error) {
	policy := opts.Retry.withDefaults()
	base := http.DefaultTransport
	hc := &http.Client{}
	if opts.HTTPClient != nil {
		copied := *opts.HTTPClient
		hc = &copied
		if hc.Transport != nil {
			base = hc.Transport
		}
	}
	if opts.Token != "" {
		base = &tokenTransport{token: opts.Token, next: base}
	}
	hc.Transport = newRetryTransport(base, policy)

	client := gh.NewClient(hc)
	baseURL := opts.BaseURL
	if baseURL == "" {
		baseURL = DefaultBaseURL
	}
	if !strings.HasSuffix(baseURL, "/") {
		baseURL += "/"
	}
	u, err := url.Parse(baseURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("github: base URL %q: not an absolute URL", opts.BaseURL)
	}
	client.BaseURL = u
	client.UserAgent = opts.UserAgent
	if client.UserAgent == "" {
		client.UserAgent = DefaultUserAgent
	}

	download := &http.Client{}
	downloadBase := http.DefaultTransport
	if opts.DownloadClient != nil {
		copied := *opts.DownloadClient
		download = &copied
		if download.Transport != nil {
			downloadBase = download.Transport
		}
	}
	download.Transport = newRetryTransport(downloadBase, policy)
	return &Client{gh: client, download: download, retry: policy, login: opts.Login}, nil
}

// tokenTransport adds the token to each request.
type tokenTransport struct {
	token string
	next  http.RoundTripper
}

func (t *tokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return t.next.RoundTrip(r)
}

// Self returns the login the token acts as. It asks GET /user; when GitHub
// forbids that (workflow and installation tokens cannot read a user) it
// returns Options.Login, and fails when that is empty. A successful answer
// is cached for the Client's life.
func (c *Client) Self(ctx context.Context) (string, error) {
	c.selfMu.Lock()
	defer c.selfMu.Unlock()
	if c.self != "" {
		return c.self, nil
	}
	var u *gh.User
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		u, resp, err = c.gh.Users.Get(ctx, "")
		return resp, err
	})
	switch {
	case err == nil:
		c.self = u.GetLogin()
	case errors.Is(err, ghmodel.ErrForbidden) && c.login != "":
		c.self = c.login
	case errors.Is(err, ghmodel.ErrForbidden):
		return "", fmt.Errorf("who am I: %w (set Options.Login for workflow and installation tokens)", err)
	default:
		return "", fmt.Errorf("who am I: %w", err)
	}
	return c.self, nil
}

// maxPages bounds every paginated listing (100 pages of 100 items).
const maxPages = 100

// listAll fetches every page of a listing.
func listAll[T any](ctx context.Context, c *Client, fetch func(opts gh.ListOptions) ([]T, *gh.Response, error)) ([]T, error) {
	return listUpTo(ctx, c, 0, fetch)
}

// listUpTo fetches the pages of a listing until it has limit items (0: all)
// and returns at most limit.
func listUpTo[T any](ctx context.Context, c *Client, limit int, fetch func(opts gh.ListOptions) ([]T, *gh.Response, error)) ([]T, error) {
	var all []T
	opts := gh.ListOptions{PerPage: 100}
	if limit > 0 {
		opts.PerPage = min(limit, 100)
	}
	for page := 0; page < maxPages; page++ {
		var items []T
		var next int
		err := c.do(ctx, func() (*gh.Response, error) {
			var resp *gh.Response
			var err error
			items, resp, err = fetch(opts)
			if resp != nil {
				next = resp.NextPage
			}
			return resp, err
		})
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if limit > 0 && len(all) >= limit {
			return all[:limit], nil
		}
		if next == 0 {
			return all, nil
		}
		opts.Page = next
	}
	return nil, fmt.Errorf("listing exceeds %d pages", maxPages)
}
