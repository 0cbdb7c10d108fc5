package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/bot"
	"github.com/inference-sim/accuracy-dashboard/internal/github"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// appGitHub implements the bot's GitHub interfaces over internal/github as
// a GitHub App: every repository call goes through an installation token
// scoped to that one repository, found through the repository's
// installation and cached (ghinstallation refreshes the token). A cached
// client whose installation is gone (its token refused, or answered 401)
// is dropped and the call made once more with a fresh one, so that an
// uninstall and reinstall (a new installation id) needs no restart.
type appGitHub struct {
	app       *github.Client // authenticated with the App's JWT
	transport *github.AppTransport
	opts      github.Options // template for installation clients

	mu      sync.Mutex
	clients map[string]*github.Client // lower-case owner/name → client
	login   string
	// limitedUntil: after GitHub rate-limits a repository call, no
	// repository call is sent before then (the limits are per
	// installation; one gate for all is the cautious reading).
	limitedUntil time.Time
}

// rateLimitFloor is how long calls pause after a rate limit that names no
// reset time (GitHub asks for at least a minute on secondary limits).
const rateLimitFloor = time.Minute

func newAppGitHub(transport *github.AppTransport, opts github.Options) (*appGitHub, error) {
	appOpts := opts
	appOpts.HTTPClient = &http.Client{Transport: transport}
	app, err := github.New(appOpts)
	if err != nil {
		return nil, err
	}
	return &appGitHub{app: app, transport: transport, opts: opts, clients: map[string]*github.Client{}}, nil
}

// mapErr adds the bot's sentinels to the adapter's. A refused installation
// token is never the bot's ErrNotFound: the resource may well exist.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, github.ErrInstallationToken):
		return err
	case errors.Is(err, github.ErrNotFound):
		return fmt.Errorf("%w: %w", bot.ErrNotFound, err)
	case errors.Is(err, github.ErrConflict):
		return fmt.Errorf("%w: %w", bot.ErrConflict, err)
	case errors.Is(err, github.ErrTooLarge):
		return fmt.Errorf("%w: %w", bot.ErrTooLarge, err)
	case errors.Is(err, github.ErrRateLimited):
		return fmt.Errorf("%w: %w", bot.ErrRateLimited, err)
	}
	return err
}

func ghRepo(r ident.Repo) ident.Repo { return ident.Repo{Owner: r.Owner, Name: r.Name} }

func (a *appGitHub) installationClient(id int64, repos ...string) (*github.Client, error) {
	opts := a.opts
	opts.HTTPClient = &http.Client{Transport: a.transport.Installation(id, repos...)}
	return github.New(opts)
}

// client returns the client for repo, with a token scoped to it, and
// whether it came from the cache.
func (a *appGitHub) client(ctx context.Context, repo ident.Repo) (*github.Client, bool, error) {
	key := strings.ToLower(repo.String())
	a.mu.Lock()
	c, ok := a.clients[key]
	a.mu.Unlock()
	if ok {
		return c, true, nil
	}
	inst, err := a.app.RepositoryInstallation(ctx, ghRepo(repo))
	if err != nil {
		return nil, false, fmt.Errorf("app installation on %s: %w", repo, mapErr(err))
	}
	c, err = a.installationClient(inst.ID, repo.Name)
	if err != nil {
		return nil, false, err
	}
	a.mu.Lock()
	a.clients[key] = c
	a.mu.Unlock()
	return c, false, nil
}

// forget drops c from the cache, unless another call replaced it already.
func (a *appGitHub) forget(repo ident.Repo, c *github.Client) {
	key := strings.ToLower(repo.String())
	a.mu.Lock()
	if a.clients[key] == c {
		delete(a.clients, key)
	}
	a.mu.Unlock()
}

// do runs call with repo's client and maps its error. When a cached
// client's installation is gone (GitHub refuses its token or answers 401,
// e.g. after an uninstall, or a reinstall under a new installation id), the
// client is dropped and call runs once more with a fresh one; such a
// refusal comes before GitHub acts, so the repeat does nothing twice.
//
// While GitHub's rate limit holds (limitedUntil), no call is sent: each
// fails at once with ErrRateLimited.
func (a *appGitHub) do(ctx context.Context, repo ident.Repo, call func(c *github.Client) error) error {
	a.mu.Lock()
	until := a.limitedUntil
	a.mu.Unlock()
	if time.Now().Before(until) {
		return mapErr(fmt.Errorf("not calling GitHub until the rate limit resets at %s: %w",
			until.UTC().Format(time.RFC3339), github.ErrRateLimited))
	}
	c, cached, err := a.client(ctx, repo)
	if err == nil {
		err = call(c)
		if cached && (errors.Is(err, github.ErrInstallationToken) || errors.Is(err, github.ErrUnauthorized)) {
			a.forget(repo, c)
			if c, _, err = a.client(ctx, repo); err == nil {
				err = call(c)
			}
		}
	}
	a.noteRateLimit(err)
	return mapErr(err)
}

// noteRateLimit closes the gate until a rate limit's reset.
func (a *appGitHub) noteRateLimit(err error) {
	var ae *github.APIError
	if !errors.Is(err, github.ErrRateLimited) || !errors.As(err, &ae) {
		return
	}
	until := ae.RetryAt
	if floor := time.Now().Add(rateLimitFloor); until.Before(floor) {
		until = floor
	}
	a.mu.Lock()
	if until.After(a.limitedUntil) {
		a.limitedUntil = until
	}
	a.mu.Unlock()
}

func (a *appGitHub) Identity(ctx context.Context) (bot.Identity, error) {
	a.mu.Lock()
	login := a.login
	a.mu.Unlock()
	if login != "" {
		return bot.Identity{Login: login}, nil
	}
	app, err := a.app.App(ctx)
	if err != nil {
		return bot.Identity{}, mapErr(err)
	}
	a.mu.Lock()
	a.login = app.BotLogin()
	a.mu.Unlock()
	return bot.Identity{Login: app.BotLogin()}, nil
}

func (a *appGitHub) InstalledRepos(ctx context.Context) ([]ident.Repo, error) {
	insts, err := a.app.ListInstallations(ctx)
	if err != nil {
		return nil, mapErr(err)
	}
	var out []ident.Repo
	for _, inst := range insts {
		c, err := a.installationClient(inst.ID)
		if err != nil {
			return nil, err
		}
		repos, err := c.ListInstallationRepositories(ctx)
		if err != nil {
			return nil, fmt.Errorf("installation %d: %w", inst.ID, mapErr(err))
		}
		for _, r := range repos {
			if !r.Archived {
				out = append(out, ident.Repo{Owner: r.Repo.Owner, Name: r.Repo.Name})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}

func (a *appGitHub) DefaultBranch(ctx context.Context, repo ident.Repo) (string, error) {
	var r github.Repository
	err := a.do(ctx, repo, func(c *github.Client) (err error) {
		r, err = c.GetRepository(ctx, ghRepo(repo))
		return err
	})
	return r.DefaultBranch, err
}

func (a *appGitHub) BranchHead(ctx context.Context, repo ident.Repo, branch string) (string, error) {
	var ref github.Ref
	err := a.do(ctx, repo, func(c *github.Client) (err error) {
		ref, err = c.GetRef(ctx, ghRepo(repo), "refs/heads/"+branch)
		return err
	})
	return ref.SHA, err
}

func (a *appGitHub) GetCommit(ctx context.Context, repo ident.Repo, sha string) (bot.Commit, error) {
	var list []github.CommitInfo
	err := a.do(ctx, repo, func(c *github.Client) (err error) {
		list, err = c.ListCommits(ctx, ghRepo(repo), sha, 1)
		return err
	})
	if err != nil {
		return bot.Commit{}, err
	}
	if len(list) == 0 || list[0].SHA != sha {
		return bot.Commit{}, fmt.Errorf("commit %s: %w", sha, bot.ErrNotFound)
	}
	ci := list[0]
	return bot.Commit{SHA: ci.SHA, Message: ci.Message, AuthorLogin: ci.AuthorLogin, Parents: ci.Parents}, nil
}

func (a *appGitHub) ReadFile(ctx context.Context, repo ident.Repo, ref, path string) ([]byte, error) {
	var f github.FileContent
	err := a.do(ctx, repo, func(c *github.Client) (err error) {
		f, err = c.GetFile(ctx, ghRepo(repo), path, ref)
		return err
	})
	return f.Content, err
}

func (a *appGitHub) ListDir(ctx context.Context, repo ident.Repo, ref, dir string) ([]string, error) {
	var entries []github.DirEntry
	err := a.do(ctx, repo, func(c *github.Client) (err error) {
		entries, err = c.ListDir(ctx, ghRepo(repo), dir, ref)
		return err
	})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type == "file" {
			names = append(names, e.Name)
		}
	}
	sort.Strings(names)
	return names, nil
}

func (a *appGitHub) CreateCommit(ctx context.Context, repo ident.Repo, base string, parents []string, files map[string][]byte, message string) (string, error) {
	paths := slices.Sorted(maps.Keys(files))
	entries := make([]github.TreeEntry, 0, len(paths))
	for _, p := range paths {
		entries = append(entries, github.TreeEntry{Path: p, Content: string(files[p]), Delete: files[p] == nil})
	}
	r := ghRepo(repo)
	var commit github.Commit
	err := a.do(ctx, repo, func(c *github.Client) error {
		bc, err := c.GetCommit(ctx, r, base)
		if err != nil {
			return err
		}
		tree, err := c.CreateTree(ctx, r, bc.TreeSHA, entries)
		if err != nil {
			return err
		}
		commit, err = c.CreateCommit(ctx, r, github.NewCommit{Message: message, TreeSHA: tree, Parents: parents})
		return err
	})
	return commit.SHA, err
}

func (a *appGitHub) CreateBranch(ctx context.Context, repo ident.Repo, branch, sha string) error {
	return a.do(ctx, repo, func(c *github.Client) error {
		_, err := c.CreateRef(ctx, ghRepo(repo), "refs/heads/"+branch, sha)
		return err
	})
}

func (a *appGitHub) UpdateBranch(ctx context.Context, repo ident.Repo, branch, sha string) error {
	return a.do(ctx, repo, func(c *github.Client) error {
		_, err := c.UpdateRef(ctx, ghRepo(repo), "refs/heads/"+branch, sha)
		return err
	})
}

func toPull(p github.PullRequest) bot.Pull {
	return bot.Pull{Number: p.Number, Title: p.Title, Body: p.Body, Head: p.HeadRef, HeadSHA: p.HeadSHA,
		Merged: p.Merged, Author: p.User}
}

// OpenPulls lists every open pull request of repo (branch is covered too).
func (a *appGitHub) OpenPulls(ctx context.Context, repo ident.Repo, _ string) ([]bot.Pull, error) {
	var prs []github.PullRequest
	err := a.do(ctx, repo, func(c *github.Client) (err error) {
		prs, err = c.ListOpenPullRequests(ctx, ghRepo(repo))
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]bot.Pull, 0, len(prs))
	for _, p := range prs {
		if p.HeadRepo != "" && !strings.EqualFold(p.HeadRepo, repo.String()) {
			continue // from a fork: never the bot's
		}
		out = append(out, toPull(p))
	}
	return out, nil
}

// closedPullsListed is how many closed pull requests of the bump branch
// are listed: the newest decides.
const closedPullsListed = 5

// ClosedPulls lists the newest closed pull requests from branch.
func (a *appGitHub) ClosedPulls(ctx context.Context, repo ident.Repo, branch string) ([]bot.Pull, error) {
	var prs []github.PullRequest
	err := a.do(ctx, repo, func(c *github.Client) (err error) {
		prs, err = c.ListClosedPullRequests(ctx, ghRepo(repo), branch, closedPullsListed)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]bot.Pull, 0, len(prs))
	for _, p := range prs {
		if p.HeadRef == branch && strings.EqualFold(p.HeadRepo, repo.String()) {
			out = append(out, toPull(p))
		}
	}
	return out, nil
}

func (a *appGitHub) CreatePull(ctx context.Context, repo ident.Repo, head, base, title, body string) (bot.Pull, error) {
	var p github.PullRequest
	err := a.do(ctx, repo, func(c *github.Client) (err error) {
		p, err = c.CreatePullRequest(ctx, ghRepo(repo), github.NewPullRequest{Title: title, Body: body, Head: head, Base: base})
		return err
	})
	return toPull(p), err
}

func (a *appGitHub) EditPull(ctx context.Context, repo ident.Repo, number int, title, body string) error {
	return a.do(ctx, repo, func(c *github.Client) error {
		_, err := c.UpdatePullRequest(ctx, ghRepo(repo), number, github.PullRequestUpdate{Title: &title, Body: &body})
		return err
	})
}

func (a *appGitHub) ClosePull(ctx context.Context, repo ident.Repo, number int, comment string) error {
	return a.do(ctx, repo, func(c *github.Client) error {
		if _, err := c.CreateIssueComment(ctx, ghRepo(repo), number, comment); err != nil {
			return err
		}
		return c.ClosePullRequest(ctx, ghRepo(repo), number)
	})
}

// ReportRefusal comments body on commit sha. A commit comment needs only
// the contents permission, which the App has anyway (a commit status would
// need the statuses permission, beyond the App's minimum set).
func (a *appGitHub) ReportRefusal(ctx context.Context, repo ident.Repo, sha, body string) error {
	return a.do(ctx, repo, func(c *github.Client) error {
		_, err := c.CreateCommitComment(ctx, ghRepo(repo), sha, body)
		return err
	})
}

func (a *appGitHub) ResolveTag(ctx context.Context, repo ident.Repo, tag string) (string, error) {
	var sha string
	err := a.do(ctx, repo, func(c *github.Client) (err error) {
		sha, err = c.ResolveTag(ctx, ghRepo(repo), tag)
		return err
	})
	return sha, err
}

func (a *appGitHub) GetRelease(ctx context.Context, repo ident.Repo, tag string) (bot.Release, error) {
	var r github.Release
	err := a.do(ctx, repo, func(c *github.Client) (err error) {
		r, err = c.GetReleaseByTag(ctx, ghRepo(repo), tag)
		return err
	})
	if err != nil {
		return bot.Release{}, err
	}
	return bot.Release{Repo: repo, Tag: r.TagName, Notes: r.Body, Draft: r.Draft, Prerelease: r.Prerelease}, nil
}

func (a *appGitHub) IsAncestor(ctx context.Context, repo ident.Repo, commit, branch string) (bool, error) {
	var ok bool
	err := a.do(ctx, repo, func(c *github.Client) (err error) {
		ok, err = c.IsAncestor(ctx, ghRepo(repo), commit, branch)
		return err
	})
	return ok, err
}

func (a *appGitHub) RunArtifact(ctx context.Context, repo ident.Repo, runID int64, name string) ([]byte, error) {
	var data []byte
	err := a.do(ctx, repo, func(c *github.Client) error {
		arts, err := c.ListArtifacts(ctx, ghRepo(repo), runID)
		if err != nil {
			return err
		}
		for _, art := range arts {
			if art.Name != name || art.Expired {
				continue
			}
			if art.SizeInBytes > bot.MaxArtifactBytes {
				return fmt.Errorf("artifact %s is %d bytes: %w", name, art.SizeInBytes, bot.ErrTooLarge)
			}
			data, err = c.DownloadArtifact(ctx, ghRepo(repo), art.ID, bot.MaxArtifactBytes)
			return err
		}
		return fmt.Errorf("run %d artifact %s: %w", runID, name, bot.ErrNotFound)
	})
	return data, err
}

var (
	_ bot.BumpGitHub    = (*appGitHub)(nil)
	_ bot.PublishGitHub = (*appGitHub)(nil)
)
