package ghaction

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
)

// workflowCommands lists the workflow commands the runner would read in
// text from one of a step's streams: each line (ended by \n or \r) that
// starts, after white space, with "::" (its name up to the first space or
// "::"), or that holds "##[" (the older form, its name up to "]" or a space).
func workflowCommands(text string) []string {
	var cmds []string
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if rest, ok := strings.CutPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::"); ok {
			if end := strings.IndexAny(rest, " :"); end >= 0 {
				cmds = append(cmds, rest[:end])
			}
			continue
		}
		if _, rest, ok := strings.Cut(line, "##["); ok {
			if end := strings.IndexAny(rest, " ]"); end >= 0 {
				cmds = append(cmds, rest[:end])
			}
		}
	}
	return cmds
}

// TestGitHubActionNeutralisesCommandsInInputs: inputs (the repository path,
// pin-file, simulator-path) holding a line break and a workflow command
// reach error messages; neither stream, nor the error main prints on
// stderr, carries a command the Action did not issue itself. The error is
// still annotated once.
func TestGitHubActionNeutralisesCommandsInInputs(t *testing.T) {
	t.Parallel()
	const inject = "\n::warning file=x.go,line=1::injected\r##[warning]injected too\n  ::add-mask::x"
	repoDir := filepath.Join(t.TempDir(), "repo"+inject)
	if err := os.MkdirAll(repoDir, 0o755); err != nil {
		t.Fatal(err)
	}
	event := filepath.Join(t.TempDir(), "event.json")
	os.WriteFile(event, []byte(`{"pull_request": {"number": 1, "head": {"sha": "`+strings.Repeat("a", 40)+`"}, "base": {"sha": "`+strings.Repeat("b", 40)+`"}}}`), 0o644)
	base := map[string]string{
		"INPUT_GITHUB_TOKEN": "test-token",
		"INPUT_COMMENT":      "false",
		"GITHUB_EVENT_NAME":  "pull_request",
		"GITHUB_EVENT_PATH":  event,
		"GITHUB_WORKSPACE":   repoDir,
		"HOME":               t.TempDir(),
	}
	for name, extra := range map[string]map[string]string{
		"repository path": {},
		"pin-file":        {"INPUT_PIN_FILE": "pin.yaml" + inject},
		"simulator-path":  {"INPUT_SIMULATOR_PATH": "sim" + inject},
		"mode":            {"INPUT_MODE": "pr" + inject},
	} {
		vars := map[string]string{}
		for k, v := range base {
			vars[k] = v
		}
		for k, v := range extra {
			vars[k] = v
		}
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), fakeEnv(vars), &stdout, &stderr, leaderboardFlow)
		if err == nil {
			t.Fatalf("%s: the run succeeded", name)
		}
		printed := cli.Message(err) // what main prints on stderr
		if !strings.Contains(err.Error(), "injected") {
			t.Errorf("%s: the error does not quote the input: %v", name, err)
		}
		var got []string
		for _, text := range []string{stdout.String(), stderr.String(), printed} {
			got = append(got, workflowCommands(text)...)
		}
		// The token's mask (issued once the inputs are read) and the
		// error's annotation, nothing else.
		want := "add-mask error"
		if strings.Join(got, " ") != want {
			t.Errorf("%s: workflow commands %q, want %q\nstdout:\n%s\nstderr:\n%s\nprinted:\n%s", name, got, want, &stdout, &stderr, printed)
		}
	}
}

// TestLogStreamsNeutraliseUntrustedLines: lines written through the
// untrusted streams, however they are split into writes, never read as
// commands; the runner's own commands do, each on a line of its own.
func TestLogStreamsNeutraliseUntrustedLines(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	l := newLogStreams(&stdout, &stderr)
	l.Stdout.Write([]byte("progress 1/2 "))
	l.Commands.Write([]byte("::group::Score head\n"))
	for _, chunk := range []string{"ok\n:", ":warning::split across writes\n", "\t ::error::tabbed\r", "x ##", "[warning]inline\n", "::notice::no line end"} {
		l.Stdout.Write([]byte(chunk))
		l.Stderr.Write([]byte(chunk))
	}
	l.Commands.Write([]byte("::endgroup::\n"))
	l.Flush()
	if got := workflowCommands(stdout.String()); strings.Join(got, " ") != "group endgroup" {
		t.Errorf("stdout commands %q:\n%s", got, &stdout)
	}
	if got := workflowCommands(stderr.String()); len(got) != 0 {
		t.Errorf("stderr commands %q:\n%s", got, &stderr)
	}
	for _, want := range []string{"progress 1/2 \n::group::Score head\n", "%3A%3Awarning::split across writes", "\t %3A%3Aerror::tabbed\r", "x ##%5Bwarning]inline",
		"%3A%3Anotice::no line end\n::endgroup::\n"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, &stdout)
		}
	}
}

// FuzzNeutralise: whatever text reaches the Action's streams, and however
// it is split into writes, the runner reads no workflow command in it, and
// only the command-starting text changes (lines stay lines).
func FuzzNeutralise(f *testing.F) {
	for _, s := range []string{"::warning::x", "a\n::error file=a::b", " \t::add-mask::s\r##[group]g", "##[", "::", "\u00a0::x", "ok\n"} {
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, s string, cut uint8) {
		if got := workflowCommands(neutralise(s)); len(got) != 0 {
			t.Errorf("neutralise(%q) still holds commands %q", s, got)
		}
		if strings.Count(neutralise(s), "\n") != strings.Count(s, "\n") || strings.Count(neutralise(s), "\r") != strings.Count(s, "\r") {
			t.Errorf("neutralise(%q) changed the line breaks", s)
		}
		var out bytes.Buffer
		l := newLogStreams(&out, &out)
		n := int(cut) % (len(s) + 1)
		l.Stdout.Write([]byte(s[:n]))
		l.Stdout.Write([]byte(s[n:]))
		l.Flush()
		if got := workflowCommands(out.String()); len(got) != 0 {
			t.Errorf("%q written in two parts at %d gave commands %q:\n%s", s, n, got, &out)
		}
	})
}
