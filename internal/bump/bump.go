// Package bump is the bot's pin bumping: it decides, from plain data, what a
// harness release changes in each consumer repository (PlanBump) and what a
// simulator release changes in their leaderboard pairs
// (PlanLeaderboardBump), and Bumper carries it out through the narrow GitHub interfaces declared here
// over the plain types of ident and ghmodel, which internal/github's
// AppClient implements and tests fake (internal/bump/bumpfake). Publishing
// snapshots and the leaderboard is internal/publish's. Nothing here imports
// go-github or knows about HTTP.
package bump

import (
	"context"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// RepoReader reads repository content. Implementations translate a missing
// repository, branch or path into ghmodel.ErrNotFound.
type RepoReader interface {
	// DefaultBranch returns the repository's default branch name.
	DefaultBranch(ctx context.Context, repo ident.Repo) (string, error)
	// BranchHead returns the commit a branch points at.
	BranchHead(ctx context.Context, repo ident.Repo, branch string) (string, error)
	// GetCommit returns one commit.
	GetCommit(ctx context.Context, repo ident.Repo, sha string) (ghmodel.Commit, error)
	// ReadFile returns a file's content at a commit.
	ReadFile(ctx context.Context, repo ident.Repo, ref, path string) ([]byte, error)
	// ListDir returns the names (not paths) of the files directly in dir at
	// a commit, sorted.
	ListDir(ctx context.Context, repo ident.Repo, ref, dir string) ([]string, error)
	// ListFiles returns the paths, from the repository's root, of every
	// file under dir at a commit, at any depth, sorted;
	// ghmodel.ErrNotFound when dir is not there.
	ListFiles(ctx context.Context, repo ident.Repo, ref, dir string) ([]string, error)
}

// Committer writes commits through the git data API.
type Committer interface {
	// CreateCommit creates one commit whose tree is base's tree with files
	// (path → content) replaced or added (a nil content deletes the path,
	// which base must have), with the given parents, and
	// returns its SHA. Nothing is visible on any branch until a ref is
	// moved to it.
	CreateCommit(ctx context.Context, repo ident.Repo, base string, parents []string, files map[string][]byte, message string) (string, error)
	// CreateBranch creates a branch at sha; ghmodel.ErrConflict if it exists.
	CreateBranch(ctx context.Context, repo ident.Repo, branch, sha string) error
	// UpdateBranch moves a branch to sha, which must descend from the
	// branch's head: anything else (someone moved the branch meanwhile)
	// fails with ghmodel.ErrConflict. Branches are never force-moved.
	UpdateBranch(ctx context.Context, repo ident.Repo, branch, sha string) error
}

// Pulls manages pull requests and comments.
type Pulls interface {
	// OpenPulls lists the open pull requests the bot may have opened: at
	// least every one whose head is branch, and when the implementation can
	// list them, every other open one too (for finding superseded bumps).
	OpenPulls(ctx context.Context, repo ident.Repo, branch string) ([]ghmodel.Pull, error)
	// ClosedPulls lists the closed pull requests whose head is branch (in
	// the same repository), newest first; at least the newest.
	ClosedPulls(ctx context.Context, repo ident.Repo, branch string) ([]ghmodel.Pull, error)
	// CreatePull opens a pull request from head into base.
	CreatePull(ctx context.Context, repo ident.Repo, head, base, title, body string) (ghmodel.Pull, error)
	// EditPull sets a pull request's title and body.
	EditPull(ctx context.Context, repo ident.Repo, number int, title, body string) error
	// ClosePull comments on a pull request, then closes it.
	ClosePull(ctx context.Context, repo ident.Repo, number int, comment string) error
}

// Installations lists where the App is installed.
type Installations interface {
	// InstalledRepos lists every repository of every installation of the App.
	InstalledRepos(ctx context.Context) ([]ident.Repo, error)
	// Identity returns the App's bot user.
	Identity(ctx context.Context) (ghmodel.Identity, error)
}
