package pin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/golden"

	"github.com/google/go-cmp/cmp"
)

const (
	oldCommit = "0123456789abcdef0123456789abcdef01234567"
	newCommit = "89abcdef0123456789abcdef0123456789abcdef"
	newTag    = "v1.3.0"
)

func TestParse(t *testing.T) {
	t.Parallel()
	got, err := Parse([]byte(`# comment
harness:
  repository: inference-sim/accuracy-dashboard   # owner/name
  tag: v1.2.0-rc.1
  commit: 0123456789abcdef0123456789abcdef01234567
data:
  ledger: bench/ledger
  catalog: none
  registry: bundled
`), "pin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := Pin{
		Harness: Harness{Repository: "inference-sim/accuracy-dashboard", Tag: "v1.2.0-rc.1", Commit: oldCommit},
		Data:    Data{Ledger: "bench/ledger", Catalog: None, Registry: Bundled},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Parse (-want +got):\n%s", d)
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	const head = "harness:\n  repository: o/r\n"
	const tag = "  tag: v1.2.0\n"
	const commit = "  commit: " + oldCommit + "\n"
	tests := []struct {
		name, src string
		line      int
		msg       string
	}{
		{"empty", "", 0, "empty file"},
		{"only comments", "# nothing\n", 0, "empty file"},
		{"not a mapping", "- a\n", 1, "the file: want a mapping"},
		{"unknown top key", head + tag + commit + "extra: 1\n", 5, `unknown key "extra"`},
		{"unknown harness key", head + tag + commit + "  branch: main\n", 5, `unknown key "harness.branch"`},
		{"unknown data key", head + tag + commit + "data:\n  coefficients: x\n", 6, `unknown key "data.coefficients"`},
		{"duplicate key", head + tag + tag + commit, 4, `duplicate key "harness.tag" (first at line 3)`},
		{"missing commit", head + tag, 0, "missing harness.commit"},
		{"missing harness", "data:\n  ledger: bundled\n", 0, "missing harness.repository"},
		{"short commit", head + tag + "  commit: 0123456\n", 4, "has 7 hex digits; want the full 40-digit commit id"},
		{"non-hex commit", head + tag + "  commit: main\n", 4, `harness.commit: "main" is not a hexadecimal commit id`},
		{"upper-case commit", head + tag + "  commit: " + strings.ToUpper(oldCommit) + "\n", 4, "must be lowercase"},
		{"branch as tag", head + "  tag: main\n" + commit, 3, `harness.tag: "main" is not a release tag`},
		{"moving major tag", head + "  tag: v1\n" + commit, 3, `"v1" is not a release tag`},
		{"bad repository", "harness:\n  repository: just-a-name\n" + tag + commit, 2, `"just-a-name" is not owner/name, a URL or a local path`},
		{"data escapes", head + tag + commit + "data:\n  ledger: ../other\n", 6, `"../other" leaves the repository`},
		{"ledger none", head + tag + commit + "data:\n  ledger: none\n", 6, `data.ledger: "none" is not allowed for the ledger`},
		{"data absolute", head + tag + commit + "data:\n  catalog: /etc\n", 6, `data.catalog: "/etc"`},
		{"block scalar", head + "  tag: |\n    v1.2.0\n" + commit, 3, "harness.tag: want a single-line value"},
		{"alias", "x: &a o/r\nharness:\n  repository: *a\n", 1, `unknown key "x"`},
		{"alias value", "harness: &h\n  repository: o/r\ndata: *h\n", 3, "data: aliases are not allowed"},
		{"harness not mapping", "harness: o/r\n", 1, "harness: want a mapping"},
		{"invalid yaml", "harness:\n  tag: [\n", 2, "invalid YAML"},
		{"two documents", head + tag + commit + "---\nharness: {}\n", 5, "more than one YAML document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantParseError(t, tt.src, tt.line, tt.msg)
		})
	}
}

func TestCloneURLAndSameRepository(t *testing.T) {
	t.Parallel()
	h := Harness{Repository: "inference-sim/accuracy-dashboard"}
	if got, want := h.CloneURL("https://ghe.example.com/"), "https://ghe.example.com/inference-sim/accuracy-dashboard.git"; got != want {
		t.Errorf("CloneURL = %q, want %q", got, want)
	}
	h.Repository = "/tmp/harness"
	if got := h.CloneURL("https://github.com"); got != "/tmp/harness" {
		t.Errorf("CloneURL of a path = %q", got)
	}
	same := [][2]string{
		{"Inference-Sim/Accuracy-Dashboard", "inference-sim/accuracy-dashboard"},
		{"https://github.com/inference-sim/accuracy-dashboard.git", "inference-sim/accuracy-dashboard"},
	}
	for _, p := range same {
		if !SameRepository(p[0], p[1]) {
			t.Errorf("SameRepository(%q, %q) = false", p[0], p[1])
		}
	}
	if SameRepository("inference-sim/accuracy-dashboard", "inference-sim/inference-sim") {
		t.Error("different repositories compare equal")
	}
}

func TestSetHarnessGolden(t *testing.T) {
	t.Parallel()
	assertGoldenEdits(t, "testdata/set-harness",
		func(src []byte, _ Pin) ([]byte, error) { return SetHarness(src, newTag, newCommit) },
		func(before Pin) (Pin, *strings.Replacer) {
			want := before
			want.Harness.Tag, want.Harness.Commit = newTag, newCommit
			return want, strings.NewReplacer(newTag, before.Harness.Tag, newCommit, before.Harness.Commit)
		})
}

// assertGoldenEdits applies edit to each dir/*.yaml and checks the result
// against its .golden file; that it parses to the pin expect gives; that
// undoing the new values (expect's replacer) gives back the input byte for
// byte, so the edit changed nothing else; and that a second edit to the
// same values changes nothing.
func assertGoldenEdits(t *testing.T, dir string, edit func(src []byte, before Pin) ([]byte, error), expect func(before Pin) (Pin, *strings.Replacer)) {
	t.Helper()
	files, _ := filepath.Glob(dir + "/*.yaml")
	if len(files) == 0 {
		t.Fatal("no test files")
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			before, err := Parse(src, in)
			if err != nil {
				t.Fatal(err)
			}
			out, err := edit(src, before)
			if err != nil {
				t.Fatal(err)
			}
			golden.Assert(t, in+".golden", out)

			after, err := Parse(out, in)
			if err != nil {
				t.Fatalf("edited file does not parse: %v", err)
			}
			want, undo := expect(before)
			if d := cmp.Diff(want, after); d != "" {
				t.Errorf("edited pin (-want +got):\n%s", d)
			}
			if u := undo.Replace(string(out)); u != string(src) {
				t.Errorf("edit changed more than the new values:\n%s", cmp.Diff(string(src), u))
			}
			again, err := edit(out, after)
			if err != nil || string(again) != string(out) {
				t.Errorf("a second edit changed the file (err %v)", err)
			}
		})
	}
}

func TestSetHarnessRefuses(t *testing.T) {
	t.Parallel()
	src := []byte("harness:\n  repository: o/r\n  tag: v1.2.0\n  commit: " + oldCommit + "\n")
	tests := []struct {
		name        string
		src         []byte
		tag, commit string
		msg         string
	}{
		{"branch", src, "main", newCommit, "not a release tag"},
		{"short commit", src, newTag, "89abcdef", "40-digit"},
		{"invalid pin", []byte("harness:\n  repository: o/r\n  tag: v1\n  commit: " + oldCommit + "\n"), newTag, newCommit, "not a release tag"},
		{"escaped value", []byte("harness:\n  repository: o/r\n  tag: \"v1.2\\x2E0\"\n  commit: " + oldCommit + "\n"), newTag, newCommit, "harness.tag: value is not written literally"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := SetHarness(tt.src, tt.tag, tt.commit)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("SetHarness = %q, %v; want error containing %q", out, err, tt.msg)
			}
		})
	}
}

func TestBumpUsesGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file    string
		changed bool
	}{
		{"workflow.yml", true},
		{"action.yml", false},
		{"other.yml", false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			in := filepath.Join("testdata/bump-uses", tt.file)
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			out, changed, err := BumpUses(src, "inference-sim/accuracy-dashboard", newTag, newCommit)
			if err != nil {
				t.Fatal(err)
			}
			if changed != tt.changed {
				t.Errorf("changed = %v, want %v", changed, tt.changed)
			}
			if !changed && string(out) != string(src) {
				t.Error("unchanged file has different bytes")
			}
			golden.Assert(t, in+".golden", out)
			again, changed2, err := BumpUses(out, "inference-sim/accuracy-dashboard", newTag, newCommit)
			if err != nil || changed2 || string(again) != string(out) {
				t.Errorf("second BumpUses: changed=%v err=%v", changed2, err)
			}
		})
	}
}

func TestFindUses(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("testdata/bump-uses/workflow.yml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := FindUses(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []Uses{
		{Line: 9, Repo: "actions/checkout", Ref: "b4ffde65f46336ab88eb53be808477a3936bae11", Comment: "v4.1.1"},
		{Line: 10, Repo: "inference-sim/accuracy-dashboard", Ref: oldCommit, Comment: "v1.2.0"},
		{Line: 13, Repo: "Inference-Sim/Accuracy-Dashboard", Path: "sub/action", Ref: oldCommit},
		{Line: 14, Repo: "inference-sim/accuracy-dashboard", Ref: oldCommit, Comment: "pinned"},
		{Line: 15, Repo: "inference-sim/accuracy-dashboard", Ref: "v1", Comment: "moving"},
		{Line: 18, Repo: "inference-sim/accuracy-dashboard", Ref: oldCommit, Comment: "1.2.0"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("FindUses (-want +got):\n%s", d)
	}
}

func TestBumpUsesRefuses(t *testing.T) {
	t.Parallel()
	flow := []byte("steps: [{uses: o/r@" + oldCommit + "}]\n")
	if _, _, err := BumpUses(flow, "o/r", newTag, newCommit); err == nil || !strings.Contains(err.Error(), "version comment") {
		t.Errorf("flow-style uses: err = %v, want a version comment error", err)
	}
	if _, _, err := BumpUses([]byte("a: [\n"), "o/r", newTag, newCommit); err == nil {
		t.Error("invalid YAML accepted")
	}
	if _, _, err := BumpUses(flow, "o/r", "main", newCommit); err == nil {
		t.Error("branch accepted as tag")
	}
	if _, _, err := BumpUses(flow, "https://github.com/o/r", newTag, newCommit); err == nil {
		t.Error("URL accepted as repository")
	}
}

// TestParseRefusesOversizedPins: a pin file over MaxFileBytes is refused
// before it is parsed, and a tag longer than a git ref allows is not a
// release tag even inside a small file (a 100 MB tag was accepted).
func TestParseRefusesOversizedPins(t *testing.T) {
	t.Parallel()
	commit := strings.Repeat("0", 40)
	pinWithTag := func(tag string) []byte {
		return []byte("harness:\n  repository: inference-sim/accuracy-dashboard\n  tag: " + tag + "\n  commit: " + commit + "\n")
	}
	if _, err := Parse(pinWithTag("v1.2.0"), "p.yaml"); err != nil {
		t.Fatalf("a plain pin: %v", err)
	}
	for name, c := range map[string]struct {
		src  []byte
		want string
	}{
		"100 MB tag": {pinWithTag("v1.2.0-" + strings.Repeat("a", 100<<20)), "p.yaml: 104857722 bytes; a pin file is at most 65536"},
		"long tag":   {pinWithTag("v1.2.0-" + strings.Repeat("a", 300)), "p.yaml:3: harness.tag: tag of 307 bytes is not a release tag (at most 255)"},
	} {
		_, err := Parse(c.src, "p.yaml")
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
}

// wantParseError fails the test unless Parse refuses src with an *Error
// naming the pin file (its text beginning with the name), line line and a
// message containing msg.
func wantParseError(t *testing.T, src string, line int, msg string) {
	t.Helper()
	_, err := Parse([]byte(src), ".github/accuracy-harness.yaml")
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("Parse error = %v, want *Error", err)
	}
	if pe.File != ".github/accuracy-harness.yaml" || pe.Line != line || !strings.Contains(pe.Msg, msg) {
		t.Errorf("Parse error = %q (line %d), want line %d containing %q", err, pe.Line, line, msg)
	}
	if !strings.HasPrefix(err.Error(), ".github/accuracy-harness.yaml") {
		t.Errorf("error %q does not name the file", err)
	}
}
