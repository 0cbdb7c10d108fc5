// Package bumpfake is an in-memory GitHub for the bot's tests (pin bumps in
// internal/bump, publishing in internal/publish): repositories of commits
// (full file snapshots), branches, pull requests, releases and artifacts,
// implementing both packages' GitHub interfaces.
package bumpfake

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

// GitHub is an in-memory GitHub: repositories of commits (full file
// snapshots), branches, pull requests, releases and artifacts. It fails the
// test on any call about a repository it was not given, and records every
// mutating call so tests can assert exactly what was written.
type GitHub struct {
	t  testing.TB
	Mu sync.Mutex

	Repos     map[string]*FakeRepo
	Installed []ident.Repo
	ID        ghmodel.Identity
	// artifacts maps "owner/name#runID/name" to a zip archive.
	Artifacts map[string][]byte

	// conflicts makes the next n non-forced UpdateBranch calls fail with
	// ErrConflict after moving the branch (as a concurrent writer would).
	Conflicts int
	// onConflict is what the concurrent writer commits.
	OnConflict map[string][]byte
	// latency is how long CreateCommit takes (outside the lock), as a round
	// trip to GitHub does: concurrent publishers then read the same head.
	Latency time.Duration

	Writes   []string // "CreateCommit owner/name", …
	Comments []string // commit Comments: "owner/name@sha: body"
	nextPull int

	// seen counts the calls about each repository (lower-case owner/name).
	seen map[string]int
	// failRepo makes every call about a repository return its error, or
	// panic with it when the error is ErrPanic.
	FailRepo map[string]error
	// failPath makes ReadFile of a path (in any repository) return its error.
	FailPath map[string]error
}

// ErrPanic in GitHub.failRepo makes calls about the repository panic.
var ErrPanic = errors.New("fake GitHub: panic")

type FakeRepo struct {
	defaultBranch string
	branches      map[string]string
	commits       map[string]FakeCommit
	Pulls         []*FakePull
	releases      map[string]ghmodel.Release // by tag
	tags          map[string]string          // tag → commit
}

type FakeCommit struct {
	ghmodel.Commit
	files map[string][]byte
}

type FakePull struct {
	ghmodel.Pull
	base     string // the branch it merges into
	closed   bool
	Comments []string
}

// closePull closes a pull request without merging it, as a maintainer does.
func (f *GitHub) MarkClosed(repo ident.Repo, number int) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	p, _ := f.pull(repo, number)
	r, _ := f.repo(repo)
	p.closed, p.HeadSHA = true, r.branches[p.Head]
}

// calls returns how many calls were made about repo.
func (f *GitHub) Calls(repo ident.Repo) int {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	return f.seen[strings.ToLower(repo.String())]
}

func New(t testing.TB) *GitHub {
	return &GitHub{t: t, Repos: map[string]*FakeRepo{}, Artifacts: map[string][]byte{},
		ID: ghmodel.Identity{Login: "accuracy-bot[bot]"}, nextPull: 1, seen: map[string]int{}, FailRepo: map[string]error{}}
}

// addRepo creates a repository whose main branch holds files in one commit.
func (f *GitHub) AddRepo(name string, files map[string]string, installed bool) ident.Repo {
	repo, err := ident.ParseRepo(name)
	if err != nil {
		f.t.Fatal(err)
	}
	r := &FakeRepo{defaultBranch: "main", branches: map[string]string{}, commits: map[string]FakeCommit{},
		releases: map[string]ghmodel.Release{}, tags: map[string]string{}}
	f.Repos[strings.ToLower(name)] = r
	fs := map[string][]byte{}
	for k, v := range files {
		fs[k] = []byte(v)
	}
	r.branches["main"] = f.commitLocked(r, "", fs, "initial", ghmodel.Identity{Login: "human"})
	if installed {
		f.Installed = append(f.Installed, repo)
	}
	return repo
}

func (f *GitHub) repo(repo ident.Repo) (*FakeRepo, error) {
	key := strings.ToLower(repo.String())
	f.seen[key]++
	if err := f.FailRepo[key]; err != nil {
		if err == ErrPanic {
			panic(fmt.Sprintf("fake GitHub: a call about %s", repo))
		}
		return nil, err
	}
	r, ok := f.Repos[key]
	if !ok {
		f.t.Errorf("fake GitHub: call about unknown repository %s", repo)
		return nil, fmt.Errorf("fake: repository %s: %w", repo, ghmodel.ErrNotFound)
	}
	return r, nil
}

func (f *GitHub) commitLocked(r *FakeRepo, parent string, files map[string][]byte, msg string, author ghmodel.Identity) string {
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
	r.commits[sha] = FakeCommit{Commit: ghmodel.Commit{SHA: sha, Message: msg, AuthorLogin: author.Login, Parents: parents}, files: files}
	return sha
}

// push commits files on top of a branch as author (a human or a racing writer).
func (f *GitHub) Push(repo ident.Repo, branch string, files map[string]string, msg string, author ghmodel.Identity) string {
	f.Mu.Lock()
	defer f.Mu.Unlock()
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
func (f *GitHub) Tip(repo ident.Repo, branch string) map[string][]byte {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	r, _ := f.repo(repo)
	sha, ok := r.branches[branch]
	if !ok {
		return nil
	}
	return r.commits[sha].files
}

func (f *GitHub) OpenPullsOf(repo ident.Repo) []ghmodel.Pull {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	r, _ := f.repo(repo)
	var out []ghmodel.Pull
	for _, p := range r.Pulls {
		if !p.closed {
			out = append(out, p.Pull)
		}
	}
	return out
}

// pullBase returns the branch pull request number merges into.
func (f *GitHub) PullBase(repo ident.Repo, number int) string {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	r, _ := f.repo(repo)
	for _, p := range r.Pulls {
		if p.Number == number {
			return p.base
		}
	}
	return ""
}

func (f *GitHub) CountWrites(prefix string) int {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	n := 0
	for _, w := range f.Writes {
		if strings.HasPrefix(w, prefix) {
			n++
		}
	}
	return n
}

func (f *GitHub) DefaultBranch(_ context.Context, repo ident.Repo) (string, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return "", err
	}
	return r.defaultBranch, nil
}

func (f *GitHub) BranchHead(_ context.Context, repo ident.Repo, branch string) (string, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
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

func (f *GitHub) GetCommit(_ context.Context, repo ident.Repo, sha string) (ghmodel.Commit, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
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

func (f *GitHub) ReadFile(_ context.Context, repo ident.Repo, ref, p string) ([]byte, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return nil, err
	}
	c, ok := r.commits[ref]
	if !ok {
		f.t.Errorf("fake GitHub: ReadFile at %q, which is not a commit SHA", ref)
		return nil, ghmodel.ErrNotFound
	}
	if err := f.FailPath[p]; err != nil {
		return nil, err
	}
	data, ok := c.files[p]
	if !ok {
		return nil, fmt.Errorf("%s: %w", p, ghmodel.ErrNotFound)
	}
	return data, nil
}

func (f *GitHub) ListDir(_ context.Context, repo ident.Repo, ref, dir string) ([]string, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
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

// ListFiles lists every file under dir at ref, at any depth, with its
// path, sorted; none is ghmodel.ErrNotFound.
func (f *GitHub) ListFiles(_ context.Context, repo ident.Repo, ref, dir string) ([]string, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return nil, err
	}
	var files []string
	for p := range r.commits[ref].files {
		if strings.HasPrefix(p, dir+"/") {
			files = append(files, p)
		}
	}
	if files == nil {
		return nil, fmt.Errorf("%s: %w", dir, ghmodel.ErrNotFound)
	}
	sort.Strings(files)
	return files, nil
}

func (f *GitHub) CreateCommit(_ context.Context, repo ident.Repo, base string, parents []string, files map[string][]byte, message string) (string, error) {
	time.Sleep(f.Latency)
	f.Mu.Lock()
	defer f.Mu.Unlock()
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
	f.Writes = append(f.Writes, "CreateCommit "+repo.String())
	sha := f.commitLocked(r, parents[0], fs, message, f.ID)
	c := r.commits[sha]
	c.Parents = append([]string(nil), parents...)
	r.commits[sha] = c
	return sha, nil
}

func (f *GitHub) CreateBranch(_ context.Context, repo ident.Repo, branch, sha string) error {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return err
	}
	if _, ok := r.branches[branch]; ok {
		return fmt.Errorf("branch %s exists: %w", branch, ghmodel.ErrConflict)
	}
	f.Writes = append(f.Writes, "CreateBranch "+repo.String()+" "+branch)
	r.branches[branch] = sha
	return nil
}

func (f *GitHub) UpdateBranch(_ context.Context, repo ident.Repo, branch, sha string) error {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return err
	}
	old, ok := r.branches[branch]
	if !ok {
		return fmt.Errorf("branch %s: %w", branch, ghmodel.ErrNotFound)
	}
	if f.Conflicts > 0 {
		f.Conflicts--
		// A concurrent writer moves the branch first.
		fs := map[string][]byte{}
		for k, v := range r.commits[old].files {
			fs[k] = v
		}
		for k, v := range f.OnConflict {
			fs[k] = v
		}
		r.branches[branch] = f.commitLocked(r, old, fs, "concurrent write", ghmodel.Identity{Login: "other"})
		return fmt.Errorf("update %s: %w", branch, ghmodel.ErrConflict)
	}
	if !slices.Contains(r.commits[sha].Parents, old) {
		return fmt.Errorf("update %s: not a fast-forward: %w", branch, ghmodel.ErrConflict)
	}
	f.Writes = append(f.Writes, "UpdateBranch "+repo.String()+" "+branch)
	r.branches[branch] = sha
	return nil
}

func (f *GitHub) OpenPulls(_ context.Context, repo ident.Repo, _ string) ([]ghmodel.Pull, error) {
	return f.OpenPullsOf(repo), nil
}

func (f *GitHub) ClosedPulls(_ context.Context, repo ident.Repo, branch string) ([]ghmodel.Pull, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return nil, err
	}
	var out []ghmodel.Pull
	for i := len(r.Pulls) - 1; i >= 0; i-- { // newest first
		if p := r.Pulls[i]; p.closed && p.Head == branch {
			out = append(out, p.Pull)
		}
	}
	return out, nil
}

func (f *GitHub) CreatePull(_ context.Context, repo ident.Repo, head, base, title, body string) (ghmodel.Pull, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	r, err := f.repo(repo)
	if err != nil {
		return ghmodel.Pull{}, err
	}
	if _, ok := r.branches[head]; !ok {
		f.t.Errorf("fake GitHub: CreatePull from missing branch %s", head)
	}
	p := &FakePull{Pull: ghmodel.Pull{Number: f.nextPull, Title: title, Body: body, Head: head, Author: f.ID.Login}, base: base}
	f.nextPull++
	r.Pulls = append(r.Pulls, p)
	f.Writes = append(f.Writes, "CreatePull "+repo.String())
	return p.Pull, nil
}

func (f *GitHub) pull(repo ident.Repo, number int) (*FakePull, error) {
	r, err := f.repo(repo)
	if err != nil {
		return nil, err
	}
	for _, p := range r.Pulls {
		if p.Number == number {
			return p, nil
		}
	}
	f.t.Errorf("fake GitHub: no pull request #%d in %s", number, repo)
	return nil, ghmodel.ErrNotFound
}

func (f *GitHub) EditPull(_ context.Context, repo ident.Repo, number int, title, body string) error {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	p, err := f.pull(repo, number)
	if err != nil {
		return err
	}
	p.Title, p.Body = title, body
	f.Writes = append(f.Writes, "EditPull "+repo.String())
	return nil
}

func (f *GitHub) ClosePull(_ context.Context, repo ident.Repo, number int, comment string) error {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	p, err := f.pull(repo, number)
	if err != nil {
		return err
	}
	p.closed = true
	p.Comments = append(p.Comments, comment)
	f.Writes = append(f.Writes, "ClosePull "+repo.String())
	return nil
}

func (f *GitHub) ReportRefusal(_ context.Context, repo ident.Repo, sha, body string) error {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	if _, err := f.repo(repo); err != nil {
		return err
	}
	f.Comments = append(f.Comments, repo.String()+"@"+sha+": "+body)
	f.Writes = append(f.Writes, "ReportRefusal "+repo.String())
	return nil
}

func (f *GitHub) ResolveTag(_ context.Context, repo ident.Repo, tag string) (string, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
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

func (f *GitHub) GetRelease(_ context.Context, repo ident.Repo, tag string) (ghmodel.Release, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
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

func (f *GitHub) IsAncestor(_ context.Context, repo ident.Repo, commit, branch string) (bool, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
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

func (f *GitHub) InstalledRepos(context.Context) ([]ident.Repo, error) { return f.Installed, nil }

func (f *GitHub) Identity(context.Context) (ghmodel.Identity, error) { return f.ID, nil }

func (f *GitHub) RunArtifact(_ context.Context, repo ident.Repo, runID int64, name string) ([]byte, error) {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	data, ok := f.Artifacts[fmt.Sprintf("%s#%d/%s", repo, runID, name)]
	if !ok {
		return nil, fmt.Errorf("artifact %s: %w", name, ghmodel.ErrNotFound)
	}
	return data, nil
}

// release publishes a release of the harness: the tag points at a new commit on main.
func (f *GitHub) AddRelease(repo ident.Repo, tag, notes string) (ghmodel.Release, string) {
	sha := f.Push(repo, "main", map[string]string{"VERSION": tag}, "release "+tag, ghmodel.Identity{Login: "maintainer"})
	f.Mu.Lock()
	defer f.Mu.Unlock()
	r, _ := f.repo(repo)
	r.tags[tag] = sha
	rel := ghmodel.Release{Repo: repo, Tag: tag, Notes: notes}
	r.releases[tag] = rel
	return rel, sha
}

func (f *GitHub) TipSHA(repo ident.Repo, branch string) string {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	r, _ := f.repo(repo)
	return r.branches[branch]
}
