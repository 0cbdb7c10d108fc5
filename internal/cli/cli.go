// Package cli holds the command-line conventions cmd/action and cmd/bot
// share: every subcommand is a Spec (a typed options struct, its flags,
// required flags, a check, a run); a Program is the table of a command's
// subcommands and its one dispatch (help, -h, groups, unknown commands, a
// usage error printed with the command's usage); ExitCode is the one
// exit-code rule.
package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// PrintFlags lists a command's flags the way they are written on the
// command line (--name), each with its usage and, when set, its default.
func PrintFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			fmt.Fprintf(w, " (default %q)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}
