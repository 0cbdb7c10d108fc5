package github

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// Ref is a git reference.
type Ref struct {
	Name string // full name, e.g. refs/heads/main
	SHA  string // the object it names (a tag object for an annotated tag)
	Type string // "commit" or "tag"
}

func toRef(r *gh.Reference) Ref {
	return Ref{Name: r.GetRef(), SHA: r.GetObject().GetSHA(), Type: r.GetObject().GetType()}
}

// refPath turns "refs/heads/x", "heads/x" into "heads/x", as the git
// reference endpoints take it.
func refPath(ref string) string { return strings.TrimPrefix(ref, "refs/") }

// fullRef turns "heads/x" or "refs/heads/x" into "refs/heads/x".
func fullRef(ref string) string { return "refs/" + refPath(ref) }

// GetRef returns ref ("refs/heads/main", "heads/main", "tags/v1.0.0"), or
// ErrNotFound.
func (c *Client) GetRef(ctx context.Context, repo ident.Repo, ref string) (Ref, error) {
	r, err := c.getRef(ctx, repo, ref)
	if err != nil {
		return Ref{}, fmt.Errorf("get ref %s in %s: %w", ref, repo, err)
	}
	return r, nil
}

// getRef is GetRef without the error's context.
func (c *Client) getRef(ctx context.Context, repo ident.Repo, ref string) (Ref, error) {
	var r *gh.Reference
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		r, resp, err = c.gh.Git.GetRef(ctx, repo.Owner, repo.Name, refPath(ref))
		return resp, err
	})
	return toRef(r), err
}

// CreateRef creates ref (e.g. refs/heads/bump) at sha. An existing ref →
// ErrConflict.
func (c *Client) CreateRef(ctx context.Context, repo ident.Repo, ref, sha string) (Ref, error) {
	var r *gh.Reference
	name := fullRef(ref)
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		r, resp, err = c.gh.Git.CreateRef(ctx, repo.Owner, repo.Name, &gh.Reference{
			Ref: &name, Object: &gh.GitObject{SHA: &sha},
		})
		return resp, err
	})
	if err != nil {
		return Ref{}, fmt.Errorf("create ref %s in %s: %w", name, repo, conflictOn422(err))
	}
	return toRef(r), nil
}

// UpdateRef moves ref to sha, a descendant of its current commit (never
// forced). A ref that moved meanwhile, so that sha is no longer a fast
// forward, → ErrConflict: rebuild on the new head and retry.
func (c *Client) UpdateRef(ctx context.Context, repo ident.Repo, ref, sha string) (Ref, error) {
	var r *gh.Reference
	name := fullRef(ref)
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		r, resp, err = c.gh.Git.UpdateRef(ctx, repo.Owner, repo.Name, &gh.Reference{
			Ref: &name, Object: &gh.GitObject{SHA: &sha},
		}, false)
		return resp, err
	})
	if err != nil {
		return Ref{}, fmt.Errorf("update ref %s in %s to %s: %w", name, repo, shortSHA(sha), conflictOn422(err))
	}
	return toRef(r), nil
}

// Signature is a git author or committer.
type Signature struct {
	Name  string
	Email string
	Date  time.Time
}

func toCommit(c *gh.Commit) ghmodel.Commit {
	out := ghmodel.Commit{
		SHA: c.GetSHA(), TreeSHA: c.GetTree().GetSHA(), Message: c.GetMessage(),
		AuthorEmail: c.GetAuthor().GetEmail(), CommitterEmail: c.GetCommitter().GetEmail(),
	}
	for _, p := range c.Parents {
		out.Parents = append(out.Parents, p.GetSHA())
	}
	return out
}

// GetCommit returns git commit sha (tree and parents).
func (c *Client) GetCommit(ctx context.Context, repo ident.Repo, sha string) (ghmodel.Commit, error) {
	var cm *gh.Commit
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		cm, resp, err = c.gh.Git.GetCommit(ctx, repo.Owner, repo.Name, sha)
		return resp, err
	})
	if err != nil {
		return ghmodel.Commit{}, fmt.Errorf("get commit %s@%s: %w", repo, shortSHA(sha), err)
	}
	return toCommit(cm), nil
}

// TreeEntry is one file a tree gets: Path (slash separated) with Content
// (text, stored as a new blob, mode 100644), or, with Delete, the file at
// Path removed from the base tree.
type TreeEntry struct {
	Path    string
	Content string
	Delete  bool
}

// CreateTree builds a tree from baseTree ("" for none) with entries applied,
// and returns its sha.
func (c *Client) CreateTree(ctx context.Context, repo ident.Repo, baseTree string, entries []TreeEntry) (string, error) {
	in := make([]*gh.TreeEntry, 0, len(entries))
	for _, e := range entries {
		if e.Delete {
			// No content and no sha: go-github sends "sha": null, which
			// deletes the path.
			in = append(in, &gh.TreeEntry{Path: gh.String(e.Path), Mode: gh.String("100644"), Type: gh.String("blob")})
			continue
		}
		in = append(in, &gh.TreeEntry{Path: gh.String(e.Path), Mode: gh.String("100644"), Type: gh.String("blob"), Content: gh.String(e.Content)})
	}
	var t *gh.Tree
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		t, resp, err = c.gh.Git.CreateTree(ctx, repo.Owner, repo.Name, baseTree, in)
		return resp, err
	})
	if err != nil {
		return "", fmt.Errorf("create tree in %s: %w", repo, err)
	}
	return t.GetSHA(), nil
}

// NewCommit is a commit to create. Author and Committer default to the
// token's identity (an App's commits then show as Verified).
type NewCommit struct {
	Message   string
	TreeSHA   string
	Parents   []string
	Author    *Signature
	Committer *Signature
}

// CreateCommit creates a commit object (no ref moves) and returns it.
func (c *Client) CreateCommit(ctx context.Context, repo ident.Repo, in NewCommit) (ghmodel.Commit, error) {
	commit := &gh.Commit{Message: &in.Message, Tree: &gh.Tree{SHA: &in.TreeSHA}}
	for _, p := range in.Parents {
		commit.Parents = append(commit.Parents, &gh.Commit{SHA: gh.String(p)})
	}
	sig := func(s *Signature) *gh.CommitAuthor {
		if s == nil {
			return nil
		}
		a := &gh.CommitAuthor{Name: gh.String(s.Name), Email: gh.String(s.Email)}
		if !s.Date.IsZero() {
			a.Date = &gh.Timestamp{Time: s.Date}
		}
		return a
	}
	commit.Author, commit.Committer = sig(in.Author), sig(in.Committer)
	var out *gh.Commit
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		out, resp, err = c.gh.Git.CreateCommit(ctx, repo.Owner, repo.Name, commit, nil)
		return resp, err
	})
	if err != nil {
		return ghmodel.Commit{}, fmt.Errorf("create commit in %s: %w", repo, err)
	}
	return toCommit(out), nil
}

// ResolveTag returns the commit sha tag names, peeling annotated tags
// (tags of tags included). A missing tag → ErrNotFound.
func (c *Client) ResolveTag(ctx context.Context, repo ident.Repo, tag string) (string, error) {
	ref, err := c.getRef(ctx, repo, "tags/"+tag)
	if err != nil {
		return "", fmt.Errorf("resolve tag %s in %s: %w", tag, repo, err)
	}
	sha, typ := ref.SHA, ref.Type
	for i := 0; typ == "tag"; i++ {
		if i == 5 {
			return "", fmt.Errorf("resolve tag %s in %s: more than 5 nested tag objects", tag, repo)
		}
		var t *gh.Tag
		err := c.do(ctx, func() (*gh.Response, error) {
			var resp *gh.Response
			var err error
			t, resp, err = c.gh.Git.GetTag(ctx, repo.Owner, repo.Name, sha)
			return resp, err
		})
		if err != nil {
			return "", fmt.Errorf("resolve tag %s in %s: get tag object %s: %w", tag, repo, shortSHA(sha), err)
		}
		sha, typ = t.GetObject().GetSHA(), t.GetObject().GetType()
	}
	if typ != "commit" {
		return "", fmt.Errorf("resolve tag %s in %s: names a %s, not a commit", tag, repo, typ)
	}
	return sha, nil
}

// FileContent is a file read through the contents API.
type FileContent struct {
	Path    string
	SHA     string // blob sha, needed to update the file
	Content []byte // decoded
}

// ErrNotAFile is returned (wrapped) by GetFile for a directory, symlink or submodule.
var ErrNotAFile = errors.New("not a file")

// GetFile reads the file at path (slash separated, relative to the root) at
// ref (branch, tag or sha; "" for the default branch). A missing file →
// ErrNotFound. The contents API serves files up to 1 MB.
func (c *Client) GetFile(ctx context.Context, repo ident.Repo, path, ref string) (FileContent, error) {
	var file *gh.RepositoryContent
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		file, _, resp, err = c.gh.Repositories.GetContents(ctx, repo.Owner, repo.Name, path, &gh.RepositoryContentGetOptions{Ref: ref})
		return resp, err
	})
	if err != nil {
		return FileContent{}, fmt.Errorf("read %s at %s in %s: %w", path, refLabel(ref), repo, err)
	}
	if file == nil || file.GetType() != "file" {
		return FileContent{}, fmt.Errorf("read %s at %s in %s: %w", path, refLabel(ref), repo, ErrNotAFile)
	}
	content, err := file.GetContent()
	if err != nil {
		return FileContent{}, fmt.Errorf("read %s at %s in %s: decode: %w", path, refLabel(ref), repo, err)
	}
	return FileContent{Path: file.GetPath(), SHA: file.GetSHA(), Content: []byte(content)}, nil
}

func refLabel(ref string) string {
	if ref == "" {
		return "default branch"
	}
	return shortSHA(ref)
}

// DirEntry is one entry of a directory listing.
type DirEntry struct {
	Name string
	Path string
	SHA  string
	Type string // "file", "dir", "symlink" or "submodule"
	Size int
}

// ListDir lists the entries directly in the directory at path (non-empty,
// slash separated) at ref ("" for the default branch), in GitHub's order
// (by name). A missing directory → ErrNotFound. A path naming a file lists
// as that one file.
func (c *Client) ListDir(ctx context.Context, repo ident.Repo, path, ref string) ([]DirEntry, error) {
	var file *gh.RepositoryContent
	var dir []*gh.RepositoryContent
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		file, dir, resp, err = c.gh.Repositories.GetContents(ctx, repo.Owner, repo.Name, path, &gh.RepositoryContentGetOptions{Ref: ref})
		return resp, err
	})
	if err != nil {
		return nil, fmt.Errorf("list %s at %s in %s: %w", path, refLabel(ref), repo, err)
	}
	if file != nil {
		dir = []*gh.RepositoryContent{file}
	}
	out := make([]DirEntry, 0, len(dir))
	for _, e := range dir {
		out = append(out, DirEntry{Name: e.GetName(), Path: e.GetPath(), SHA: e.GetSHA(), Type: e.GetType(), Size: e.GetSize()})
	}
	return out, nil
}

// Comparison is how head relates to base.
type Comparison struct {
	// Status is "identical", "ahead" (head descends from base), "behind"
	// or "diverged".
	Status       string
	AheadBy      int
	BehindBy     int
	MergeBaseSHA string
}

// Compare compares base and head (branches, tags or shas).
func (c *Client) Compare(ctx context.Context, repo ident.Repo, base, head string) (Comparison, error) {
	cmp, err := c.compare(ctx, repo, base, head)
	if err != nil {
		return Comparison{}, fmt.Errorf("compare %s...%s in %s: %w", shortSHA(base), shortSHA(head), repo, err)
	}
	return cmp, nil
}

// compare is Compare without the error's context.
func (c *Client) compare(ctx context.Context, repo ident.Repo, base, head string) (Comparison, error) {
	var cmp *gh.CommitsComparison
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		// The commit list is not used: ask for the smallest page.
		cmp, resp, err = c.gh.Repositories.CompareCommits(ctx, repo.Owner, repo.Name, base, head, &gh.ListOptions{PerPage: 1})
		return resp, err
	})
	return Comparison{
		Status: cmp.GetStatus(), AheadBy: cmp.GetAheadBy(), BehindBy: cmp.GetBehindBy(),
		MergeBaseSHA: cmp.GetMergeBaseCommit().GetSHA(),
	}, err
}

// IsAncestor reports whether commit is reachable from ref (a branch, tag or
// sha; ref's own commit counts), e.g. whether a harness commit is on main.
func (c *Client) IsAncestor(ctx context.Context, repo ident.Repo, commit, ref string) (bool, error) {
	cmp, err := c.compare(ctx, repo, commit, ref)
	if err != nil {
		return false, fmt.Errorf("is %s in %s of %s: %w", shortSHA(commit), ref, repo, err)
	}
	return cmp.Status == "ahead" || cmp.Status == "identical", nil
}

// ListCommits lists the commits reachable from ref (branch, tag or sha),
// newest first, at most limit of them (limit <= 0: 100). The bot uses it to
// tell whether anyone but itself pushed to a branch.
func (c *Client) ListCommits(ctx context.Context, repo ident.Repo, ref string, limit int) ([]ghmodel.Commit, error) {
	if limit <= 0 {
		limit = 100
	}
	items, err := listUpTo(ctx, c, limit, func(opts gh.ListOptions) ([]*gh.RepositoryCommit, *gh.Response, error) {
		return c.gh.Repositories.ListCommits(ctx, repo.Owner, repo.Name, &gh.CommitsListOptions{SHA: ref, ListOptions: opts})
	})
	if err != nil {
		return nil, fmt.Errorf("list commits of %s in %s: %w", refLabel(ref), repo, err)
	}
	out := make([]ghmodel.Commit, 0, len(items))
	for _, it := range items {
		ci := ghmodel.Commit{
			SHA: it.GetSHA(), Message: it.GetCommit().GetMessage(),
			AuthorLogin: it.GetAuthor().GetLogin(), CommitterLogin: it.GetCommitter().GetLogin(),
			AuthorEmail: it.GetCommit().GetAuthor().GetEmail(), CommitterEmail: it.GetCommit().GetCommitter().GetEmail(),
		}
		for _, p := range it.Parents {
			ci.Parents = append(ci.Parents, p.GetSHA())
		}
		out = append(out, ci)
	}
	return out, nil
}

func toRelease(repo ident.Repo, r *gh.RepositoryRelease) ghmodel.Release {
	return ghmodel.Release{
		Repo: repo, ID: r.GetID(), Tag: r.GetTagName(), Name: r.GetName(), Notes: r.GetBody(),
		Target: r.GetTargetCommitish(), Draft: r.GetDraft(), Prerelease: r.GetPrerelease(),
		URL: r.GetHTMLURL(), Published: r.GetPublishedAt().Time,
	}
}

// GetReleaseByTag returns the published release of tag, or ErrNotFound.
func (c *Client) GetReleaseByTag(ctx context.Context, repo ident.Repo, tag string) (ghmodel.Release, error) {
	var r *gh.RepositoryRelease
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		r, resp, err = c.gh.Repositories.GetReleaseByTag(ctx, repo.Owner, repo.Name, tag)
		return resp, err
	})
	if err != nil {
		return ghmodel.Release{}, fmt.Errorf("get release %s of %s: %w", tag, repo, err)
	}
	return toRelease(repo, r), nil
}

// ListMatchingRefs lists the refs whose name starts with prefix ("tags/v",
// "tags/db-dump/"), in the order GitHub returns them (by name). A
// repository without any such ref gives an empty list.
func (c *Client) ListMatchingRefs(ctx context.Context, repo ident.Repo, prefix string) ([]Ref, error) {
	var refs []*gh.Reference
	err := c.do(ctx, func() (*gh.Response, error) {
		var resp *gh.Response
		var err error
		// The endpoint is not paginated: it returns every matching ref.
		refs, resp, err = c.gh.Git.ListMatchingRefs(ctx, repo.Owner, repo.Name, &gh.ReferenceListOptions{Ref: refPath(prefix)})
		return resp, err
	})
	if err != nil {
		return nil, fmt.Errorf("list refs %s* of %s: %w", prefix, repo, err)
	}
	out := make([]Ref, len(refs))
	for i, r := range refs {
		out[i] = toRef(r)
	}
	return out, nil
}

// Tags is a Client's view of repositories' tags by "owner/name" (it
// implements nightly.Tags).
type Tags struct{ c *Client }

// Tags returns c's view of tags.
func (c *Client) Tags() Tags { return Tags{c} }

// TagNames lists the names of repo's tags that start with prefix ("v",
// "db-dump/"), without "refs/tags/", in GitHub's order (by name).
func (t Tags) TagNames(ctx context.Context, repo, prefix string) ([]string, error) {
	r, err := ident.ParseRepo(repo)
	if err != nil {
		return nil, err
	}
	refs, err := t.c.ListMatchingRefs(ctx, r, "tags/"+prefix)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(refs))
	for i, ref := range refs {
		names[i] = strings.TrimPrefix(ref.Name, "refs/tags/")
	}
	return names, nil
}

// ResolveTag is the commit tag names in repo, through an annotated tag
// object too (Client.ResolveTag).
func (t Tags) ResolveTag(ctx context.Context, repo, tag string) (string, error) {
	r, err := ident.ParseRepo(repo)
	if err != nil {
		return "", err
	}
	return t.c.ResolveTag(ctx, r, tag)
}
