package render

import "testing"

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
		{"&#123;", "&#123;"},
		{"x`@org/team", "x\\`@\u200dorg/team"},
	}
	for _, c := range cases {
		if got := Cell(c.in); got != c.want {
			t.Errorf("Cell(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
