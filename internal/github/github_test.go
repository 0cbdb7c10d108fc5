package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// clock is an injected clock whose Sleep returns at once and advances it.
type clock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slept = append(c.slept, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

func (c *clock) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}

func newClock() *clock { return &clock{now: time.Now().Truncate(time.Second)} }

// newClient returns a Client for fake s with token auth and an injected clock.
func newClient(t *testing.T, s *githubfake.Server, opts Options) (*Client, *clock) {
	t.Helper()
	clk := newClock()
	if opts.Token == "" && opts.HTTPClient == nil {
		opts.Token = "test-token"
	}
	opts.BaseURL = s.URL()
	opts.Retry.Now = clk.Now
	opts.Retry.Sleep = clk.Sleep
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, clk
}

var ctx = context.Background()

const repoName = "inference-sim/inference-sim"

var repo = ident.Repo{Owner: "inference-sim", Name: "inference-sim"}

// seed makes a repository with a main branch of two commits and a feature
// branch "feature/x" one commit ahead, and a pull request from it.
func seed(t *testing.T, s *githubfake.Server) (main, feature string, pr int) {
	t.Helper()
	s.AddRepo(repoName, "main")
	s.Commit(repoName, "main", "alice", "init", map[string]string{"README.md": "# sim\n", "cmd/sim/main.go": "package main\n"})
	main = s.Commit(repoName, "main", "alice", "second", map[string]string{".github/accuracy-harness.yaml": "harness: x\n"})
	feature = s.Commit(repoName, "feature/x", "bob", "feature", map[string]string{"cmd/sim/flag.go": "package main\n"})
	pr = s.AddPullRequest(repoName, githubfake.PullRequest{Title: "Feature", Body: "does x", User: "bob", Head: "feature/x"})
	return main, feature, pr
}

func TestSelf(t *testing.T) {
	t.Run("user token reads GET /user", func(t *testing.T) {
		s := githubfake.New(t, githubfake.Options{Login: "octocat"})
		c, _ := newClient(t, s, Options{Login: "ignored"})
		for i := 0; i < 2; i++ {
			got, err := c.Self(ctx)
			if err != nil || got != "octocat" {
				t.Fatalf("Self = %q, %v; want octocat", got, err)
			}
		}
		if n := s.Calls("users/get-authenticated"); n != 1 {
			t.Errorf("GET /user called %d times, want 1 (cached)", n)
		}
	})
	t.Run("workflow token falls back to Login", func(t *testing.T) {
		s := githubfake.New(t, githubfake.Options{ActionsToken: true})
		c, _ := newClient(t, s, Options{Login: "github-actions[bot]"})
		got, err := c.Self(ctx)
		if err != nil || got != "github-actions[bot]" {
			t.Fatalf("Self = %q, %v", got, err)
		}
	})
	t.Run("workflow token without Login fails", func(t *testing.T) {
		s := githubfake.New(t, githubfake.Options{ActionsToken: true})
		c, _ := newClient(t, s, Options{})
		if _, err := c.Self(ctx); !errors.Is(err, ghmodel.ErrForbidden) {
			t.Fatalf("Self err = %v, want ErrForbidden", err)
		}
	})
	t.Run("bad token is unauthorized", func(t *testing.T) {
		s := githubfake.New(t, githubfake.Options{})
		c, _ := newClient(t, s, Options{Token: "wrong", Login: "x"})
		if _, err := c.Self(ctx); !errors.Is(err, ghmodel.ErrUnauthorized) {
			t.Fatalf("Self err = %v, want ErrUnauthorized", err)
		}
	})
}

func TestIssueComments(t *testing.T) {
	s := githubfake.New(t, githubfake.Options{ActionsToken: true})
	_, _, pr := seed(t, s)
	for i := 0; i < 205; i++ {
		s.AddComment(repoName, pr, "someone", fmt.Sprintf("comment %d", i))
	}
	c, _ := newClient(t, s, Options{})

	got, err := c.ListIssueComments(ctx, repo, pr)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 205 || got[0].Body != "comment 0" || got[204].Body != "comment 204" {
		t.Fatalf("listed %d comments (first %q), want 205 in order", len(got), got[0].Body)
	}
	if n := s.Calls("issues/list-comments"); n != 3 {
		t.Errorf("list calls = %d, want 3 pages of 100", n)
	}

	created, err := c.CreateIssueComment(ctx, repo, pr, "<!-- accuracy:pr -->\nhello")
	if err != nil {
		t.Fatal(err)
	}
	if created.Author != "github-actions[bot]" || created.ID == 0 || created.URL == "" || created.Created.IsZero() {
		t.Errorf("created = %+v", created)
	}
	updated, err := c.UpdateIssueComment(ctx, repo, created.ID, "<!-- accuracy:pr -->\nbye")
	if err != nil || updated.Body != "<!-- accuracy:pr -->\nbye" || updated.ID != created.ID {
		t.Fatalf("update = %+v, %v", updated, err)
	}
	all := s.Comments(repoName, pr)
	if last := all[len(all)-1]; last.Body != updated.Body || last.User != "github-actions[bot]" {
		t.Errorf("fake holds %+v", last)
	}
	if err := c.DeleteIssueComment(ctx, repo, created.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Comments(repoName, pr)); n != 205 {
		t.Errorf("after delete: %d comments, want 205", n)
	}
	if err := c.DeleteIssueComment(ctx, repo, created.ID); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("delete twice: %v, want ErrNotFound", err)
	}
	if _, err := c.ListIssueComments(ctx, repo, 999); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("list on missing PR: %v, want ErrNotFound", err)
	}
}

func TestForkPullRequestTokenIsReadOnly(t *testing.T) {
	s := githubfake.New(t, githubfake.Options{ActionsToken: true, ReadOnly: true})
	_, _, pr := seed(t, s)
	c, _ := newClient(t, s, Options{})
	if _, err := c.ListIssueComments(ctx, repo, pr); err != nil {
		t.Fatalf("reading is allowed: %v", err)
	}
	_, err := c.CreateIssueComment(ctx, repo, pr, "hi")
	if !errors.Is(err, ghmodel.ErrForbidden) || !strings.Contains(err.Error(), "Resource not accessible by integration") {
		t.Fatalf("create = %v, want ErrForbidden naming GitHub's message", err)
	}
	if n := s.Calls("issues/create-comment"); n != 1 {
		t.Errorf("a plain 403 was retried: %d calls", n)
	}
}

func TestPullRequests(t *testing.T) {
	s := githubfake.New(t, githubfake.Options{Login: "accuracy-bot"})
	main, feature, pr := seed(t, s)
	fork := s.AddPullRequest(repoName, githubfake.PullRequest{Title: "From fork", User: "mallory", Head: "main",
		HeadRepo: "mallory/inference-sim", HeadSHA: "1234567890123456789012345678901234567890"})
	c, _ := newClient(t, s, Options{})

	got, err := c.GetPullRequest(ctx, repo, pr)
	if err != nil {
		t.Fatal(err)
	}
	want := ghmodel.Pull{Number: pr, State: "open", Title: "Feature", Body: "does x", Author: "bob",
		Head: "feature/x", HeadSHA: feature, HeadRepo: repoName, Base: "main", BaseSHA: main, URL: got.URL}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GetPullRequest (-want +got):\n%s", diff)
	}
	f, err := c.GetPullRequest(ctx, repo, fork)
	if err != nil || f.HeadRepo != "mallory/inference-sim" {
		t.Errorf("fork PR head repo = %q, %v", f.HeadRepo, err)
	}
	if _, err := c.GetPullRequest(ctx, repo, 404); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("missing PR: %v", err)
	}

	s.Commit(repoName, "bump/harness", "accuracy-bot", "bump", map[string]string{".github/accuracy-harness.yaml": "harness: y\n"})
	opened, err := c.CreatePullRequest(ctx, repo, NewPullRequest{Title: "Bump harness to v1.2.0", Body: "notes", Head: "bump/harness", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if opened.Author != "accuracy-bot" || opened.Head != "bump/harness" || opened.State != "open" {
		t.Errorf("opened = %+v", opened)
	}
	if _, err := c.CreatePullRequest(ctx, repo, NewPullRequest{Title: "again", Head: "bump/harness", Base: "main"}); !errors.Is(err, ghmodel.ErrInvalid) {
		t.Errorf("duplicate PR: %v, want ErrInvalid", err)
	}
	open, err := c.ListOpenPullRequests(ctx, repo)
	var numbers []int
	for _, p := range open {
		numbers = append(numbers, p.Number)
	}
	if diff := cmp.Diff([]int{opened.Number, fork, pr}, numbers); err != nil || diff != "" {
		t.Errorf("open pull requests, newest first (-want +got):\n%s%v", diff, err)
	}

	title, body := "Bump harness to v1.3.0", "new notes"
	upd, err := c.UpdatePullRequest(ctx, repo, opened.Number, PullRequestUpdate{Title: &title, Body: &body})
	if err != nil || upd.Title != title || upd.Body != body {
		t.Fatalf("update = %+v, %v", upd, err)
	}
	if err := c.ClosePullRequest(ctx, repo, opened.Number); err != nil {
		t.Fatal(err)
	}
	open, _ = c.ListOpenPullRequests(ctx, repo)
	for _, p := range open {
		if p.Number == opened.Number {
			t.Errorf("closed PR still listed open: %+v", p)
		}
	}
}

func TestAtomicCommitThroughGitData(t *testing.T) {
	s := githubfake.New(t, githubfake.Options{Login: "accuracy-bot"})
	main, _, _ := seed(t, s)
	c, _ := newClient(t, s, Options{})

	head, err := c.GetRef(ctx, repo, "heads/main")
	if err != nil || head.SHA != main || head.Name != "refs/heads/main" || head.Type != "commit" {
		t.Fatalf("GetRef = %+v, %v", head, err)
	}
	base, err := c.GetCommit(ctx, repo, head.SHA)
	if err != nil || base.TreeSHA == "" || len(base.Parents) != 1 || base.Message != "second" {
		t.Fatalf("GetCommit = %+v, %v", base, err)
	}
	summary := "{\"label\":\"published\"}\n"
	tree, err := c.CreateTree(ctx, repo, base.TreeSHA, []TreeEntry{
		{Path: "data/snapshots/s1/summary.json", Content: summary},
		{Path: "README.md", Content: "# replaced\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	commit, err := c.CreateCommit(ctx, repo, NewCommit{Message: "Publish s1", TreeSHA: tree, Parents: []string{head.SHA}})
	if err != nil {
		t.Fatal(err)
	}
	if commit.TreeSHA != tree || !cmp.Equal(commit.Parents, []string{head.SHA}) || commit.AuthorEmail != "accuracy-bot@users.noreply.github.com" {
		t.Errorf("commit = %+v", commit)
	}
	if _, err := c.CreateRef(ctx, repo, "refs/heads/publish", head.SHA); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateRef(ctx, repo, "refs/heads/publish", head.SHA); !errors.Is(err, ghmodel.ErrConflict) {
		t.Errorf("create existing ref: %v, want ErrConflict", err)
	}
	moved, err := c.UpdateRef(ctx, repo, "heads/publish", commit.SHA)
	if err != nil || moved.SHA != commit.SHA {
		t.Fatalf("UpdateRef = %+v, %v", moved, err)
	}
	if got, ok := s.File(repoName, "publish", "data/snapshots/s1/summary.json"); !ok || got != summary {
		t.Errorf("summary.json on publish = %q, %v", got, ok)
	}
	if got, _ := s.File(repoName, "publish", "README.md"); got != "# replaced\n" {
		t.Errorf("README.md = %q, want it replaced", got)
	}
	if _, ok := s.File(repoName, "publish", "cmd/sim/main.go"); !ok {
		t.Error("base tree content was lost")
	}

	// A deletion removes the path from the base tree (GitHub's "sha": null).
	pruned, err := c.CreateTree(ctx, repo, commit.TreeSHA, []TreeEntry{{Path: "data/snapshots/s1/summary.json", Delete: true}})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := c.CreateCommit(ctx, repo, NewCommit{Message: "Delete s1", TreeSHA: pruned, Parents: []string{commit.SHA}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateRef(ctx, repo, "refs/heads/pruned", gone.SHA); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.File(repoName, "pruned", "data/snapshots/s1/summary.json"); ok {
		t.Error("a deleted path is still in the tree")
	}
	if got, _ := s.File(repoName, "pruned", "README.md"); got != "# replaced\n" {
		t.Errorf("README.md = %q after a deletion of another path", got)
	}
	if _, err := c.CreateTree(ctx, repo, commit.TreeSHA, []TreeEntry{{Path: "no/such/file", Delete: true}}); err == nil {
		t.Error("deleting a path the base tree does not have: no error")
	}

	// A writer that built on the old head loses the race: not a fast forward.
	stale, err := c.CreateCommit(ctx, repo, NewCommit{Message: "stale", TreeSHA: base.TreeSHA, Parents: []string{head.SHA}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateRef(ctx, repo, "refs/heads/publish", stale.SHA); !errors.Is(err, ghmodel.ErrConflict) {
		t.Errorf("non-fast-forward update: %v, want ErrConflict", err)
	}
	if sha, _ := s.Ref(repoName, "refs/heads/publish"); sha != commit.SHA {
		t.Errorf("ref moved by a rejected update to %s", sha)
	}
	if _, err := c.GetRef(ctx, repo, "refs/heads/missing"); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("missing ref: %v, want ErrNotFound", err)
	}
}

func TestConflictFaultIsNotRetried(t *testing.T) {
	s := githubfake.New(t, githubfake.Options{})
	main, _, _ := seed(t, s)
	c, _ := newClient(t, s, Options{})
	for _, f := range []githubfake.Fault{githubfake.Conflict("Reference update conflict"), githubfake.Unprocessable("Update is not a fast forward")} {
		s.FailNext("git/update-ref", 1, f)
		before := s.Calls("git/update-ref")
		if _, err := c.UpdateRef(ctx, repo, "heads/main", main); !errors.Is(err, ghmodel.ErrConflict) {
			t.Errorf("%d: err = %v, want ErrConflict", f.Status, err)
		}
		if n := s.Calls("git/update-ref") - before; n != 1 {
			t.Errorf("%d: %d calls, want 1", f.Status, n)
		}
	}
}

func TestContents(t *testing.T) {
	s := githubfake.New(t, githubfake.Options{})
	_, feature, _ := seed(t, s)
	c, _ := newClient(t, s, Options{})

	f, err := c.GetFile(ctx, repo, ".github/accuracy-harness.yaml", "")
	if err != nil || string(f.Content) != "harness: x\n" || f.Path != ".github/accuracy-harness.yaml" || len(f.SHA) != 40 {
		t.Fatalf("GetFile = %+v, %v", f, err)
	}
	g, err := c.GetFile(ctx, repo, "cmd/sim/flag.go", "feature/x")
	if err != nil || string(g.Content) != "package main\n" {
		t.Fatalf("GetFile at branch with a slash = %+v, %v", g, err)
	}
	if _, err := c.GetFile(ctx, repo, "cmd/sim/flag.go", "main"); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("absent file: %v, want ErrNotFound", err)
	}
	if _, err := c.GetFile(ctx, repo, "cmd/sim", feature); !errors.Is(err, ErrNotAFile) {
		t.Errorf("directory: %v, want ErrNotAFile", err)
	}
	entries, err := c.ListDir(ctx, repo, "cmd/sim", feature)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Type+":"+e.Path)
	}
	if diff := cmp.Diff([]string{"file:cmd/sim/flag.go", "file:cmd/sim/main.go"}, names); diff != "" {
		t.Errorf("ListDir (-want +got):\n%s", diff)
	}
	if _, err := c.ListDir(ctx, repo, ".github/workflows", ""); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("absent dir: %v, want ErrNotFound", err)
	}
	ref, err := c.GetRef(ctx, repo, "refs/heads/feature/x")
	if err != nil || ref.SHA != feature {
		t.Errorf("GetRef with a slash in the branch = %+v, %v", ref, err)
	}
}

func TestCompareAndListCommits(t *testing.T) {
	s := githubfake.New(t, githubfake.Options{})
	main, feature, _ := seed(t, s)
	c, _ := newClient(t, s, Options{})

	for _, tc := range []struct {
		base, head, status string
		ahead, behind      int
	}{
		{"main", "feature/x", "ahead", 1, 0},
		{"feature/x", "main", "behind", 0, 1},
		{main, main, "identical", 0, 0},
	} {
		got, err := c.Compare(ctx, repo, tc.base, tc.head)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != tc.status || got.AheadBy != tc.ahead || got.BehindBy != tc.behind || got.MergeBaseSHA != main {
			t.Errorf("Compare(%s, %s) = %+v", tc.base, tc.head, got)
		}
	}
	for _, tc := range []struct {
		commit, ref string
		want        bool
	}{{main, "feature/x", true}, {main, "main", true}, {feature, "main", false}} {
		if got, err := c.IsAncestor(ctx, repo, tc.commit, tc.ref); err != nil || got != tc.want {
			t.Errorf("IsAncestor(%s, %s) = %v, %v; want %v", tc.commit, tc.ref, got, err, tc.want)
		}
	}
	if _, err := c.IsAncestor(ctx, repo, strings.Repeat("a", 40), "main"); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("IsAncestor of an unknown commit: %v, want ErrNotFound", err)
	}
	diverged := s.Commit(repoName, "main", "carol", "third", map[string]string{"x": "1"})
	got, err := c.Compare(ctx, repo, "main", "feature/x")
	if err != nil || got.Status != "diverged" || got.AheadBy != 1 || got.BehindBy != 1 || got.MergeBaseSHA != main {
		t.Errorf("diverged compare = %+v, %v", got, err)
	}

	commits, err := c.ListCommits(ctx, repo, "feature/x", 0)
	if err != nil {
		t.Fatal(err)
	}
	var logins []string
	for _, ci := range commits {
		logins = append(logins, ci.AuthorLogin+"/"+ci.CommitterLogin+":"+ci.Message)
	}
	if diff := cmp.Diff([]string{"bob/bob:feature", "alice/alice:second", "alice/alice:init"}, logins); diff != "" {
		t.Errorf("ListCommits (-want +got):\n%s", diff)
	}
	if commits[0].SHA != feature || !cmp.Equal(commits[0].Parents, []string{main}) {
		t.Errorf("head commit = %+v", commits[0])
	}
	two, err := c.ListCommits(ctx, repo, "main", 2)
	if err != nil || len(two) != 2 || two[0].SHA != diverged {
		t.Errorf("limited ListCommits = %+v, %v", two, err)
	}
}

func TestReleasesAndTags(t *testing.T) {
	s := githubfake.New(t, githubfake.Options{})
	main, feature, _ := seed(t, s)
	s.Tag(repoName, "v1.0.0", main, false)
	tagObj := s.Tag(repoName, "v1.1.0", feature, true)
	s.AddRelease(repoName, githubfake.Release{Tag: "v1.0.0", Name: "v1.0.0", Body: "first"})
	s.AddRelease(repoName, githubfake.Release{Tag: "v1.1.0", Name: "v1.1.0", Body: "second @alice"})
	s.AddRelease(repoName, githubfake.Release{Tag: "v1.2.0-rc1", Name: "rc", Prerelease: true})
	c, _ := newClient(t, s, Options{})

	rel, err := c.GetReleaseByTag(ctx, repo, "v1.1.0")
	if err != nil || rel.Tag != "v1.1.0" || rel.Notes != "second @alice" || rel.Published.IsZero() || rel.ID == 0 {
		t.Fatalf("GetReleaseByTag = %+v, %v", rel, err)
	}
	if _, err := c.GetReleaseByTag(ctx, repo, "v9"); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("missing release: %v", err)
	}

	light, err := c.ResolveTag(ctx, repo, "v1.0.0")
	if err != nil || light != main {
		t.Errorf("lightweight tag = %s, %v; want %s", light, err, main)
	}
	if n := s.Calls("git/get-tag"); n != 0 {
		t.Errorf("lightweight tag read %d tag objects", n)
	}
	ref, err := c.GetRef(ctx, repo, "tags/v1.1.0")
	if err != nil || ref.Type != "tag" || ref.SHA != tagObj {
		t.Fatalf("annotated tag ref = %+v, %v", ref, err)
	}
	annotated, err := c.ResolveTag(ctx, repo, "v1.1.0")
	if err != nil || annotated != feature {
		t.Errorf("annotated tag = %s, %v; want the commit %s", annotated, err, feature)
	}
	if n := s.Calls("git/get-tag"); n != 1 {
		t.Errorf("annotated tag read %d tag objects, want 1", n)
	}
	if _, err := c.ResolveTag(ctx, repo, "v0"); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("missing tag: %v", err)
	}

	s.Tag(repoName, "db-dump/2026-11-22", main, false)
	refs, err := c.ListMatchingRefs(ctx, repo, "tags/v1.")
	var names []string
	for _, r := range refs {
		names = append(names, r.Name)
	}
	if err != nil || strings.Join(names, " ") != "refs/tags/v1.0.0 refs/tags/v1.1.0" || refs[1].Type != "tag" {
		t.Errorf("ListMatchingRefs(tags/v1.) = %+v, %v", refs, err)
	}
	if refs, err := c.ListMatchingRefs(ctx, repo, "tags/db-dump/"); err != nil || len(refs) != 1 || refs[0].SHA != main {
		t.Errorf("ListMatchingRefs(tags/db-dump/) = %+v, %v", refs, err)
	}
	if refs, err := c.ListMatchingRefs(ctx, repo, "tags/none/"); err != nil || len(refs) != 0 {
		t.Errorf("no match: %+v, %v", refs, err)
	}

	// Tags: the same by "owner/name", names without refs/tags/.
	tags := c.Tags()
	if names, err := tags.TagNames(ctx, repoName, "v1."); err != nil || strings.Join(names, " ") != "v1.0.0 v1.1.0" {
		t.Errorf("TagNames(v1.) = %q, %v", names, err)
	}
	if sha, err := tags.ResolveTag(ctx, repoName, "v1.1.0"); err != nil || sha != feature {
		t.Errorf("Tags.ResolveTag = %s, %v; want %s", sha, err, feature)
	}
	if _, err := tags.TagNames(ctx, "not a repo", "v"); err == nil || !strings.Contains(err.Error(), "not owner/name") {
		t.Errorf("TagNames of a malformed repository: %v", err)
	}
}

func TestRetries(t *testing.T) {
	s := githubfake.New(t, githubfake.Options{})
	_, _, pr := seed(t, s)

	t.Run("5xx backs off exponentially", func(t *testing.T) {
		c, clk := newClient(t, s, Options{})
		s.FailNext("pulls/get", 2, githubfake.ServerError(502))
		if _, err := c.GetPullRequest(ctx, repo, pr); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]time.Duration{time.Second, 2 * time.Second}, clk.Slept()); diff != "" {
			t.Errorf("sleeps (-want +got):\n%s", diff)
		}
	})
	t.Run("5xx gives up after MaxAttempts", func(t *testing.T) {
		c, _ := newClient(t, s, Options{Retry: RetryPolicy{MaxAttempts: 3}})
		before := s.Calls("pulls/get")
		s.FailNext("pulls/get", 3, githubfake.ServerError(503))
		_, err := c.GetPullRequest(ctx, repo, pr)
		var ae *APIError
		if !errors.As(err, &ae) || ae.StatusCode != 503 {
			t.Fatalf("err = %v, want a 503 APIError", err)
		}
		if n := s.Calls("pulls/get") - before; n != 3 {
			t.Errorf("%d calls, want 3", n)
		}
	})
	t.Run("Retry-After is honoured", func(t *testing.T) {
		c, clk := newClient(t, s, Options{})
		s.FailNext("pulls/get", 1, githubfake.SecondaryRateLimit(7))
		if _, err := c.GetPullRequest(ctx, repo, pr); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]time.Duration{7 * time.Second}, clk.Slept()); diff != "" {
			t.Errorf("sleeps (-want +got):\n%s", diff)
		}
	})
	t.Run("Retry-After beyond MaxWait is rate limited", func(t *testing.T) {
		c, clk := newClient(t, s, Options{Retry: RetryPolicy{MaxWait: time.Minute}})
		before := s.Calls("pulls/get")
		s.FailNext("pulls/get", 1, githubfake.SecondaryRateLimit(600))
		if _, err := c.GetPullRequest(ctx, repo, pr); !errors.Is(err, ghmodel.ErrRateLimited) {
			t.Fatalf("err = %v, want ErrRateLimited", err)
		}
		if n := s.Calls("pulls/get") - before; n != 1 || len(clk.Slept()) != 0 {
			t.Errorf("%d calls, sleeps %v; want 1 call, no sleep", n, clk.Slept())
		}
	})
	t.Run("secondary limit named only in the message is rate limited, not forbidden", func(t *testing.T) {
		c, clk := newClient(t, s, Options{Retry: RetryPolicy{MaxAttempts: 2}})
		s.FailNext("pulls/get", 2, githubfake.Fault{Status: http.StatusForbidden,
			Message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."})
		_, err := c.GetPullRequest(ctx, repo, pr)
		if !errors.Is(err, ghmodel.ErrRateLimited) || errors.Is(err, ghmodel.ErrForbidden) {
			t.Fatalf("err = %v, want ErrRateLimited", err)
		}
		if diff := cmp.Diff([]time.Duration{time.Minute}, clk.Slept()); diff != "" {
			t.Errorf("sleeps (-want +got):\n%s", diff)
		}
	})
	t.Run("exhausted rate limit waits for the reset", func(t *testing.T) {
		c, clk := newClient(t, s, Options{})
		s.FailNext("issues/list-comments", 1, githubfake.RateLimitExhausted(clk.Now().Add(30*time.Second)))
		if _, err := c.ListIssueComments(ctx, repo, pr); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]time.Duration{31 * time.Second}, clk.Slept()); diff != "" {
			t.Errorf("sleeps (-want +got):\n%s", diff)
		}
	})
	t.Run("a deadline before the reset is not waited for", func(t *testing.T) {
		c, clk := newClient(t, s, Options{})
		dctx, cancel := context.WithDeadline(ctx, clk.Now().Add(10*time.Second))
		defer cancel()
		s.FailNext("issues/list-comments", 1, githubfake.RateLimitExhausted(clk.Now().Add(90*time.Second)))
		if _, err := c.ListIssueComments(dctx, repo, pr); !errors.Is(err, ghmodel.ErrRateLimited) {
			t.Fatalf("err = %v, want ErrRateLimited", err)
		}
	})
	t.Run("a POST refused by a rate limit is retried with its body", func(t *testing.T) {
		c, clk := newClient(t, s, Options{})
		before := len(s.Comments(repoName, pr))
		s.FailNext("issues/create-comment", 1, githubfake.SecondaryRateLimit(3))
		got, err := c.CreateIssueComment(ctx, repo, pr, "body survives the retry")
		if err != nil || got.Body != "body survives the retry" {
			t.Fatalf("create = %+v, %v", got, err)
		}
		if n := len(s.Comments(repoName, pr)) - before; n != 1 || len(clk.Slept()) != 1 {
			t.Errorf("%d comments added, sleeps %v", n, clk.Slept())
		}
	})
	// Issue 11, defect 6: after a lost response a comment is not posted
	// again (it was, twice).
	t.Run("a POST whose response was lost is not repeated", func(t *testing.T) {
		c, clk := newClient(t, s, Options{})
		before := len(s.Comments(repoName, pr))
		s.FailNext("issues/create-comment", 1, githubfake.LostResponse())
		if _, err := c.CreateIssueComment(ctx, repo, pr, "posted once"); err == nil {
			t.Fatal("a lost response reported success")
		}
		if n := len(s.Comments(repoName, pr)) - before; n != 1 || len(clk.Slept()) != 0 {
			t.Errorf("%d comments added, sleeps %v; want the one GitHub made, not repeated", n, clk.Slept())
		}
	})
}

func TestArtifacts(t *testing.T) {
	s := githubfake.New(t, githubfake.Options{})
	_, feature, _ := seed(t, s)
	run := s.AddWorkflowRun(repoName, githubfake.WorkflowRun{HeadSHA: feature, HeadBranch: "feature/x"})
	zip := []byte("PK\x03\x04 pretend zip bytes")
	art := s.AddArtifact(repoName, run, "accuracy-report", zip, false)
	old := s.AddArtifact(repoName, run, "old", []byte("gone"), true)
	c, _ := newClient(t, s, Options{})

	arts, err := c.ListArtifacts(ctx, repo, run)
	if err != nil {
		t.Fatal(err)
	}
	wantArts := []Artifact{
		{ID: art, Name: "accuracy-report", SizeInBytes: int64(len(zip)), WorkflowRunHeadSHA: feature},
		{ID: old, Name: "old", SizeInBytes: 4, Expired: true, WorkflowRunHeadSHA: feature},
	}
	if diff := cmp.Diff(wantArts, arts); diff != "" {
		t.Errorf("ListArtifacts (-want +got):\n%s", diff)
	}
	data, err := c.DownloadArtifact(ctx, repo, art, 1<<20)
	if err != nil || string(data) != string(zip) {
		t.Fatalf("download = %q, %v", data, err)
	}
	if _, err := c.DownloadArtifact(ctx, repo, art, 5); !errors.Is(err, ghmodel.ErrTooLarge) {
		t.Errorf("over the cap: %v, want ErrTooLarge", err)
	}
	if _, err := c.DownloadArtifact(ctx, repo, old, 1<<20); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("expired: %v, want ErrNotFound", err)
	}
	if _, err := c.ListArtifacts(ctx, repo, 1); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("artifacts of a missing run: %v", err)
	}

	// A supplied DownloadClient gets the retry layer too: a 503 from the
	// storage URL is retried.
	storage := &stub{answer: func(n int, req *http.Request) (*http.Response, error) {
		if n == 1 {
			return answer(http.StatusServiceUnavailable, nil, ""), nil
		}
		return s.Client().Transport.RoundTrip(req)
	}}
	dc, clk := newClient(t, s, Options{DownloadClient: &http.Client{Transport: storage}})
	data, err = dc.DownloadArtifact(ctx, repo, art, 1<<20)
	if err != nil || string(data) != string(zip) {
		t.Fatalf("download through a flaky storage = %q, %v", data, err)
	}
	if n := storage.calls.Load(); n != 2 || len(clk.Slept()) != 1 {
		t.Errorf("storage saw %d requests after %v of backoff, want the 503 retried once", n, clk.Slept())
	}
}

func TestCreateCommitComment(t *testing.T) {
	s := githubfake.New(t, githubfake.Options{Login: "accuracy-bot"})
	_, feature, _ := seed(t, s)
	c, clk := newClient(t, s, Options{})
	body := "**refused**\n\n<!-- accuracy-bot:publish-refused run=1 -->\n"
	s.FailNext("repos/create-commit-comment", 1, githubfake.SecondaryRateLimit(2))
	got, err := c.CreateCommitComment(ctx, repo, feature, body)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID == 0 || got.Body != body || got.Author != "accuracy-bot" || got.Created.IsZero() ||
		!strings.HasSuffix(got.URL, fmt.Sprintf("/%s/commit/%s#commitcomment-%d", repoName, feature, got.ID)) {
		t.Errorf("CreateCommitComment = %+v", got)
	}
	want := []githubfake.Comment{{ID: got.ID, User: "accuracy-bot", Body: body}}
	if diff := cmp.Diff(want, s.CommitComments(repoName, feature)); diff != "" {
		t.Errorf("commit comments (-want +got):\n%s", diff)
	}
	if n := s.Calls("repos/create-commit-comment"); n != 2 || len(clk.Slept()) != 1 {
		t.Errorf("%d calls after %v of backoff, want the 502 retried once", n, clk.Slept())
	}

	if _, err := c.CreateCommitComment(ctx, repo, strings.Repeat("0", 40), "x"); !errors.Is(err, ghmodel.ErrInvalid) ||
		!strings.Contains(err.Error(), repoName+"@"+strings.Repeat("0", 40)) {
		t.Errorf("comment on an unknown commit: %v, want ErrInvalid naming the commit", err)
	}
	s.SetReadOnly(true)
	if _, err := c.CreateCommitComment(ctx, repo, feature, "x"); !errors.Is(err, ghmodel.ErrForbidden) {
		t.Errorf("read-only token: %v, want ErrForbidden", err)
	}
	if n := len(s.CommitComments(repoName, feature)); n != 1 {
		t.Errorf("%d comments after the refused ones, want 1", n)
	}
}

func TestGetRepositoryAndEnterprisePrefix(t *testing.T) {
	s := githubfake.New(t, githubfake.Options{PathPrefix: "/api/v3"})
	seed(t, s)
	if !strings.HasSuffix(s.URL(), "/api/v3/") {
		t.Fatalf("URL = %s", s.URL())
	}
	c, err := New(Options{Token: "test-token", BaseURL: strings.TrimSuffix(s.URL(), "/")}) // as GITHUB_API_URL spells it
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetRepository(ctx, repo)
	if err != nil || got.DefaultBranch != "main" || got.Repo != repo {
		t.Fatalf("GetRepository = %+v, %v", got, err)
	}
	if _, err := c.GetRepository(ctx, ident.Repo{Owner: "no", Name: "such"}); !errors.Is(err, ghmodel.ErrNotFound) {
		t.Errorf("missing repo: %v", err)
	}
}

func TestParseRepo(t *testing.T) {
	if r, err := ident.ParseRepo("inference-sim/inference-sim"); err != nil || r != repo || r.String() != repoName {
		t.Errorf("ParseRepo = %+v, %v", r, err)
	}
	for _, bad := range []string{"", "noslash", "/name", "owner/", "a/b/c"} {
		if _, err := ident.ParseRepo(bad); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Errorf("ParseRepo(%q) = %v, want an error naming the input", bad, err)
		}
	}
}

func TestNewRejectsBadURLs(t *testing.T) {
	for _, opts := range []Options{{BaseURL: "not a url"}, {BaseURL: "/relative"}} {
		if _, err := New(opts); err == nil {
			t.Errorf("New(%+v) accepted a bad URL", opts)
		}
	}
	c, err := New(Options{})
	if err != nil || c.gh.BaseURL.String() != DefaultBaseURL {
		t.Errorf("defaults: %v %v", c.gh.BaseURL, err)
	}
}

func TestShortSHA(t *testing.T) {
	for in, want := range map[string]string{
		"0123456789abcdef0123456789abcdef01234567": "0123456789ab",
		"0123456789ABCDEF0123456789ABCDEF01234567": "0123456789ABCDEF0123456789ABCDEF01234567", // not a commit id: ident.IsCommit
		"0123456789abcdef":                         "0123456789abcdef",
		"release-candidate-branch":                 "release-candidate-branch",
		"accuracy-bot/harness":                     "accuracy-bot/harness",
		"v1.2.3-rc.1+build.20260822":               "v1.2.3-rc.1+build.20260822",
		"0123456789abcdef0123456789abcdef0123456z": "0123456789abcdef0123456789abcdef0123456z",
	} {
		if got := shortSHA(in); got != want {
			t.Errorf("shortSHA(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPagination: every listing follows GitHub's Link header across pages
// (100 items per page), and ListCommits stops at its limit.
func TestPagination(t *testing.T) {
	s := githubfake.New(t, githubfake.Options{})
	_, _, pr := seed(t, s)
	var newest string
	for i := range 130 {
		newest = s.Commit(repoName, "long", "alice", fmt.Sprint("commit ", i), map[string]string{"n": fmt.Sprint(i)})
	}
	for i := range 105 {
		s.AddComment(repoName, pr, "bob", fmt.Sprint("comment ", i))
	}
	c, _ := newClient(t, s, Options{})

	got, err := c.ListCommits(ctx, repo, "long", 120)
	if err != nil || len(got) != 120 || got[0].SHA != newest {
		t.Fatalf("ListCommits(120) = %d commits, %v", len(got), err)
	}
	if n := s.Calls("repos/list-commits"); n != 2 {
		t.Errorf("ListCommits(120) made %d requests, want 2 pages", n)
	}
	comments, err := c.ListIssueComments(ctx, repo, pr)
	if err != nil || len(comments) != 105 || comments[104].Body != "comment 104" {
		t.Fatalf("ListIssueComments = %d comments, %v", len(comments), err)
	}
	if n := s.Calls("issues/list-comments"); n != 2 {
		t.Errorf("ListIssueComments made %d requests, want 2 pages", n)
	}
}
