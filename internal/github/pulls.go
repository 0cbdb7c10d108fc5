package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v60/github"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

func toPullRequest(p *gh.PullRequest) ghmodel.Pull {
	return ghmodel.Pull{
		Number: p.GetNumber(), State: p.GetState(), Title: p.GetTitle(), Body: p.GetBody(),
		Author: p.GetUser().GetLogin(), Draft: p.GetDraft(), Merged: p.GetMerged(),
		Head: p.GetHead().GetRef(), HeadSHA: p.GetHead().GetSHA(), HeadRepo: p.GetHead().GetRepo().GetFullName(),
		Base: p.GetBase().GetRef(), BaseSHA: p.GetBase().GetSHA(), URL: p.GetHTMLURL(),
	}
}

func toPullRequests(items []*gh.PullRequest) []ghmodel.Pull {
	out := make([]ghmodel.Pull, 0, len(items))
	for _, p := range items {
		out = append(out, toPullRequest(p))
	}
	return out
}

// GetPullRequest returns pull request number.
func (c *Client) GetPullRequest(ctx context.Context, repo ident.Repo, number int) (ghmodel.Pull, error) {
	var p *gh.PullRequest
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		p, resp, err = c.gh.PullRequests.Get(ctx, repo.Owner, repo.Name, number)
		return resp, err
	})
	if err != nil {
		return ghmodel.Pull{}, fmt.Errorf("get pull request %s#%d: %w", repo, number, err)
	}
	return toPullRequest(p), nil
}

// ListOpenPullRequests lists every open pull request of repo, newest
// first, all pages (the bot scans them for superseded bump pull requests).
func (c *Client) ListOpenPullRequests(ctx context.Context, repo ident.Repo) ([]ghmodel.Pull, error) {
	items, err := listAll(ctx, c, func(opts gh.ListOptions) ([]*gh.PullRequest, *gh.Response, error) {
		return c.gh.PullRequests.List(ctx, repo.Owner, repo.Name, &gh.PullRequestListOptions{State: "open", ListOptions: opts})
	})
	if err != nil {
		return nil, fmt.Errorf("list open pull requests of %s: %w", repo, err)
	}
	return toPullRequests(items), nil
}

// ListClosedPullRequests lists up to limit closed pull requests of repo
// whose head is branch in repo itself, newest first.
func (c *Client) ListClosedPullRequests(ctx context.Context, repo ident.Repo, branch string, limit int) ([]ghmodel.Pull, error) {
	items, err := listUpTo(ctx, c, limit, func(opts gh.ListOptions) ([]*gh.PullRequest, *gh.Response, error) {
		return c.gh.PullRequests.List(ctx, repo.Owner, repo.Name, &gh.PullRequestListOptions{
			State: "closed", Head: repo.Owner + ":" + branch, ListOptions: opts})
	})
	if err != nil {
		return nil, fmt.Errorf("list closed pull requests of %s from %s: %w", repo, branch, err)
	}
	return toPullRequests(items), nil
}

// NewPullRequest is a pull request to open.
type NewPullRequest struct {
	Title string
	Body  string
	Head  string // branch in the same repository
	Base  string // branch to merge into
	Draft bool
}

// CreatePullRequest opens a pull request. An open one for the same head and
// base exists → ErrInvalid ("A pull request already exists").
func (c *Client) CreatePullRequest(ctx context.Context, repo ident.Repo, in NewPullRequest) (ghmodel.Pull, error) {
	var p *gh.PullRequest
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		p, resp, err = c.gh.PullRequests.Create(ctx, repo.Owner, repo.Name, &gh.NewPullRequest{
			Title: &in.Title, Body: &in.Body, Head: &in.Head, Base: &in.Base, Draft: &in.Draft,
		})
		return resp, err
	})
	if err != nil {
		return ghmodel.Pull{}, fmt.Errorf("open pull request %s from %s: %w", repo, in.Head, err)
	}
	return toPullRequest(p), nil
}

// PullRequestUpdate changes a pull request; nil fields are left alone.
type PullRequestUpdate struct {
	Title *string
	Body  *string
	State *string // "open" or "closed"
}

// UpdatePullRequest applies upd to pull request number.
func (c *Client) UpdatePullRequest(ctx context.Context, repo ident.Repo, number int, upd PullRequestUpdate) (ghmodel.Pull, error) {
	p, err := c.editPull(ctx, repo, number, upd)
	if err != nil {
		return ghmodel.Pull{}, fmt.Errorf("update pull request %s#%d: %w", repo, number, err)
	}
	return p, nil
}

// ClosePullRequest closes pull request number without merging it.
func (c *Client) ClosePullRequest(ctx context.Context, repo ident.Repo, number int) error {
	closed := "closed"
	if _, err := c.editPull(ctx, repo, number, PullRequestUpdate{State: &closed}); err != nil {
		return fmt.Errorf("close pull request %s#%d: %w", repo, number, err)
	}
	return nil
}

// editPull is UpdatePullRequest without the error's context.
func (c *Client) editPull(ctx context.Context, repo ident.Repo, number int, upd PullRequestUpdate) (ghmodel.Pull, error) {
	var p *gh.PullRequest
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		p, resp, err = c.gh.PullRequests.Edit(ctx, repo.Owner, repo.Name, number, &gh.PullRequest{
			Title: upd.Title, Body: upd.Body, State: upd.State,
		})
		return resp, err
	})
	return toPullRequest(p), err
}

// shortSHA shortens a full commit id (ident.IsCommit) to ident.Short for
// messages; anything else (a branch, a tag, a short sha) is returned whole.
func shortSHA(ref string) string {
	if ident.IsCommit(ref) {
		return ident.Short(ref)
	}
	return ref
}
