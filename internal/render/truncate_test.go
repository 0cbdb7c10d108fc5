package render

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

func TestTruncate(t *testing.T) {
	t.Parallel()
	if got := Truncate("short", 100, "NOTE"); got != "short" {
		t.Errorf("short text changed: %q", got)
	}
	var b strings.Builder
	b.WriteString("<!-- marker -->\n<details><summary>x</summary>\n\n")
	for b.Len() < 5000 {
		b.WriteString("| Δ row ☕ | 1 |\n")
	}
	for _, limit := range []int{200, 1000, 4097} {
		got := Truncate(b.String(), limit, "**Truncated**")
		if len(got) > limit {
			t.Errorf("limit %d: got %d bytes", limit, len(got))
		}
		if !utf8.ValidString(got) || !strings.HasPrefix(got, "<!-- marker -->\n") || !strings.HasSuffix(got, "**Truncated**\n") {
			t.Errorf("limit %d: bad truncation %q", limit, got)
		}
		if strings.Count(got, "<details>") != strings.Count(got, "</details>") {
			t.Errorf("limit %d: details left open", limit)
		}
	}
	if got := Truncate(strings.Repeat("é", 100), 7, "ééé note"); len(got) > 7 || !utf8.ValidString(got) {
		t.Errorf("tiny limit: %q", got)
	}
}

// Truncate never splits a multi-byte character, also when no line break
// falls before the limit.
func TestTruncateWithoutLineBreak(t *testing.T) {
	t.Parallel()
	for _, s := range []string{strings.Repeat("é", 40000), "x" + strings.Repeat("☕", 30000)} {
		got := Truncate(s, textcut.MaxGitHubBody, "**Truncated**")
		if len(got) > textcut.MaxGitHubBody || !utf8.ValidString(got) || !strings.HasSuffix(got, "**Truncated**\n") {
			t.Errorf("%d bytes cut to %d, valid UTF-8 %v", len(s), len(got), utf8.ValidString(got))
		}
	}
}

func TestCutNotes(t *testing.T) {
	t.Parallel()
	if got := CommentCutNote(""); got != "**Truncated:** a comment holds at most 65 536 characters; the full report is in the job summary." {
		t.Errorf("CommentCutNote without a run = %q", got)
	}
	if got := CommentCutNote("https://github.com/o/r/actions/runs/1"); !strings.HasSuffix(got, " in the job summary of [this run](https://github.com/o/r/actions/runs/1).") {
		t.Errorf("CommentCutNote = %q", got)
	}
	if got := SummaryCutNote("comparison.md"); got != "**Truncated:** a job summary holds at most 1 MiB; the full report is in the run's artifact (comparison.md)." {
		t.Errorf("SummaryCutNote = %q", got)
	}
}
