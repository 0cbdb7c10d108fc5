package render

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/inference-sim/accuracy-dashboard/internal/golden"
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

func sampleBump() Bump {
	return Bump{Harness: "inference-sim/accuracy-dashboard", WebURL: "https://ghe.example.com/", FromTag: "v1.0.0",
		Tag: "v1.1.0", Commit: "89abcdef0123456789abcdef0123456789abcdef",
		Files:        []string{".github/accuracy-harness.yaml", ".github/workflows/a.yml"},
		LeftAlone:    []string{".github/workflows/broken.yml left alone: <input>:1: invalid YAML: line 1: did not find expected node content"},
		ReleaseNotes: "## Changes\r\n- faster scoring (@alice, #12)\r\n- <details> breaks nothing\r\n- cc @org/team"}
}

func TestBumpBodyGolden(t *testing.T) {
	t.Parallel()
	golden.Assert(t, filepath.Join("testdata", "bump-body.golden"), []byte(BumpBody(sampleBump())))

	// An old pin that is not a release tag gets the release link, not a
	// comparison; no old version reads "an unknown version".
	b := sampleBump()
	b.FromTag = "main"
	if body := BumpBody(b); !strings.Contains(body, "from `main` to") || !strings.Contains(body, "Release: https://ghe.example.com/inference-sim/accuracy-dashboard/releases/tag/v1.1.0\n") || strings.Contains(body, "Compare:") {
		t.Errorf("from a branch:\n%s", body)
	}
	b.FromTag, b.ReleaseNotes = "", ""
	if body := BumpBody(b); !strings.Contains(body, "from an unknown version to") || !strings.Contains(body, "> (no release notes)\n") {
		t.Errorf("from an unknown version, no notes:\n%s", body)
	}
}

// What the consumer's files and the release say cannot ping, link, inject
// HTML or end a code span.
func TestBumpBodyRendersUntrustedTextInert(t *testing.T) {
	t.Parallel()
	b := sampleBump()
	b.FromTag, b.Files, b.LeftAlone = evilText, []string{evilText}, []string{evilText}
	b.ReleaseNotes = "@mallory fixes #12 </details><b>x</b>"
	body := BumpBody(b)
	outside := outsideCodeSpans(t, body)
	for _, bad := range []string{"@mallory", "#12", "</details><b>"} {
		if strings.Contains(outside, bad) {
			t.Errorf("body holds %q outside code spans:\n%s", bad, body)
		}
	}
	if strings.Count(body, "<details>") != 1 || strings.Count(body, "</details>") != 1 {
		t.Errorf("the release notes opened or closed a <details> block:\n%s", body)
	}
}

// The body stays within GitHub's limit and valid UTF-8 whatever the notes,
// file list and release notes, and says what it left out.
func TestBumpBodyWithinLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		notes, files int
		noteLen      int
		release      string
	}{
		{"one long note", 1, 1, 200000, "short"},
		{"many notes", 5000, 1, 100, "short"},
		{"many files", 0, 5000, 0, strings.Repeat("x", 70000)},
		{"everything", 3000, 3000, 3000, strings.Repeat("€", 40000)},
	} {
		b := Bump{Harness: "o/h", WebURL: "https://github.com", FromTag: "v1.0.0", Tag: "v1.1.0", Commit: strings.Repeat("a", 40), ReleaseNotes: tc.release}
		for i := range tc.files {
			b.Files = append(b.Files, fmt.Sprintf(".github/workflows/w%05d-%s.yml", i, strings.Repeat("ü", 20)))
		}
		for i := range tc.notes {
			b.LeftAlone = append(b.LeftAlone, fmt.Sprint(i, strings.Repeat("ß", tc.noteLen)))
		}
		body := BumpBody(b)
		if len(body) > textcut.MaxGitHubBody || !utf8.ValidString(body) || !strings.HasPrefix(body, BumpMarker) || !strings.HasSuffix(body, "touching it.\n") {
			t.Errorf("%s: %d bytes, valid UTF-8 %v, marker %v", tc.name, len(body), utf8.ValidString(body), strings.HasPrefix(body, BumpMarker))
		}
		if tc.files == 5000 && !strings.Contains(body, " more files\n") || tc.notes == 5000 && !strings.Contains(body, " more files left alone") {
			t.Errorf("%s: the cut lists do not say what they left out", tc.name)
		}
		if len(tc.release) > 60000 && !strings.Contains(body, "release notes truncated; see https://github.com/o/h/releases/tag/v1.1.0") {
			t.Errorf("%s: long release notes not cut visibly", tc.name)
		}
	}
}

func TestSupersededComment(t *testing.T) {
	t.Parallel()
	if got := SupersededComment(7, "v1.2.0"); got != "Superseded by #7, which bumps the accuracy harness to `v1.2.0`." {
		t.Errorf("SupersededComment = %q", got)
	}
	if got := SupersededComment(7, "v1`@x"); strings.Count(got, "`") != 2 {
		t.Errorf("a backtick in the tag ended the code span: %q", got)
	}
}

func sampleLeaderboardBump() LeaderboardBump {
	return LeaderboardBump{Simulator: "inference-sim/inference-sim", WebURL: "https://github.com", PinFile: ".github/accuracy-harness.yaml",
		FromTag: "v0.7.15", FromCommit: "3260837d16048bdfe7cd45d0dc3d3c6a688c645b", Tag: "v0.7.16", Commit: "89abcdef0123456789abcdef0123456789abcdef",
		CatalogSource: "leaderboard/catalog", CatalogFrom: "sha256:" + strings.Repeat("1", 64), CatalogTo: "sha256:" + strings.Repeat("2", 64),
		ReleaseNotes: "- qwen3 configs (@bob, #7)"}
}

func TestLeaderboardBumpBodyGolden(t *testing.T) {
	t.Parallel()
	golden.Assert(t, filepath.Join("testdata", "leaderboard-bump-body.golden"), []byte(LeaderboardBumpBody(sampleLeaderboardBump())))

	// A catalog of source none has no digest: the body says it moves with
	// the simulator, and names no digest.
	l := sampleLeaderboardBump()
	l.CatalogSource, l.CatalogFrom, l.CatalogTo = "none", "", ""
	body := LeaderboardBumpBody(l)
	if !strings.Contains(body, "- catalog: `none`, the simulator's own `model_configs/`, which moves with the simulator\n") || strings.Contains(body, "sha256:") {
		t.Errorf("catalog none:\n%s", body)
	}
	if !strings.HasPrefix(body, LeaderboardBumpMarker+"\n") || strings.Contains(body, BumpMarker) {
		t.Errorf("the body is not marked as a leaderboard bump only:\n%s", body)
	}
}

// What the consumer's pin file and the release say cannot ping, link,
// inject HTML or end a code span, and a body is within GitHub's limit.
func TestLeaderboardBumpBodyRendersUntrustedTextInert(t *testing.T) {
	t.Parallel()
	l := sampleLeaderboardBump()
	l.FromTag, l.CatalogSource, l.CatalogFrom, l.PinFile = evilText, evilText, evilText, evilText
	l.ReleaseNotes = "@mallory fixes #12 </details><b>x</b>" + strings.Repeat("x", 2*textcut.MaxGitHubBody)
	body := LeaderboardBumpBody(l)
	outsideCodeSpans(t, body)
	if len(body) > textcut.MaxGitHubBody || !strings.Contains(body, "release notes truncated") {
		t.Errorf("body of %d bytes, truncation said: %v", len(body), strings.Contains(body, "release notes truncated"))
	}
}

// outsideCodeSpans is body without its code spans, which show their text
// literally; it fails t when a span is ended early (a line with an
// unclosed span) or when an active piece of evilText stands outside them.
func outsideCodeSpans(t *testing.T, body string) string {
	t.Helper()
	var outside strings.Builder
	for _, line := range strings.Split(body, "\n") {
		parts := strings.Split(line, "`")
		if len(parts)%2 == 0 {
			t.Errorf("unbalanced code span: %q", line)
		}
		for i := 0; i < len(parts); i += 2 {
			outside.WriteString(parts[i] + "\n")
		}
	}
	if found := activeIn(outside.String()); len(found) > 0 {
		t.Errorf("body holds %q outside code spans:\n%s", found, body)
	}
	return outside.String()
}
