package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
)

// Every subcommand has the one shape (a cli.Spec in commands()'s table): -h
// prints its usage and exits 0, an unknown flag and a missing required flag
// are usage errors (exit 2) that name the flag and print the usage; none
// reaches the configuration or GitHub.
func TestEveryCommandHasTheShape(t *testing.T) {
	t.Parallel()
	call := func(args ...string) (string, string, error) {
		var stdout, stderr bytes.Buffer
		e := env{getenv: func(string) string { return "" }, stdout: &stdout, stderr: &stderr, readFile: os.ReadFile}
		err := runEnv(context.Background(), args, e)
		return stdout.String(), stderr.String(), err
	}
	p := commands(env{})
	if len(p.Commands) == 0 {
		t.Fatal("no commands")
	}
	for _, c := range p.Commands {
		usage := "Usage: bot " + c.Name
		for _, args := range [][]string{{c.Name, "-h"}, {c.Name, "--help"}, {"help", c.Name}} {
			stdout, stderr, err := call(args...)
			if cli.ExitCode(err) != 0 || !strings.HasPrefix(stdout, usage) || stderr != "" {
				t.Errorf("%q: exit %d (%v), stdout %q, stderr %q; want the usage on stdout, exit 0", args, cli.ExitCode(err), err, stdout, stderr)
			}
		}
		stdout, stderr, err := call(c.Name, "--no-such-flag")
		if cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), "--no-such-flag") || !strings.Contains(stderr, "--no-such-flag") ||
			!strings.Contains(stderr, usage) || stdout != "" {
			t.Errorf("%s --no-such-flag: exit %d (%v), stderr %q; want exit 2 naming the flag, with the usage", c.Name, cli.ExitCode(err), err, stderr)
		}
		extra := []string{c.Name}
		for _, req := range c.Required {
			extra = append(extra, "--"+req, "x")
		}
		if _, _, err := call(append(extra, "--", "extra")...); cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), `"extra"`) {
			t.Errorf("%s extra: exit %d (%v); want exit 2 naming the argument", c.Name, cli.ExitCode(err), err)
		}
		for _, req := range c.Required {
			_, stderr, err := call(c.Name)
			want := "--" + req + " is required"
			if cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), want) || !strings.Contains(stderr, usage) {
				t.Errorf("%s without --%s: exit %d (%v), stderr %q; want exit 2 naming the flag, with the usage", c.Name, req, cli.ExitCode(err), err, stderr)
			}
		}
	}
	want := map[string]string{"bump": "release", "publish": "summary", "publish-leaderboard": "results", "redeliver": "since"}
	for _, c := range p.Commands {
		if got := strings.Join(c.Required, ","); got != want[c.Name] {
			t.Errorf("%s: required %q, want %q", c.Name, got, want[c.Name])
		}
	}
	stdout, _, err := call("help")
	if err != nil || !strings.Contains(stdout, "Configuration: BOT_APP_ID") {
		t.Errorf("help: %v\n%s", err, stdout)
	}
	for _, c := range p.Commands {
		if !strings.Contains(stdout, c.Name+" ") || !strings.Contains(stdout, c.Summary) {
			t.Errorf("help does not list %s:\n%s", c.Name, stdout)
		}
	}
	if _, stderr, err := call("nope"); cli.ExitCode(err) != 2 || !strings.Contains(stderr, `unknown command "nope"`) {
		t.Errorf("nope: exit %d (%v), stderr %q", cli.ExitCode(err), err, stderr)
	}
}
