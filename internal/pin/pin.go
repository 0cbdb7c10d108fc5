// Package pin reads and edits the pin file through which a consumer
// repository fixes the accuracy harness its pull-request checks run: the
// harness repository, a release tag and the 40-hex commit that tag names, and
// the data versions the harness is given. It also edits
// `uses: owner/repo@<sha> # <tag>` lines in workflow files.
//
// Parsing is strict: an unknown key, a duplicate key, a short or non-hex
// commit, or a tag that is not a release tag (a branch moves, so figures
// pinned to it could not be regenerated) is an error naming the file and line.
// Editing works on the text, not on a YAML round trip: only the pinned values
// change, and comments, key order, quoting and layout are kept byte for byte.
// The package does no I/O: callers pass bytes in and write bytes out.
package pin

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"gopkg.in/yaml.v3"
)

// DefaultPath is where the Action looks for the pin file in the consumer
// repository unless told otherwise.
const DefaultPath = ".github/accuracy-harness.yaml"

// Data values besides paths.
const (
	// Bundled selects the pinned harness's default for that data (no flag
	// is passed to the harness).
	Bundled = "bundled"
	// None hands the simulator no catalog or registry (catalog and
	// registry only; a ledger is always needed).
	None = "none"
)

// Pin is a parsed pin file.
type Pin struct {
	Harness Harness
	Data    Data
	// Leaderboard is the simulator/catalog pair the leaderboard runs with
	// (nil when the file pins none). See LeaderboardPair.
	Leaderboard *LeaderboardPair
}

// Harness is the pinned harness.
type Harness struct {
	// Repository is "owner/name" (a repository on the GitHub server the
	// Action runs against), an http(s)/ssh/file URL, or a local path (for
	// tests). See CloneURL.
	Repository string
	// Tag is a release tag, vMAJOR.MINOR.PATCH with an optional pre-release.
	Tag string
	// Commit is the lowercase 40-hex commit Tag names.
	Commit string
}

// Data says which data the harness is given. Each value is Bundled, None
// (catalog and registry only) or a clean relative path inside the consumer
// repository (slash-separated, no "..", not absolute).
type Data struct {
	Ledger   string
	Catalog  string
	Registry string
}

// Error is a problem with a pin or workflow file, located by file and line
// (Line is 0 when the problem is not tied to one line).
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	file := e.File
	if file == "" {
		file = "<input>"
	}
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", file, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", file, e.Msg)
}

// MaxFileBytes caps a pin file (real ones are under 1 KiB). Parse refuses a
// longer one; a pin file on disk is read with diskio.ReadPathMax at this cap,
// so a larger one is never read whole.
const MaxFileBytes = 64 << 10

// Parse parses a pin file strictly. name is the file's name, used in error
// messages only. Every error is an *Error.
func Parse(src []byte, name string) (Pin, error) {
	p, _, err := parse(src, name)
	return p, err
}

// parse is Parse that also returns the scalar fields with their positions.
func parse(src []byte, name string) (Pin, []field, error) {
	doc, err := parseDoc(src, name)
	if err != nil {
		return Pin{}, nil, err
	}
	fields, err := pinFields(doc, name)
	if err != nil {
		return Pin{}, nil, err
	}
	p := Pin{Data: Data{Ledger: Bundled, Catalog: Bundled, Registry: Bundled}}
	leaderboardLine := 0
	for _, f := range fields {
		v := f.node.Value
		bad := func(format string, a ...any) error {
			return &Error{File: name, Line: f.node.Line, Msg: f.path + ": " + fmt.Sprintf(format, a...)}
		}
		switch f.path {
		case "leaderboard":
			p.Leaderboard, leaderboardLine = &LeaderboardPair{}, f.node.Line
		case "harness.repository":
			if err := CheckRepository(v); err != nil {
				return Pin{}, nil, bad("%v", err)
			}
			p.Harness.Repository = v
		case "harness.tag":
			if err := ident.CheckTag(v); err != nil {
				return Pin{}, nil, bad("%v", err)
			}
			p.Harness.Tag = v
		case "harness.commit":
			if err := ident.CheckCommit(v); err != nil {
				return Pin{}, nil, bad("%v", err)
			}
			p.Harness.Commit = v
		case "leaderboard.simulator.repository", "leaderboard.simulator.tag", "leaderboard.simulator.commit",
			"leaderboard.catalog.source", "leaderboard.catalog.digest":
			if err := p.Leaderboard.set(f.path, v); err != nil {
				return Pin{}, nil, bad("%v", err)
			}
		case "data.ledger", "data.catalog", "data.registry":
			if err := checkDataValue(v, f.path != "data.ledger"); err != nil {
				return Pin{}, nil, bad("%v", err)
			}
			switch f.path {
			case "data.ledger":
				p.Data.Ledger = v
			case "data.catalog":
				p.Data.Catalog = v
			default:
				p.Data.Registry = v
			}
		}
	}
	if p.Leaderboard != nil {
		if err := p.Leaderboard.complete(); err != nil {
			return Pin{}, nil, &Error{File: name, Line: leaderboardLine, Msg: err.Error()}
		}
	}
	return p, fields, nil
}

// CheckRepository reports whether repo names a harness repository: owner/name,
// an http(s), ssh or file URL, or a local path (absolute, or starting with ./
// or ../).
func CheckRepository(repo string) error {
	switch {
	case repo == "":
		return errors.New("repository is empty")
	case strings.ContainsAny(repo, " \t\r\n"):
		return fmt.Errorf("%q contains white space", repo)
	case ident.IsRepo(repo):
		return nil
	case strings.HasPrefix(repo, "https://"), strings.HasPrefix(repo, "http://"),
		strings.HasPrefix(repo, "ssh://"), strings.HasPrefix(repo, "file://"):
		return nil
	case strings.HasPrefix(repo, "/"), strings.HasPrefix(repo, "./"), strings.HasPrefix(repo, "../"):
		return nil
	}
	return fmt.Errorf("%q is not owner/name, a URL or a local path", repo)
}

func checkDataValue(v string, noneOK bool) error {
	if v == Bundled || (noneOK && v == None) {
		return nil
	}
	if v == None {
		return fmt.Errorf("%q is not allowed for the ledger; want %q or a relative path in the repository", v, Bundled)
	}
	switch {
	case v == "":
		return fmt.Errorf("empty; want %q or a relative path in the repository", Bundled)
	case strings.HasPrefix(v, "/"), strings.Contains(v, "\\"):
		return fmt.Errorf("%q: want %q or a relative slash-separated path in the repository", v, Bundled)
	}
	for _, part := range strings.Split(v, "/") {
		if part == ".." {
			return fmt.Errorf("%q leaves the repository", v)
		}
		if part == "" {
			return fmt.Errorf("%q is not a clean path", v)
		}
	}
	return nil
}

// CloneURL returns the URL or path to clone the harness from: owner/name is
// resolved against serverURL (e.g. https://github.com); anything else is
// returned as is.
func (h Harness) CloneURL(serverURL string) string {
	if ident.IsRepo(h.Repository) {
		return strings.TrimSuffix(serverURL, "/") + "/" + h.Repository + ".git"
	}
	return h.Repository
}

// SameRepository reports whether two repository references name the same
// GitHub repository: owner/name compares case-insensitively with
// https://<host>/owner/name(.git) URLs. Local paths compare as written.
func SameRepository(a, b string) bool {
	return normalizeRepo(a) == normalizeRepo(b)
}

func normalizeRepo(r string) string {
	r = strings.TrimSuffix(strings.TrimSuffix(r, "/"), ".git")
	if ident.IsRepo(r) {
		return strings.ToLower(r)
	}
	for _, scheme := range []string{"https://", "http://"} {
		if rest, ok := strings.CutPrefix(r, scheme); ok {
			if _, path, ok := strings.Cut(rest, "/"); ok && ident.IsRepo(path) {
				return strings.ToLower(path)
			}
		}
	}
	return r
}

// field is one value of the pin file with its dotted path: a single-line
// scalar, or the key of a mapping (a path listed in allowedKeys) before its
// own fields.
type field struct {
	path string
	node *yaml.Node
}

// allowedKeys lists the keys of each mapping by its dotted path; a key whose
// path is not listed here holds a single-line scalar.
var allowedKeys = map[string][]string{
	"":                      {"harness", "data", "leaderboard"},
	"harness":               {"repository", "tag", "commit"},
	"data":                  {"ledger", "catalog", "registry"},
	"leaderboard":           {"simulator", "catalog"},
	"leaderboard.simulator": {"repository", "tag", "commit"},
	"leaderboard.catalog":   {"source", "digest"},
}

// pinFields checks the document's structure and returns its scalar fields
// in file order.
func pinFields(doc *yaml.Node, name string) ([]field, error) {
	var out []field
	seen := map[string]bool{}
	var walk func(n *yaml.Node, path string) error
	walk = func(n *yaml.Node, path string) error {
		entries, err := mappingEntries(n, path, name)
		if err != nil {
			return err
		}
		for _, e := range entries {
			sub := e[0].Value
			if path != "" {
				sub = path + "." + sub
			}
			if _, isMapping := allowedKeys[sub]; isMapping {
				out = append(out, field{path: sub, node: e[0]}) // the key: its line
				if err := walk(e[1], sub); err != nil {
					return err
				}
				continue
			}
			if e[1].Kind != yaml.ScalarNode || e[1].Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				return &Error{File: name, Line: e[1].Line, Msg: sub + ": want a single-line value"}
			}
			seen[sub] = true
			out = append(out, field{path: sub, node: e[1]})
		}
		return nil
	}
	if err := walk(doc.Content[0], ""); err != nil {
		return nil, err
	}
	for _, req := range []string{"harness.repository", "harness.tag", "harness.commit"} {
		if !seen[req] {
			return nil, &Error{File: name, Msg: "missing " + req}
		}
	}
	return out, nil
}

// mappingEntries checks that n is a mapping with only the keys allowed under
// path, each at most once, and returns its key/value pairs.
func mappingEntries(n *yaml.Node, path, name string) ([][2]*yaml.Node, error) {
	what := "the file"
	if path != "" {
		what = path
	}
	if n.Kind == yaml.AliasNode {
		return nil, &Error{File: name, Line: n.Line, Msg: what + ": aliases are not allowed"}
	}
	if n.Kind != yaml.MappingNode {
		return nil, &Error{File: name, Line: n.Line, Msg: what + ": want a mapping"}
	}
	allowed := allowedKeys[path]
	seen := map[string]int{}
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		full := k.Value
		if path != "" {
			full = path + "." + k.Value
		}
		if k.Kind != yaml.ScalarNode {
			return nil, &Error{File: name, Line: k.Line, Msg: what + ": keys must be plain strings"}
		}
		if !slices.Contains(allowed, k.Value) {
			return nil, &Error{File: name, Line: k.Line, Msg: fmt.Sprintf("unknown key %q (allowed under %s: %s)", full, what, strings.Join(allowed, ", "))}
		}
		if line, dup := seen[k.Value]; dup {
			return nil, &Error{File: name, Line: k.Line, Msg: fmt.Sprintf("duplicate key %q (first at line %d)", full, line)}
		}
		if v.Kind == yaml.AliasNode {
			return nil, &Error{File: name, Line: v.Line, Msg: full + ": aliases are not allowed"}
		}
		seen[k.Value] = k.Line
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out, nil
}

// parseDoc parses exactly one YAML document.
func parseDoc(src []byte, name string) (*yaml.Node, error) {
	if len(src) > MaxFileBytes {
		return nil, &Error{File: name, Msg: fmt.Sprintf("%d bytes; a pin file is at most %d", len(src), MaxFileBytes)}
	}
	dec := yaml.NewDecoder(strings.NewReader(string(src)))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: name, Msg: "empty file"}
		}
		return nil, &Error{File: name, Line: yamlErrLine(err), Msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, &Error{File: name, Line: extra.Line, Msg: "more than one YAML document"}
	case !errors.Is(err, io.EOF):
		return nil, &Error{File: name, Line: yamlErrLine(err), Msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, &Error{File: name, Msg: "empty file"}
	}
	return &doc, nil
}

var yamlLineRe = regexp.MustCompile(`line (\d+)`)

// yamlErrLine extracts the line number of a yaml.v3 syntax error (0 if none).
func yamlErrLine(err error) int {
	m := yamlLineRe.FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	n := 0
	fmt.Sscanf(m[1], "%d", &n)
	return n
}
