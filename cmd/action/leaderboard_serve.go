package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbpr"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbserve"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

const leaderboardServeUsage = `Usage: action leaderboard serve --runs runs.yaml [--addr HOST:PORT] [--sim REF | --pin FILE] [flags]

Serves the leaderboard over HTTP: GET / is the page render writes, read live
from the results directory, with a form to declare a candidate for a group;
GET /api/version the harness, simulator and catalog it runs; GET /api/results
the result files; POST /api/run {"group": ID, "candidate": {...}} (with
Authorization: Bearer $LEADERBOARD_TOKEN) declares a candidate, checked as
runs.yaml is (400 naming the field, 409 for an id already declared), appends
it to declarations.yaml beside the results and queues its runs (202
{"job": ID}; a full queue answers 503 with Retry-After); GET /api/jobs/ID
its status. Runs go through the simulator build of --sim (or the pin file's
leaderboard pair), --jobs at once; each result is filed when its run ends.
The server refuses to start without LEADERBOARD_TOKEN (at least 16 bytes).
SIGTERM or Ctrl-C stops it: no new job, the simulations under way are
stopped and their jobs fail, nothing is left half-written.

Example:
  LEADERBOARD_TOKEN=$(openssl rand -hex 16) action leaderboard serve --runs leaderboard/runs.yaml \
    --pin .github/accuracy-harness.yaml --sim-repo ~/src/inference-sim --addr 127.0.0.1:8080

Flags:
`

// leaderboardServeOptions are the flags of `action leaderboard serve`.
type leaderboardServeOptions struct {
	simFlags
	leaderboardFiles
	addr, sim, pinFile, harnessDir string
	queue                          int
	prepareOnly                    bool
}

// leaderboardServeCommand is `action leaderboard serve`.
var leaderboardServeCommand = cli.Spec[leaderboardServeOptions]{
	Name:    "leaderboard serve",
	Summary: "serve the leaderboard page, its API and a form that declares and runs candidates",
	Usage:   leaderboardServeUsage,
	Flags: func(fs *flag.FlagSet, o *leaderboardServeOptions, getenv func(string) string) {
		o.leaderboardFiles.register(fs, true)
		fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "`HOST:PORT` to listen on (e.g. --addr :8080)")
		fs.StringVar(&o.sim, "sim", "", "simulator `ref`: a release tag or a full 40-hex commit (default: the pin file's leaderboard simulator with --pin, else the newest vX.Y.Z tag)")
		fs.StringVar(&o.pinFile, "pin", "", "pin `file` whose leaderboard simulator/catalog pair the server runs (e.g. --pin .github/accuracy-harness.yaml)")
		fs.StringVar(&o.harnessDir, "harness-dir", "", "this tool's own `directory`, whose commit results record (default: found from the working directory)")
		fs.BoolVar(&o.prepareOnly, "prepare-only", false, "build and probe the simulator, print what GET /api/version would answer and exit (fills the build cache, e.g. when building an image)")
		fs.IntVar(&o.queue, "queue", 16, "declared jobs that may wait for a worker; more answer 503 (e.g. --queue 4)")
		o.simFlags.register(fs, getenv)
	},
	Check: func(o *leaderboardServeOptions, args []string) error {
		if o.sim != "" && o.pinFile != "" {
			return errors.New("give --sim or --pin, not both (the pin file names the simulator)")
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
	sf := o.simFlags
	log, _ := sf.logger(env.Stderr)
	dir := o.resultsDir()
	ref, repo := o.sim, sf.simRepo
	if o.pinFile != "" {
		pair, err := readLeaderboardPair(o.pinFile)
		if err != nil {
			return fmt.Errorf("leaderboard serve: %w", err)
		}
		ref = pair.Simulator.Commit
		sf.catalog = lbpr.CatalogArg(pair.Catalog, ".")
	}
	// runs.yaml (base: the groups a candidate may be declared for) and the
	// candidates declared through the API before (d), read once.
	base, traces, err := readRuns(o.runs)
	if err != nil {
		return err
	}
	d, err := mergeDeclared(base, dir)
	if err != nil {
		return err
	}
	id, err := harnessID(ctx, o.harnessDir)
	if err != nil {
		return fmt.Errorf("leaderboard serve: %w", err)
	}
	b := &harness.Builder{CacheDir: sf.cacheDir, Log: log}
	if ref == "" {
		if ref, err = b.DefaultRef(ctx, repo); err != nil {
			return fmt.Errorf("leaderboard serve: %w", err)
		}
	}
	s, err := prepareSim(ctx, b, sf, ref, id, dir)
	if err != nil {
		return fmt.Errorf("leaderboard serve: %w", err)
	}
	defer s.Close()
	if len(traces) > 0 {
		if err := lbrun.StoreTraces(s.TracesDir, traces); err != nil {
			return fmt.Errorf("leaderboard serve: store traces: %w", err)
		}
	}
	version := lbserve.Version{Harness: id, Simulator: lbserve.SimulatorVersion{Repository: repo, Tag: s.Build.Tag, Commit: s.Build.Commit}, Catalog: s.CatalogVersion}
	if o.prepareOnly {
		raw, err := json.MarshalIndent(version, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(env.Stdout, "%s\n", raw)
		return err
	}
	srv, err := lbserve.New(lbserve.Config{Declaration: d, Base: base, Results: dir, Declarations: declarationsFile(dir), Sim: s,
		Version: version, Token: token, Workers: sf.jobs, Queue: o.queue, Log: log})
	if err != nil {
		return fmt.Errorf("leaderboard serve: %w", err)
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("leaderboard serve: %w", err)
	}
	fmt.Fprintf(env.Stdout, "serving %s on http://%s/ (simulator %s, %d workers)\n", o.runs, ln.Addr(), s.Build.Commit, sf.jobs)
	return serveUntilDone(ctx, srv, ln)
}

// serveUntilDone serves srv on ln until ctx ends (SIGTERM, Ctrl-C), then
// stops taking requests, stops the jobs under way (lbserve.Server.Run) and
// returns once both have stopped.
func serveUntilDone(ctx context.Context, srv *lbserve.Server, ln net.Listener) error {
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, WriteTimeout: time.Minute, MaxHeaderBytes: 64 << 10}
	jobs := make(chan struct{})
	go func() {
		srv.Run(ctx)
		close(jobs)
	}()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("leaderboard serve: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := hs.Shutdown(shut)
	<-jobs
	if err != nil {
		return fmt.Errorf("leaderboard serve: shutdown: %w", err)
	}
	return nil
}

// harnessID is the tool's identity: the commit of dir, or of the checkout
// holding the working directory.
func harnessID(ctx context.Context, dir string) (id report.Harness, err error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return id, err
		}
		if dir, err = harness.FindHarnessDir(wd); err != nil {
			return id, err
		}
	}
	return harness.HarnessIdentity(ctx, dir)
}
