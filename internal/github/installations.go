package github

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

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// AppClient is a GitHub App acting on the repositories it is installed on;
// it implements the bot's GitHub interfaces (bump.BumpGitHub and
// publish.PublishGitHub) directly. Every repository call goes through an
// installation token scoped to that one repository, found through the repository's
// installation and cached (ghinstallation refreshes the token). A cached
// client whose installation is gone (its token refused, or answered 401)
// is dropped and the call made once more with a fresh one, so that an
// uninstall and reinstall (a new installation id) needs no restart.
type AppClient struct {
	app       *Client // authenticated with the App's JWT
	transport *AppTransport
	opts      Options // template for installation clients
	// maxArtifact caps an artifact download (RunArtifact).
	maxArtifact int64

	mu      sync.Mutex
	clients map[string]*Client // lower-case owner/name → client
	login   string
	// limitedUntil: after GitHub rate-limits a repository call, no
	// repository call is sent before then (the limits are per
	// installation; one gate for all is the cautious reading).
	limitedUntil time.Time
}

// rateLimitFloor is how long calls pause after a rate limit that names no
// reset time (GitHub asks for at least a minute on secondary limits).
const rateLimitFloor = time.Minute

// NewAppClient builds the App's client over transport (NewAppTransport):
// opts configure every client it makes (BaseURL, UserAgent, Retry,
// DownloadClient; HTTPClient and Token are its own), and maxArtifactBytes
// caps RunArtifact's downloads.
func NewAppClient(transport *AppTransport, opts Options, maxArtifactBytes int64) (*AppClient, error) {
	appOpts := opts
	appOpts.HTTPClient = &http.Client{Transport: transport}
	app, err := New(appOpts)
	if err != nil {
		return nil, err
	}
	return &AppClient{app: app, transport: transport, opts: opts, maxArtifact: maxArtifactBytes, clients: map[string]*Client{}}, nil
}

// appErr keeps a refused installation token apart from the resource's
// outcome: GitHub answers a token request for a gone installation with 404,
// yet the repository, file or ref the call was about may well exist, so
// such an error is ErrInstallationToken and no other sentinel.
func appErr(err error) error {
	if errors.Is(err, ghmodel.ErrInstallationToken) {
		return tokenRefused{err}
	}
	return err
}

// tokenRefused is an installation-token error that unwraps to
// ErrInstallationToken alone (its message keeps GitHub's answer).
type tokenRefused struct{ err error }

func (e tokenRefused) Error() string { return e.err.Error() }
func (e tokenRefused) Unwrap() error { return ghmodel.ErrInstallationToken }

func (a *AppClient) installationClient(id int64, repos ...string) (*Client, error) {
	opts := a.opts
	opts.HTTPClient = &http.Client{Transport: a.transport.Installation(id, repos...)}
	return New(opts)
}

// client returns the client for repo, with a token scoped to it, and
// whether it came from the cache.
func (a *AppClient) client(ctx context.Context, repo ident.Repo) (*Client, bool, error) {
	key := strings.ToLower(repo.String())
	a.mu.Lock()
	c, ok := a.clients[key]
	a.mu.Unlock()
	if ok {
		return c, true, nil
	}
	inst, err := a.app.RepositoryInstallation(ctx, repo)
	if err != nil {
		return nil, false, fmt.Errorf("app installation on %s: %w", repo, appErr(err))
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
func (a *AppClient) forget(repo ident.Repo, c *Client) {
	key := strings.ToLower(repo.String())
	a.mu.Lock()
	if a.clients[key] == c {
		delete(a.clients, key)
	}
	a.mu.Unlock()
}

// do runs call with repo's client (appErr on its error). When a cached
// client's installation is gone (GitHub refuses its token or answers 401,
// e.g. after an uninstall, or a reinstall under a new installation id), the
// client is dropped and call runs once more with a fresh one; such a
// refusal comes before GitHub acts, so the repeat does nothing twice.
//
// While GitHub's rate limit holds (limitedUntil), no call is sent: each
// fails at once with ErrRateLimited.
func (a *AppClient) do(ctx context.Context, repo ident.Repo, call func(c *Client) error) error {
	a.mu.Lock()
	until := a.limitedUntil
	a.mu.Unlock()
	if time.Now().Before(until) {
		return appErr(fmt.Errorf("not calling GitHub until the rate limit resets at %s: %w",
			until.UTC().Format(time.RFC3339), ghmodel.ErrRateLimited))
	}
	c, cached, err := a.client(ctx, repo)
	if err == nil {
		err = call(c)
		if cached && (errors.Is(err, ghmodel.ErrInstallationToken) || errors.Is(err, ghmodel.ErrUnauthorized)) {
			a.forget(repo, c)
			if c, _, err = a.client(ctx, repo); err == nil {
				err = call(c)
			}
		}
	}
	a.noteRateLimit(err)
	return appErr(err)
}

// noteRateLimit closes the gate until a rate limit's reset.
func (a *AppClient) noteRateLimit(err error) {
	var ae *APIError
	if !errors.Is(err, ghmodel.ErrRateLimited) || !errors.As(err, &ae) {
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

func (a *AppClient) Identity(ctx context.Context) (ghmodel.Identity, error) {
	a.mu.Lock()
	login := a.login
	a.mu.Unlock()
	if login != "" {
		return ghmodel.Identity{Login: login}, nil
	}
	app, err := a.app.App(ctx)
	if err != nil {
		return ghmodel.Identity{}, appErr(err)
	}
	a.mu.Lock()
	a.login = app.BotLogin()
	a.mu.Unlock()
	return ghmodel.Identity{Login: app.BotLogin()}, nil
}

func (a *AppClient) InstalledRepos(ctx context.Context) ([]ident.Repo, error) {
	insts, err := a.app.ListInstallations(ctx)
	if err != nil {
		return nil, appErr(err)
	}
	var out []ident.Repo
	for _, inst := range insts {
		c, err := a.installationClient(inst.ID)
		if err != nil {
			return nil, err
		}
		repos, err := c.ListInstallationRepositories(ctx)
		if err != nil {
			return nil, fmt.Errorf("installation %d: %w", inst.ID, appErr(err))
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

func (a *AppClient) DefaultBranch(ctx context.Context, repo ident.Repo) (string, error) {
	var r Repository
	err := a.do(ctx, repo, func(c *Client) (err error) {
		r, err = c.GetRepository(ctx, repo)
		return err
	})
	return r.DefaultBranch, err
}

func (a *AppClient) BranchHead(ctx context.Context, repo ident.Repo, branch string) (string, error) {
	var ref Ref
	err := a.do(ctx, repo, func(c *Client) (err error) {
		ref, err = c.GetRef(ctx, repo, "refs/heads/"+branch)
		return err
	})
	return ref.SHA, err
}

func (a *AppClient) GetCommit(ctx context.Context, repo ident.Repo, sha string) (ghmodel.Commit, error) {
	var list []ghmodel.Commit
	err := a.do(ctx, repo, func(c *Client) (err error) {
		list, err = c.ListCommits(ctx, repo, sha, 1)
		return err
	})
	if err != nil {
		return ghmodel.Commit{}, err
	}
	if len(list) == 0 || list[0].SHA != sha {
		return ghmodel.Commit{}, fmt.Errorf("commit %s: %w", sha, ghmodel.ErrNotFound)
	}
	return list[0], nil
}

func (a *AppClient) ReadFile(ctx context.Context, repo ident.Repo, ref, path string) ([]byte, error) {
	var f FileContent
	err := a.do(ctx, repo, func(c *Client) (err error) {
		f, err = c.GetFile(ctx, repo, path, ref)
		return err
	})
	return f.Content, err
}

func (a *AppClient) ListDir(ctx context.Context, repo ident.Repo, ref, dir string) ([]string, error) {
	var entries []DirEntry
	err := a.do(ctx, repo, func(c *Client) (err error) {
		entries, err = c.ListDir(ctx, repo, dir, ref)
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

// ListFiles lists every file under dir at ref, at any depth, as paths
// from the repository's root, sorted: one contents call per directory. A
// missing dir → ErrNotFound.
func (a *AppClient) ListFiles(ctx context.Context, repo ident.Repo, ref, dir string) ([]string, error) {
	var files []string
	err := a.do(ctx, repo, func(c *Client) error {
		files = nil
		todo := []string{dir}
		for len(todo) > 0 {
			d := todo[len(todo)-1]
			todo = todo[:len(todo)-1]
			entries, err := c.ListDir(ctx, repo, d, ref)
			if err != nil {
				return err
			}
			for _, e := range entries {
				switch e.Type {
				case "file":
					files = append(files, e.Path)
				case "dir":
					todo = append(todo, e.Path)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return files, nil
}

func (a *AppClient) CreateCommit(ctx context.Context, repo ident.Repo, base string, parents []string, files map[string][]byte, message string) (string, error) {
	paths := slices.Sorted(maps.Keys(files))
	entries := make([]TreeEntry, 0, len(paths))
	for _, p := range paths {
		entries = append(entries, TreeEntry{Path: p, Content: string(files[p]), Delete: files[p] == nil})
	}
	r := repo
	var commit ghmodel.Commit
	err := a.do(ctx, repo, func(c *Client) error {
		bc, err := c.GetCommit(ctx, r, base)
		if err != nil {
			return err
		}
		tree, err := c.CreateTree(ctx, r, bc.TreeSHA, entries)
		if err != nil {
			return err
		}
		commit, err = c.CreateCommit(ctx, r, NewCommit{Message: message, TreeSHA: tree, Parents: parents})
		return err
	})
	return commit.SHA, err
}

func (a *AppClient) CreateBranch(ctx context.Context, repo ident.Repo, branch, sha string) error {
	return a.do(ctx, repo, func(c *Client) error {
		_, err := c.CreateRef(ctx, repo, "refs/heads/"+branch, sha)
		return err
	})
}

func (a *AppClient) UpdateBranch(ctx context.Context, repo ident.Repo, branch, sha string) error {
	return a.do(ctx, repo, func(c *Client) error {
		_, err := c.UpdateRef(ctx, repo, "refs/heads/"+branch, sha)
		return err
	})
}

// OpenPulls lists every open pull request of repo (branch is covered too).
func (a *AppClient) OpenPulls(ctx context.Context, repo ident.Repo, _ string) ([]ghmodel.Pull, error) {
	var prs []ghmodel.Pull
	err := a.do(ctx, repo, func(c *Client) (err error) {
		prs, err = c.ListOpenPullRequests(ctx, repo)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]ghmodel.Pull, 0, len(prs))
	for _, p := range prs {
		if p.HeadRepo != "" && !strings.EqualFold(p.HeadRepo, repo.String()) {
			continue // from a fork: never the bot's
		}
		out = append(out, p)
	}
	return out, nil
}

// closedPullsListed is how many closed pull requests of the bump branch
// are listed: the newest decides.
const closedPullsListed = 5

// ClosedPulls lists the newest closed pull requests from branch.
func (a *AppClient) ClosedPulls(ctx context.Context, repo ident.Repo, branch string) ([]ghmodel.Pull, error) {
	var prs []ghmodel.Pull
	err := a.do(ctx, repo, func(c *Client) (err error) {
		prs, err = c.ListClosedPullRequests(ctx, repo, branch, closedPullsListed)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]ghmodel.Pull, 0, len(prs))
	for _, p := range prs {
		if p.Head == branch && strings.EqualFold(p.HeadRepo, repo.String()) {
			out = append(out, p)
		}
	}
	return out, nil
}

func (a *AppClient) CreatePull(ctx context.Context, repo ident.Repo, head, base, title, body string) (ghmodel.Pull, error) {
	var p ghmodel.Pull
	err := a.do(ctx, repo, func(c *Client) (err error) {
		p, err = c.CreatePullRequest(ctx, repo, NewPullRequest{Title: title, Body: body, Head: head, Base: base})
		return err
	})
	return p, err
}

func (a *AppClient) EditPull(ctx context.Context, repo ident.Repo, number int, title, body string) error {
	return a.do(ctx, repo, func(c *Client) error {
		_, err := c.UpdatePullRequest(ctx, repo, number, PullRequestUpdate{Title: &title, Body: &body})
		return err
	})
}

func (a *AppClient) ClosePull(ctx context.Context, repo ident.Repo, number int, comment string) error {
	return a.do(ctx, repo, func(c *Client) error {
		if _, err := c.CreateIssueComment(ctx, repo, number, comment); err != nil {
			return err
		}
		return c.ClosePullRequest(ctx, repo, number)
	})
}

// ReportRefusal comments body on commit sha. A commit comment needs only
// the contents permission, which the App has anyway (a commit status would
// need the statuses permission, beyond the App's minimum set).
func (a *AppClient) ReportRefusal(ctx context.Context, repo ident.Repo, sha, body string) error {
	return a.do(ctx, repo, func(c *Client) error {
		_, err := c.CreateCommitComment(ctx, repo, sha, body)
		return err
	})
}

func (a *AppClient) ResolveTag(ctx context.Context, repo ident.Repo, tag string) (string, error) {
	var sha string
	err := a.do(ctx, repo, func(c *Client) (err error) {
		sha, err = c.ResolveTag(ctx, repo, tag)
		return err
	})
	return sha, err
}

func (a *AppClient) GetRelease(ctx context.Context, repo ident.Repo, tag string) (ghmodel.Release, error) {
	var r ghmodel.Release
	err := a.do(ctx, repo, func(c *Client) (err error) {
		r, err = c.GetReleaseByTag(ctx, repo, tag)
		return err
	})
	return r, err
}

func (a *AppClient) IsAncestor(ctx context.Context, repo ident.Repo, commit, branch string) (bool, error) {
	var ok bool
	err := a.do(ctx, repo, func(c *Client) (err error) {
		ok, err = c.IsAncestor(ctx, repo, commit, branch)
		return err
	})
	return ok, err
}

func (a *AppClient) RunArtifact(ctx context.Context, repo ident.Repo, runID int64, name string) ([]byte, error) {
	var data []byte
	err := a.do(ctx, repo, func(c *Client) error {
		arts, err := c.ListArtifacts(ctx, repo, runID)
		if err != nil {
			return err
		}
		for _, art := range arts {
			if art.Name != name || art.Expired {
				continue
			}
			if art.SizeInBytes > a.maxArtifact {
				return fmt.Errorf("artifact %s is %d bytes: %w", name, art.SizeInBytes, ghmodel.ErrTooLarge)
			}
			data, err = c.DownloadArtifact(ctx, repo, art.ID, a.maxArtifact)
			return err
		}
		return fmt.Errorf("run %d artifact %s: %w", runID, name, ghmodel.ErrNotFound)
	})
	return data, err
}
