package architecture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/inference-sim/accuracy-dashboard"

// external names a third-party module as the table writes it.
var external = []struct{ prefix, name string }{
	{"github.com/google/go-github/", "go-github"},
	{"github.com/bradleyfalzon/ghinstallation/", "ghinstallation"},
	{"github.com/golang-jwt/jwt/", "jwt"},
	{"github.com/getkin/kin-openapi/", "kin-openapi"},
	{"github.com/jackc/pgx/", "pgx"},
	{"gopkg.in/yaml.v3", "yaml"},
	{"github.com/santhosh-tekuri/jsonschema/", "jsonschema"},
	{"github.com/google/go-cmp/", "go-cmp"},
	{"github.com/sethvargo/go-githubactions", "go-githubactions"},
	{"golang.org/x/mod/", "x/mod"},
	{"golang.org/x/text/", "x/text"},
	{"github.com/chromedp/chromedp", "chromedp"},
	{"github.com/prometheus/client_golang/", "prometheus"},
}

// graph maps a package (its path in the module: "internal/runresult", "cmd/bot",
// "schemas") to the names of what it imports: a project package by its last
// path element ("runresult"), a third-party module by its name in external.
type graph map[string][]string

// rule is one promise of docs/ARCHITECTURE.md about the import graph.
type rule struct {
	what string
	// broken returns the imports of pkg that break the rule: a name, or
	// for an indirect dependency the chain "a → b → name".
	broken func(g graph, pkg string) []string
}

// forbid is a rule: packages matching who import none of names.
func forbid(what string, who func(pkg string) bool, names ...string) rule {
	return rule{what, func(g graph, pkg string) []string {
		if !who(pkg) {
			return nil
		}
		var bad []string
		for _, n := range names {
			if slices.Contains(g[pkg], n) {
				bad = append(bad, n)
			}
		}
		return bad
	}}
}

// forbidReach is a rule: packages matching who depend on none of names,
// directly or through any chain of the module's packages.
func forbidReach(what string, who func(pkg string) bool, names ...string) rule {
	return rule{what, func(g graph, pkg string) []string {
		if !who(pkg) {
			return nil
		}
		var bad []string
		for _, n := range names {
			if chain := g.path(pkg, n); chain != nil {
				bad = append(bad, strings.Join(chain, " → "))
			}
		}
		return bad
	}}
}

// pkgNamed is the package of g an import name stands for ("harness" →
// "internal/harness"); commands (cmd/*) are never imported.
func (g graph) pkgNamed(name string) string {
	for p := range g {
		if !strings.HasPrefix(p, "cmd/") && p[strings.LastIndex(p, "/")+1:] == name {
			return p
		}
	}
	return ""
}

// path is the shortest chain of import names by which pkg depends on
// target (nil: it does not), breadth first over g.
func (g graph) path(pkg, target string) []string {
	type step struct {
		pkg   string
		chain []string
	}
	seen := map[string]bool{pkg: true}
	queue := []step{{pkg, nil}}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, n := range g[s.pkg] {
			chain := append(slices.Clone(s.chain), n)
			if n == target {
				return chain
			}
			if next := g.pkgNamed(n); next != "" && !seen[next] {
				seen[next] = true
				queue = append(queue, step{next, chain})
			}
		}
	}
	return nil
}

func is(names ...string) func(string) bool {
	return func(pkg string) bool { return slices.Contains(names, pkg) }
}

func not(names ...string) func(string) bool {
	return func(pkg string) bool { return !slices.Contains(names, pkg) }
}

// leaderboardPackages are the import names of internal/leaderboard and
// its sub-packages.
var leaderboardPackages = []string{"leaderboard", "lbrun", "lbpr", "lbserve", "lbview", "lbpublish", "leaderboardtest"}

// rules are the layering rules of docs/ARCHITECTURE.md.
var rules = []rule{
	forbid("only internal/github talks to GitHub (go-github, ghinstallation)", not("internal/github"), "go-github", "ghinstallation"),
	forbid("only the wiring (cmd/*) and the Action's runtime (internal/ghaction) use the GitHub adapter",
		func(p string) bool { return !strings.HasPrefix(p, "cmd/") && p != "internal/ghaction" }, "github"),
	forbid("only internal/inferencexdb (and its test helper) talks to PostgreSQL", not("internal/inferencexdb", "internal/inferencexdb/inferencexdbtest"), "pgx"),
	forbid("test helpers are imported by tests (and other test helpers) only", not(testHelpers...), "testkit", "leaderboardtest", "harnesstest", "importertest", "inferencexdbtest", "dashboardtest", "golden", "bumpfake", "browsertest"),
	forbid("only the Action's runtime (internal/ghaction) talks to the Actions runner (go-githubactions)", not("internal/ghaction"), "go-githubactions"),
	forbid("the Action's runtime is the Action's alone: only cmd/action imports it", not("cmd/action"), "ghaction"),
	forbid("the pull-request core (prcheck) depends only on model packages", is("internal/prcheck"),
		"harness", "importer", "ledger", "bump", "publish", "botconfig", "webhook", "nightly", "leaderboard", "inferencexdb", "github", "corpus"),
	forbid("the bot's pin bumping and publishing do not import the pull-request flow (the comparison model is runresult's)", is("internal/bump", "internal/publish"), "prcheck"),
	forbid("pin bumping and publishing are two packages: neither imports the other", is("internal/bump", "internal/publish"), "bump", "publish"),
	forbid("the Action does not import the bot's pin bumping", is("cmd/action", "internal/ghaction"), "bump"),
	forbid("the Action's runtime is not the bot: no publishing, bot server or bot configuration", is("internal/ghaction"), "publish", "webhook", "botconfig"),
	forbid("only the browser test helper (browsertest) drives a browser (chromedp)", not("internal/browsertest"), "chromedp"),
	forbidReach("the scoring engine (internal/harness) does not link PostgreSQL, not even through another package", is("internal/harness"), "pgx"),
	forbidReach("the site is built from published data, never from the simulator harness", is("internal/site", "internal/dashboard"), "harness", "lbrun"),
	forbid("configuration (botconfig) does not import the bot's core or its server", is("internal/botconfig"), "bump", "webhook", "github"),
	forbid("rendering is pure: no harness, importer, bot or disk", is("internal/render"), "harness", "importer", "bump", "publish", "prcheck", "diskio", "github", "webhook"),
	forbidReach("rendering and the pull-request core never depend on the simulator harness, not even through another package", is("internal/render", "internal/prcheck"), "harness", "lbrun"),
	forbidReach("the leaderboard's model is pure: the runner (lbrun) alone drives the simulator", is("internal/leaderboard"), "harness", "lbrun"),
	forbidReach("the simulator's command line and the bot's publishing never depend on the simulator harness", is("internal/simcli", "internal/publish"), "harness", "lbrun"),
	forbid("the leaderboard lives in its own subtree: only internal/leaderboard/... and the programs (cmd/*) import a leaderboard package",
		func(p string) bool {
			return !strings.HasPrefix(p, "cmd/") && p != "internal/leaderboard" && !strings.HasPrefix(p, "internal/leaderboard/")
		}, leaderboardPackages...),
	forbid("the model packages do not import the harness, the flows or the edges", is("internal/runresult", "internal/metric", "internal/accuracy", "internal/ledger", "internal/pin", "internal/ident", "internal/jsoncodec", "internal/ghmodel"),
		"harness", "prcheck", "bump", "webhook", "render", "importer", "github"),
}

// check returns every broken rule of g, one line each, sorted.
func check(g graph) []string {
	var out []string
	for pkg := range g {
		for _, r := range rules {
			for _, bad := range r.broken(g, pkg) {
				out = append(out, fmt.Sprintf("%s imports %s: breaks %q", pkg, bad, r.what))
			}
		}
	}
	sort.Strings(out)
	return out
}

// goList is the import graph of the module's packages (tests excluded) and
// the paths of each package's Go files (test files excluded).
func goList(t *testing.T, root string) (graph, map[string][]string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	g, files := graph{}, map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath string
			Dir        string
			GoFiles    []string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		// Reading the sources and listing their directory here (not only
		// in go list) lets go test's cache see them: an import or a file
		// added later reruns the test.
		if _, err := os.ReadDir(p.Dir); err != nil {
			t.Fatal(err)
		}
		for _, f := range p.GoFiles {
			if _, err := os.ReadFile(filepath.Join(p.Dir, f)); err != nil {
				t.Fatal(err)
			}
		}
		pkg := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if pkg == "internal/architecture" {
			continue
		}
		for _, f := range p.GoFiles {
			files[pkg] = append(files[pkg], filepath.Join(p.Dir, f))
		}
		names := []string{}
		for _, imp := range p.Imports {
			if n, ok := name(t, imp); ok && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		g[pkg] = names
	}
	return g, files
}

// name is how the table names an import; false for the standard library.
func name(t *testing.T, imp string) (string, bool) {
	if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
		return rest[strings.LastIndex(rest, "/")+1:], true
	}
	for _, e := range external {
		if strings.HasPrefix(imp, e.prefix) {
			return e.name, true
		}
	}
	if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
		t.Errorf("third-party import %s: give it a name in external (architecture_test.go) and the table", imp)
		return imp, true
	}
	return "", false
}

var (
	rowRe   = regexp.MustCompile("^\\| `([^`]+)` \\|.*\\| ([^|]*) \\|$")
	parenRe = regexp.MustCompile(`\s*\([^)]*\)`)
)

// table reads the package table of docs/ARCHITECTURE.md: package → the
// names of its "depends on" column ("—" for none; parenthesised notes are
// dropped).
func table(t *testing.T, path string) graph {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g := graph{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Packages"
		case in:
			m := rowRe.FindStringSubmatch(line)
			if m == nil || m[1] == "package" {
				continue
			}
			deps := []string{}
			if col := strings.TrimSpace(parenRe.ReplaceAllString(m[2], "")); col != "—" {
				for _, d := range strings.Split(col, ",") {
					deps = append(deps, strings.TrimSpace(d))
				}
			}
			sort.Strings(deps)
			if _, dup := g[m[1]]; dup {
				t.Errorf("%s: package %s has two rows", path, m[1])
			}
			g[m[1]] = deps
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return g
}

// The package table of docs/ARCHITECTURE.md is the import graph: one row
// per package, its "depends on" column exactly what it imports.
func TestArchitectureTableIsTheImportGraph(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := goList(t, root)
	doc := table(t, filepath.Join(root, "docs", "ARCHITECTURE.md"))
	pkgs := slices.Sorted(maps.Keys(got))
	for _, p := range pkgs {
		want, ok := doc[p]
		switch {
		case !ok:
			t.Errorf("docs/ARCHITECTURE.md has no row for package %s (it imports: %s)", p, orNone(got[p]))
		case !slices.Equal(want, got[p]):
			t.Errorf("docs/ARCHITECTURE.md: %s depends on %q, the table says %q", p, orNone(got[p]), orNone(want))
		}
	}
	for p := range doc {
		if _, ok := got[p]; !ok {
			t.Errorf("docs/ARCHITECTURE.md has a row for %s, which is not a package", p)
		}
	}
	for _, v := range check(got) {
		t.Error(v)
	}
}

func orNone(deps []string) string {
	if len(deps) == 0 {
		return "—"
	}
	return strings.Join(deps, ", ")
}

// Each rule fails when its forbidden import is added.
func TestRulesCatchForbiddenImports(t *testing.T) {
	t.Parallel()
	clean := graph{
		"internal/github":             {"ghinstallation", "go-github", "jwt"},
		"internal/runresult":          {"diskio", "jsoncodec", "metric", "schemas", "accuracy"},
		"internal/prcheck":            {"cachedir", "diskio", "pin", "render", "runresult", "accuracy"},
		"internal/botconfig":          {"ident", "yaml"},
		"internal/render":             {"metric", "runresult"},
		"internal/leaderboard":        {"diskio", "runresult", "schemas"},
		"internal/harness":            {"pool", "runresult"},
		"internal/leaderboard/lbrun":  {"harness", "leaderboard", "lbview", "pool"},
		"internal/leaderboard/lbview": {"leaderboard", "render"},
		"internal/ghaction":           {"github", "go-githubactions", "pinned", "prcheck"},
		"internal/publish":            {"render", "runresult"},
		"cmd/bot":                     {"bump", "github", "lbpublish", "publish"},
		"cmd/action":                  {"ghaction", "harness", "lbpr", "lbrun", "leaderboard", "render"},
	}
	if v := check(clean); len(v) != 0 {
		t.Fatalf("a clean graph breaks rules: %v", v)
	}
	for _, tt := range []struct{ pkg, dep string }{
		{"cmd/action", "go-githubactions"},
		{"cmd/bot", "ghaction"},
		{"internal/ghaction", "bump"},
		{"internal/ghaction", "publish"},
		{"cmd/action", "bump"},
		{"internal/runresult", "go-github"},
		{"internal/runresult", "github"},
		{"internal/prcheck", "harness"},
		{"internal/botconfig", "bump"},
		{"internal/render", "diskio"},
		{"internal/runresult", "pgx"},
		{"internal/render", "go-githubactions"},
		{"internal/metric", "harness"},
		{"internal/leaderboard", "harness"},
		{"internal/leaderboard", "lbrun"},
		{"internal/render", "lbrun"},
		{"internal/render", "leaderboard"},
		{"internal/render", "lbview"},
		{"internal/publish", "lbview"},
		{"internal/publish", "leaderboard"},
		{"internal/ghaction", "lbpr"},
		{"internal/prcheck", "lbview"},
		{"internal/prcheck", "lbrun"},
		{"internal/runresult", "testkit"},
		{"cmd/bot", "golden"},
	} {
		g := graph{}
		for k, v := range clean {
			g[k] = append([]string(nil), v...)
		}
		g[tt.pkg] = append(g[tt.pkg], tt.dep)
		if v := check(g); !slices.ContainsFunc(v, func(line string) bool { return strings.HasPrefix(line, tt.pkg+" imports "+tt.dep+":") }) {
			t.Errorf("%s importing %s: %v, want a broken rule", tt.pkg, tt.dep, v)
		}
	}
}

// The rules on render and prcheck hold through any chain of imports: a
// harness dependency added two packages away breaks them.
func TestRulesCatchIndirectDependencies(t *testing.T) {
	t.Parallel()
	clean := graph{
		"internal/render":            {"metric", "runresult"},
		"internal/prcheck":           {"render", "runresult"},
		"internal/leaderboard":       {"diskio", "runresult"},
		"internal/runresult":         {"diskio", "metric"},
		"internal/diskio":            {},
		"internal/metric":            {},
		"internal/harness":           {"importreport", "pool", "runresult"},
		"internal/leaderboard/lbrun": {"harness", "leaderboard", "pool"},
		"internal/importer":          {"diskio", "importreport", "inferencexdb"},
		"internal/inferencexdb":      {"pgx"},
		"internal/importreport":      {"runresult"},
		"cmd/action":                 {"harness", "importer", "lbrun", "leaderboard", "render"},
	}
	if v := check(clean); len(v) != 0 {
		t.Fatalf("a clean graph breaks rules: %v", v)
	}
	for _, tt := range []struct {
		pkg, dep string
		want     []string
	}{
		{"internal/diskio", "harness", []string{
			"internal/leaderboard imports diskio → harness",
			"internal/prcheck imports runresult → diskio → harness",
			"internal/render imports runresult → diskio → harness",
		}},
		{"internal/metric", "lbrun", []string{
			"internal/prcheck imports render → metric → lbrun",
			"internal/render imports metric → lbrun",
		}},
		{"internal/harness", "importer", []string{
			"internal/harness imports importer → inferencexdb → pgx",
		}},
		{"internal/importreport", "inferencexdb", []string{
			"internal/harness imports importreport → inferencexdb → pgx",
		}},
	} {
		g := graph{}
		for k, v := range clean {
			g[k] = append([]string(nil), v...)
		}
		g[tt.pkg] = append(g[tt.pkg], tt.dep)
		v := check(g)
		for _, w := range tt.want {
			if !slices.ContainsFunc(v, func(line string) bool { return strings.HasPrefix(line, w+":") }) {
				t.Errorf("%s importing %s: %q, want a line starting %q", tt.pkg, tt.dep, v, w)
			}
		}
	}
}
