package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v60/github"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// Repository describes a repository.
type Repository struct {
	Repo          ident.Repo
	DefaultBranch string
	Private       bool
	Fork          bool
	Archived      bool
}

func toRepository(r *gh.Repository) Repository {
	return Repository{
		Repo:          ident.Repo{Owner: r.GetOwner().GetLogin(), Name: r.GetName()},
		DefaultBranch: r.GetDefaultBranch(),
		Private:       r.GetPrivate(),
		Fork:          r.GetFork(),
		Archived:      r.GetArchived(),
	}
}

// GetRepository returns repo's description (default branch, visibility).
func (c *Client) GetRepository(ctx context.Context, repo ident.Repo) (Repository, error) {
	var r *gh.Repository
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		r, resp, err = c.gh.Repositories.Get(ctx, repo.Owner, repo.Name)
		return resp, err
	})
	if err != nil {
		return Repository{}, fmt.Errorf("get repository %s: %w", repo, err)
	}
	return toRepository(r), nil
}

// ghComment is what issue and commit comments have in common.
type ghComment interface {
	GetID() int64
	GetBody() string
	GetUser() *gh.User
	GetHTMLURL() string
	GetCreatedAt() gh.Timestamp
	GetUpdatedAt() gh.Timestamp
}

func toComment(c ghComment) ghmodel.Comment {
	return ghmodel.Comment{
		ID: c.GetID(), Body: c.GetBody(), Author: c.GetUser().GetLogin(), URL: c.GetHTMLURL(),
		Created: c.GetCreatedAt().Time, Updated: c.GetUpdatedAt().Time,
	}
}

// ListIssueComments lists every comment of issue or pull request number,
// oldest first, all pages.
func (c *Client) ListIssueComments(ctx context.Context, repo ident.Repo, number int) ([]ghmodel.Comment, error) {
	items, err := listAll(ctx, c, func(opts gh.ListOptions) ([]*gh.IssueComment, *gh.Response, error) {
		return c.gh.Issues.ListComments(ctx, repo.Owner, repo.Name, number, &gh.IssueListCommentsOptions{ListOptions: opts})
	})
	if err != nil {
		return nil, fmt.Errorf("list comments of %s#%d: %w", repo, number, err)
	}
	out := make([]ghmodel.Comment, 0, len(items))
	for _, it := range items {
		out = append(out, toComment(it))
	}
	return out, nil
}

// CreateIssueComment posts a comment on issue or pull request number. A
// fork pull request's read-only token gets ErrForbidden.
func (c *Client) CreateIssueComment(ctx context.Context, repo ident.Repo, number int, body string) (ghmodel.Comment, error) {
	var out *gh.IssueComment
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		out, resp, err = c.gh.Issues.CreateComment(ctx, repo.Owner, repo.Name, number, &gh.IssueComment{Body: &body})
		return resp, err
	})
	if err != nil {
		return ghmodel.Comment{}, fmt.Errorf("comment on %s#%d: %w", repo, number, err)
	}
	return toComment(out), nil
}

// UpdateIssueComment replaces the body of comment id.
func (c *Client) UpdateIssueComment(ctx context.Context, repo ident.Repo, id int64, body string) (ghmodel.Comment, error) {
	var out *gh.IssueComment
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		out, resp, err = c.gh.Issues.EditComment(ctx, repo.Owner, repo.Name, id, &gh.IssueComment{Body: &body})
		return resp, err
	})
	if err != nil {
		return ghmodel.Comment{}, fmt.Errorf("update comment %d in %s: %w", id, repo, err)
	}
	return toComment(out), nil
}

// DeleteIssueComment deletes comment id.
func (c *Client) DeleteIssueComment(ctx context.Context, repo ident.Repo, id int64) error {
	err := c.do(ctx, func() (*gh.Response, error) {
		return c.gh.Issues.DeleteComment(ctx, repo.Owner, repo.Name, id)
	})
	if err != nil {
		return fmt.Errorf("delete comment %d in %s: %w", id, repo, err)
	}
	return nil
}

// CreateCommitComment posts a comment on commit sha (not on a file or line
// of it) and returns it. It needs only the "contents" permission, so an App
// with contents write can report on any commit it can read. A sha the
// repository does not hold gets ErrInvalid (GitHub answers 422); a fork pull
// request's read-only token gets ErrForbidden.
func (c *Client) CreateCommitComment(ctx context.Context, repo ident.Repo, sha, body string) (ghmodel.Comment, error) {
	var out *gh.RepositoryComment
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		out, resp, err = c.gh.Repositories.CreateComment(ctx, repo.Owner, repo.Name, sha, &gh.RepositoryComment{Body: &body})
		return resp, err
	})
	if err != nil {
		return ghmodel.Comment{}, fmt.Errorf("comment on %s@%s: %w", repo, sha, err)
	}
	return toComment(out), nil
}

// PullComments is a Client bound to one repository: the comments and head
// commits of its pull requests, as the pull-request flow reads and writes
// them (it implements sticky.Commenter and prcheck.PullRequests). A token
// that may not write (a fork pull request's) fails with
// ghmodel.ErrForbidden.
type PullComments struct {
	c    *Client
	repo ident.Repo
}

// PullComments binds c to repo.
func (c *Client) PullComments(repo ident.Repo) *PullComments {
	return &PullComments{c: c, repo: repo}
}

// Self is the login the token acts as (Client.Self).
func (p *PullComments) Self(ctx context.Context) (string, error) { return p.c.Self(ctx) }

// ListComments returns every comment of pull request number, oldest first.
func (p *PullComments) ListComments(ctx context.Context, number int) ([]ghmodel.Comment, error) {
	return p.c.ListIssueComments(ctx, p.repo, number)
}

// CreateComment comments body on pull request number.
func (p *PullComments) CreateComment(ctx context.Context, number int, body string) (ghmodel.Comment, error) {
	return p.c.CreateIssueComment(ctx, p.repo, number, body)
}

// UpdateComment replaces comment id's body.
func (p *PullComments) UpdateComment(ctx context.Context, id int64, body string) (ghmodel.Comment, error) {
	return p.c.UpdateIssueComment(ctx, p.repo, id, body)
}

// DeleteComment deletes comment id.
func (p *PullComments) DeleteComment(ctx context.Context, id int64) error {
	return p.c.DeleteIssueComment(ctx, p.repo, id)
}

// PullRequestHead returns the head commit of pull request number.
func (p *PullComments) PullRequestHead(ctx context.Context, number int) (string, error) {
	pr, err := p.c.GetPullRequest(ctx, p.repo, number)
	return pr.HeadSHA, err
}
