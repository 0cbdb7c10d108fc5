package publish

import (
	"context"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// WorkflowRun is a completed workflow run (as a workflow_run event
// reports it).
type WorkflowRun struct {
	Repo ident.Repo
	ID   int64
	// WorkflowPath is the workflow file, e.g. ".github/workflows/publish.yml".
	WorkflowPath string
	// Event is what triggered the run (push, schedule, workflow_dispatch, …).
	Event      string
	Status     string
	Conclusion string
	HeadSHA    string
	HeadBranch string
	// DefaultBranch is the default branch of Repo, as the event reports it.
	DefaultBranch string
	// HeadRepo is the repository the run's head commit came from (a fork
	// for pull requests from forks).
	HeadRepo ident.Repo
	// URL is the run's web page.
	URL       string
	UpdatedAt time.Time
}

// RepoReader reads repository content. Implementations translate a missing
// repository, branch or path into ghmodel.ErrNotFound.
type RepoReader interface {
	// DefaultBranch returns the repository's default branch name.
	DefaultBranch(ctx context.Context, repo ident.Repo) (string, error)
	// BranchHead returns the commit a branch points at.
	BranchHead(ctx context.Context, repo ident.Repo, branch string) (string, error)
	// ReadFile returns a file's content at a commit.
	ReadFile(ctx context.Context, repo ident.Repo, ref, path string) ([]byte, error)
	// ListFiles lists every file under a directory at a commit, at any
	// depth, as paths from the repository's root, sorted; a missing
	// directory is ghmodel.ErrNotFound.
	ListFiles(ctx context.Context, repo ident.Repo, ref, dir string) ([]string, error)
}

// Committer writes commits through the git data API.
type Committer interface {
	// CreateCommit creates one commit whose tree is base's tree with files
	// (path → content) replaced or added (a nil content deletes the path,
	// which base must have), with the given parents, and returns its SHA.
	// Nothing is visible on any branch until a ref is moved to it.
	CreateCommit(ctx context.Context, repo ident.Repo, base string, parents []string, files map[string][]byte, message string) (string, error)
	// UpdateBranch moves a branch to sha, which must descend from the
	// branch's head: anything else (someone moved the branch meanwhile)
	// fails with ghmodel.ErrConflict. Branches are never force-moved.
	UpdateBranch(ctx context.Context, repo ident.Repo, branch, sha string) error
}

// Releases reads the harness's releases and history.
type Releases interface {
	// ResolveTag returns the commit a tag points at, peeling annotated tags.
	ResolveTag(ctx context.Context, repo ident.Repo, tag string) (string, error)
	// GetRelease returns the published release of a tag; ghmodel.ErrNotFound
	// for none (drafts are not releases).
	GetRelease(ctx context.Context, repo ident.Repo, tag string) (ghmodel.Release, error)
	// IsAncestor reports whether commit is reachable from branch.
	IsAncestor(ctx context.Context, repo ident.Repo, commit, branch string) (bool, error)
}

// Artifacts downloads workflow run artifacts.
type Artifacts interface {
	// RunArtifact returns the zip archive of the run's artifact called name;
	// ghmodel.ErrNotFound if the run has none (or it expired), ghmodel.ErrTooLarge if it is
	// larger than MaxArtifactBytes.
	RunArtifact(ctx context.Context, repo ident.Repo, runID int64, name string) ([]byte, error)
}

// Refusals shows refused publishes.
type Refusals interface {
	// ReportRefusal makes a refused publish visible on the commit the
	// refused run built: a commit comment with body
	// (render.RefusalComment: at most textcut.MaxGitHubBody, untrusted
	// text defused), which needs only the contents permission. Each call
	// posts a new comment.
	ReportRefusal(ctx context.Context, repo ident.Repo, sha, body string) error
}
