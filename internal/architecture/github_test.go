package architecture

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const githubPkg = module + "/internal/github"

// githubConstructors are the names of internal/github other packages may
// use: building the clients and naming them. Everything a client takes or
// returns is a plain type of ident or ghmodel, so no other package handles,
// let alone converts, the adapter's own types (its refs, trees, artifacts,
// API errors): each such name used outside internal/github fails.
var githubConstructors = []string{
	"New", "Options", "RetryPolicy", "DefaultBaseURL", "Client",
	"NewAppTransport", "AppTransport", "NewAppClient", "AppClient",
	"PullComments", "Tags",
}

// githubTypesIn lists, as "file:line: github.Name", the names of
// internal/github one Go source file uses that are not githubConstructors.
func githubTypesIn(fset *token.FileSet, name string, src []byte) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	local := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == githubPkg {
			local = "github"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" {
		return nil, nil
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == local && !slices.Contains(githubConstructors, sel.Sel.Name) {
			found = append(found, fmt.Sprintf("%s:%d: %s.%s", name, fset.Position(sel.Pos()).Line, local, sel.Sel.Name))
		}
		return true
	})
	return found, nil
}

// TestGitHubTypesStayInTheAdapter: only internal/github imports go-github
// (TestArchitectureTableIsTheImportGraph's rules), and only it handles the
// types it translates from: every other package's code (tests aside) uses
// internal/github's clients alone, through the plain types of ident and
// ghmodel, so no second adapter layer converts them.
func TestGitHubTypesStayInTheAdapter(t *testing.T) {
	for _, f := range findInSources(t, func(pkg string) bool { return pkg == "internal/github" }, githubTypesIn) {
		t.Errorf("%s: an internal/github type outside the adapter (return ident or ghmodel types from internal/github instead)", f)
	}
}

// The detector flags the adapter's own types and nothing of its
// construction API, under any import name.
func TestGitHubTypesDetector(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]bool{
		`func f(r github.Ref) {}`:                               true,
		`var e *github.APIError`:                                true,
		`func f(p []github.Artifact) {}`:                        true,
		`var c, _ = github.New(github.Options{})`:               false,
		`var a *github.AppClient`:                               false,
		`var t = github.Tags{}`:                                 false,
		`var x = other.Ref{}`:                                   false,
		"import gh \"" + githubPkg + "\"\nvar r gh.Ref":         true,
		"import gh \"" + githubPkg + "\"\nvar o = gh.Options{}": false,
	} {
		file := "package x\n\n"
		if !strings.Contains(src, "import gh") {
			file += "import \"" + githubPkg + "\"\n\n"
		}
		file += src + "\n"
		found, err := githubTypesIn(token.NewFileSet(), "x.go", []byte(file))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := len(found) > 0; got != want {
			t.Errorf("%s: flagged %v (%v), want %v", src, got, found, want)
		}
	}
}
