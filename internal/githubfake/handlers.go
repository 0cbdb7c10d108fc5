package githubfake

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// handlers maps each implemented GitHub operationId to its handler. Handlers
// run under the server lock with c.repo set for repository operations.
var handlers map[string]handlerFunc

func init() {
	handlers = map[string]handlerFunc{
		"users/get-authenticated":                    getAuthenticatedUser,
		"apps/get-authenticated":                     getAuthenticatedApp,
		"apps/list-installations":                    listInstallations,
		"apps/create-installation-access-token":      createInstallationToken,
		"apps/get-repo-installation":                 getRepoInstallation,
		"apps/list-repos-accessible-to-installation": listInstallationRepos,
		"apps/list-webhook-deliveries":               listHookDeliveries,
		"apps/redeliver-webhook-delivery":            redeliverHookDelivery,
		"repos/get":                                  getRepo,
		"issues/list-comments":                       listComments,
		"issues/create-comment":                      createComment,
		"issues/update-comment":                      updateComment,
		"issues/delete-comment":                      deleteComment,
		"pulls/get":                                  getPull,
		"pulls/list":                                 listPulls,
		"pulls/create":                               createPull,
		"pulls/update":                               updatePull,
		"git/get-ref":                                getRef,
		"git/list-matching-refs":                     listMatchingRefs,
		"git/create-ref":                             createRef,
		"git/update-ref":                             updateRef,
		"git/get-commit":                             getGitCommit,
		"git/create-tree":                            createTree,
		"git/create-commit":                          createGitCommit,
		"git/get-tag":                                getGitTag,
		"repos/get-content":                          getContent,
		"repos/compare-commits-with-basehead":        compareCommits,
		"repos/list-commits":                         listCommits,
		"repos/get-release-by-tag":                   getReleaseByTag,
		"repos/create-commit-comment":                createCommitComment,
		"actions/list-workflow-run-artifacts":        listRunArtifacts,
		"actions/download-artifact":                  downloadArtifact,
	}
}

func ok(status int, body any) response { return response{status: status, body: body} }

func notFound() response { return errorResponse(http.StatusNotFound, "Not Found") }

func unprocessable(msg string) response {
	return errorResponse(http.StatusUnprocessableEntity, msg)
}

// decode reads the JSON request body into v (validated already).
func (c *call) decode(v any) bool {
	return json.Unmarshal(c.body, v) == nil
}

func (c *call) intVar(name string) (int64, bool) {
	n, err := strconv.ParseInt(c.vars[name], 10, 64)
	return n, err == nil
}

func getAuthenticatedUser(c *call) response {
	if c.who.kind != "user" {
		return looseError(http.StatusForbidden, "Resource not accessible by integration")
	}
	u := c.s.userJSON(c.who.login)
	u["user_view_type"] = "private" // the token's own user sees the private view
	return ok(http.StatusOK, u)
}

func (s *Server) appJSON() map[string]any {
	app := s.opts.App
	return map[string]any{
		"id": app.ID, "slug": app.Slug, "node_id": "A_" + app.Slug, "name": app.Name,
		"owner": s.userJSON("app-owner"), "description": nil, "external_url": s.html("/apps/%s", app.Slug),
		"html_url": s.html("/apps/%s", app.Slug), "created_at": placeholderDate, "updated_at": placeholderDate,
		"permissions": map[string]any{"contents": "write", "pull_requests": "write", "metadata": "read"},
		"events":      []any{"release", "workflow_run"},
	}
}

func getAuthenticatedApp(c *call) response { return ok(http.StatusOK, c.s.appJSON()) }

func listInstallations(c *call) response {
	items := []any{}
	for _, inst := range c.s.opts.App.Installations {
		items = append(items, c.s.installationJSON(inst))
	}
	page, h := c.paginate(items)
	return response{status: http.StatusOK, body: page, header: h}
}

func (s *Server) installation(id int64) (Installation, bool) {
	if s.opts.App == nil {
		return Installation{}, false
	}
	for _, inst := range s.opts.App.Installations {
		if inst.ID == id {
			return inst, true
		}
	}
	return Installation{}, false
}

func createInstallationToken(c *call) response {
	id, _ := c.intVar("installation_id")
	inst, found := c.s.installation(id)
	if !found {
		return notFound()
	}
	var req struct {
		Repositories []string `json:"repositories"`
	}
	if len(c.body) > 0 {
		c.decode(&req)
	}
	tok, names, err := c.s.mintInstallationToken(inst, req.Repositories)
	if err != nil {
		return unprocessable(err.Error())
	}
	repos := []any{}
	for _, full := range names {
		repos = append(repos, c.s.repoJSONByName(full, c.s.repos[strings.ToLower(full)]))
	}
	return ok(http.StatusCreated, map[string]any{
		"token":                tok,
		"expires_at":           ts(time.Now().Add(time.Hour)),
		"permissions":          map[string]any{"contents": "write", "pull_requests": "write", "metadata": "read"},
		"repository_selection": "selected",
		"repositories":         repos,
	})
}

func getRepoInstallation(c *call) response {
	if c.s.opts.App != nil {
		for _, inst := range c.s.opts.App.Installations {
			for _, full := range inst.Repositories {
				if strings.EqualFold(full, c.repo.fullName()) {
					return ok(http.StatusOK, c.s.installationJSON(inst))
				}
			}
		}
	}
	return notFound()
}

func listInstallationRepos(c *call) response {
	if c.who.kind != "installation" {
		return looseError(http.StatusForbidden, "This endpoint requires an installation access token")
	}
	items := []any{}
	for _, key := range slices.Sorted(maps.Keys(c.who.repos)) {
		if r := c.s.repos[key]; r != nil {
			items = append(items, c.s.repoJSON(r))
		}
	}
	total := len(items)
	page, h := c.paginate(items)
	return response{status: http.StatusOK, header: h, body: map[string]any{
		"total_count": total, "repositories": page, "repository_selection": "selected",
	}}
}

func getRepo(c *call) response { return ok(http.StatusOK, c.s.repoJSON(c.repo)) }

// issueExists reports whether number names a pull request (the fake's only issues).
func (c *call) issueExists(number int64) bool {
	_, found := c.repo.pulls[int(number)]
	return found
}

func listComments(c *call) response {
	n, _ := c.intVar("issue_number")
	if !c.issueExists(n) {
		return notFound()
	}
	items := []any{}
	for _, cm := range c.repo.comments {
		if int64(cm.issue) == n {
			items = append(items, c.s.commentJSON(c.repo, cm))
		}
	}
	page, h := c.paginate(items)
	return response{status: http.StatusOK, body: page, header: h}
}

func createComment(c *call) response {
	n, _ := c.intVar("issue_number")
	if !c.issueExists(n) {
		return notFound()
	}
	var req struct{ Body string }
	c.decode(&req)
	if len(req.Body) > 65536 {
		return unprocessable("Validation Failed: body is too long (maximum is 65536 characters)")
	}
	now := c.s.stamp()
	cm := &comment{id: c.s.newID(), issue: int(n), body: req.Body, user: c.who.login, created: now, updated: now}
	c.repo.comments = append(c.repo.comments, cm)
	h := http.Header{}
	h.Set("Location", c.s.api("/repos/%s/issues/comments/%d", c.repo.fullName(), cm.id))
	return response{status: http.StatusCreated, body: c.s.commentJSON(c.repo, cm), header: h}
}

func (c *call) findComment() (int, *comment) {
	id, _ := c.intVar("comment_id")
	for i, cm := range c.repo.comments {
		if cm.id == id {
			return i, cm
		}
	}
	return -1, nil
}

func updateComment(c *call) response {
	_, cm := c.findComment()
	if cm == nil {
		return notFound()
	}
	var req struct{ Body string }
	c.decode(&req)
	if len(req.Body) > 65536 {
		return unprocessable("Validation Failed: body is too long (maximum is 65536 characters)")
	}
	cm.body = req.Body
	cm.updated = c.s.stamp()
	return ok(http.StatusOK, c.s.commentJSON(c.repo, cm))
}

func deleteComment(c *call) response {
	i, cm := c.findComment()
	if cm == nil {
		return notFound()
	}
	c.repo.comments = append(c.repo.comments[:i], c.repo.comments[i+1:]...)
	return response{status: http.StatusNoContent}
}

func getPull(c *call) response {
	n, _ := c.intVar("pull_number")
	p, found := c.repo.pulls[int(n)]
	if !found {
		return notFound()
	}
	return ok(http.StatusOK, c.s.pullJSON(c.repo, p))
}

func (r *repo) sortedPulls() []*pull {
	out := make([]*pull, 0, len(r.pulls))
	for _, p := range r.pulls {
		out = append(out, p)
	}
	// GitHub's default sort is created, descending.
	sort.Slice(out, func(i, j int) bool { return out[i].number > out[j].number })
	return out
}

func listPulls(c *call) response {
	state := c.query.Get("state")
	if state == "" {
		state = "open"
	}
	if c.query.Has("base") {
		c.s.t.Errorf("githubfake: GET %s: filtering pull requests by base is not modelled", c.path)
		return unprocessable("githubfake: filtering pull requests by base is not modelled")
	}
	// head is "user:ref-name" (GitHub also takes "organization:ref-name").
	headOwner, headRef, byHead := strings.Cut(c.query.Get("head"), ":")
	if c.query.Has("head") && !byHead {
		return ok(http.StatusOK, []any{}) // GitHub ignores a head without an owner: nothing matches here
	}
	items := []any{}
	for _, p := range c.repo.sortedPulls() {
		if state != "all" && p.state != state {
			continue
		}
		if byHead {
			owner, _, _ := strings.Cut(p.headRepo, "/")
			if !strings.EqualFold(owner, headOwner) || p.headRef != headRef {
				continue
			}
		}
		items = append(items, c.s.pullJSON(c.repo, p))
	}
	page, h := c.paginate(items)
	return response{status: http.StatusOK, body: page, header: h}
}

func createPull(c *call) response {
	var req struct {
		Title, Head, Base, Body string
		Draft                   bool
	}
	c.decode(&req)
	head := req.Head
	if owner, branch, found := strings.Cut(head, ":"); found {
		if !strings.EqualFold(owner, c.repo.owner) {
			return unprocessable("Validation Failed: head repository is not held by the fake")
		}
		head = branch
	}
	sha, found := c.repo.refs["refs/heads/"+head]
	if !found {
		return unprocessable("Validation Failed: head: invalid")
	}
	if _, found := c.repo.refs["refs/heads/"+req.Base]; !found {
		return unprocessable("Validation Failed: base: invalid")
	}
	for _, p := range c.repo.pulls {
		if p.state == "open" && p.headRef == head && p.baseRef == req.Base && p.headRepo == c.repo.fullName() {
			return unprocessable("A pull request already exists for " + c.repo.owner + ":" + head + ".")
		}
	}
	p := c.s.openPull(c.repo, PullRequest{
		State: "open", Title: req.Title, Body: req.Body, User: c.who.login, Head: head,
		HeadRepo: c.repo.fullName(), HeadSHA: sha, Base: req.Base, Draft: req.Draft,
	})
	h := http.Header{}
	h.Set("Location", c.s.api("/repos/%s/pulls/%d", c.repo.fullName(), p.number))
	return response{status: http.StatusCreated, body: c.s.pullJSON(c.repo, p), header: h}
}

func updatePull(c *call) response {
	n, _ := c.intVar("pull_number")
	p, found := c.repo.pulls[int(n)]
	if !found {
		return notFound()
	}
	var req struct {
		Title, Body, State, Base *string
	}
	c.decode(&req)
	if req.Title != nil {
		p.title = *req.Title
	}
	if req.Body != nil {
		p.body = *req.Body
	}
	if req.Base != nil {
		if _, found := c.repo.refs["refs/heads/"+*req.Base]; !found {
			return unprocessable("Validation Failed: base: invalid")
		}
		p.baseRef = *req.Base
	}
	if req.State != nil {
		if *req.State == "open" && p.state == "closed" {
			if sha, found := c.repo.refs["refs/heads/"+p.headRef]; found && p.headRepo == c.repo.fullName() {
				p.headSHA = sha
			}
		}
		p.state = *req.State
	}
	p.updated = c.s.stamp()
	return ok(http.StatusOK, c.s.pullJSON(c.repo, p))
}

// listMatchingRefs answers every ref whose name starts with refs/<ref>,
// sorted by name, as GitHub does (no pagination).
func listMatchingRefs(c *call) response {
	prefix := "refs/" + c.vars["ref"]
	names := make([]string, 0)
	for name := range c.repo.refs {
		if strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	items := make([]any, len(names))
	for i, name := range names {
		items[i] = c.s.refJSON(c.repo, name, c.repo.refs[name])
	}
	return ok(http.StatusOK, items)
}

func getRef(c *call) response {
	ref := "refs/" + c.vars["ref"]
	sha, found := c.repo.refs[ref]
	if !found {
		return notFound()
	}
	return ok(http.StatusOK, c.s.refJSON(c.repo, ref, sha))
}

func createRef(c *call) response {
	var req struct{ Ref, SHA string }
	c.decode(&req)
	if !strings.HasPrefix(req.Ref, "refs/") || strings.Count(req.Ref, "/") < 2 {
		return unprocessable("Reference name is invalid")
	}
	if _, found := c.repo.objects[req.SHA]; !found {
		return unprocessable("Object does not exist")
	}
	if _, found := c.repo.refs[req.Ref]; found {
		return unprocessable("Reference already exists")
	}
	c.repo.refs[req.Ref] = req.SHA
	h := http.Header{}
	h.Set("Location", c.s.api("/repos/%s/git/%s", c.repo.fullName(), req.Ref))
	return response{status: http.StatusCreated, body: c.s.refJSON(c.repo, req.Ref, req.SHA), header: h}
}

func updateRef(c *call) response {
	ref := "refs/" + c.vars["ref"]
	var req struct {
		SHA   string
		Force bool
	}
	c.decode(&req)
	old, found := c.repo.refs[ref]
	if !found {
		return unprocessable("Reference does not exist")
	}
	if _, found := c.repo.object(req.SHA, "commit"); !found {
		return unprocessable("Object does not exist")
	}
	if !req.Force && !c.repo.ancestors(req.SHA)[old] {
		return unprocessable("Update is not a fast forward")
	}
	c.repo.refs[ref] = req.SHA
	c.s.followRef(c.repo, ref)
	return ok(http.StatusOK, c.s.refJSON(c.repo, ref, req.SHA))
}

func getGitCommit(c *call) response {
	sha := c.vars["commit_sha"]
	if _, found := c.repo.object(sha, "commit"); !found {
		return notFound()
	}
	return ok(http.StatusOK, c.s.gitCommitJSON(c.repo, sha))
}

func createTree(c *call) response {
	var req struct {
		BaseTree string `json:"base_tree"`
		Tree     []struct {
			Path    string
			Mode    string
			Content *string
			// SHA is null (a deletion) or absent (a new blob from Content).
			SHA json.RawMessage
		}
	}
	c.decode(&req)
	flat := map[string]flatEntry{}
	if req.BaseTree != "" {
		if _, found := c.repo.object(req.BaseTree, "tree"); !found {
			return unprocessable("base_tree is not a valid tree oid")
		}
		c.repo.flatten(req.BaseTree, "", flat)
	}
	for _, e := range req.Tree {
		if e.Content == nil && string(e.SHA) == "null" {
			p := strings.Trim(e.Path, "/")
			if _, found := flat[p]; !found {
				// Modelled strictly: GitHub does not document what a
				// deletion of a path the base tree lacks does, so callers
				// must not send one.
				return unprocessable("GitHub: tree.path " + p + " does not exist in the base tree")
			}
			delete(flat, p)
			continue
		}
		if e.Content == nil {
			c.s.t.Errorf("githubfake: POST %s: tree entries by sha (or deletions) are not modelled", c.path)
			return unprocessable("githubfake: tree entries by sha (or deletions) are not modelled")
		}
		flat[strings.Trim(e.Path, "/")] = flatEntry{Mode: e.Mode, Type: "blob", SHA: c.repo.put(&object{Type: "blob", Data: []byte(*e.Content)})}
	}
	sha := c.repo.buildTree(flat)
	entries := []any{}
	for _, e := range c.repo.objects[sha].Tree {
		m := map[string]any{"path": e.Name, "mode": e.Mode, "type": e.Type, "sha": e.SHA,
			"url": c.s.api("/repos/%s/git/%ss/%s", c.repo.fullName(), e.Type, e.SHA)}
		if o, found := c.repo.object(e.SHA, "blob"); found {
			m["size"] = len(o.Data)
		}
		entries = append(entries, m)
	}
	h := http.Header{}
	h.Set("Location", c.s.api("/repos/%s/git/trees/%s", c.repo.fullName(), sha))
	return response{status: http.StatusCreated, header: h, body: map[string]any{
		"sha": sha, "url": c.s.api("/repos/%s/git/trees/%s", c.repo.fullName(), sha), "truncated": false, "tree": entries,
	}}
}

func createGitCommit(c *call) response {
	var req struct {
		Message   string
		Tree      string
		Parents   []string
		Author    *struct{ Name, Email string }
		Committer *struct{ Name, Email string }
	}
	c.decode(&req)
	if _, found := c.repo.object(req.Tree, "tree"); !found {
		return unprocessable("Tree SHA does not exist")
	}
	for _, p := range req.Parents {
		if _, found := c.repo.object(p, "commit"); !found {
			return unprocessable("Parent SHA does not exist or is not a commit object")
		}
	}
	login := c.who.login
	sig := signature{Name: login, Email: login + "@users.noreply.github.com", Login: login, Date: c.s.stamp()}
	author, committer := sig, sig
	if req.Author != nil {
		author.Name, author.Email, author.Login = req.Author.Name, req.Author.Email, ""
	}
	if req.Committer != nil {
		committer.Name, committer.Email, committer.Login = req.Committer.Name, req.Committer.Email, ""
	}
	sha := c.repo.put(&object{Type: "commit", Commit: &gitCommit{
		Tree: req.Tree, Parents: req.Parents, Message: req.Message, Author: author, Committer: committer,
	}})
	h := http.Header{}
	h.Set("Location", c.s.api("/repos/%s/git/commits/%s", c.repo.fullName(), sha))
	return response{status: http.StatusCreated, header: h, body: c.s.gitCommitJSON(c.repo, sha)}
}

func getGitTag(c *call) response {
	sha := c.vars["tag_sha"]
	o, found := c.repo.object(sha, "tag")
	if !found {
		return notFound()
	}
	t := o.Tag
	return ok(http.StatusOK, map[string]any{
		"node_id": "TAG_" + sha, "tag": t.Tag, "sha": sha, "message": t.Message,
		"url":    c.s.api("/repos/%s/git/tags/%s", c.repo.fullName(), sha),
		"tagger": c.s.signatureJSON(t.Tagger),
		"object": map[string]any{"type": t.Type, "sha": t.Object,
			"url": c.s.api("/repos/%s/git/%ss/%s", c.repo.fullName(), t.Type, t.Object)},
		"verification": unverified(),
	})
}

func getContent(c *call) response {
	sha, found := c.repo.resolve(c.query.Get("ref"))
	if !found {
		return notFound()
	}
	p := strings.Trim(c.vars["path"], "/")
	e, found := c.repo.lookupPath(c.repo.objects[sha].Commit.Tree, p)
	if !found {
		return notFound()
	}
	if e.Type != "tree" {
		return ok(http.StatusOK, c.s.contentJSON(c.repo, p, e, true))
	}
	items := []any{}
	for _, child := range c.repo.objects[e.SHA].Tree {
		cp := child.Name
		if p != "" {
			cp = p + "/" + child.Name
		}
		items = append(items, c.s.contentJSON(c.repo, cp, child, false))
	}
	return ok(http.StatusOK, items)
}

func compareCommits(c *call) response {
	base, head, found := strings.Cut(c.vars["basehead"], "...")
	if !found {
		return notFound()
	}
	baseSHA, ok1 := c.repo.resolve(base)
	headSHA, ok2 := c.repo.resolve(head)
	if !ok1 || !ok2 {
		return notFound()
	}
	baseSet, headSet := c.repo.ancestors(baseSHA), c.repo.ancestors(headSHA)
	var ahead, behind []string
	for _, sha := range c.repo.history(headSHA) {
		if !baseSet[sha] {
			ahead = append(ahead, sha)
		}
	}
	for sha := range baseSet {
		if !headSet[sha] {
			behind = append(behind, sha)
		}
	}
	mergeBase := ""
	for _, sha := range c.repo.history(headSHA) {
		if baseSet[sha] {
			mergeBase = sha
			break
		}
	}
	status := "diverged"
	switch {
	case len(ahead) == 0 && len(behind) == 0:
		status = "identical"
	case len(behind) == 0:
		status = "ahead"
	case len(ahead) == 0:
		status = "behind"
	}
	commits := []any{}
	for i := len(ahead) - 1; i >= 0; i-- { // oldest first, as GitHub lists them
		commits = append(commits, c.s.commitJSON(c.repo, ahead[i]))
	}
	page, h := c.paginate(commits)
	body := map[string]any{
		"url":           c.s.api("/repos/%s/compare/%s", c.repo.fullName(), c.vars["basehead"]),
		"html_url":      c.s.html("/%s/compare/%s", c.repo.fullName(), c.vars["basehead"]),
		"permalink_url": c.s.html("/%s/compare/%s...%s", c.repo.fullName(), baseSHA, headSHA),
		"diff_url":      c.s.html("/%s/compare/%s.diff", c.repo.fullName(), c.vars["basehead"]),
		"patch_url":     c.s.html("/%s/compare/%s.patch", c.repo.fullName(), c.vars["basehead"]),
		"base_commit":   c.s.commitJSON(c.repo, baseSHA),
		"status":        status,
		"ahead_by":      len(ahead),
		"behind_by":     len(behind),
		"total_commits": len(ahead),
		"commits":       page,
		"files":         []any{},
	}
	if mergeBase != "" {
		body["merge_base_commit"] = c.s.commitJSON(c.repo, mergeBase)
	}
	return response{status: http.StatusOK, header: h, body: body}
}

func listCommits(c *call) response {
	sha, found := c.repo.resolve(c.query.Get("sha"))
	if !found {
		return notFound()
	}
	items := []any{}
	for _, s := range c.repo.history(sha) {
		items = append(items, c.s.commitJSON(c.repo, s))
	}
	page, h := c.paginate(items)
	return response{status: http.StatusOK, body: page, header: h}
}

func getReleaseByTag(c *call) response {
	for _, rel := range c.repo.releases {
		if rel.tag == c.vars["tag"] && !rel.draft {
			return ok(http.StatusOK, c.s.releaseJSON(c.repo, rel))
		}
	}
	return notFound()
}

// createCommitComment comments on a commit as a whole. A comment on a file
// or line of the diff (path, position, line) is not modelled: it fails the
// test rather than pass unchecked.
func createCommitComment(c *call) response {
	sha := c.vars["commit_sha"]
	if _, found := c.repo.object(sha, "commit"); !found {
		return unprocessable("No commit found for SHA: " + sha)
	}
	var req struct {
		Body     string
		Path     *string
		Position *int
		Line     *int
	}
	c.decode(&req)
	if req.Path != nil || req.Position != nil || req.Line != nil {
		c.s.t.Errorf("githubfake: POST %s: comments on a file or line of a commit are not modelled", c.path)
		return unprocessable("githubfake: comments on a file or line of a commit are not modelled")
	}
	if strings.TrimSpace(req.Body) == "" {
		return unprocessable("Validation Failed: body can't be blank")
	}
	if len(req.Body) > 65536 {
		return unprocessable("Validation Failed: body is too long (maximum is 65536 characters)")
	}
	now := c.s.stamp()
	cm := &commitComment{id: c.s.newID(), sha: sha, body: req.Body, user: c.who.login, created: now}
	c.repo.commitComments = append(c.repo.commitComments, cm)
	h := http.Header{}
	h.Set("Location", c.s.api("/repos/%s/comments/%d", c.repo.fullName(), cm.id))
	return response{status: http.StatusCreated, header: h, body: c.s.commitCommentJSON(c.repo, cm)}
}

func listRunArtifacts(c *call) response {
	id, _ := c.intVar("run_id")
	if _, found := c.repo.runs[id]; !found {
		return notFound()
	}
	var arts []*artifact
	for _, a := range c.repo.artifacts {
		if a.runID == id && (c.query.Get("name") == "" || c.query.Get("name") == a.name) {
			arts = append(arts, a)
		}
	}
	sort.Slice(arts, func(i, j int) bool { return arts[i].id < arts[j].id })
	items := []any{}
	for _, a := range arts {
		items = append(items, c.s.artifactJSON(c.repo, a))
	}
	total := len(items)
	page, h := c.paginate(items)
	return response{status: http.StatusOK, header: h, body: map[string]any{"total_count": total, "artifacts": page}}
}

func downloadArtifact(c *call) response {
	id, _ := c.intVar("artifact_id")
	a, found := c.repo.artifacts[id]
	if !found {
		return notFound()
	}
	if a.expired {
		return errorResponse(http.StatusGone, "Artifact has expired")
	}
	h := http.Header{}
	h.Set("Location", c.s.srv.URL+blobPrefix+a.blobName+"?sig="+a.sig)
	return response{status: http.StatusFound, header: h}
}
