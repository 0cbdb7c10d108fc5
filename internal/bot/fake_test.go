package bot

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// fakeGitHub is an in-memory GitHub: repositories of commits (full file
// snapshots), branches, pull requests, releases and artifacts. It fails the
// test on any call about a repository it was not given, and records every
// mutating call so tests can assert exactly what was written.
type fakeGitHub struct {
	t  *testing.T
	mu sync.Mutex

	repos     map[string]*fakeRepo
	installed []ident.Repo
	id        ghmodel.Identity
	// artifacts maps "owner/name#runID/name" to a zip archive.
	artifacts map[string][]byte

	// conflicts makes the next n non-forced UpdateBranch calls fail with
	// ErrConflict after moving the branch (as a concurrent writer would).
	conflicts int
	// onConflict is what the concurrent writer commits.
	onConflict map[string][]byte
	// latency is how long CreateCommit takes (outside the lock), as a round
	// trip to GitHub does: concurrent publishers then read the same head.
	latency time.Duration

	writes   []string // "CreateCommit owner/name", …
	comments []string // commit comments: "owner/name@sha: body"
	nextPull int

	// seen counts the calls about each repository (lower-case owner/name).
	seen map[string]int
	// failRepo makes every call about a repository return its error, or
	// panic with it when the error is errPanic.
	failRepo map[string]error
	// failPath makes ReadFile of a path (in any repository) return its error.
	failPath map[string]error
}

// errPanic in fakeGitHub.failRepo makes calls about the repository panic.
var errPanic = errors.New("fake GitHub: panic")

type fakeRepo struct {
	defaultBranch string
	branches      map[string]string
	commits       map[string]fakeCommit
	pulls         []*fakePull
	releases      map[string]ghmodel.Release // by tag
	tags          map[string]string          // tag → commit
}

type fakeCommit struct {
	ghmodel.Commit
	files map[string][]byte
}

type fakePull struct {
	ghmodel.Pull
	base     string // the branch it merges into
	closed   bool
	comments []string
}

// closePull closes a pull request without merging it, as a maintainer does.
func (f *fakeGitHub) closePull(repo ident.Repo, number int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, _ := f.pull(repo, number)
	r, _ := f.repo(repo)
	p.closed, p.HeadSHA = true, r.branches[p.Head]
}

// calls returns how many calls were made about repo.
func (f *fakeGitHub) calls(repo ident.Repo) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen[strings.ToLower(repo.String())]
}

func newFake(t *testing.T) *fakeGitHub {
	return &fakeGitHub{t: t, repos: map[string]*fakeRepo{}, artifacts: map[string][]byte{},
		id: ghmodel.Identity{Login: "accuracy-bot[bot]"}, nextPull: 1, seen: map[string]int{}, failRepo: map[string]error{}}
}

// addRepo creates a repository whose main branch holds files in one commit.
func (f *fakeGitHub) addRepo(name string, files map[string]string, installed bool) ident.Repo {
	repo, err := ident.ParseRepo(name)
	if err != nil {
		f.t.Fatal(err)
	}
	r := &fakeRepo{defaultBranch: "main", branches: map[string]string{}, commits: map[string]fakeCommit{},
		releases: map[string]ghmodel.Release{}, tags: map[string]string{}}
	f.repos[strings.ToLower(name)] = r
	fs := map[string][]byte{}
	for k, v := range files {
		fs[k] = []byte(v)
	}
	r.branches["main"] = f.commitLocked(r, "", fs, "initial", ghmodel.Identity{Login: "human"})
	if installed {
		f.installed = append(f.installed, repo)
	}
	return repo
}

func (f *fakeGitHub) repo(repo ident.Repo) (*fakeRepo, error) {
	key := strings.ToLower(repo.String())
	f.seen[key]++
	if err := f.failRepo[key]; err != nil {
		if err == errPanic {
			panic(fmt.Sprintf("fake GitHub: a call about %s", repo))
		}
		return nil, err
	}
	r, ok := f.repos[key]
	if !ok {
		f.t.Errorf("fake GitHub: call about unknown repository %s", repo)
		return nil, fmt.Errorf("fake: repository %s: %w", repo, ghmodel.ErrNotFound)
	}
	return r, nil
}

func (f *fakeGitHub) commitLocked(r *fakeRepo, parent string, files map[string][]byte, msg string, author ghmodel.Identity) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d", parent, msg, len(r.commits))
	keys := slices.Sorted(maps.Keys(files))
	for _, k := range keys {
		fmt.Fprintf(h, "%s\x00%s\x00", k, files[k])
	}
	sha := hex.EncodeToString(h.Sum(nil))
	var parents []string
	if parent != "" {
		parents = []string{parent}
	}
	r.commits[sha] = fakeCommit{Commit: ghmodel.Commit{SHA: sha, Message: msg, AuthorLogin: author.Login, Parents: parents}, files: files}
	return sha
}

// push commits files on top of a branch as author (a human or a racing writer).
func (f *fakeGitHub) push(repo ident.Repo, branch string, files map[string]string, msg string, author ghmodel.Identity) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, _ := f.repo(repo)
	parent := r.branches[branch]
	fs := map[string][]byte{}
	if parent != "" {
		for k, v := range r.commits[parent].files {
			fs[k] = v
		}
	} else {
		for k, v := range r.commits[r.branches[r.defaultBranch]].files {
			fs[k] = v
		}
	}
	for k, v := range files {
		fs[k] = []byte(v)
	}
	sha := f.commitLocked(r, parent, fs, msg, author)
	r.branches[branch] = sha
	return sha
}

// tip returns the files at a branch head.
func (f *fakeGitHub) tip(repo ident.Repo, branch string) map[string][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, _ := f.repo(repo)
	sha, ok := r.branches[branch]
	if !ok {
		return nil
	}
	return r.commits[sha].files
}

func (f *fakeGitHub) openPulls(repo ident.Repo) []ghmodel.Pull {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, _ := f.repo(repo)
	var out []ghmodel.Pull
	for _, p := range r.pulls {
		if !p.closed {
			out = append(out, p.Pull)
		}
	}
	return out
}

// pullBase returns the branch pull request number merges into.
func (f *fakeGitHub) pullBase(repo ident.Repo, number int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, _ := f.repo(repo)
	for _, p := range r.pulls {
		if p.Number == number {
			return p.base
		}
	}
	return ""
}

func (f *fakeGitHub) countWrites(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, w := range f.writes {
		if strings.HasPrefix(w, prefix) {
			n++
		}
	}
	return n
}

func (f *fakeGitHub) DefaultBranch(_ context.Context, repo ident.Repo) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return "", err
	}
	return r.defaultBranch, nil
}

func (f *fakeGitHub) BranchHead(_ context.Context, repo ident.Repo, branch string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return "", err
	}
	sha, ok := r.branches[branch]
	if !ok {
		return "", fmt.Errorf("branch %s: %w", branch, ghmodel.ErrNotFound)
	}
	return sha, nil
}

func (f *fakeGitHub) GetCommit(_ context.Context, repo ident.Repo, sha string) (ghmodel.Commit, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return ghmodel.Commit{}, err
	}
	c, ok := r.commits[sha]
	if !ok {
		return ghmodel.Commit{}, fmt.Errorf("commit %s: %w", sha, ghmodel.ErrNotFound)
	}
	return c.Commit, nil
}

func (f *fakeGitHub) ReadFile(_ context.Context, repo ident.Repo, ref, p string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return nil, err
	}
	c, ok := r.commits[ref]
	if !ok {
		f.t.Errorf("fake GitHub: ReadFile at %q, which is not a commit SHA", ref)
		return nil, ghmodel.ErrNotFound
	}
	if err := f.failPath[p]; err != nil {
		return nil, err
	}
	data, ok := c.files[p]
	if !ok {
		return nil, fmt.Errorf("%s: %w", p, ghmodel.ErrNotFound)
	}
	return data, nil
}

func (f *fakeGitHub) ListDir(_ context.Context, repo ident.Repo, ref, dir string) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return nil, err
	}
	var names []string
	for p := range r.commits[ref].files {
		if path.Dir(p) == dir {
			names = append(names, path.Base(p))
		}
	}
	if names == nil {
		return nil, fmt.Errorf("%s: %w", dir, ghmodel.ErrNotFound)
	}
	sort.Strings(names)
	return names, nil
}

func (f *fakeGitHub) CreateCommit(_ context.Context, repo ident.Repo, base string, parents []string, files map[string][]byte, message string) (string, error) {
	time.Sleep(f.latency)
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return "", err
	}
	pc, ok := r.commits[base]
	if !ok {
		f.t.Errorf("fake GitHub: CreateCommit on unknown base %s", base)
		return "", ghmodel.ErrNotFound
	}
	for _, p := range parents {
		if _, ok := r.commits[p]; !ok {
			f.t.Errorf("fake GitHub: CreateCommit with unknown parent %s", p)
			return "", ghmodel.ErrNotFound
		}
	}
	fs := map[string][]byte{}
	for k, v := range pc.files {
		fs[k] = v
	}
	for k, v := range files {
		if v == nil {
			if _, ok := fs[k]; !ok {
				f.t.Errorf("fake GitHub: CreateCommit deletes %s, which %s does not have", k, base)
			}
			delete(fs, k)
			continue
		}
		fs[k] = v
	}
	f.writes = append(f.writes, "CreateCommit "+repo.String())
	sha := f.commitLocked(r, parents[0], fs, message, f.id)
	c := r.commits[sha]
	c.Parents = append([]string(nil), parents...)
	r.commits[sha] = c
	return sha, nil
}

func (f *fakeGitHub) CreateBranch(_ context.Context, repo ident.Repo, branch, sha string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return err
	}
	if _, ok := r.branches[branch]; ok {
		return fmt.Errorf("branch %s exists: %w", branch, ghmodel.ErrConflict)
	}
	f.writes = append(f.writes, "CreateBranch "+repo.String()+" "+branch)
	r.branches[branch] = sha
	return nil
}

func (f *fakeGitHub) UpdateBranch(_ context.Context, repo ident.Repo, branch, sha string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return err
	}
	old, ok := r.branches[branch]
	if !ok {
		return fmt.Errorf("branch %s: %w", branch, ghmodel.ErrNotFound)
	}
	if f.conflicts > 0 {
		f.conflicts--
		// A concurrent writer moves the branch first.
		fs := map[string][]byte{}
		for k, v := range r.commits[old].files {
			fs[k] = v
		}
		for k, v := range f.onConflict {
			fs[k] = v
		}
		r.branches[branch] = f.commitLocked(r, old, fs, "concurrent write", ghmodel.Identity{Login: "other"})
		return fmt.Errorf("update %s: %w", branch, ghmodel.ErrConflict)
	}
	if !slices.Contains(r.commits[sha].Parents, old) {
		return fmt.Errorf("update %s: not a fast-forward: %w", branch, ghmodel.ErrConflict)
	}
	f.writes = append(f.writes, "UpdateBranch "+repo.String()+" "+branch)
	r.branches[branch] = sha
	return nil
}

func (f *fakeGitHub) OpenPulls(_ context.Context, repo ident.Repo, _ string) ([]ghmodel.Pull, error) {
	return f.openPulls(repo), nil
}

func (f *fakeGitHub) ClosedPulls(_ context.Context, repo ident.Repo, branch string) ([]ghmodel.Pull, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return nil, err
	}
	var out []ghmodel.Pull
	for i := len(r.pulls) - 1; i >= 0; i-- { // newest first
		if p := r.pulls[i]; p.closed && p.Head == branch {
			out = append(out, p.Pull)
		}
	}
	return out, nil
}

func (f *fakeGitHub) CreatePull(_ context.Context, repo ident.Repo, head, base, title, body string) (ghmodel.Pull, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return ghmodel.Pull{}, err
	}
	if _, ok := r.branches[head]; !ok {
		f.t.Errorf("fake GitHub: CreatePull from missing branch %s", head)
	}
	p := &fakePull{Pull: ghmodel.Pull{Number: f.nextPull, Title: title, Body: body, Head: head, Author: f.id.Login}, base: base}
	f.nextPull++
	r.pulls = append(r.pulls, p)
	f.writes = append(f.writes, "CreatePull "+repo.String())
	return p.Pull, nil
}

func (f *fakeGitHub) pull(repo ident.Repo, number int) (*fakePull, error) {
	r, err := f.repo(repo)
	if err != nil {
		return nil, err
	}
	for _, p := range r.pulls {
		if p.Number == number {
			return p, nil
		}
	}
	f.t.Errorf("fake GitHub: no pull request #%d in %s", number, repo)
	return nil, ghmodel.ErrNotFound
}

func (f *fakeGitHub) EditPull(_ context.Context, repo ident.Repo, number int, title, body string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.pull(repo, number)
	if err != nil {
		return err
	}
	p.Title, p.Body = title, body
	f.writes = append(f.writes, "EditPull "+repo.String())
	return nil
}

func (f *fakeGitHub) ClosePull(_ context.Context, repo ident.Repo, number int, comment string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, err := f.pull(repo, number)
	if err != nil {
		return err
	}
	p.closed = true
	p.comments = append(p.comments, comment)
	f.writes = append(f.writes, "ClosePull "+repo.String())
	return nil
}

func (f *fakeGitHub) ReportRefusal(_ context.Context, repo ident.Repo, sha, body string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := f.repo(repo); err != nil {
		return err
	}
	f.comments = append(f.comments, repo.String()+"@"+sha+": "+body)
	f.writes = append(f.writes, "ReportRefusal "+repo.String())
	return nil
}

func (f *fakeGitHub) ResolveTag(_ context.Context, repo ident.Repo, tag string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return "", err
	}
	sha, ok := r.tags[tag]
	if !ok {
		return "", fmt.Errorf("tag %s: %w", tag, ghmodel.ErrNotFound)
	}
	return sha, nil
}

func (f *fakeGitHub) GetRelease(_ context.Context, repo ident.Repo, tag string) (ghmodel.Release, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return ghmodel.Release{}, err
	}
	rel, ok := r.releases[tag]
	if !ok {
		return ghmodel.Release{}, fmt.Errorf("release %s: %w", tag, ghmodel.ErrNotFound)
	}
	return rel, nil
}

func (f *fakeGitHub) IsAncestor(_ context.Context, repo ident.Repo, commit, branch string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return false, err
	}
	for sha := r.branches[branch]; sha != ""; {
		if sha == commit {
			return true, nil
		}
		c := r.commits[sha]
		if len(c.Parents) == 0 {
			break
		}
		sha = c.Parents[0]
	}
	return false, nil
}

func (f *fakeGitHub) InstalledRepos(context.Context) ([]ident.Repo, error) { return f.installed, nil }

func (f *fakeGitHub) Identity(context.Context) (ghmodel.Identity, error) { return f.id, nil }

func (f *fakeGitHub) RunArtifact(_ context.Context, repo ident.Repo, runID int64, name string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	data, ok := f.artifacts[fmt.Sprintf("%s#%d/%s", repo, runID, name)]
	if !ok {
		return nil, fmt.Errorf("artifact %s: %w", name, ghmodel.ErrNotFound)
	}
	return data, nil
}

// release publishes a release of the harness: the tag points at a new commit on main.
func (f *fakeGitHub) release(repo ident.Repo, tag, notes string) (ghmodel.Release, string) {
	sha := f.push(repo, "main", map[string]string{"VERSION": tag}, "release "+tag, ghmodel.Identity{Login: "maintainer"})
	f.mu.Lock()
	defer f.mu.Unlock()
	r, _ := f.repo(repo)
	r.tags[tag] = sha
	rel := ghmodel.Release{Repo: repo, Tag: tag, Notes: notes}
	r.releases[tag] = rel
	return rel, sha
}
