package ghaction

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/pinned"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
)

// readPin reads and parses the pin file.
func readPin(in actionInputs) (pin.Pin, error) {
	src, err := diskio.ReadPathMax(in.pinFile, pin.MaxFileBytes)
	if err != nil {
		return pin.Pin{}, fmt.Errorf("pin file: %w (create it, or set pin-file; see docs/ACTION.md)", err)
	}
	return pin.Parse(src, relPath(in.simulatorPath, in.pinFile))
}

// preparePinned prepares the harness release p pins (pinned.Prepare: clone,
// verify, build, cached under the cache-dir input) in a log group of its
// own; the build's output goes to the mode's streams.
func preparePinned(ctx context.Context, p pin.Pin, in actionInputs, env modeEnv) (*pinned.Harness, error) {
	env.gha.Group(fmt.Sprintf("Prepare the pinned harness %s (%s)", p.Harness.Tag, p.Harness.Commit))
	h, err := pinned.Prepare(ctx, p, cloneURL(p.Harness, in), in.cacheDir, harness.CleanEnv(os.Environ()), env.stdout, env.stderr)
	env.gha.EndGroup()
	return h, err
}

// pinnedScorer prepares the pinned harness (preparePinned) and makes it
// cfg's scorer, with the pin's data, the cache and the jobs, and cfg's
// cache key; the caller sets which simulator repository it scores.
func pinnedScorer(ctx context.Context, in actionInputs, p pin.Pin, cfg *prcheck.FlowConfig, env modeEnv) (*pinned.Harness, error) {
	h, err := preparePinned(ctx, p, in, env)
	if err != nil {
		return nil, err
	}
	h.Args = append(pinned.DataArgs(p, in.simulatorPath), "--cache-dir", in.cacheDir)
	if in.jobs > 0 {
		h.Args = append(h.Args, "--jobs", strconv.Itoa(in.jobs))
	}
	cfg.Scorer = h
	data, err := pinned.DataKey(p, in.simulatorPath)
	if err != nil {
		return nil, err
	}
	cfg.Key = prcheck.CacheKey{HarnessCommit: p.Harness.Commit, Data: data}
	return h, nil
}

// cloneURL resolves a pinned repository (the harness, or the leaderboard's
// simulator): owner/name on this GitHub server, a relative local path
// against the consumer repository.
func cloneURL(h pin.Harness, in actionInputs) string {
	r := h.Repository
	if strings.HasPrefix(r, "./") || strings.HasPrefix(r, "../") {
		return filepath.Join(in.simulatorPath, r)
	}
	return h.CloneURL(in.serverURL)
}
