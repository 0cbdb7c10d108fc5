package lbrun

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// A command names itself in every error but one reading the declaration,
// which names its file (and line) itself.
func TestCommandError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs.yaml")
	_, _, missing := ReadDeclaration(runs, filepath.Join(dir, "results"))
	os.WriteFile(runs, []byte("version: 1\ngroups: []\nextra: 1\n"), 0o644)
	_, _, bad := ReadDeclaration(runs, filepath.Join(dir, "results"))
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"a flow's error", errors.New("--only \"x\": no such run"), "leaderboard run: --only \"x\": no such run"},
		{"a problems error", &leaderboard.ProblemsError{Dir: "r", Problems: []leaderboard.Problem{{Kind: leaderboard.ProblemMissing, File: "a/b.json", Msg: "m"}}},
			"leaderboard run: 1 problem(s) in r:\n  missing-result: a/b.json: m"},
		{"runs.yaml missing", missing, "--runs: lstat " + runs + ": no such file or directory"},
	} {
		err := CommandError("leaderboard run", tt.err)
		if got := ""; err != nil {
			got = err.Error()
			if got != tt.want {
				t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
			}
		} else if tt.want != "" {
			t.Errorf("%s: nil, want %q", tt.name, tt.want)
		}
	}
	var de *DeclarationError
	if !errors.As(bad, &de) || !strings.HasPrefix(CommandError("leaderboard run", bad).Error(), runs+":") {
		t.Errorf("a runs.yaml that does not decode: %v, want a DeclarationError naming the file first", bad)
	}
	var es leaderboard.Errors
	if !errors.As(bad, &es) || len(es) == 0 {
		t.Errorf("a declaration's decoding errors are not reachable through it: %v", bad)
	}
}

// A verification prints one line per result not run (PROBLEM) or
// reproduced (ok), one per field that differs (DIFF), and counts each kind.
func TestVerificationLines(t *testing.T) {
	t.Parallel()
	v := Verification{Results: "res", Verdicts: []Verdict{
		{Group: "chat", Run: "a"},
		{Group: "chat", Run: "b", Problem: leaderboard.Problem{Kind: leaderboard.ProblemUnplanned, File: "chat/b.json", Msg: "command[5] differs; it was not run"}},
		{Group: "sweep", Run: "c", Diffs: []runresult.FieldDiff{{Field: "blis.completed_requests", Old: "41", New: "40"}, {Field: "blis.ttft_mean_ms", Old: "1", New: "2"}}},
		{Group: "sweep", Run: "d"},
	}}
	want := []string{
		"ok: " + filepath.Join("res", "chat", "a.json"),
		"PROBLEM: unplanned-command: chat/b.json: command[5] differs; it was not run",
		"DIFF: " + filepath.Join("res", "sweep", "c.json") + ": blis.completed_requests: 41 → 40",
		"DIFF: " + filepath.Join("res", "sweep", "c.json") + ": blis.ttft_mean_ms: 1 → 2",
		"ok: " + filepath.Join("res", "sweep", "d.json"),
	}
	if got := v.Lines(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if v.Unrun() != 1 || v.Differing() != 1 {
		t.Errorf("Unrun %d, Differing %d; want 1 and 1", v.Unrun(), v.Differing())
	}
	if all := (Verification{Verdicts: []Verdict{{Group: "g", Run: "r"}}}); all.Unrun() != 0 || all.Differing() != 0 {
		t.Errorf("a verification that reproduced counts %d unrun, %d differing", all.Unrun(), all.Differing())
	}
}

// The pinned catalog as a catalog argument: none and bundled as they are,
// a path as the path in the checkout.
func TestCatalogArg(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		source, want string
	}{
		{pin.None, "none"},
		{pin.Bundled, "bundled"},
		{"leaderboard/catalog", filepath.Join("/repo", "leaderboard", "catalog")},
	} {
		if got := CatalogArg(pin.LeaderboardCatalog{Source: tt.source}, "/repo"); got != tt.want {
			t.Errorf("CatalogArg(%q) = %q, want %q", tt.source, got, tt.want)
		}
	}
}
