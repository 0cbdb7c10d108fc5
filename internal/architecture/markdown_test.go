package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Markdown structure in a string literal: a table row (a line that starts
// with a pipe and has another) or its alignment row, an ATX heading (one to
// six #, a space, text), a GitHub alert ("> [!NOTE]"), bold text or a
// <details> block. A literal's first line counts as a line start: a
// literal that begins a row or a heading starts one.
var (
	markdownLine = []*regexp.Regexp{
		regexp.MustCompile(`^\s*\|.*\|`),                                   // table row
		regexp.MustCompile(`^\s*\|?\s*:?-{3,}:?\s*\|`),                     // alignment row
		regexp.MustCompile(`^#{1,6} \S`),                                   // heading
		regexp.MustCompile(`^> \[!(NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]`), // alert
	}
	markdownAnywhere = regexp.MustCompile(`\*\*[^\s*][^*]*\*\*|<details>`)
)

// markdownIn lists the string literals of one Go source file that hold
// Markdown tables or headings, as "file:line: literal".
func markdownIn(fset *token.FileSet, name string, src []byte) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		v, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		md := markdownAnywhere.MatchString(v)
		for _, line := range strings.Split(v, "\n") {
			for _, re := range markdownLine {
				md = md || re.MatchString(line)
			}
		}
		if md {
			found = append(found, fset.Position(lit.Pos()).String()+": "+lit.Value)
		}
		return true
	})
	return found, nil
}

// TestMarkdownOnlyInRender: every Markdown table, heading, alert, bold text
// and <details> block the project writes is built in internal/render (the
// leaderboard's in internal/leaderboard/lbview, with render's helpers),
// where it is golden-tested and its untrusted text escaped; no other
// package's code (tests aside) holds one.
func TestMarkdownOnlyInRender(t *testing.T) {
	inRender := func(pkg string) bool {
		return pkg == "internal/render" || strings.HasPrefix(pkg, "internal/render/") || pkg == "internal/leaderboard/lbview"
	}
	for _, f := range findInSources(t, inRender, markdownIn) {
		t.Errorf("Markdown built outside internal/render and internal/leaderboard/lbview (move it into a render function, golden-tested): %s", f)
	}
}

// The detector flags what builds Markdown structure and nothing else that
// the project's code writes with pipes and hashes.
func TestMarkdownDetector(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]bool{
		`fmt.Fprintf(&b, "| %s | %s |", a, b)`:          true,
		`b.WriteString("|---|---:|\n")`:                 true,
		`b.WriteString(" Tier |\n" + "---|---:|")`:      true,
		`fmt.Fprintf(&b, " %s MAPE |", d.Short)`:        false, // a piece of a row whose start is flagged
		`x := "## Accuracy\n\n" + block`:                true,
		`x := "# Accuracy dashboard\n\nPublished."`:     true,
		"x := `intro\n### Headline\n`":                  true,
		`x := "text\n| a | b |\n"`:                      true,
		`x := "##### Chat"`:                             true,
		`strings.Split(s, "|")`:                         false,
		`x := "a|b|c"`:                                  false,
		`regexp.MustCompile("^(a|b)$")`:                 false,
		`fmt.Sprintf("#%d", n)`:                         false,
		`x := "see #12 and org/repo#3"`:                 false,
		`x := "#!/bin/sh\nexit 0\n"`:                    false,
		`x := " | "`:                                    false,
		`x := "---\nkind: yaml\n"`:                      false,
		`x := "**Truncated:** a comment holds at most"`: true,
		`x := "<details>\n<summary>notes</summary>"`:    true,
		`fmt.Fprintf(&b, "> [!NOTE]\n> %s\n", n)`:       true,
		`x := "a * b ** c"`:                             false,
		`filepath.Match("**/*.yml", p)`:                 false,
		`x := "> quoted text"`:                          false,
		`x := "- item\n- another"`:                      false,
		`x := "#hashtag"`:                               false,
	} {
		found, err := markdownIn(token.NewFileSet(), "x.go", []byte("package x\n\nfunc f() {\n\t"+src+"\n}\n"))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := len(found) > 0; got != want {
			t.Errorf("%s: flagged %v, want %v", src, got, want)
		}
	}
}
