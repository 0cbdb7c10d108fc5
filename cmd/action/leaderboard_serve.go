package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbserve"
)

const leaderboardServeUsage = `Usage: action leaderboard serve --runs runs.yaml [--addr HOST:PORT] [--sim REF | --pin FILE] [flags]

Serves the leaderboard over HTTP: GET / is the page render writes, read live
from the results directory, with a form to declare a candidate for a group;
GET /api/version the harness, simulator and catalog it runs; GET /api/results
the result files; POST /api/run {"group": ID, "candidate": {...}} (with
Authorization: Bearer $LEADERBOARD_TOKEN) declares a candidate, checked as
runs.yaml is and its model and GPU against the build's (400 naming the field
and the nearest valid names, 409 for an id already declared), appends it to
declarations.yaml beside the results and queues its runs (202 {"job": ID};
a full queue answers 503 with Retry-After); GET /api/jobs/ID its status;
DELETE /api/run/GROUP/ID (token) removes a failed candidate declared so;
POST /api/workload (token) saves an uploaded trace as a workload of its own,
POST /api/model (token) a model's config.json into --user-models.
Runs go through the simulator build of --sim (or the pin's pair), --jobs
at once, each filed when it ends; on start every run without a result.
It refuses another build's results and to start without LEADERBOARD_TOKEN.
SIGTERM or Ctrl-C stops it: no new job, the simulations under way are
stopped and their jobs fail, nothing is left half-written.

Example:
  LEADERBOARD_TOKEN=$(openssl rand -hex 16) action leaderboard serve --runs leaderboard/runs.yaml \
    --pin .github/accuracy-harness.yaml --sim-repo ~/src/inference-sim --addr 127.0.0.1:8080

Flags:
`

// leaderboardServeOptions are the flags of `action leaderboard serve`.
type leaderboardServeOptions struct {
	buildFlags
	addr, pinFile string
	queue         int
	prepareOnly   bool
}

// leaderboardServeCommand is `action leaderboard serve`.
var leaderboardServeCommand = cli.Spec[leaderboardServeOptions]{
	Name:    "leaderboard serve",
	Summary: "serve the leaderboard page, its API and a form that declares and runs candidates",
	Usage:   leaderboardServeUsage,
	Flags: func(fs *flag.FlagSet, o *leaderboardServeOptions, getenv func(string) string) {
		o.buildFlags.register(fs, getenv, true, "simulator `ref`: a release tag or a full 40-hex commit (default: the pin file's leaderboard simulator with --pin, else the newest vX.Y.Z tag)")
		fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "`HOST:PORT` to listen on (e.g. --addr :8080)")
		fs.StringVar(&o.pinFile, "pin", "", "pin `file` whose leaderboard simulator/catalog pair the server runs (e.g. --pin .github/accuracy-harness.yaml)")
		fs.BoolVar(&o.prepareOnly, "prepare-only", false, "build and probe the simulator, print what GET /api/version would answer and exit (fills the build cache, e.g. when building an image)")
		fs.IntVar(&o.queue, "queue", 16, "declared jobs that may wait for a worker; more answer 503 (e.g. --queue 4)")
	},
	Check: func(o *leaderboardServeOptions, args []string) error {
		if err := simOrPin(o.sim, o.pinFile); err != nil {
			return err
		}
		if o.queue < 1 {
			return fmt.Errorf("--queue %d: must be at least 1", o.queue)
		}
		return o.check(args)
	},
	Run: runLeaderboardServe,
}

func runLeaderboardServe(ctx context.Context, o leaderboardServeOptions, env cli.Env) error {
	token := env.Getenv("LEADERBOARD_TOKEN")
	if len(token) < lbserve.MinTokenLength && !o.prepareOnly {
		return fmt.Errorf("leaderboard serve: set LEADERBOARD_TOKEN to a secret of at least %d bytes (POST /api/run needs it as a bearer token)", lbserve.MinTokenLength)
	}
	log, _ := o.logger(env.Stderr)
	p, err := lbserve.Prepare(ctx, lbserve.Options{Runs: o.runs, Results: o.resultsDir(), PinFile: o.pinFile, Ref: o.sim, HarnessDir: o.harnessDir,
		Builds: o.builds(log), Addr: o.addr, Token: token, Workers: o.jobs, Queue: o.queue})
	if err != nil {
		return lbrun.CommandError("leaderboard serve", err)
	}
	defer p.Close()
	if o.prepareOnly {
		raw, err := json.MarshalIndent(p.Version, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(env.Stdout, "%s\n", raw)
		return err
	}
	err = p.Serve(ctx, func(addr net.Addr) {
		fmt.Fprintf(env.Stdout, "serving %s on http://%s/ (simulator %s, %d workers)\n", o.runs, addr, p.Version.Simulator.Commit, o.jobs)
	})
	return lbrun.CommandError("leaderboard serve", err)
}
