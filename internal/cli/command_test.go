package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
)

type copyOptions struct {
	out     string
	jobs    int
	sources []string
}

// copyCommand is a command with a required flag, a validated flag and
// positional arguments; run reports what it was given.
func copyCommand(ran *copyOptions) Spec[copyOptions] {
	return Spec[copyOptions]{
		Name:    "files copy",
		Summary: "copy files",
		Usage:   "Usage: prog files copy --out DIR SOURCE...\n\nFlags:\n",
		Flags: func(fs *flag.FlagSet, o *copyOptions, getenv func(string) string) {
			fs.StringVar(&o.out, "out", getenv("OUT"), "write into this `directory` (e.g. --out x/)")
			fs.IntVar(&o.jobs, "jobs", 1, "parallel copies (e.g. --jobs 2)")
		},
		Required: []string{"out"},
		Check: func(o *copyOptions, args []string) error {
			if o.jobs < 1 {
				return fmt.Errorf("--jobs %d: must be at least 1", o.jobs)
			}
			if len(args) == 0 {
				return errors.New("name at least one SOURCE")
			}
			o.sources = args
			return nil
		},
		Run: func(_ context.Context, o copyOptions, env Env) error {
			*ran = o
			if o.out == "late" {
				return Usagef("files copy: --out late: found bad at run time")
			}
			if o.out == "fail" {
				return errors.New("disk full")
			}
			fmt.Fprintln(env.Stdout, "copied")
			return nil
		},
	}
}

func testProgram(ran *copyOptions) Program {
	return Program{
		Name:   "prog",
		Footer: "Configuration: none.\n",
		Groups: map[string]string{"files": "Files are copied.\n"},
		Commands: []Command{
			copyCommand(ran).Command(),
			Spec[struct{}]{Name: "version", Summary: "print the version", Usage: "Usage: prog version\n",
				Run: func(_ context.Context, _ struct{}, env Env) error { fmt.Fprintln(env.Stdout, "v1"); return nil }}.Command(),
		},
	}
}

func runProgram(t *testing.T, env map[string]string, args ...string) (stdout, stderr string, ran copyOptions, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	err = testProgram(&ran).Run(context.Background(), args, Env{Getenv: func(k string) string { return env[k] }, Stdout: &out, Stderr: &errb})
	return out.String(), errb.String(), ran, err
}

func TestProgramRun(t *testing.T) {
	t.Parallel()
	copyUsage := "Usage: prog files copy --out DIR SOURCE..."
	for _, tt := range []struct {
		name    string
		args    []string
		code    int
		stdout  []string // substrings
		stderr  []string
		errHas  string
		sources []string
	}{
		{name: "ok", args: []string{"files", "copy", "--out", "d", "a", "b"}, stdout: []string{"copied"}, sources: []string{"a", "b"}},
		{name: "interspersed", args: []string{"files", "copy", "a", "--jobs", "2", "b", "--out", "d"}, stdout: []string{"copied"}, sources: []string{"a", "b"}},
		{name: "after --", args: []string{"files", "copy", "--out", "d", "--", "--jobs", "-"}, stdout: []string{"copied"}, sources: []string{"--jobs", "-"}},
		{name: "help", args: []string{"files", "copy", "-h"}, stdout: []string{copyUsage, "--out directory", "--jobs int"}},
		{name: "--help", args: []string{"files", "copy", "--help"}, stdout: []string{copyUsage}},
		{name: "help command", args: []string{"help", "files", "copy"}, stdout: []string{copyUsage}},
		{name: "program help", args: []string{"--help"}, stdout: []string{"Usage: prog <command> [flags]", "  files copy  copy files", "  version     print the version", "Configuration: none.", "Run 'prog <command> --help'"}},
		{name: "group help", args: []string{"files", "-h"}, stdout: []string{"Usage: prog files <command> [flags]", "  copy  copy files", "Files are copied."}},
		{name: "help group", args: []string{"help", "files"}, stdout: []string{"Usage: prog files <command> [flags]"}},
		{name: "no command", code: 2, stderr: []string{"error: prog: no command given", "Usage: prog <command>"}},
		{name: "unknown command", args: []string{"nope"}, code: 2, stderr: []string{`error: prog: unknown command "nope"`, "Usage: prog <command>"}},
		{name: "help unknown", args: []string{"help", "nope"}, code: 2, stderr: []string{`unknown command "nope"`}},
		{name: "group alone", args: []string{"files"}, code: 2, stderr: []string{"error: prog files: no command given", "Usage: prog files <command>"}},
		{name: "group unknown", args: []string{"files", "move"}, code: 2, stderr: []string{`error: prog files: unknown command "move"`, "  copy  copy files"}},
		{name: "unknown flag", args: []string{"files", "copy", "--colour", "red"}, code: 2, stderr: []string{"error: files copy: unknown flag --colour", copyUsage, "--jobs int"}, errHas: "--colour"},
		{name: "bad flag value", args: []string{"files", "copy", "--jobs", "x"}, code: 2, stderr: []string{`invalid value "x" for flag --jobs`, copyUsage}, errHas: "--jobs"},
		{name: "flag without value", args: []string{"files", "copy", "--out"}, code: 2, stderr: []string{"flag needs an argument: --out"}},
		{name: "missing required", args: []string{"files", "copy", "a"}, code: 2, stderr: []string{"error: files copy: --out is required", copyUsage}, errHas: "--out is required"},
		{name: "empty required", args: []string{"files", "copy", "--out=", "a"}, code: 2, errHas: "--out is required"},
		{name: "check", args: []string{"files", "copy", "--out", "d", "--jobs", "0", "a"}, code: 2, stderr: []string{"error: files copy: --jobs 0: must be at least 1", copyUsage}},
		{name: "missing argument", args: []string{"files", "copy", "--out", "d"}, code: 2, errHas: "files copy: name at least one SOURCE"},
		{name: "no arguments taken", args: []string{"version", "x"}, code: 2, stderr: []string{`error: version: unexpected argument "x" (the command takes none)`, "Usage: prog version"}},
		{name: "usage error at run time", args: []string{"files", "copy", "--out", "late", "a"}, code: 2, stderr: []string{"error: files copy: --out late: found bad at run time", copyUsage}},
		{name: "failure", args: []string{"files", "copy", "--out", "fail", "a"}, code: 1, errHas: "disk full"},
		{name: "version", args: []string{"version"}, stdout: []string{"v1"}},
	} {
		stdout, stderr, ran, err := runProgram(t, nil, tt.args...)
		if got := ExitCode(err); got != tt.code {
			t.Errorf("%s: exit %d (%v), want %d", tt.name, got, err, tt.code)
		}
		for _, w := range tt.stdout {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: stdout lacks %q:\n%s", tt.name, w, stdout)
			}
		}
		for _, w := range tt.stderr {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", tt.name, w, stderr)
			}
		}
		if tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.errHas)
		}
		if tt.code == 2 && Message(err) != "" {
			t.Errorf("%s: main would print %q again after the usage", tt.name, Message(err))
		}
		if tt.code == 0 && stderr != "" {
			t.Errorf("%s: stderr %q, want nothing", tt.name, stderr)
		}
		if tt.sources != nil && !slices.Equal(ran.sources, tt.sources) {
			t.Errorf("%s: sources %q, want %q", tt.name, ran.sources, tt.sources)
		}
	}
}

// A flag's default may come from the environment; help shows it.
func TestSpecDefaultsFromEnv(t *testing.T) {
	t.Parallel()
	_, _, ran, err := runProgram(t, map[string]string{"OUT": "from-env"}, "files", "copy", "a")
	if err != nil || ran.out != "from-env" {
		t.Errorf("out = %q (%v), want from-env", ran.out, err)
	}
	stdout, _, _, _ := runProgram(t, map[string]string{"OUT": "from-env"}, "files", "copy", "-h")
	if !strings.Contains(stdout, `(default "from-env")`) {
		t.Errorf("help does not show the default from the environment:\n%s", stdout)
	}
}

func TestSpecParse(t *testing.T) {
	t.Parallel()
	var ran copyOptions
	s := copyCommand(&ran)
	o, err := s.Parse([]string{"--jobs=3", "x", "--out", "d"}, func(string) string { return "" })
	if err != nil || o.jobs != 3 || o.out != "d" || !slices.Equal(o.sources, []string{"x"}) {
		t.Errorf("Parse = %+v, %v", o, err)
	}
	if _, err := s.Parse([]string{"-h"}, func(string) string { return "" }); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
	var ue *UsageError
	if _, err := s.Parse([]string{"--nope"}, func(string) string { return "" }); !errors.As(err, &ue) {
		t.Errorf("--nope: %v, want a *UsageError", err)
	}
}
