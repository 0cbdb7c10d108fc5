package lbrun

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Setup is what Prepare needs besides the build: the model catalog
// (resolved by the caller; "" for none), the user-model store ("": none),
// the tool's identity, the timeout
// of one simulation and the results directory whose traces/ holds the
// stored traces.
type Setup struct {
	Catalog        string
	CatalogVersion *runresult.DataVersion
	UserModels     string
	Harness        runresult.Harness
	Timeout        time.Duration
	ResultsDir     string
}

// Prepare builds ref of the simulator repository repo through b (an exact
// tag or commit), probes its `run`, `replay` and converters, and returns
// the Sim the runs go through (Close removes its work directory).
func Prepare(ctx context.Context, b *harness.Builder, repo, ref string, su Setup) (*Sim, error) {
	bld, err := b.Build(ctx, repo, ref)
	if err != nil {
		return nil, err
	}
	flags, err := harness.ProbeCommand(ctx, bld.Binary, bld.DataDir, "run")
	if err != nil {
		return nil, err
	}
	replay, err := harness.ProbeCommand(ctx, bld.Binary, bld.DataDir, "replay")
	if err != nil {
		return nil, err
	}
	converters, err := harness.ProbeConverters(ctx, bld.Binary, bld.DataDir)
	if err != nil {
		return nil, err
	}
	traces, err := filepath.Abs(filepath.Join(su.ResultsDir, leaderboard.TracesDir))
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "leaderboard-runs-")
	if err != nil {
		return nil, err
	}
	s := &Sim{Build: bld, RunFlags: flags, ReplayFlags: replay, Converters: converters, TracesDir: traces,
		Catalog: su.Catalog, CatalogVersion: su.CatalogVersion, UserModels: su.UserModels, Harness: su.Harness, Timeout: su.Timeout, WorkDir: work}
	return s, nil
}

// Close removes s's work directory (the per-run directories under it).
func (s *Sim) Close() error {
	if s.WorkDir == "" {
		return nil
	}
	return os.RemoveAll(s.WorkDir)
}
