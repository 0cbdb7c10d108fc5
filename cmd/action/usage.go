package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// printFlags lists a command's flags the way they are written on the
// command line (--name), with their defaults.
func printFlags(w io.Writer, fs *flag.FlagSet) {
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

// parseFlags parses args with fs. --help prints header and the flags on
// stdout and reports help; a bad flag prints the error, header and flags on
// stderr and returns errUsageShown. Afterwards fs.Usage prints the same help
// on stderr, for later usage errors.
func parseFlags(fs *flag.FlagSet, header string, args []string, stdout, stderr io.Writer) (help bool, err error) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	perr := fs.Parse(args)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), header)
		printFlags(fs.Output(), fs)
	}
	switch {
	case errors.Is(perr, flag.ErrHelp):
		fs.SetOutput(stdout)
		fs.Usage()
		fs.SetOutput(stderr)
		return true, nil
	case perr != nil:
		fmt.Fprintf(stderr, "%s: %v\n\n", fs.Name(), perr)
		fs.Usage()
		return false, errUsageShown
	}
	return false, nil
}
