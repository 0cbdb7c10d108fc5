package githubfake

import (
	"cmp"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"time"
)

// The fake stores git objects the way git does and names them by git's own
// SHA-1 of their canonical encoding, so that shas are deterministic and a
// tree built from the same files always has the same sha.

type signature struct {
	Name  string
	Email string
	Login string // GitHub account the signature maps to; "" for none
	Date  time.Time
}

func (s signature) encode() string {
	return fmt.Sprintf("%s <%s> %d +0000", s.Name, s.Email, s.Date.Unix())
}

type treeEntry struct {
	Mode string // 100644, 100755, 040000, 160000, 120000
	Type string // blob, tree, commit
	Name string
	SHA  string
}

type gitCommit struct {
	Tree      string
	Parents   []string
	Message   string
	Author    signature
	Committer signature
}

type gitTag struct {
	Tag     string
	Message string
	Object  string
	Type    string
	Tagger  signature
}

type object struct {
	Type   string // blob, tree, commit, tag
	Data   []byte // blob content
	Tree   []treeEntry
	Commit *gitCommit
	Tag    *gitTag
}

func hashObject(kind string, body []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(body))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// encode returns the canonical body git hashes for o.
func (o *object) encode() []byte {
	switch o.Type {
	case "blob":
		return o.Data
	case "tree":
		entries := append([]treeEntry(nil), o.Tree...)
		sort.Slice(entries, func(i, j int) bool { return treeSortKey(entries[i]) < treeSortKey(entries[j]) })
		var b []byte
		for _, e := range entries {
			mode := strings.TrimPrefix(e.Mode, "0")
			raw, _ := hex.DecodeString(e.SHA)
			b = append(b, mode+" "+e.Name+"\x00"...)
			b = append(b, raw...)
		}
		return b
	case "commit":
		c := o.Commit
		var sb strings.Builder
		fmt.Fprintf(&sb, "tree %s\n", c.Tree)
		for _, p := range c.Parents {
			fmt.Fprintf(&sb, "parent %s\n", p)
		}
		fmt.Fprintf(&sb, "author %s\ncommitter %s\n\n%s", c.Author.encode(), c.Committer.encode(), c.Message)
		return []byte(sb.String())
	case "tag":
		t := o.Tag
		return []byte(fmt.Sprintf("object %s\ntype %s\ntag %s\ntagger %s\n\n%s", t.Object, t.Type, t.Tag, t.Tagger.encode(), t.Message))
	}
	panic("githubfake: unknown object type " + o.Type)
}

func treeSortKey(e treeEntry) string {
	if e.Type == "tree" {
		return e.Name + "/"
	}
	return e.Name
}

// put stores o in the repository and returns its sha.
func (r *repo) put(o *object) string {
	sha := hashObject(o.Type, o.encode())
	if _, ok := r.objects[sha]; !ok {
		r.objects[sha] = o
	}
	return sha
}

func (r *repo) object(sha, kind string) (*object, bool) {
	o, ok := r.objects[sha]
	if !ok || (kind != "" && o.Type != kind) {
		return nil, false
	}
	return o, true
}

// flatEntry is one non-tree entry of a flattened tree, keyed by full path.
type flatEntry struct {
	Mode, Type, SHA string
}

// flatten lists every blob (and submodule) under tree sha by full path.
func (r *repo) flatten(sha, prefix string, out map[string]flatEntry) {
	o, ok := r.object(sha, "tree")
	if !ok {
		return
	}
	for _, e := range o.Tree {
		p := path.Join(prefix, e.Name)
		if e.Type == "tree" {
			r.flatten(e.SHA, p, out)
			continue
		}
		out[p] = flatEntry{Mode: e.Mode, Type: e.Type, SHA: e.SHA}
	}
}

// buildTree stores the nested trees for a flat path map and returns the root sha.
func (r *repo) buildTree(flat map[string]flatEntry) string {
	type dir struct {
		files map[string]flatEntry
		dirs  map[string]map[string]flatEntry
	}
	d := dir{files: map[string]flatEntry{}, dirs: map[string]map[string]flatEntry{}}
	for p, e := range flat {
		first, rest, nested := strings.Cut(p, "/")
		if !nested {
			d.files[first] = e
			continue
		}
		if d.dirs[first] == nil {
			d.dirs[first] = map[string]flatEntry{}
		}
		d.dirs[first][rest] = e
	}
	o := &object{Type: "tree", Tree: []treeEntry{}}
	for name, e := range d.files {
		o.Tree = append(o.Tree, treeEntry{Mode: e.Mode, Type: e.Type, Name: name, SHA: e.SHA})
	}
	for name, sub := range d.dirs {
		o.Tree = append(o.Tree, treeEntry{Mode: "040000", Type: "tree", Name: name, SHA: r.buildTree(sub)})
	}
	sort.Slice(o.Tree, func(i, j int) bool { return treeSortKey(o.Tree[i]) < treeSortKey(o.Tree[j]) })
	return r.put(o)
}

// lookupPath finds the entry at p (slash separated) under tree sha. An empty
// p names the tree itself.
func (r *repo) lookupPath(treeSHA, p string) (treeEntry, bool) {
	cur := treeEntry{Mode: "040000", Type: "tree", SHA: treeSHA}
	if p == "" {
		return cur, true
	}
	for _, name := range strings.Split(strings.Trim(p, "/"), "/") {
		o, ok := r.object(cur.SHA, "tree")
		if !ok {
			return treeEntry{}, false
		}
		found := false
		for _, e := range o.Tree {
			if e.Name == name {
				cur, found = e, true
				break
			}
		}
		if !found {
			return treeEntry{}, false
		}
	}
	return cur, true
}

// peel follows annotated tags to the object they name and returns a commit
// sha, or false.
func (r *repo) peel(sha string) (string, bool) {
	for i := 0; i < 10; i++ {
		o, ok := r.objects[sha]
		if !ok {
			return "", false
		}
		switch o.Type {
		case "commit":
			return sha, true
		case "tag":
			sha = o.Tag.Object
		default:
			return "", false
		}
	}
	return "", false
}

// resolve turns a commit-ish (sha, full ref, heads/x, tags/x, branch or tag
// name) into a commit sha.
func (r *repo) resolve(name string) (string, bool) {
	if name == "" {
		name = r.defaultBranch
	}
	if _, ok := r.object(name, "commit"); ok {
		return name, true
	}
	for _, full := range []string{name, "refs/" + name, "refs/heads/" + name, "refs/tags/" + name} {
		if sha, ok := r.refs[full]; ok {
			return r.peel(sha)
		}
	}
	return "", false
}

// ancestors returns every commit reachable from sha, sha included.
func (r *repo) ancestors(sha string) map[string]bool {
	seen := map[string]bool{}
	stack := []string{sha}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[c] {
			continue
		}
		o, ok := r.object(c, "commit")
		if !ok {
			continue
		}
		seen[c] = true
		stack = append(stack, o.Commit.Parents...)
	}
	return seen
}

// history lists the commits reachable from sha, newest first by committer
// date, ties broken by sha, like git log.
func (r *repo) history(sha string) []string {
	return slices.SortedFunc(maps.Keys(r.ancestors(sha)), func(a, b string) int {
		da, db := r.objects[a].Commit.Committer.Date, r.objects[b].Commit.Committer.Date
		return cmp.Or(db.Compare(da), strings.Compare(a, b))
	})
}
