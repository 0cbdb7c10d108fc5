package lbrun

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Builds says where the simulator builds that `leaderboard run`, `verify`
// and `serve` run on come from and what each run gets: the simulator's
// repository (a URL or a path), the model catalog as a catalog argument
// names it (harness.ResolveCatalog: none, bundled, a directory) with the
// catalog "bundled" names, the build cache, the timeout of one simulation
// and the log (nil: none); and Tool, this binary's own identity when it
// states one (harness.Stamped; nil: none), which results record.
type Builds struct {
	Repo     string
	Catalog  string
	Bundled  harness.BundledCatalog
	CacheDir string
	Timeout  time.Duration
	Log      *slog.Logger
	Tool     *runresult.Harness
	// UserModels is the user-model store ("": none; usermodels.go).
	UserModels string
}

// Identify is the tool the results record (harness.IdentifyTool): the
// checkout harnessDir when given, else b.Tool, else the working
// directory's checkout.
func (b Builds) Identify(ctx context.Context, harnessDir string) (runresult.Harness, error) {
	return harness.IdentifyTool(ctx, harnessDir, b.Tool)
}

func (b Builds) log() *slog.Logger {
	if b.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return b.Log
}

func (b Builds) builder() *harness.Builder {
	return &harness.Builder{CacheDir: b.CacheDir, Log: b.Log}
}

// NewestRelease is the newest release tag (vX.Y.Z) of b.Repo: the ref
// taken when none is given.
func (b Builds) NewestRelease(ctx context.Context) (string, error) {
	return b.builder().DefaultRef(ctx, b.Repo)
}

// Open builds ref of b.Repo (an exact tag or commit) and probes it
// (Prepare) with b's catalog (an error resolving it names --catalog), for
// results filed in the results directory results, recording id as the
// tool that ran them. Close the Sim when done.
func (b Builds) Open(ctx context.Context, ref string, id runresult.Harness, results string) (*Sim, error) {
	cat, catVersion, err := harness.ResolveCatalog(ctx, b.Catalog, b.CacheDir, b.Bundled)
	if err != nil {
		return nil, fmt.Errorf("--catalog: %w", err)
	}
	return Prepare(ctx, b.builder(), b.Repo, ref, Setup{Catalog: cat, CatalogVersion: catVersion, Harness: id, Timeout: b.Timeout, ResultsDir: results, UserModels: b.UserModels})
}
