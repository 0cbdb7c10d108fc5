package pin

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"gopkg.in/yaml.v3"
)

// SetHarness returns src with harness.tag and harness.commit set to tag and
// commit. Nothing else changes: comments, key order, quoting style and layout
// are kept byte for byte. src must be a valid pin file; tag and commit must
// pass CheckTag and CheckCommit. When both values are already set, src is
// returned unchanged. Errors are *Error (file name left empty for the caller
// to wrap) or input validation errors.
func SetHarness(src []byte, tag, commit string) ([]byte, error) {
	if err := ident.CheckTag(tag); err != nil {
		return nil, fmt.Errorf("set harness: %w", err)
	}
	if err := ident.CheckCommit(commit); err != nil {
		return nil, fmt.Errorf("set harness: %w", err)
	}
	old, fields, err := parse(src, "")
	if err != nil {
		return nil, err
	}
	wantPin := old
	wantPin.Harness.Tag, wantPin.Harness.Commit = tag, commit
	return setFields("set harness", src, fields, map[string]string{"harness.tag": tag, "harness.commit": commit}, wantPin)
}

// setFields returns src with the scalar fields named in values (dotted
// paths) set, each in place with its quoting kept, and checks that the result
// reads back as want. A field already at its value is left alone; with no
// change src is returned as is. An error for a value that cannot be edited in
// place is an *Error naming its line; op prefixes the others.
func setFields(op string, src []byte, fields []field, values map[string]string, want Pin) ([]byte, error) {
	lines := splitLines(src)
	var edits []edit
	for _, f := range fields {
		v, ok := values[f.path]
		if !ok || f.node.Value == v {
			continue
		}
		e, err := scalarEdit(src, lines, f.node, v)
		if err != nil {
			return nil, &Error{Line: f.node.Line, Msg: f.path + ": " + err.Error()}
		}
		edits = append(edits, e)
	}
	if len(edits) == 0 {
		return src, nil
	}
	out := apply(src, edits)
	if got, err := Parse(out, ""); err != nil || !got.Equal(want) {
		// Cannot happen for the value forms scalarEdit accepts.
		return nil, fmt.Errorf("%s: edited file does not read back as intended (%v)", op, err)
	}
	return out, nil
}

// Uses is one `uses: owner/repo[/path]@ref` reference in a workflow or
// action file.
type Uses struct {
	// Line is the 1-based line of the reference.
	Line int
	// Repo is "owner/name" as written (no sub-path).
	Repo string
	// Path is the sub-path after owner/name ("" for the repository root).
	Path string
	// Ref is what follows "@": a commit, tag or branch.
	Ref string
	// Comment is the first word of the line comment after the reference
	// (conventionally the tag naming Ref), "" when there is none.
	Comment string
}

// FindUses lists the `uses:` references to repositories in a workflow or
// action file, in file order. Local (./) and docker:// references are
// skipped. src must be valid YAML.
func FindUses(src []byte) ([]Uses, error) {
	refs, err := findUses(src)
	if err != nil {
		return nil, err
	}
	out := make([]Uses, len(refs))
	for i, r := range refs {
		out[i] = r.Uses
	}
	return out, nil
}

// BumpUses returns src with every `uses: <repo>[/path]@<40-hex>` reference to
// repo (owner/name, compared case-insensitively) set to commit, and its line
// comment set to name tag: `uses: owner/name@<commit> # <tag>`. A reference
// without a comment gets one; a comment whose first word is a version has
// that word replaced; any other comment is kept after the tag. References by
// tag or branch (e.g. @v1) are the user's choice and left alone. Nothing else
// in src changes. changed reports whether out differs from src.
func BumpUses(src []byte, repo, tag, commit string) (out []byte, changed bool, err error) {
	if !ident.IsRepo(repo) {
		return nil, false, fmt.Errorf("bump uses: repository %q is not owner/name", repo)
	}
	if err := ident.CheckTag(tag); err != nil {
		return nil, false, fmt.Errorf("bump uses: %w", err)
	}
	if err := ident.CheckCommit(commit); err != nil {
		return nil, false, fmt.Errorf("bump uses: %w", err)
	}
	refs, err := findUses(src)
	if err != nil {
		return nil, false, err
	}
	lines := splitLines(src)
	var edits []edit
	bumped := map[int]bool{}
	for _, r := range refs {
		if !strings.EqualFold(r.Repo, repo) || !isSHA(r.Ref) {
			continue
		}
		bumped[r.Line] = true
		if r.Ref == commit && r.Comment == tag {
			continue
		}
		e, err := usesEdits(src, lines, r, commit, tag)
		if err != nil {
			return nil, false, &Error{Line: r.Line, Msg: err.Error()}
		}
		edits = append(edits, e...)
	}
	if len(edits) == 0 {
		return src, false, nil
	}
	out = apply(src, edits)
	// Read the result back: the bumped references, and only those, changed.
	after, err := findUses(out)
	if err != nil || len(after) != len(refs) {
		return nil, false, fmt.Errorf("bump uses: edited file does not read back as intended (%v)", err)
	}
	for i, r := range after {
		want := refs[i].Uses
		if bumped[r.Line] {
			want.Ref, want.Comment = commit, tag
		}
		if r.Uses != want {
			return nil, false, fmt.Errorf("bump uses: line %d reads back as %+v, want %+v", r.Line, r.Uses, want)
		}
	}
	return out, true, nil
}

func isSHA(s string) bool { return ident.IsCommit(strings.ToLower(s)) }

// usesRef is a Uses with the node it was read from.
type usesRef struct {
	Uses
	node *yaml.Node
}

func findUses(src []byte) ([]usesRef, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, &Error{Line: yamlErrLine(err), Msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	var out []usesRef
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Kind == yaml.ScalarNode && k.Value == "uses" && v.Kind == yaml.ScalarNode {
					if u, ok := parseUses(v); ok {
						out = append(out, usesRef{Uses: u, node: v})
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&doc)
	sort.SliceStable(out, func(i, j int) bool { return out[i].node.Line < out[j].node.Line })
	return out, nil
}

var versionWordRe = regexp.MustCompile(`^v?[0-9]+(\.[0-9]+)*([-+][0-9A-Za-z.-]+)?$`)

func parseUses(v *yaml.Node) (Uses, bool) {
	val := v.Value
	if strings.HasPrefix(val, "./") || strings.HasPrefix(val, "docker://") {
		return Uses{}, false
	}
	at := strings.LastIndex(val, "@")
	if at < 0 {
		return Uses{}, false
	}
	target, ref := val[:at], val[at+1:]
	parts := strings.SplitN(target, "/", 3)
	if len(parts) < 2 || !ident.IsRepo(parts[0]+"/"+parts[1]) {
		return Uses{}, false
	}
	u := Uses{Line: v.Line, Repo: parts[0] + "/" + parts[1], Ref: ref}
	if len(parts) == 3 {
		u.Path = parts[2]
	}
	if c := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v.LineComment), "#")); c != "" {
		u.Comment = strings.Fields(c)[0]
	}
	return u, true
}

// usesEdits replaces the ref inside a uses scalar and sets its line comment.
func usesEdits(src []byte, lines []lineSpan, r usesRef, commit, tag string) ([]edit, error) {
	start, end, err := scalarSpan(src, lines, r.node)
	if err != nil {
		return nil, err
	}
	tok := string(src[start:end])
	at := strings.LastIndex(tok, "@"+r.Ref)
	if at < 0 {
		return nil, fmt.Errorf("cannot find %q in %q", r.Ref, tok)
	}
	edits := []edit{{start + at + 1, start + at + 1 + len(r.Ref), commit}}

	ln := lines[r.node.Line-1]
	rest := string(src[end:ln.end])
	trimmed := strings.TrimLeft(rest, " \t")
	switch {
	case strings.TrimSpace(rest) == "":
		edits = append(edits, edit{end, end, " # " + tag})
	case strings.HasPrefix(trimmed, "#"):
		cstart := end + (len(rest) - len(trimmed)) + 1 // after '#'
		body := trimmed[1:]
		lead := len(body) - len(strings.TrimLeft(body, " \t"))
		word := strings.Fields(body)
		if len(word) > 0 && versionWordRe.MatchString(word[0]) {
			ws := cstart + lead
			edits = append(edits, edit{ws, ws + len(word[0]), tag})
		} else {
			ws := cstart + lead
			edits = append(edits, edit{ws, ws, tag + " "})
			if lead == 0 {
				edits[len(edits)-1].text = " " + tag + " "
			}
		}
	default:
		return nil, fmt.Errorf("cannot put the version comment after %q: write the reference as `uses: %s@<sha> # <tag>` on its own line", tok, r.Repo)
	}
	return edits, nil
}

// lineSpan is the byte range of one line, without its line break.
type lineSpan struct{ start, end int }

func splitLines(src []byte) []lineSpan {
	var out []lineSpan
	start := 0
	for {
		i := bytes.IndexByte(src[start:], '\n')
		if i < 0 {
			end := len(src)
			if end > start && src[end-1] == '\r' {
				end--
			}
			out = append(out, lineSpan{start, end})
			return out
		}
		end := start + i
		if end > start && src[end-1] == '\r' {
			end--
		}
		out = append(out, lineSpan{start, end})
		start += i + 1
	}
}

// scalarSpan returns the byte range of a single-line scalar's token
// (including quotes) and checks that the token reads as the node's value.
func scalarSpan(src []byte, lines []lineSpan, n *yaml.Node) (int, int, error) {
	if n.Line < 1 || n.Line > len(lines) {
		return 0, 0, fmt.Errorf("position out of range")
	}
	ln := lines[n.Line-1]
	off := ln.start
	for col := 1; col < n.Column; col++ {
		if off >= ln.end {
			return 0, 0, fmt.Errorf("position out of range")
		}
		_, size := utf8.DecodeRune(src[off:ln.end])
		off += size
	}
	var lit string
	switch n.Style & (yaml.SingleQuotedStyle | yaml.DoubleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle) {
	case 0:
		lit = n.Value
	case yaml.SingleQuotedStyle:
		lit = "'" + strings.ReplaceAll(n.Value, "'", "''") + "'"
	case yaml.DoubleQuotedStyle:
		if strings.ContainsAny(n.Value, "\"\\") {
			return 0, 0, fmt.Errorf("escaped double-quoted values cannot be edited; write the value plainly")
		}
		lit = `"` + n.Value + `"`
	default:
		return 0, 0, fmt.Errorf("block scalars cannot be edited; write the value on one line")
	}
	if !bytes.HasPrefix(src[off:ln.end], []byte(lit)) {
		return 0, 0, fmt.Errorf("value is not written literally as %s on one line; write it plainly", lit)
	}
	return off, off + len(lit), nil
}

// scalarEdit replaces a scalar's value, keeping its quoting style.
func scalarEdit(src []byte, lines []lineSpan, n *yaml.Node, value string) (edit, error) {
	start, end, err := scalarSpan(src, lines, n)
	if err != nil {
		return edit{}, err
	}
	text := value
	switch src[start] {
	case '\'', '"':
		text = string(src[start]) + value + string(src[start])
	}
	return edit{start, end, text}, nil
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// apply applies non-overlapping edits.
func apply(src []byte, edits []edit) []byte {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b bytes.Buffer
	b.Grow(len(src) + 64)
	prev := 0
	for _, e := range edits {
		b.Write(src[prev:e.start])
		b.WriteString(e.text)
		prev = e.end
	}
	b.Write(src[prev:])
	return b.Bytes()
}
