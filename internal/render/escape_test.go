package render

import (
	"strings"
	"testing"
)

func TestCell(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"openai/gpt-oss-120b", "openai/gpt-oss-120b"},
		{"a|b", `a\|b`},
		{"<img src=x>", "&lt;img src=x&gt;"},
		{"line1\nline2", "line1 line2"},
		{"`code`", "\\`code\\`"},
		{"ping @octocat now", "ping @\u200doctocat now"},
		{"@org/team", "@\u200dorg/team"},
		{"fixes #123", "fixes #\u200d123"},
		{"mail a@b.com", "mail a@b.com"},
		{"&#123;", "&amp;#\u200d123;"},
		{"x`@org/team", "x\\`@\u200dorg/team"},
	}
	for _, c := range cases {
		if got := Cell(c.in); got != c.want {
			t.Errorf("Cell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Untrusted text that GitHub would turn into something active (an image, a
// link, an autolinked URL, a cross-repository or GH- reference, a mention
// spelled as an HTML entity) comes out of Cell as inert text.
func TestCellInert(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"![x](https://e.example/a.png)", "!\\[x\\](https:\u200d//e.example/a.png)"},
		{"[click](http://e.example)", "\\[click\\](http:\u200d//e.example)"},
		{"see https://github.com/org/repo/issues/1", "see https:\u200d//github.com/org/repo/issues/1"},
		{"www.e.example", "www\u200d.e.example"},
		{"org/repo#1", "org/repo#\u200d1"},
		{"fixes GH-2 and gh-3", "fixes GH-\u200d2 and gh-\u200d3"},
		{"&#64;octocat", "&amp;#\u200d64;octocat"},
		{"&commat;octocat", "&amp;commat;octocat"},
	}
	for _, c := range cases {
		if got := Cell(c.in); got != c.want {
			t.Errorf("Cell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// evilText holds every kind of active Markdown GitHub would act on.
const evilText = "![img](https://evil.example/i.png) [link](https://evil.example) https://github.com/org/repo/issues/9 org/repo#1 GH-2 &#64;mallory @mallory www.evil.example `code` <b>"

// activeIn lists the active pieces of evilText still present in md.
func activeIn(md string) []string {
	var found []string
	for _, bad := range []string{"![img]", "[link]", "://evil.example", "://github.com/org", "www.evil.example", "repo#1", "GH-2", "&#64;", "@mallory", "`code`", "<b>"} {
		if strings.Contains(md, bad) {
			found = append(found, bad)
		}
	}
	return found
}

func TestSummaryRendersUntrustedTextInert(t *testing.T) {
	t.Parallel()
	s := sampleSummary(t, "resolved", false)
	s.LabelReasons = []string{evilText}
	s.ShapeDefinition = evilText
	s.Label = evilText
	s.Provenance.Simulator.Driver = evilText
	s.Provenance.Simulator.Commit = evilText
	s.Provenance.Simulator.Ref = evilText
	s.Provenance.Simulator.Repo = evilText
	s.Provenance.Harness.Commit = evilText
	s.Provenance.Harness.Version = evilText
	s.Provenance.Ledger.Name, s.Provenance.Ledger.Version, s.Provenance.Ledger.Digest = evilText, evilText, evilText
	s.Coverage.NotScoredByReason = map[string]int{evilText: 1}
	s.Groups[0].Model, s.Groups[0].Hardware = evilText, evilText
	if found := activeIn(Summary(s)); len(found) > 0 {
		t.Errorf("summary.md holds active Markdown from the result: %q\n%s", found, Summary(s))
	}
	prebuilt := s
	prebuilt.Provenance.Simulator.BuiltByHarness = false
	if found := activeIn(Summary(prebuilt)); len(found) > 0 {
		t.Errorf("summary.md (prebuilt) holds active Markdown: %q", found)
	}
}

func TestCompareMarkdownRendersUntrustedTextInert(t *testing.T) {
	t.Parallel()
	c := compareFixture()
	c.Head.LabelReasons = []string{evilText}
	c.Head.Label = evilText
	c.Head.Coverage.NotScoredByReason = map[string]int{evilText: 3}
	c.Head.Provenance.Ledger.Name = evilText
	c.Head.Provenance.Ledger.Version = evilText
	c.Head.Provenance.Harness.Version = evilText
	c.Movers[0].ID = evilText
	c.Notes = []string{evilText}
	c.Alerts = []string{evilText}
	c.DetailsURL = ""
	if found := activeIn(CompareMarkdown(c)); len(found) > 0 {
		t.Errorf("the PR comment holds active Markdown from the results: %q\n%s", found, CompareMarkdown(c))
	}
}
