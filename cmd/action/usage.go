package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
)

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
		cli.PrintFlags(fs.Output(), fs)
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

// noArgs refuses positional arguments left after the flags of a command that
// takes none, naming the first: a usage error.
func noArgs(fs *flag.FlagSet, stderr io.Writer) error {
	if fs.NArg() == 0 {
		return nil
	}
	fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
	return errUsageShown
}
