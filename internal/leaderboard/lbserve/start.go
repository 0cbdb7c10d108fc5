package lbserve

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/connlimit"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
)

// Options are what `leaderboard serve` serves and runs with.
type Options struct {
	// Runs is the runs.yaml; Results the results directory, beside which
	// the declarations file is kept.
	Runs, Results string
	// PinFile, when set, is the pin file whose leaderboard pair the server
	// runs: its simulator commit is the ref and its catalog Builds.Catalog
	// (catalog paths relative to the working directory, the repository's
	// root).
	PinFile string
	// Ref is the simulator ref, an exact tag or commit ("" with no PinFile:
	// the newest release tag); HarnessDir this tool's checkout ("": the
	// binary's own identity, Builds.Tool, else found from the working
	// directory).
	Ref, HarnessDir string
	Builds          lbrun.Builds
	// Addr is the HOST:PORT Serve listens on; Token the bearer token of
	// POST /api/run; Workers simulate at once, Queue jobs wait at most.
	Addr, Token    string
	Workers, Queue int
}

// Prepared is a server's simulator build and declarations, ready to serve:
// Version says what it runs. Close it when done.
type Prepared struct {
	Version Version
	opts    Options
	cfg     Config
}

// Prepare reads what a server of o runs and builds it, without listening:
// the pin file's pair (with o.PinFile), runs.yaml with the candidates
// declared before merged in (lbrun.ReadRuns, lbrun.MergeDeclared: an error
// there is a *lbrun.DeclarationError), this tool's identity, and the
// simulator build (lbrun.Builds.Open), with the traces runs.yaml names
// stored in the results' traces/.
func Prepare(ctx context.Context, o Options) (*Prepared, error) {
	if o.PinFile != "" {
		pair, err := lbrun.ReadPinPair(o.PinFile)
		if err != nil {
			return nil, err
		}
		o.Ref = pair.Simulator.Commit
		o.Builds.Catalog = lbrun.CatalogArg(pair.Catalog, ".")
	}
	// runs.yaml (base: the groups a candidate may be declared for) and the
	// candidates declared through the API before (d), read once.
	base, traces, err := lbrun.ReadRuns(o.Runs)
	if err != nil {
		return nil, err
	}
	// The results directory is the server's own: made on a fresh volume,
	// so that validate and a reader of the volume find it before the first
	// result is filed.
	if err := os.MkdirAll(o.Results, 0o755); err != nil {
		return nil, fmt.Errorf("results directory: %w", err)
	}
	d, err := lbrun.MergeDeclared(base, o.Results)
	if err != nil {
		return nil, err
	}
	workloads := filepath.Join(filepath.Dir(filepath.Clean(o.Results)), leaderboard.WorkloadsFile)
	saved, err := readSaved(workloads)
	if err != nil {
		return nil, err
	}
	if d, err = withSaved(d, saved, o.Results); err != nil {
		return nil, err
	}
	id, err := o.Builds.Identify(ctx, o.HarnessDir)
	if err != nil {
		return nil, err
	}
	ref := o.Ref
	if ref == "" {
		if ref, err = o.Builds.NewestRelease(ctx); err != nil {
			return nil, err
		}
	}
	s, err := o.Builds.Open(ctx, ref, id, o.Results)
	if err != nil {
		return nil, err
	}
	if len(traces) > 0 {
		if err := lbrun.StoreTraces(s.TracesDir, traces); err != nil {
			s.Close()
			return nil, fmt.Errorf("store traces: %w", err)
		}
	}
	if err := checkOneBuild(o.Results, leaderboard.Provenance{Simulator: leaderboard.Simulator{Commit: s.Build.Commit, Tag: s.Build.Tag}, Catalog: s.CatalogVersion}); err != nil {
		s.Close()
		return nil, err
	}
	names, err := s.Names()
	if err != nil {
		s.Close()
		return nil, err
	}
	version := Version{Harness: id, Simulator: SimulatorVersion{Repository: o.Builds.Repo, Tag: s.Build.Tag, Commit: s.Build.Commit}, Catalog: s.CatalogVersion}
	cfg := Config{Declaration: d, Base: base, Results: o.Results, Declarations: lbrun.DeclarationsFile(o.Results), Sim: s,
		Version: version, Token: o.Token, Workers: o.Workers, Queue: o.Queue, Log: o.Builds.Log, Names: &names, RunPending: true,
		Workloads: workloads, Saved: saved}
	return &Prepared{Version: version, opts: o, cfg: cfg}, nil
}

// Close releases the simulator build's work directory.
func (p *Prepared) Close() error { return p.cfg.Sim.Close() }

// Serve starts the server (New), listens on Options.Addr, calls listening
// with the address it listens on, and serves until ctx ends (SIGTERM,
// Ctrl-C: main's signal.NotifyContext). Then it logs the shutdown, stops
// taking requests, stops the jobs under way (Server.Run) and returns once
// both have stopped, logging that too. A listener that fails first ends it
// with its error, once the jobs have stopped.
func (p *Prepared) Serve(ctx context.Context, listening func(net.Addr)) error {
	srv, err := New(p.cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", p.opts.Addr)
	if err != nil {
		return err
	}
	listening(ln.Addr())
	return srv.serve(ctx, ln)
}

// serve serves s on ln until ctx ends, then stops taking requests, stops
// the jobs under way (Run) and returns once both have stopped. When ln
// fails first, it stops the jobs and returns the listener's error once they
// have stopped.
func (s *Server) serve(ctx context.Context, ln net.Listener) error {
	hs, ln := s.httpServer(ln)
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	jobs := make(chan struct{})
	go func() {
		s.Run(ctx)
		close(jobs)
	}()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		stop(err)
		<-jobs
		return err
	case <-ctx.Done():
	}
	s.cfg.Log.Info("shutting down: no new requests or jobs; the jobs under way are stopped", "cause", context.Cause(ctx).Error(), "addr", ln.Addr().String())
	shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := hs.Shutdown(shut)
	<-jobs
	if err != nil {
		s.cfg.Log.Warn("shut down with an error", "error", err.Error())
		return fmt.Errorf("shutdown: %w", err)
	}
	s.cfg.Log.Info("shut down")
	return nil
}

// httpServer is the http.Server serve serves s with, and ln wrapped to
// bound the connections it holds as the bot's webhook server does
// (connlimit: Config.MaxConns in total, Config.MaxConnsPerAddr per client
// address, the oldest idle connection closed to make room, an idle one
// closed after connlimit.IdleTimeout), with bounded headers and timeouts
// that end slow callers.
func (s *Server) httpServer(ln net.Listener) (*http.Server, net.Listener) {
	lim := connlimit.New(ln, connlimit.Limits{Max: cmp.Or(s.cfg.MaxConns, connlimit.DefaultMax),
		PerAddr: cmp.Or(s.cfg.MaxConnsPerAddr, connlimit.DefaultPerAddr)}, nil)
	return &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, WriteTimeout: time.Minute,
		IdleTimeout: connlimit.IdleTimeout, MaxHeaderBytes: 64 << 10, ConnState: lim.Track}, lim
}
