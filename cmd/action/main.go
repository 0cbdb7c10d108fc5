// Command action is the accuracy harness's command line and the entry point
// of the GitHub Action. Subcommands:
//
//	score          score a simulator build against the ledger and print the table
//	merge          combine the outputs of sharded score runs into one
//	bisect         find the simulator commit that moved the predictions
//	backfill       score past simulator releases into a dashboard
//	compare        compare two runs (result directories or published snapshots)
//	publish        publish a result directory into a dashboard checkout, as the bot does
//	site           build the dashboard's static site from its data/
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
	os.Exit(cli.ExitCode(err))
}

// program is the table of subcommands; each is a cli.Spec (options, parse,
// run) declared next to its run function.
func program() cli.Program {
	return cli.Program{
		Name: "action",
		Groups: map[string]string{
			"leaderboard": "A leaderboard directory holds runs.yaml and results/. See docs/LEADERBOARD.md.\n",
		},
		Commands: []cli.Command{
			scoreCommand.Command(),
			mergeCommand.Command(),
			bisectCommand.Command(),
			backfillCommand.Command(),
			compareCommand.Command(),
			publishCommand.Command(),
			siteCommand.Command(),
			nightlyPlanCommand.Command(),
			ledgerImportCommand.Command(),
			leaderboardRunCommand.Command(),
			leaderboardRenderCommand.Command(),
			leaderboardValidateCommand.Command(),
			leaderboardVerifyCommand.Command(),
			leaderboardServeCommand.Command(),
			githubActionCommand.Command(),
		},
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return program().Run(ctx, args, cli.Env{Getenv: getenv, Stdout: stdout, Stderr: stderr})
}
