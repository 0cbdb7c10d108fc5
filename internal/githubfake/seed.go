package githubfake

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v4"
)

// repo is one repository's state.
type repo struct {
	id            int64
	owner, name   string
	defaultBranch string
	private       bool

	objects    map[string]*object
	refs       map[string]string // full ref name → sha
	nextNumber int
	pulls      map[int]*pull
	comments   []*comment
	// commitComments are comments on commits, oldest first.
	commitComments []*commitComment
	releases       []*release
	runs           map[int64]*WorkflowRun
	artifacts      map[int64]*artifact
}

func (r *repo) fullName() string { return r.owner + "/" + r.name }

type pull struct {
	id       int64
	number   int
	state    string
	title    string
	body     string
	user     string
	headRef  string
	headSHA  string // fixed for a fork head; else follows the branch
	headRepo string
	baseRef  string
	draft    bool
	created  time.Time
	updated  time.Time
}

type comment struct {
	id      int64
	issue   int
	body    string
	user    string
	created time.Time
	updated time.Time
}

type commitComment struct {
	id      int64
	sha     string
	body    string
	user    string
	created time.Time
}

type release struct {
	id         int64
	tag        string
	name       string
	body       string
	target     string
	draft      bool
	prerelease bool
	author     string
	created    time.Time
}

type artifact struct {
	id       int64
	runID    int64
	name     string
	zip      []byte
	expired  bool
	blobName string
	sig      string
	created  time.Time
}

// PullRequest describes a pull request to seed, and is what PullRequests reports.
type PullRequest struct {
	Number int    // assigned by AddPullRequest
	State  string // "open" (default) or "closed"
	Title  string
	Body   string
	User   string // author login; default "octocat"
	Head   string // head branch name
	// HeadRepo is the head repository's full name; default the repository
	// itself. A different repository makes a fork pull request.
	HeadRepo string
	// HeadSHA is the head commit; required for a fork head (the fake does not
	// hold the fork), else taken from the head branch.
	HeadSHA string
	Base    string // base branch; default the default branch
	Draft   bool
}

// Comment is an issue, pull request or commit comment.
type Comment struct {
	ID   int64
	User string
	Body string
}

// Release describes a release to seed.
type Release struct {
	Tag        string
	Name       string
	Body       string
	Target     string // target_commitish; default the default branch
	Draft      bool
	Prerelease bool
}

// WorkflowRun describes a workflow run to seed: what its artifacts report
// of it.
type WorkflowRun struct {
	ID         int64 // assigned by AddWorkflowRun
	HeadSHA    string
	HeadBranch string
}

// AddRepo creates an empty repository "owner/name" whose default branch is
// defaultBranch (default "main"). Seed it with Commit.
func (s *Server) AddRepo(fullName, defaultBranch string) {
	s.t.Helper()
	owner, name, ok := strings.Cut(fullName, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		s.t.Fatalf("githubfake: AddRepo(%q): want owner/name", fullName)
	}
	if defaultBranch == "" {
		defaultBranch = "main"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := strings.ToLower(fullName)
	if _, ok := s.repos[key]; ok {
		s.t.Fatalf("githubfake: AddRepo(%q): repository exists", fullName)
	}
	s.repos[key] = &repo{
		id: s.newID(), owner: owner, name: name, defaultBranch: defaultBranch,
		objects: map[string]*object{}, refs: map[string]string{}, nextNumber: 1,
		pulls: map[int]*pull{},
		runs:  map[int64]*WorkflowRun{}, artifacts: map[int64]*artifact{},
	}
}

func (s *Server) mustRepo(fullName string) *repo {
	s.t.Helper()
	r := s.repos[strings.ToLower(fullName)]
	if r == nil {
		s.t.Fatalf("githubfake: no repository %q (AddRepo it first)", fullName)
	}
	return r
}

func (s *Server) newID() int64 {
	s.nextID++
	return s.nextID
}

// stamp returns a strictly increasing timestamp for seeded and created
// objects, so that history order is deterministic.
func (s *Server) stamp() time.Time {
	s.tick = s.tick.Add(time.Minute)
	return s.tick
}

// Commit adds a commit on branch (created if absent, from the default
// branch's tip when that exists) that writes files (path → content; an empty
// content deletes the path), authored and committed by the GitHub user
// author, and returns its sha.
func (s *Server) Commit(fullName, branch, author, message string, files map[string]string) string {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(fullName)
	ref := "refs/heads/" + branch
	parent, ok := r.refs[ref]
	if !ok {
		parent = r.refs["refs/heads/"+r.defaultBranch]
	}
	flat := map[string]flatEntry{}
	var parents []string
	if parent != "" {
		parents = []string{parent}
		r.flatten(r.objects[parent].Commit.Tree, "", flat)
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if files[p] == "" {
			delete(flat, p)
			continue
		}
		flat[p] = flatEntry{Mode: "100644", Type: "blob", SHA: r.put(&object{Type: "blob", Data: []byte(files[p])})}
	}
	sig := signature{Name: author, Email: author + "@users.noreply.github.com", Login: author, Date: s.stamp()}
	sha := r.put(&object{Type: "commit", Commit: &gitCommit{
		Tree: r.buildTree(flat), Parents: parents, Message: message, Author: sig, Committer: sig,
	}})
	r.refs[ref] = sha
	s.followRef(r, ref)
	return sha
}

// followRef updates the head sha of open same-repository pull requests whose
// head branch is ref.
func (s *Server) followRef(r *repo, ref string) {
	for _, p := range r.pulls {
		if p.headRepo == r.fullName() && "refs/heads/"+p.headRef == ref && p.state == "open" {
			if sha, ok := r.refs[ref]; ok {
				p.headSHA = sha
				p.updated = s.stamp()
			}
		}
	}
}

// Ref returns the sha ref (full name) points at.
func (s *Server) Ref(fullName, ref string) (string, bool) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	sha, ok := s.mustRepo(fullName).refs[ref]
	return sha, ok
}

// ForeignCommit makes the repository hold a commit named sha whose content
// the fake does not know (an empty tree, no parents): a commit of a real git
// repository the test also serves elsewhere (a local clone), so that Tag and
// refs can name it by its real sha.
func (s *Server) ForeignCommit(fullName, sha, message string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(fullName)
	if len(sha) != 40 || strings.Trim(sha, "0123456789abcdef") != "" {
		s.t.Fatalf("githubfake: ForeignCommit(%q, %q): not a 40-hex sha", fullName, sha)
	}
	sig := signature{Name: "upstream", Email: "upstream@users.noreply.github.com", Date: s.stamp()}
	r.objects[sha] = &object{Type: "commit", Commit: &gitCommit{Tree: r.buildTree(map[string]flatEntry{}), Message: message, Author: sig, Committer: sig}}
}

// Tag creates refs/tags/name at commit sha. An annotated tag creates a tag
// object too and the ref names it. It returns the sha the ref names.
func (s *Server) Tag(fullName, name, sha string, annotated bool) string {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(fullName)
	if _, ok := r.object(sha, "commit"); !ok {
		s.t.Fatalf("githubfake: Tag(%q, %q): no commit %s", fullName, name, sha)
	}
	target := sha
	if annotated {
		target = r.put(&object{Type: "tag", Tag: &gitTag{
			Tag: name, Message: "Release " + name + "\n", Object: sha, Type: "commit",
			Tagger: signature{Name: "releaser", Email: "releaser@users.noreply.github.com", Date: s.stamp()},
		}})
	}
	r.refs["refs/tags/"+name] = target
	return target
}

// AddRelease publishes a release of an existing tag and returns its id.
func (s *Server) AddRelease(fullName string, rel Release) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(fullName)
	if rel.Target == "" {
		rel.Target = r.defaultBranch
	}
	id := s.newID()
	r.releases = append(r.releases, &release{
		id: id, tag: rel.Tag, name: rel.Name, body: rel.Body, target: rel.Target,
		draft: rel.Draft, prerelease: rel.Prerelease, author: "releaser", created: s.stamp(),
	})
	return id
}

// AddPullRequest opens a pull request and returns its number.
func (s *Server) AddPullRequest(fullName string, p PullRequest) int {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(fullName)
	if p.HeadRepo == "" {
		p.HeadRepo = r.fullName()
	}
	if p.HeadSHA == "" {
		sha, ok := r.refs["refs/heads/"+p.Head]
		if !ok || p.HeadRepo != r.fullName() {
			s.t.Fatalf("githubfake: AddPullRequest(%q): no head sha for %s:%s", fullName, p.HeadRepo, p.Head)
		}
		p.HeadSHA = sha
	}
	if p.Base == "" {
		p.Base = r.defaultBranch
	}
	if p.User == "" {
		p.User = "octocat"
	}
	if p.State == "" {
		p.State = "open"
	}
	return s.openPull(r, p).number
}

func (s *Server) openPull(r *repo, p PullRequest) *pull {
	now := s.stamp()
	pr := &pull{
		id: s.newID(), number: r.nextNumber, state: p.State, title: p.Title, body: p.Body, user: p.User,
		headRef: p.Head, headSHA: p.HeadSHA, headRepo: p.HeadRepo, baseRef: p.Base, draft: p.Draft,
		created: now, updated: now,
	}
	r.nextNumber++
	r.pulls[pr.number] = pr
	return pr
}

// ClosePullRequest closes a pull request without merging it, as a
// maintainer does; its head commit stays the one it had.
func (s *Server) ClosePullRequest(fullName string, number int) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.mustRepo(fullName).pulls[number]
	if !ok {
		s.t.Fatalf("githubfake: ClosePullRequest(%q, %d): no such pull request", fullName, number)
	}
	p.state, p.updated = "closed", s.stamp()
}

// PullRequests lists the repository's pull requests by number.
func (s *Server) PullRequests(fullName string) []PullRequest {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(fullName)
	var out []PullRequest
	for _, p := range r.pulls {
		out = append(out, PullRequest{
			Number: p.number, State: p.state, Title: p.title, Body: p.body, User: p.user,
			Head: p.headRef, HeadRepo: p.headRepo, HeadSHA: p.headSHA, Base: p.baseRef, Draft: p.draft,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out
}

// AddComment adds a comment by user to issue or pull request number.
func (s *Server) AddComment(fullName string, number int, user, body string) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(fullName)
	now := s.stamp()
	c := &comment{id: s.newID(), issue: number, body: body, user: user, created: now, updated: now}
	r.comments = append(r.comments, c)
	return c.id
}

// Comments lists the comments of issue or pull request number, oldest first.
func (s *Server) Comments(fullName string, number int) []Comment {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.mustRepo(fullName).comments {
		if c.issue == number {
			out = append(out, Comment{ID: c.id, User: c.user, Body: c.body})
		}
	}
	return out
}

// File returns the content of path at ref (branch, tag or sha).
func (s *Server) File(fullName, ref, path string) (string, bool) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(fullName)
	sha, ok := r.resolve(ref)
	if !ok {
		return "", false
	}
	e, ok := r.lookupPath(r.objects[sha].Commit.Tree, path)
	if !ok || e.Type != "blob" {
		return "", false
	}
	return string(r.objects[e.SHA].Data), true
}

// CommitInfo is what Commits reports about one commit.
type CommitInfo struct {
	SHA            string
	Parents        []string
	Message        string
	AuthorLogin    string
	CommitterLogin string
}

// Commits lists the history of ref, newest first.
func (s *Server) Commits(fullName, ref string) []CommitInfo {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(fullName)
	sha, ok := r.resolve(ref)
	if !ok {
		return nil
	}
	var out []CommitInfo
	for _, c := range r.history(sha) {
		gc := r.objects[c].Commit
		out = append(out, CommitInfo{SHA: c, Parents: gc.Parents, Message: gc.Message, AuthorLogin: gc.Author.Login, CommitterLogin: gc.Committer.Login})
	}
	return out
}

// CommitComments lists the comments created on commit sha, oldest first.
func (s *Server) CommitComments(fullName, sha string) []Comment {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.mustRepo(fullName).commitComments {
		if c.sha == sha {
			out = append(out, Comment{ID: c.id, User: c.user, Body: c.body})
		}
	}
	return out
}

// AddWorkflowRun records a workflow run and returns its id.
func (s *Server) AddWorkflowRun(fullName string, run WorkflowRun) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(fullName)
	run.ID = s.newID()
	r.runs[run.ID] = &run
	return run.ID
}

// AddArtifact attaches an artifact (the bytes of its zip archive) to a run
// and returns its id. An expired artifact answers 410 on download.
func (s *Server) AddArtifact(fullName string, runID int64, name string, zip []byte, expired bool) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.mustRepo(fullName)
	if _, ok := r.runs[runID]; !ok {
		s.t.Fatalf("githubfake: AddArtifact(%q): no run %d", fullName, runID)
	}
	id := s.newID()
	sig := make([]byte, 8)
	_, _ = rand.Read(sig)
	r.artifacts[id] = &artifact{
		id: id, runID: runID, name: name, zip: append([]byte(nil), zip...), expired: expired,
		blobName: "artifact-" + strconv.FormatInt(id, 10) + ".zip", sig: hex.EncodeToString(sig), created: s.stamp(),
	}
	return id
}

// verifyJWT checks an App JWT as GitHub does: RS256 signed by the App's
// key, issuer the App id, issued-at not in the future, at most 10 minutes
// of validity, not expired.
func (s *Server) verifyJWT(token string) error {
	app := s.opts.App
	if app.PublicKey == nil {
		return errors.New("githubfake: App.PublicKey is not set")
	}
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) { return app.PublicKey, nil },
		jwt.WithValidMethods([]string{"RS256"}))
	if err != nil {
		return err
	}
	iss := fmt.Sprint(claims["iss"])
	if iss != strconv.FormatInt(app.ID, 10) {
		return fmt.Errorf("issuer %q is not app %d", iss, app.ID)
	}
	iat, ok1 := claims["iat"].(float64)
	exp, ok2 := claims["exp"].(float64)
	if !ok1 || !ok2 {
		return errors.New("iat and exp are required")
	}
	if exp-iat > 600 {
		return errors.New("'Expiration time' claim ('exp') is too far in the future")
	}
	return nil
}

// mintInstallationToken creates a token for installation inst scoped to
// repos (names within the installation's account; all when empty).
func (s *Server) mintInstallationToken(inst Installation, repos []string) (string, []string, error) {
	scope := map[string]bool{}
	var names []string
	allowed := map[string]bool{}
	for _, full := range inst.Repositories {
		allowed[strings.ToLower(full)] = true
	}
	if len(repos) == 0 {
		for _, full := range inst.Repositories {
			scope[strings.ToLower(full)] = true
			names = append(names, full)
		}
	}
	for _, name := range repos {
		full := inst.Account + "/" + name
		if !allowed[strings.ToLower(full)] {
			return "", nil, fmt.Errorf("There is at least one repository that does not exist or is not accessible to the parent installation.")
		}
		scope[strings.ToLower(full)] = true
		names = append(names, full)
	}
	buf := make([]byte, 16)
	_, _ = rand.Read(buf)
	tok := "ghs_" + hex.EncodeToString(buf)
	s.tokens[tok] = &identity{kind: "installation", login: s.opts.App.Slug + "[bot]", installationID: inst.ID, repos: scope}
	return tok, names, nil
}

// Install adds an installation of the App (Options.App must be set), as
// when an account installs it.
func (s *Server) Install(inst Installation) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.App == nil {
		s.t.Fatalf("githubfake: Install(%d): the fake has no App", inst.ID)
	}
	if _, ok := s.installation(inst.ID); ok {
		s.t.Fatalf("githubfake: Install(%d): installation exists", inst.ID)
	}
	s.opts.App.Installations = append(s.opts.App.Installations, inst)
}

// Uninstall removes installation id and, as GitHub does, revokes its
// tokens: requests made with them answer 401 "Bad credentials", and no new
// token is minted for it (404).
func (s *Server) Uninstall(id int64) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.installation(id); !ok {
		s.t.Fatalf("githubfake: Uninstall(%d): no such installation", id)
	}
	kept := s.opts.App.Installations[:0]
	for _, inst := range s.opts.App.Installations {
		if inst.ID != id {
			kept = append(kept, inst)
		}
	}
	s.opts.App.Installations = kept
	for tok, who := range s.tokens {
		if who.kind == "installation" && who.installationID == id {
			delete(s.tokens, tok)
		}
	}
}

// InstallationTokens reports how many installation tokens were minted.
func (s *Server) InstallationTokens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, id := range s.tokens {
		if id.kind == "installation" {
			n++
		}
	}
	return n
}
