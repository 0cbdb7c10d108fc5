package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
)

// Every subcommand has the one shape (a cli.Spec in program()'s table): -h
// prints its usage and exits 0, an unknown flag and a missing required flag
// are usage errors (exit 2) that name the flag and print the usage. A
// subcommand outside the table cannot be reached; one that parses its own
// way fails here.
func TestEveryCommandHasTheShape(t *testing.T) {
	t.Parallel()
	p := program()
	if len(p.Commands) == 0 {
		t.Fatal("no commands")
	}
	call := func(args ...string) (string, string, error) {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, func(string) string { return "" }, &stdout, &stderr)
		return stdout.String(), stderr.String(), err
	}
	for _, c := range p.Commands {
		name := strings.Fields(c.Name)
		usage := "Usage: action " + c.Name
		if c.Summary == "" {
			t.Errorf("%s: no summary for the command list", c.Name)
		}
		for _, h := range []string{"-h", "--help"} {
			stdout, stderr, err := call(append(name, h)...)
			if cli.ExitCode(err) != 0 || !strings.HasPrefix(stdout, usage) || stderr != "" {
				t.Errorf("%s %s: exit %d (%v), stdout %q, stderr %q; want the usage on stdout, exit 0", c.Name, h, cli.ExitCode(err), err, stdout, stderr)
			}
		}
		if stdout, _, err := call(append([]string{"help"}, name...)...); err != nil || !strings.HasPrefix(stdout, usage) {
			t.Errorf("help %s: %v, stdout %q", c.Name, err, stdout)
		}
		stdout, stderr, err := call(append(name, "--no-such-flag")...)
		if cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), "--no-such-flag") || !strings.Contains(stderr, "--no-such-flag") ||
			!strings.Contains(stderr, usage) || stdout != "" {
			t.Errorf("%s --no-such-flag: exit %d (%v), stderr %q; want exit 2 naming the flag, with the usage", c.Name, cli.ExitCode(err), err, stderr)
		}
		for _, req := range c.Required {
			// Every other required flag given: the error must name this one.
			args := append([]string(nil), name...)
			for _, other := range c.Required {
				if other != req {
					args = append(args, "--"+other, "x")
				}
			}
			_, stderr, err := call(args...)
			want := "--" + req + " is required"
			if cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), want) || !strings.Contains(stderr, want) || !strings.Contains(stderr, usage) {
				t.Errorf("%s without --%s: exit %d (%v), stderr %q; want exit 2 naming the flag, with the usage", c.Name, req, cli.ExitCode(err), err, stderr)
			}
		}
	}
	// The program's usage lists every command with its summary.
	stdout, _, err := call("help")
	for _, c := range p.Commands {
		if err != nil || !strings.Contains(stdout, c.Name+"  ") || !strings.Contains(stdout, c.Summary) {
			t.Errorf("help does not list %s (%v):\n%s", c.Name, err, stdout)
		}
	}
}

// The commands whose required flags are known: a change that drops one
// fails here.
func TestRequiredFlags(t *testing.T) {
	t.Parallel()
	want := map[string]string{"merge": "out", "ledger import": "out", "publish": "dashboard", "site": "out",
		"bisect": "good,bad", "backfill": "dashboard,from,to"}
	for _, c := range program().Commands {
		if got := strings.Join(c.Required, ","); got != want[c.Name] {
			t.Errorf("%s: required %q, want %q", c.Name, got, want[c.Name])
		}
	}
}

// Groups and unknown commands answer the same way as commands.
func TestGroupsAndUnknownCommands(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{nil, 2, "", "Usage: action <command>"},
		{[]string{"nope"}, 2, "", `unknown command "nope"`},
		{[]string{"leaderboard"}, 2, "", "Usage: action leaderboard <command>"},
		{[]string{"leaderboard", "nope"}, 2, "", `action leaderboard: unknown command "nope"`},
		{[]string{"leaderboard", "--help"}, 0, "A leaderboard directory holds runs.yaml", ""},
		{[]string{"nightly"}, 2, "", "  plan  resolve the newest simulator release"},
		{[]string{"ledger", "export"}, 2, "", `action ledger: unknown command "export"`},
		{[]string{"help"}, 0, "  leaderboard verify  ", ""},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tt.args, func(string) string { return "" }, &stdout, &stderr)
		if cli.ExitCode(err) != tt.code || !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("%q: exit %d (%v), stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
				tt.args, cli.ExitCode(err), err, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
		}
	}
}

// A bad flag value is a usage error naming the flag, found before any work.
func TestBadFlagValuesAreUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"nightly", "plan", "--simulator-repo", "nope"}, "--simulator-repo"},
		{[]string{"nightly", "plan", "--inferencex-repo", "a/b/c"}, "--inferencex-repo"},
		{[]string{"leaderboard", "validate", "--sim", "v0.7.15"}, `--sim "v0.7.15"`},
		{[]string{"leaderboard", "validate", "--sim", "0123456789012345678901234567890123456789", "--pin", "p.yaml"}, "--sim or --pin"},
		{[]string{"leaderboard", "run", "--jobs", "0"}, "--jobs 0"},
		{[]string{"leaderboard", "verify", "--jobs", "-1"}, "--jobs -1"},
		{[]string{"leaderboard", "render", "extra"}, `"extra"`},
		{[]string{"compare", "a"}, "want two runs A and B"},
		{[]string{"merge", "--out", "x"}, "SHARD_DIR"},
		{[]string{"ledger", "import", "--out", "x"}, "SOURCE"},
		{[]string{"ledger", "import", "--out", "x", "--run-date", "12"}, "--run-date"},
		{[]string{"github-action", "extra"}, `"extra"`},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tt.args, func(string) string { return "" }, &stdout, &stderr)
		if cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), tt.want) || !strings.Contains(stderr.String(), "Usage: action ") {
			t.Errorf("%q: exit %d (%v), stderr %q; want exit 2 naming %s, with the usage", tt.args, cli.ExitCode(err), err, stderr.String(), tt.want)
		}
	}
}
