package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/internal/github"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
)

// ghClient is what the Action uses of internal/github (*github.Client).
type ghClient interface {
	Self(ctx context.Context) (string, error)
	ListIssueComments(ctx context.Context, repo ident.Repo, number int) ([]github.Comment, error)
	CreateIssueComment(ctx context.Context, repo ident.Repo, number int, body string) (github.Comment, error)
	UpdateIssueComment(ctx context.Context, repo ident.Repo, id int64, body string) (github.Comment, error)
	DeleteIssueComment(ctx context.Context, repo ident.Repo, id int64) error
	GetPullRequest(ctx context.Context, repo ident.Repo, number int) (github.PullRequest, error)
}

// ghComments adapts a ghClient bound to one repository to
// prcheck.Commenter and prcheck.PullRequests.
type ghComments struct {
	c    ghClient
	repo ident.Repo
}

// newGitHub builds the API client of the Action: GITHUB_API_URL (GitHub
// Enterprise too), the input token, and github-actions[bot] as the identity of
// a workflow token that cannot read its own user.
func newGitHub(in actionInputs) (*ghComments, error) {
	repo, err := ident.ParseRepo(in.repository)
	if err != nil {
		return nil, fmt.Errorf("GITHUB_REPOSITORY: %w", err)
	}
	c, err := github.New(github.Options{Token: in.token, BaseURL: in.apiURL, Login: prcheck.DefaultBotLogin})
	if err != nil {
		return nil, err
	}
	return &ghComments{c: c, repo: repo}, nil
}

// readOnly marks 403 answers (a fork pull request's token: "Resource not
// accessible by integration") as prcheck.ErrReadOnly.
func readOnly(err error) error {
	if errors.Is(err, github.ErrForbidden) {
		return fmt.Errorf("%w: %w", prcheck.ErrReadOnly, err)
	}
	return err
}

func (g *ghComments) Self(ctx context.Context) (string, error) {
	s, err := g.c.Self(ctx)
	return s, readOnly(err)
}

func (g *ghComments) ListComments(ctx context.Context, number int) ([]prcheck.Comment, error) {
	list, err := g.c.ListIssueComments(ctx, g.repo, number)
	if err != nil {
		return nil, readOnly(err)
	}
	out := make([]prcheck.Comment, len(list))
	for i, c := range list {
		out[i] = comment(c)
	}
	return out, nil
}

func (g *ghComments) CreateComment(ctx context.Context, number int, body string) (prcheck.Comment, error) {
	c, err := g.c.CreateIssueComment(ctx, g.repo, number, body)
	return comment(c), readOnly(err)
}

func (g *ghComments) UpdateComment(ctx context.Context, id int64, body string) (prcheck.Comment, error) {
	c, err := g.c.UpdateIssueComment(ctx, g.repo, id, body)
	return comment(c), readOnly(err)
}

func (g *ghComments) DeleteComment(ctx context.Context, id int64) error {
	return readOnly(g.c.DeleteIssueComment(ctx, g.repo, id))
}

func (g *ghComments) PullRequestHead(ctx context.Context, number int) (string, error) {
	pr, err := g.c.GetPullRequest(ctx, g.repo, number)
	if err != nil {
		return "", err
	}
	return pr.HeadSHA, nil
}

func comment(c github.Comment) prcheck.Comment {
	return prcheck.Comment{ID: c.ID, Author: c.User, Body: c.Body, URL: c.HTMLURL}
}
