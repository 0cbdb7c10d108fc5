package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Names in docs/WALKTHROUGH.md, the page that follows one pull request
// through the code: a code span that is a Go name ("runresult.Parse",
// "Flow.RunPR", "runScore") and a path in the repository ("cmd/action/main.go").
var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	// goName is a qualified name (package or type, then a member) or a
	// camel-case one; a lower-case word ("pr", "nightly") is a mode or an
	// input, not a name to look up.
	goName = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*|[a-z]+[A-Z][A-Za-z0-9_]*|[A-Z][A-Za-z0-9_]*)$`)
	// repoPath is a path under the project's own code folders.
	repoPath = regexp.MustCompile(`\b(?:cmd|internal|corpus)/[A-Za-z0-9_./-]*[A-Za-z0-9_/]`)
	// fileSuffix marks a code span that is a file name, not a Go name.
	fileSuffix = regexp.MustCompile(`\.(?:md|json|ya?ml|go|html|js|svg|txt)$`)
)

// placeholder are the spans the page's introduction uses to show the form.
var placeholder = map[string]bool{"package.Function": true, "Type.Method": true}

// declaredNames lists every name the module's non-test code declares, in
// the forms the walkthrough writes them: "pkg.Name" for a package-level
// function, type, variable or constant, "Type.Member" for a method or a
// struct field, and the bare name.
func declaredNames(t *testing.T, files map[string][]string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, pkg := range slices.Sorted(maps.Keys(files)) {
		for _, path := range files[pkg] {
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			p := f.Name.Name
			add := func(n string) { names[n], names[p+"."+n] = true, true }
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil || len(d.Recv.List) == 0 {
						add(d.Name.Name)
						continue
					}
					if r := recvType(d.Recv.List[0].Type); r != "" {
						names[r+"."+d.Name.Name] = true
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							add(s.Name.Name)
							if st, ok := s.Type.(*ast.StructType); ok {
								for _, fl := range st.Fields.List {
									for _, n := range fl.Names {
										names[s.Name.Name+"."+n.Name] = true
									}
								}
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								add(n.Name)
							}
						}
					}
				}
			}
		}
	}
	return names
}

// recvType is the name of a method's receiver type ("Flow" for *Flow or
// Spec[O]).
func recvType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvType(e.X)
	case *ast.IndexExpr:
		return recvType(e.X)
	case *ast.IndexListExpr:
		return recvType(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// leaderboardPath is the leaderboard's subtree, which the walkthrough (one
// measured point's way to the pull-request comment and the dashboard)
// never opens.
const leaderboardPath = "internal/leaderboard"

// TestWalkthroughNamesExist keeps docs/WALKTHROUGH.md true as code moves:
// every Go name it writes in a code span is declared in the module's code,
// and every path under cmd/, internal/ or corpus/ it names exists. It
// names no path under internal/leaderboard/ and no name only the
// leaderboard's packages declare: the leaderboard is its own product.
func TestWalkthroughNamesExist(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "WALKTHROUGH.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, files := goList(t, root)
	outside := map[string][]string{}
	for pkg, fs := range files {
		if pkg != leaderboardPath && !strings.HasPrefix(pkg, leaderboardPath+"/") {
			outside[pkg] = fs
		}
	}
	exists := func(p string) bool {
		_, err := os.Stat(filepath.Join(root, p))
		return err == nil
	}
	problems := walkthroughProblems(string(doc), declaredNames(t, files), declaredNames(t, outside), exists)
	if len(problems) > 0 {
		t.Errorf("docs/WALKTHROUGH.md names what the code does not have (moved or renamed? "+
			"update the page), or opens the leaderboard:\n  %s", strings.Join(problems, "\n  "))
	}
}

// walkthroughProblems checks the walkthrough's text: each Go name in a
// code span is in names and, unless only the leaderboard declares it, in
// outside (names declared outside internal/leaderboard/); each repository
// path exists and is not under internal/leaderboard/.
func walkthroughProblems(doc string, names, outside map[string]bool, exists func(path string) bool) []string {
	var problems []string
	for i, line := range strings.Split(doc, "\n") {
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			span := m[1]
			if !goName.MatchString(span) || fileSuffix.MatchString(span) || placeholder[span] {
				continue
			}
			switch {
			case !names[span]:
				problems = append(problems, filepathLine(i, "name "+span))
			case !outside[span]:
				problems = append(problems, filepathLine(i, "name "+span+" is the leaderboard's"))
			}
		}
		for _, p := range repoPath.FindAllString(line, -1) {
			switch {
			case p == leaderboardPath || strings.HasPrefix(p, leaderboardPath+"/"):
				problems = append(problems, filepathLine(i, "path "+p+" is the leaderboard's"))
			case !exists(p):
				problems = append(problems, filepathLine(i, "path "+p))
			}
		}
	}
	return problems
}

// TestWalkthroughProblems: the check fails on a name the code lacks, a
// path that does not exist, and a path or name of the leaderboard's.
func TestWalkthroughProblems(t *testing.T) {
	t.Parallel()
	names := map[string]bool{"prcheck.Flow": true, "Flow.RunPR": true, "lbpr.Flow": true, "Flow": true}
	outside := map[string]bool{"prcheck.Flow": true, "Flow.RunPR": true, "Flow": true}
	exists := func(p string) bool { return p != "internal/gone/x.go" }
	doc := "`prcheck.Flow` and `Flow.RunPR` in internal/prcheck/flow.go; `Flow` again.\n" +
		"`lbpr.Flow` in internal/leaderboard/lbpr/flow.go.\n" +
		"`prcheck.Gone` in internal/gone/x.go; internal/leaderboard is a folder; `pr` is a mode.\n"
	got := walkthroughProblems(doc, names, outside, exists)
	want := []string{
		"docs/WALKTHROUGH.md:2: name lbpr.Flow is the leaderboard's",
		"docs/WALKTHROUGH.md:2: path internal/leaderboard/lbpr/flow.go is the leaderboard's",
		"docs/WALKTHROUGH.md:3: name prcheck.Gone",
		"docs/WALKTHROUGH.md:3: path internal/gone/x.go",
		"docs/WALKTHROUGH.md:3: path internal/leaderboard is the leaderboard's",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// filepathLine names line i (from 0) of the walkthrough and what is wrong there.
func filepathLine(i int, what string) string {
	return "docs/WALKTHROUGH.md:" + strconv.Itoa(i+1) + ": " + what
}
