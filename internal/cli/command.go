package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Env is what a command takes from its process besides its arguments.
type Env struct {
	Getenv         func(string) string
	Stdout, Stderr io.Writer
}

// Spec is one subcommand with its options type O: the flags that fill an O,
// the check that completes it from the positional arguments, and the run
// that takes it. Every subcommand of cmd/action and cmd/bot is a Spec, so
// they all parse, print their help and fail the same way (Spec.Parse,
// Program.Run).
type Spec[O any] struct {
	// Name is the command as typed after the program: "score",
	// "leaderboard run".
	Name string
	// Summary is its line in the program's command list.
	Summary string
	// Usage is the help text above the flag list: a "Usage: ..." line, a
	// description, examples, and "Flags:\n" last when there are flags.
	Usage string
	// Flags declares the flags on fs, bound to o's fields; getenv may give
	// defaults. Nil: the command takes no flags.
	Flags func(fs *flag.FlagSet, o *O, getenv func(string) string)
	// Required names flags that must be given a non-empty value.
	Required []string
	// Check completes and validates o with the positional arguments left
	// after the flags. Its error is a usage error (Parse prefixes the
	// command's name): it names the flag or argument and what is wrong.
	// Nil: the command takes no positional argument.
	Check func(o *O, args []string) error
	// Run does the work with the parsed options. Its error is a runtime
	// failure (exit 1) unless it is a *UsageError or an *ExitError.
	Run func(ctx context.Context, o O, env Env) error
}

// Parse is the one parse of every command: flags may come before, between
// and after the positional arguments ("--" ends the flags), then the
// required flags and Check. It returns flag.ErrHelp for -h/--help, or a
// *UsageError naming the command and what is wrong; it prints nothing.
func (s Spec[O]) Parse(args []string, getenv func(string) string) (O, error) {
	var o O
	fs := s.flagSet(&o, getenv)
	rest, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return o, flag.ErrHelp
	}
	if err != nil {
		return o, Usagef("%s: %s", s.Name, flagError(err))
	}
	for _, name := range s.Required {
		if f := fs.Lookup(name); f == nil || f.Value.String() == "" {
			return o, Usagef("%s: --%s is required", s.Name, name)
		}
	}
	check := s.Check
	if check == nil {
		check = func(_ *O, args []string) error { return NoArgs(args) }
	}
	if err := check(&o, rest); err != nil {
		return o, Usagef("%s: %w", s.Name, err)
	}
	return o, nil
}

// Help writes the command's help: its usage text and its flags.
func (s Spec[O]) Help(w io.Writer, getenv func(string) string) {
	var o O
	fs := s.flagSet(&o, getenv)
	fmt.Fprint(w, s.Usage)
	PrintFlags(w, fs)
}

func (s Spec[O]) flagSet(o *O, getenv func(string) string) *flag.FlagSet {
	fs := flag.NewFlagSet(s.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // Program.Run prints errors and help itself
	fs.Usage = func() {}
	if s.Flags != nil {
		s.Flags(fs, o, getenv)
	}
	return fs
}

// Command is a Spec with its options type erased, for a Program's table.
func (s Spec[O]) Command() Command {
	return Command{Name: s.Name, Summary: s.Summary, Required: s.Required, Help: s.Help,
		exec: func(ctx context.Context, args []string, env Env) error {
			o, err := s.Parse(args, env.Getenv)
			if err != nil {
				return err
			}
			return s.Run(ctx, o, env)
		}}
}

// Command is one entry of a Program's table (Spec.Command).
type Command struct {
	Name, Summary string
	// Required lists the flags the command cannot run without.
	Required []string
	// Help writes the command's usage text and flags.
	Help func(w io.Writer, getenv func(string) string)
	exec func(ctx context.Context, args []string, env Env) error
}

// Program is a command line made of subcommands.
type Program struct {
	// Name is the program as typed: "action".
	Name string
	// Footer follows the command list in the program's usage.
	Footer string
	// Groups holds a note per group of commands ("leaderboard"), shown
	// under the group's command list.
	Groups map[string]string
	// Commands is the table, in the order the usage lists them.
	Commands []Command
}

var helpWords = map[string]bool{"help": true, "-h": true, "-help": true, "--help": true}

// Run runs the command args name; the one dispatch of every program.
// "help", -h and --help print the program's usage (or, followed by a
// command, the command's) on stdout. A command's -h prints its help on
// stdout and returns nil. A usage error (an unknown command or flag, a
// missing or bad argument, a *UsageError from the run) prints the error and
// the command's usage on stderr and returns an error that is both the
// *UsageError and ErrUsageShown (exit 2, main prints nothing more).
func (p Program) Run(ctx context.Context, args []string, env Env) error {
	if len(args) > 0 && helpWords[args[0]] {
		if len(args) == 1 {
			fmt.Fprint(env.Stdout, p.usage(""))
			return nil
		}
		if c, rest := p.find(args[1:]); c != nil && len(rest) == 0 {
			c.Help(env.Stdout, env.Getenv)
			return nil
		}
		if g := strings.Join(args[1:], " "); p.isGroup(g) {
			fmt.Fprint(env.Stdout, p.usage(g))
			return nil
		}
		return p.usageError(env, Usagef("%s help: unknown command %q", p.Name, strings.Join(args[1:], " ")), p.usage(""))
	}
	c, rest := p.find(args)
	if c == nil {
		return p.unknown(args, env)
	}
	err := c.exec(ctx, rest, env)
	if errors.Is(err, flag.ErrHelp) {
		c.Help(env.Stdout, env.Getenv)
		return nil
	}
	var ue *UsageError
	if errors.As(err, &ue) && !errors.Is(err, ErrUsageShown) {
		var help strings.Builder
		c.Help(&help, env.Getenv)
		return p.usageError(env, err, help.String())
	}
	return err
}

// find is the command whose name is the longest prefix of args (by words)
// and the arguments after it.
func (p Program) find(args []string) (*Command, []string) {
	var best *Command
	n := 0
	for i := range p.Commands {
		words := strings.Fields(p.Commands[i].Name)
		if len(words) > n && len(words) <= len(args) && slices.Equal(words, args[:len(words)]) {
			best, n = &p.Commands[i], len(words)
		}
	}
	return best, args[n:]
}

// isGroup says whether some command's name starts with the words of g.
func (p Program) isGroup(g string) bool {
	for _, c := range p.Commands {
		if strings.HasPrefix(c.Name, g+" ") {
			return true
		}
	}
	return false
}

// unknown answers args that name no command: the program's usage, or a
// group's when args start with a group ("leaderboard", "leaderboard -h").
func (p Program) unknown(args []string, env Env) error {
	if len(args) == 0 {
		return p.usageError(env, Usagef("%s: no command given", p.Name), p.usage(""))
	}
	group := ""
	for i := 1; i <= len(args) && p.isGroup(strings.Join(args[:i], " ")); i++ {
		group = strings.Join(args[:i], " ")
	}
	if group == "" {
		return p.usageError(env, Usagef("%s: unknown command %q", p.Name, args[0]), p.usage(""))
	}
	rest := args[len(strings.Fields(group)):]
	switch {
	case len(rest) == 0:
		return p.usageError(env, Usagef("%s %s: no command given", p.Name, group), p.usage(group))
	case helpWords[rest[0]]:
		fmt.Fprint(env.Stdout, p.usage(group))
		return nil
	}
	return p.usageError(env, Usagef("%s %s: unknown command %q", p.Name, group, rest[0]), p.usage(group))
}

// usageError prints err and the usage on stderr and marks err as shown.
func (p Program) usageError(env Env, err error, usage string) error {
	fmt.Fprintf(env.Stderr, "%s\n\n%s", Message(err), usage)
	return usageShown{err}
}

// usage is the program's usage, or a group's ("leaderboard"): the commands
// with their summaries.
func (p Program) usage(group string) string {
	var b strings.Builder
	prefix := p.Name
	if group != "" {
		prefix += " " + group
	}
	fmt.Fprintf(&b, "Usage: %s <command> [flags]\n\nCommands:\n", prefix)
	var names, summaries []string
	width := 0
	for _, c := range p.Commands {
		name := c.Name
		if group != "" {
			if !strings.HasPrefix(name, group+" ") {
				continue
			}
			name = strings.TrimPrefix(name, group+" ")
		}
		names, summaries = append(names, name), append(summaries, c.Summary)
		width = max(width, len(name))
	}
	for i := range names {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, names[i], summaries[i])
	}
	if group != "" {
		if note := p.Groups[group]; note != "" {
			fmt.Fprintf(&b, "\n%s", note)
		}
	} else if p.Footer != "" {
		fmt.Fprintf(&b, "\n%s", p.Footer)
	}
	fmt.Fprintf(&b, "\nRun '%s <command> --help' for the flags of a command.\n", prefix)
	return b.String()
}

// NoArgs refuses positional arguments, naming the first: the check of a
// command that takes none.
func NoArgs(args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected argument %q (the command takes none)", args[0])
	}
	return nil
}

// usageShown is a usage error whose message and usage were printed.
type usageShown struct{ err error }

func (e usageShown) Error() string   { return e.err.Error() }
func (e usageShown) Unwrap() []error { return []error{e.err, ErrUsageShown} }

// parseInterspersed parses flags written before, between and after the
// positional arguments (the flag package stops at the first non-flag
// argument) and returns the positional arguments in order; after "--"
// every argument is positional, and "-" alone is one.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		left := fs.Args()
		if len(left) < len(args) && args[len(args)-len(left)-1] == "--" {
			return append(rest, left...), nil
		}
		for len(left) > 0 && (left[0] == "-" || !strings.HasPrefix(left[0], "-")) {
			rest, left = append(rest, left[0]), left[1:]
		}
		if len(left) == 0 {
			return rest, nil
		}
		args = left
	}
}

// flagError words the flag package's errors with flags written as this
// project writes them (--name).
func flagError(err error) string {
	msg := err.Error()
	for _, r := range [][2]string{
		{"flag provided but not defined: -", "unknown flag --"},
		{"for flag -", "for flag --"},
		{"flag needs an argument: -", "flag needs an argument: --"},
	} {
		if strings.HasPrefix(msg, r[0]) || strings.Contains(msg, r[0]) {
			return strings.Replace(msg, r[0], r[1], 1)
		}
	}
	return msg
}
