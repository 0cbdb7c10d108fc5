// Package textcut is the one rune-safe cutting of text and the one size
// limit of a body the project posts to GitHub: the PR comment, the bump pull
// request, the refusal comment and log fields all cut through it, so no cut
// splits a UTF-8 sequence.
package textcut

import "unicode/utf8"

// MaxGitHubBody is GitHub's limit on a comment, issue or pull request body:
// 65 536 characters. Bodies are bounded in bytes, which keeps under it
// however characters are counted.
const MaxGitHubBody = 65536

// MaxStepSummary bounds what one step writes to $GITHUB_STEP_SUMMARY:
// 1 MiB.
const MaxStepSummary = 1 << 20

// Prefix returns the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence ("" for n ≤ 0).
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Cut shortens s to at most n bytes on a rune boundary, ending a shortened
// s with " …" (within the n bytes).
func Cut(s string, n int) string {
	const mark = " …"
	if len(s) <= n {
		return s
	}
	return Prefix(s, n-len(mark)) + mark
}
