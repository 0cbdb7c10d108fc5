// Package harnessflags is the harness's command line that action score,
// bisect and backfill share: the flags naming the simulator's repository,
// the data, the selection and how the points run (Flags.Register), their
// check (Flags.Check), and the harness.Options they make, with the data
// loaded (Flags.Options).
package harnessflags

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/corpus"
	"github.com/inference-sim/accuracy-dashboard/internal/cachedir"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
)

// Flags are the shared flags' values.
type Flags struct {
	SimRepo, Ledger, Units string
	Catalog, Registry      string
	HardwareRegistry       string
	ClosedLoopDriver       string
	Jobs                   int
	PointTimeout           time.Duration
	CacheDir, HarnessDir   string
	Quiet                  bool
}

// Register defines the flags on fs (getenv gives the cache's default).
func (f *Flags) Register(fs *flag.FlagSet, getenv func(string) string) {
	fs.StringVar(&f.SimRepo, "sim-repo", harness.DefaultSimRepo, "simulator git `repository`: a URL or a local path (e.g. --sim-repo ~/src/inference-sim)")
	fs.StringVar(&f.Ledger, "ledger", "", "ledger `directory` to score against (default: the bundled corpus; e.g. --ledger out/ledger)")
	fs.StringVar(&f.Units, "units", "", "comma-separated unit `selectors`: ids, globs or id prefixes (e.g. --units 'inferencex/gpt-oss-120b/h100/*')")
	fs.StringVar(&f.Catalog, "catalog", "bundled", "model catalog `directory` handed to the simulator (models/<name>/config.json), \"bundled\" or \"none\" (e.g. --catalog ~/src/blis-catalog)")
	fs.StringVar(&f.Registry, "registry", "none", "coefficient registry `directory` handed to builds that take --registry, or \"none\" (e.g. --registry ~/src/blis-registry)")
	fs.StringVar(&f.HardwareRegistry, "hardware-registry", "bundled", "hardware registry (a registry.json or the `directory` holding one) whose GPUs the build does not know are handed, with the build's own hardware_config.json, to builds that take --hardware-config; \"bundled\" or \"none\" (e.g. --hardware-registry ~/src/blis-hardware)")
	fs.StringVar(&f.ClosedLoopDriver, "closed-loop-driver", harness.ClosedLoopAuto, "`driver` of closed-loop points: auto (replay-metrics where the build's replay can do closed loop, else run-closed-loop), replay-metrics or run-closed-loop (e.g. --closed-loop-driver run-closed-loop)")
	fs.IntVar(&f.Jobs, "jobs", runtime.NumCPU(), "number of simulations run in parallel (e.g. --jobs 2)")
	fs.DurationVar(&f.PointTimeout, "point-timeout", harness.DefaultPointTimeout, "kill a simulation that runs longer than this (e.g. --point-timeout 5m)")
	fs.StringVar(&f.CacheDir, "cache-dir", cachedir.Default(getenv), "`directory` caching simulator clones and builds between runs; env ACCURACY_DASHBOARD_CACHE (e.g. --cache-dir /tmp/blis-cache)")
	fs.StringVar(&f.HarnessDir, "harness-dir", "", "the harness's own `directory`, whose commit the figures record (default: found from the working directory; e.g. --harness-dir ~/src/accuracy-dashboard)")
	fs.BoolVar(&f.Quiet, "quiet", false, "print no progress or log lines on stderr (e.g. --quiet)")
}

// Check checks the flags' values, naming the flag.
func (f *Flags) Check() error {
	switch f.ClosedLoopDriver {
	case harness.ClosedLoopAuto, harness.DriverReplayMetrics, harness.DriverRunClosedLoop:
	default:
		return fmt.Errorf("--closed-loop-driver %q: want %s, %s or %s", f.ClosedLoopDriver, harness.ClosedLoopAuto, harness.DriverReplayMetrics, harness.DriverRunClosedLoop)
	}
	if f.Jobs < 1 {
		return fmt.Errorf("--jobs %d: must be at least 1", f.Jobs)
	}
	return nil
}

// Options are the harness's options of the flags (the simulator ref and
// what is a command's own are the caller's), with the data loaded, and the
// log the command writes on stderr (nothing with --quiet).
func (f *Flags) Options(ctx context.Context, stderr io.Writer) (harness.Options, *slog.Logger, error) {
	logOut := stderr
	if f.Quiet {
		logOut = io.Discard
	}
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: slog.LevelInfo}))
	harnessDir := f.HarnessDir
	if harnessDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return harness.Options{}, nil, err
		}
		if harnessDir, err = harness.FindHarnessDir(wd); err != nil {
			return harness.Options{}, nil, err
		}
	}
	opts := harness.Options{
		HarnessDir: harnessDir, Embedded: corpus.Embedded(), EmbeddedRoot: "corpus", SimRepo: f.SimRepo,
		Units: SplitList(f.Units), Jobs: f.Jobs, PointTimeout: f.PointTimeout,
		ClosedLoopDriver: f.ClosedLoopDriver,
		CacheDir:         f.CacheDir, Log: log, Progress: logOut,
	}
	data := harness.Data{Ledger: f.Ledger, Catalog: f.Catalog, Registry: f.Registry,
		HardwareRegistry: f.HardwareRegistry, CacheDir: f.CacheDir, Bundled: Bundled()}
	if err := harness.LoadData(ctx, data, &opts); err != nil {
		return harness.Options{}, nil, err
	}
	return opts, log, nil
}

// Bundled is the data embedded in this binary (package corpus).
func Bundled() harness.Bundled {
	return harness.Bundled{Ledger: corpus.Ledger(), Catalog: corpus.Catalog(), Hardware: corpus.Hardware()}
}

// SplitList splits a comma-separated flag value, trimming white space and
// dropping empty items.
func SplitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
