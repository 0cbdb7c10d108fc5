// Package ghmodel is the project's model of what GitHub holds, as plain
// data: the commits, pull requests, releases and comments the GitHub
// adapter (internal/github) returns, and the sentinel outcomes its errors
// carry. The adapter's consumers (the bot's core, the pull-request flow)
// declare their interfaces over these types, so internal/github implements
// them directly and tests fake them with plain structs; nothing here knows
// about HTTP or go-github. A repository is an ident.Repo.
package ghmodel

import (
	"errors"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// Sentinel outcomes. Every error internal/github returns for a GitHub
// answer wraps one of these when one applies, and fakes return them too;
// callers branch with errors.Is.
var (
	// ErrNotFound: 404 or 410; also a repository the token cannot see, a
	// missing ref, file, release or artifact.
	ErrNotFound = errors.New("not found")
	// ErrForbidden: 403 other than a rate limit, e.g. "Resource not
	// accessible by integration" for a fork pull request's read-only
	// token: the token may not write here.
	ErrForbidden = errors.New("forbidden")
	// ErrUnauthorized: 401, a bad or expired credential.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrConflict: 409, and 422 from ref creation and update (the ref
	// exists, or the update is not a fast forward): another writer won a
	// race; re-read and retry.
	ErrConflict = errors.New("conflict")
	// ErrInvalid: 422 other than a ref race (GitHub's "Validation Failed").
	ErrInvalid = errors.New("validation failed")
	// ErrRateLimited: GitHub rate-limited the call for longer than the
	// client would wait; no further call should be made for a while.
	ErrRateLimited = errors.New("rate limited")
	// ErrTooLarge: a download exceeds its size cap.
	ErrTooLarge = errors.New("too large")
	// ErrInstallationToken: GitHub refused an App installation token (the
	// installation is gone, or the repositories asked for are not in it).
	// It comes with the status's sentinel (e.g. ErrNotFound), which then
	// names the installation, not the resource the call was about.
	ErrInstallationToken = errors.New("installation token refused")
)

// Commit is a git commit, with the GitHub accounts of its author and
// committer where GitHub maps their email to one ("" otherwise).
type Commit struct {
	SHA string
	// TreeSHA is the commit's tree (set by the git data API, not by the
	// commit listing).
	TreeSHA        string
	Message        string
	Parents        []string
	AuthorLogin    string
	CommitterLogin string
	AuthorEmail    string
	CommitterEmail string
}

// Pull is a pull request.
type Pull struct {
	Number int
	State  string // "open" or "closed"
	Title  string
	Body   string
	// Author is the login of the user who opened it.
	Author string
	Draft  bool
	// Merged is set for a closed pull request that was merged.
	Merged bool
	// Head is the head branch, HeadSHA its commit, HeadRepo its repository
	// ("owner/name"; another repository for a pull request from a fork).
	Head     string
	HeadSHA  string
	HeadRepo string
	Base     string
	BaseSHA  string
	URL      string
}

// Release is a release of a repository, as a webhook or the API reports it.
type Release struct {
	Repo       ident.Repo
	ID         int64
	Tag        string
	Name       string
	Notes      string
	Target     string // the target commitish
	Draft      bool
	Prerelease bool
	URL        string
	Published  time.Time
}

// Comment is an issue, pull request or commit comment.
type Comment struct {
	ID int64
	// Author is the login of its author, e.g. "github-actions[bot]".
	Author  string
	Body    string
	URL     string
	Created time.Time
	Updated time.Time
}

// Identity is the account the client acts as, as its commits, pull
// requests and comments show it.
type Identity struct {
	// Login is e.g. "accuracy-bot[bot]".
	Login string
}
