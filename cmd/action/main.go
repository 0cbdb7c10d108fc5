// Command action is the accuracy harness's command line and the entry point
// of the GitHub Action. Subcommands:
//
//	score          score a simulator build against the ledger and print the table
//	merge          combine the outputs of sharded score runs into one
//	compare        compare two runs (result directories or published snapshots)
//	nightly plan   what a nightly evaluation would run, and whether it changed
//	ledger import  turn InferenceX / inference-perf artifacts into a ledger
//	leaderboard    run, render, validate and verify a leaderboard (runs.yaml, results/)
//	github-action  run inside GitHub Actions (pull-request check, comment, merge)
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if msg := cli.Message(err); msg != "" {
		fmt.Fprintln(os.Stderr, msg)
	}
	os.Exit(exitCode(err))
}

// errUsageShown is returned after the usage was printed because of a usage
// error (exit status 2).
var errUsageShown = cli.ErrUsageShown

// exitCode is the one exit-code rule (internal/cli): 0 ok, 1 error, 2 usage.
func exitCode(err error) int { return cli.ExitCode(err) }

const usage = `Usage: action <command> [flags]

Commands:
  score          score a simulator build against the ledger and print the accuracy table
  merge          combine the outputs of sharded score runs into one summary
  compare        compare two runs (result directories or snapshot ids): B − A per metric
  nightly plan   resolve the newest simulator release, harness and data; say what changed
  ledger import  turn InferenceX and inference-perf artifacts into a ledger
  leaderboard    run, render, validate and verify a leaderboard of simulated deployments
  github-action  run inside GitHub Actions (reads the action's inputs from the environment)

Run 'action <command> --help' for the flags of a command.
`

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsageShown
	}
	switch args[0] {
	case "score":
		return runScore(ctx, args[1:], getenv, stdout, stderr)
	case "merge":
		return runMerge(ctx, args[1:], getenv, stdout, stderr)
	case "compare":
		return runCompare(ctx, args[1:], getenv, stdout, stderr)
	case "nightly":
		return runNightly(ctx, args[1:], getenv, stdout, stderr)
	case "ledger":
		if len(args) < 2 || args[1] != "import" {
			fmt.Fprint(stderr, "Usage: action ledger import --out DIR SOURCE...\n")
			return errUsageShown
		}
		return runLedgerImport(ctx, args[2:], getenv, stdout, stderr)
	case "leaderboard":
		return runLeaderboard(ctx, args[1:], getenv, stdout, stderr)
	case "github-action":
		return runGitHubAction(ctx, args[1:], getenv, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprintf(stderr, "unknown command %q\n\n%s", args[0], usage)
		return errUsageShown
	}
}
