package githubfake

import (
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Builders of GitHub's JSON shapes. They set the fields that carry meaning;
// complete fills the other required ones from the schema.

func (s *Server) api(format string, args ...any) string {
	return s.srv.URL + s.opts.PathPrefix + fmt.Sprintf(format, args...)
}

func (s *Server) html(format string, args ...any) string {
	return s.srv.URL + "/_html" + fmt.Sprintf(format, args...)
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// stableID derives a positive id from a name (user and repository ids).
func stableID(name string) int64 {
	h := fnv.New32a()
	h.Write([]byte(strings.ToLower(name)))
	return int64(h.Sum32()&0x7fffffff) + 1
}

func (s *Server) userJSON(login string) map[string]any {
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	return map[string]any{
		"login":      login,
		"id":         stableID("user:" + login),
		"node_id":    "U_" + login,
		"type":       typ,
		"site_admin": false,
		"url":        s.api("/users/%s", url.PathEscape(login)),
		"html_url":   s.html("/%s", url.PathEscape(login)),
		"avatar_url": s.html("/avatars/%s", url.PathEscape(login)),
	}
}

// repoJSONByName describes a repository the fake may not hold (a fork).
func (s *Server) repoJSONByName(fullName string, r *repo) map[string]any {
	owner, name, _ := strings.Cut(fullName, "/")
	m := map[string]any{
		"id":        stableID("repo:" + fullName),
		"node_id":   "R_" + fullName,
		"name":      name,
		"full_name": fullName,
		"owner":     s.userJSON(owner),
		"private":   false,
		"fork":      r == nil,
		"url":       s.api("/repos/%s", fullName),
		"html_url":  s.html("/%s", fullName),
	}
	if r != nil {
		m["id"] = r.id
		m["private"] = r.private
		m["default_branch"] = r.defaultBranch
		m["visibility"] = "public"
	}
	return m
}

func (s *Server) repoJSON(r *repo) map[string]any { return s.repoJSONByName(r.fullName(), r) }

func (s *Server) signatureJSON(sig signature) map[string]any {
	return map[string]any{"name": sig.Name, "email": sig.Email, "date": ts(sig.Date)}
}

func unverified() map[string]any {
	return map[string]any{"verified": false, "reason": "unsigned", "signature": nil, "payload": nil}
}

// gitCommitJSON is the git-commit shape (git data API).
func (s *Server) gitCommitJSON(r *repo, sha string) map[string]any {
	c := r.objects[sha].Commit
	parents := []any{}
	for _, p := range c.Parents {
		parents = append(parents, map[string]any{
			"sha": p, "url": s.api("/repos/%s/git/commits/%s", r.fullName(), p), "html_url": s.html("/%s/commit/%s", r.fullName(), p),
		})
	}
	return map[string]any{
		"sha":          sha,
		"node_id":      "C_" + sha,
		"url":          s.api("/repos/%s/git/commits/%s", r.fullName(), sha),
		"html_url":     s.html("/%s/commit/%s", r.fullName(), sha),
		"author":       s.signatureJSON(c.Author),
		"committer":    s.signatureJSON(c.Committer),
		"message":      c.Message,
		"tree":         map[string]any{"sha": c.Tree, "url": s.api("/repos/%s/git/trees/%s", r.fullName(), c.Tree)},
		"parents":      parents,
		"verification": unverified(),
	}
}

// commitJSON is the commit shape (repos API: list commits, compare).
func (s *Server) commitJSON(r *repo, sha string) map[string]any {
	c := r.objects[sha].Commit
	parents := []any{}
	for _, p := range c.Parents {
		parents = append(parents, map[string]any{"sha": p, "url": s.api("/repos/%s/commits/%s", r.fullName(), p)})
	}
	var author, committer any
	if c.Author.Login != "" {
		author = s.userJSON(c.Author.Login)
	}
	if c.Committer.Login != "" {
		committer = s.userJSON(c.Committer.Login)
	}
	return map[string]any{
		"sha":          sha,
		"node_id":      "C_" + sha,
		"url":          s.api("/repos/%s/commits/%s", r.fullName(), sha),
		"html_url":     s.html("/%s/commit/%s", r.fullName(), sha),
		"comments_url": s.api("/repos/%s/commits/%s/comments", r.fullName(), sha),
		"commit": map[string]any{
			"url":           s.api("/repos/%s/git/commits/%s", r.fullName(), sha),
			"author":        s.signatureJSON(c.Author),
			"committer":     s.signatureJSON(c.Committer),
			"message":       c.Message,
			"comment_count": 0,
			"tree":          map[string]any{"sha": c.Tree, "url": s.api("/repos/%s/git/trees/%s", r.fullName(), c.Tree)},
			"verification":  unverified(),
		},
		"author":    author,
		"committer": committer,
		"parents":   parents,
	}
}

func (s *Server) refJSON(r *repo, ref, sha string) map[string]any {
	typ := r.objects[sha].Type
	return map[string]any{
		"ref":     ref,
		"node_id": "REF_" + ref,
		"url":     s.api("/repos/%s/git/%s", r.fullName(), ref),
		"object":  map[string]any{"type": typ, "sha": sha, "url": s.api("/repos/%s/git/%ss/%s", r.fullName(), typ, sha)},
	}
}

func (s *Server) pullJSON(r *repo, p *pull) map[string]any {
	headOwner, _, _ := strings.Cut(p.headRepo, "/")
	var headRepo *repo
	if strings.EqualFold(p.headRepo, r.fullName()) {
		headRepo = r
	}
	baseSHA, _ := r.resolve(p.baseRef)
	var closedAt any
	if p.state == "closed" {
		closedAt = ts(p.updated)
	}
	return map[string]any{
		"id":       p.id,
		"node_id":  "PR_" + strconv.FormatInt(p.id, 10),
		"number":   p.number,
		"state":    p.state,
		"locked":   false,
		"title":    p.title,
		"body":     p.body,
		"user":     s.userJSON(p.user),
		"draft":    p.draft,
		"merged":   false,
		"url":      s.api("/repos/%s/pulls/%d", r.fullName(), p.number),
		"html_url": s.html("/%s/pull/%d", r.fullName(), p.number),
		"head": map[string]any{
			"label": headOwner + ":" + p.headRef, "ref": p.headRef, "sha": p.headSHA,
			"repo": s.repoJSONByName(p.headRepo, headRepo), "user": s.userJSON(headOwner),
		},
		"base": map[string]any{
			"label": r.owner + ":" + p.baseRef, "ref": p.baseRef, "sha": baseSHA,
			"repo": s.repoJSON(r), "user": s.userJSON(r.owner),
		},
		"created_at":          ts(p.created),
		"updated_at":          ts(p.updated),
		"closed_at":           closedAt,
		"merged_at":           nil,
		"author_association":  "CONTRIBUTOR",
		"labels":              []any{},
		"assignees":           []any{},
		"requested_reviewers": []any{},
		"requested_teams":     []any{},
	}
}

func (s *Server) commentJSON(r *repo, c *comment) map[string]any {
	return map[string]any{
		"id":                 c.id,
		"node_id":            "IC_" + strconv.FormatInt(c.id, 10),
		"url":                s.api("/repos/%s/issues/comments/%d", r.fullName(), c.id),
		"html_url":           s.html("/%s/pull/%d#issuecomment-%d", r.fullName(), c.issue, c.id),
		"issue_url":          s.api("/repos/%s/issues/%d", r.fullName(), c.issue),
		"body":               c.body,
		"user":               s.userJSON(c.user),
		"created_at":         ts(c.created),
		"updated_at":         ts(c.updated),
		"author_association": "NONE",
	}
}

func (s *Server) commitCommentJSON(r *repo, c *commitComment) map[string]any {
	return map[string]any{
		"id":                 c.id,
		"node_id":            "CC_" + strconv.FormatInt(c.id, 10),
		"url":                s.api("/repos/%s/comments/%d", r.fullName(), c.id),
		"html_url":           s.html("/%s/commit/%s#commitcomment-%d", r.fullName(), c.sha, c.id),
		"body":               c.body,
		"path":               nil,
		"position":           nil,
		"line":               nil,
		"commit_id":          c.sha,
		"user":               s.userJSON(c.user),
		"created_at":         ts(c.created),
		"updated_at":         ts(c.created),
		"author_association": "NONE",
	}
}

func (s *Server) releaseJSON(r *repo, rel *release) map[string]any {
	var published any
	if !rel.draft {
		published = ts(rel.created)
	}
	return map[string]any{
		"id":               rel.id,
		"node_id":          "RE_" + strconv.FormatInt(rel.id, 10),
		"tag_name":         rel.tag,
		"target_commitish": rel.target,
		"name":             rel.name,
		"body":             rel.body,
		"draft":            rel.draft,
		"prerelease":       rel.prerelease,
		"created_at":       ts(rel.created),
		"published_at":     published,
		"author":           s.userJSON(rel.author),
		"assets":           []any{},
		"url":              s.api("/repos/%s/releases/%d", r.fullName(), rel.id),
		"html_url":         s.html("/%s/releases/tag/%s", r.fullName(), rel.tag),
		"assets_url":       s.api("/repos/%s/releases/%d/assets", r.fullName(), rel.id),
		"upload_url":       s.api("/repos/%s/releases/%d/assets{?name,label}", r.fullName(), rel.id),
		"tarball_url":      s.api("/repos/%s/tarball/%s", r.fullName(), rel.tag),
		"zipball_url":      s.api("/repos/%s/zipball/%s", r.fullName(), rel.tag),
	}
}

func (s *Server) contentJSON(r *repo, p string, e treeEntry, withContent bool) map[string]any {
	typ := map[string]string{"blob": "file", "tree": "dir", "commit": "submodule"}[e.Type]
	if e.Mode == "120000" {
		typ = "symlink"
	}
	name := p
	if i := strings.LastIndex(p, "/"); i >= 0 {
		name = p[i+1:]
	}
	size := 0
	if o, ok := r.object(e.SHA, "blob"); ok {
		size = len(o.Data)
	}
	self := s.api("/repos/%s/contents/%s", r.fullName(), p)
	gitURL := s.api("/repos/%s/git/%ss/%s", r.fullName(), e.Type, e.SHA)
	htmlURL := s.html("/%s/blob/%s/%s", r.fullName(), r.defaultBranch, p)
	var download any
	if typ == "file" {
		download = s.html("/raw/%s/%s", r.fullName(), p)
	}
	m := map[string]any{
		"type": typ, "size": size, "name": name, "path": p, "sha": e.SHA,
		"url": self, "git_url": gitURL, "html_url": htmlURL, "download_url": download,
		"_links": map[string]any{"self": self, "git": gitURL, "html": htmlURL},
	}
	if withContent {
		m["encoding"] = "base64"
		m["content"] = wrap60(base64.StdEncoding.EncodeToString(r.objects[e.SHA].Data))
	}
	return m
}

// wrap60 breaks base64 text into lines of 60 characters, as GitHub does.
func wrap60(s string) string {
	var b strings.Builder
	for len(s) > 60 {
		b.WriteString(s[:60])
		b.WriteByte('\n')
		s = s[60:]
	}
	b.WriteString(s)
	b.WriteByte('\n')
	return b.String()
}

func (s *Server) installationJSON(inst Installation) map[string]any {
	app := s.opts.App
	selection := "selected"
	return map[string]any{
		"id":                   inst.ID,
		"account":              s.userJSON(inst.Account),
		"repository_selection": selection,
		"access_tokens_url":    s.api("/app/installations/%d/access_tokens", inst.ID),
		"repositories_url":     s.api("/installation/repositories"),
		"html_url":             s.html("/settings/installations/%d", inst.ID),
		"app_id":               app.ID,
		"app_slug":             app.Slug,
		"target_id":            stableID("user:" + inst.Account),
		"target_type":          "Organization",
		"permissions":          map[string]any{"contents": "write", "pull_requests": "write", "metadata": "read"},
		"events":               []any{"release", "workflow_run"},
		"created_at":           placeholderDate,
		"updated_at":           placeholderDate,
		"single_file_name":     nil,
	}
}

func (s *Server) artifactJSON(r *repo, a *artifact) map[string]any {
	run := r.runs[a.runID]
	return map[string]any{
		"id":                   a.id,
		"node_id":              "A_" + strconv.FormatInt(a.id, 10),
		"name":                 a.name,
		"size_in_bytes":        len(a.zip),
		"url":                  s.api("/repos/%s/actions/artifacts/%d", r.fullName(), a.id),
		"archive_download_url": s.api("/repos/%s/actions/artifacts/%d/zip", r.fullName(), a.id),
		"expired":              a.expired,
		"created_at":           ts(a.created),
		"updated_at":           ts(a.created),
		"expires_at":           ts(a.created.Add(90 * 24 * time.Hour)),
		"digest":               nil,
		"workflow_run": map[string]any{
			"id": run.ID, "repository_id": r.id, "head_repository_id": r.id,
			"head_branch": run.HeadBranch, "head_sha": run.HeadSHA,
		},
	}
}

// paginate slices items by the per_page and page query parameters (defaults
// 30 and 1, per_page at most 100) and sets a Link header as GitHub does.
func (c *call) paginate(items []any) ([]any, http.Header) {
	perPage, page := 30, 1
	if v, err := strconv.Atoi(c.query.Get("per_page")); err == nil && v > 0 {
		perPage = min(v, 100)
	}
	if v, err := strconv.Atoi(c.query.Get("page")); err == nil && v > 0 {
		page = v
	}
	last := max(1, (len(items)+perPage-1)/perPage)
	start := min(len(items), (page-1)*perPage)
	end := min(len(items), start+perPage)
	h := http.Header{}
	link := func(n int, rel string) string {
		q := url.Values{}
		for k, v := range c.query {
			q[k] = v
		}
		q.Set("per_page", strconv.Itoa(perPage))
		q.Set("page", strconv.Itoa(n))
		return fmt.Sprintf(`<%s?%s>; rel="%s"`, c.s.api("%s", c.path), q.Encode(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		h.Set("Link", strings.Join(links, ", "))
	}
	return items[start:end], h
}
