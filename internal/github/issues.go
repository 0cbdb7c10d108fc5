package github

import (
	"context"
	"fmt"
	"time"

	gh "github.com/google/go-github/v60/github"

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

// Comment is an issue, pull request or commit comment.
type Comment struct {
	ID        int64
	Body      string
	User      string // author login, e.g. "github-actions[bot]"
	HTMLURL   string
	CreatedAt time.Time
	UpdatedAt time.Time
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

func toComment(c ghComment) Comment {
	return Comment{
		ID: c.GetID(), Body: c.GetBody(), User: c.GetUser().GetLogin(), HTMLURL: c.GetHTMLURL(),
		CreatedAt: c.GetCreatedAt().Time, UpdatedAt: c.GetUpdatedAt().Time,
	}
}

// ListIssueComments lists every comment of issue or pull request number,
// oldest first, all pages.
func (c *Client) ListIssueComments(ctx context.Context, repo ident.Repo, number int) ([]Comment, error) {
	items, err := listAll(ctx, c, func(opts gh.ListOptions) ([]*gh.IssueComment, *gh.Response, error) {
		return c.gh.Issues.ListComments(ctx, repo.Owner, repo.Name, number, &gh.IssueListCommentsOptions{ListOptions: opts})
	})
	if err != nil {
		return nil, fmt.Errorf("list comments of %s#%d: %w", repo, number, err)
	}
	out := make([]Comment, 0, len(items))
	for _, it := range items {
		out = append(out, toComment(it))
	}
	return out, nil
}

// CreateIssueComment posts a comment on issue or pull request number. A
// fork pull request's read-only token gets ErrForbidden.
func (c *Client) CreateIssueComment(ctx context.Context, repo ident.Repo, number int, body string) (Comment, error) {
	var out *gh.IssueComment
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		out, resp, err = c.gh.Issues.CreateComment(ctx, repo.Owner, repo.Name, number, &gh.IssueComment{Body: &body})
		return resp, err
	})
	if err != nil {
		return Comment{}, fmt.Errorf("comment on %s#%d: %w", repo, number, err)
	}
	return toComment(out), nil
}

// UpdateIssueComment replaces the body of comment id.
func (c *Client) UpdateIssueComment(ctx context.Context, repo ident.Repo, id int64, body string) (Comment, error) {
	var out *gh.IssueComment
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		out, resp, err = c.gh.Issues.EditComment(ctx, repo.Owner, repo.Name, id, &gh.IssueComment{Body: &body})
		return resp, err
	})
	if err != nil {
		return Comment{}, fmt.Errorf("update comment %d in %s: %w", id, repo, err)
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
func (c *Client) CreateCommitComment(ctx context.Context, repo ident.Repo, sha, body string) (Comment, error) {
	var out *gh.RepositoryComment
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		out, resp, err = c.gh.Repositories.CreateComment(ctx, repo.Owner, repo.Name, sha, &gh.RepositoryComment{Body: &body})
		return resp, err
	})
	if err != nil {
		return Comment{}, fmt.Errorf("comment on %s@%s: %w", repo, sha, err)
	}
	return toComment(out), nil
}
