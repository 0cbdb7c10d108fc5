package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/cachedir"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

// pinnedHarness runs the harness build of a pin: a clone of the harness
// repository at the pinned commit, verified, and the cmd/action binary built
// from it. Scores run as subprocesses from inside the clone, so the harness
// reads its commit from its own checkout: the figure's harness commit is
// checked, not asserted. It implements prcheck.Scorer.
type pinnedHarness struct {
	dir, bin string
	simRepo  string
	// args are passed to every score run (data, jobs, cache).
	args   []string
	env    []string
	stdout io.Writer
	stderr io.Writer
}

// preparePinnedHarness clones (or reuses from cacheDir) the pinned harness,
// verifies that HEAD is the pinned commit and that the pinned tag names it,
// and builds it. The clone and its build are one cache entry
// (action/harness/<commit>/, with src/ and bin/action), filled atomically
// by cachedir.Fill: jobs sharing a cache (a matrix on one machine) never
// see, nor remove, another job's half-made entry.
func preparePinnedHarness(ctx context.Context, p pin.Pin, cloneURL, cacheDir string, env []string, stdout, stderr io.Writer) (*pinnedHarness, error) {
	entry := filepath.Join(cacheDir, "action", "harness", p.Harness.Commit)
	h := &pinnedHarness{
		dir:    filepath.Join(entry, "src"),
		bin:    filepath.Join(entry, "bin", "action"),
		env:    env,
		stdout: stdout,
		stderr: stderr,
	}
	cached, err := cachedir.Fill(entry, func(tmp string) error {
		fresh := &pinnedHarness{dir: filepath.Join(tmp, "src")}
		if _, err := harness.Git(ctx, "", "clone", "--quiet", "--no-checkout", cloneURL, fresh.dir); err != nil {
			return fmt.Errorf("clone %s: %w", cloneURL, err)
		}
		if _, err := harness.Git(ctx, fresh.dir, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", p.Harness.Commit); err != nil {
			return fmt.Errorf("%s has no commit %s: %w", cloneURL, p.Harness.Commit, err)
		}
		if err := fresh.verify(ctx, p); err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(tmp, "bin", "action"), "./cmd/action")
		cmd.Dir, cmd.Env = fresh.dir, env
		var msg bytes.Buffer
		cmd.Stdout, cmd.Stderr = &msg, &msg
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("build %s (%s): %w\n%s", p.Harness.Tag, p.Harness.Commit, err, strings.TrimSpace(msg.String()))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	if !cached {
		fmt.Fprintf(stdout, "Built the pinned harness %s (%s)\n", p.Harness.Tag, p.Harness.Commit)
		return h, nil
	}
	// A complete entry is never rewritten in place (another job may be
	// running it): one that no longer checks out is named, for deletion.
	if err := h.verify(ctx, p); err != nil {
		return nil, fmt.Errorf("%w (cached in %s: delete that directory to clone and build again)", err, entry)
	}
	fmt.Fprintf(stdout, "Reusing the pinned harness %s (%s) from %s\n", p.Harness.Tag, p.Harness.Commit, h.dir)
	return h, nil
}

// verify checks that the clone's HEAD is the pinned commit, that its tracked
// files are unchanged, and that the pinned tag names that commit.
func (h *pinnedHarness) verify(ctx context.Context, p pin.Pin) error {
	head, err := harness.Git(ctx, h.dir, "rev-parse", "HEAD")
	if err != nil {
		return fmt.Errorf("harness: %w", err)
	}
	if head != p.Harness.Commit {
		return fmt.Errorf("harness: checkout is at %s, not the pinned %s", head, p.Harness.Commit)
	}
	if st, err := harness.Git(ctx, h.dir, "status", "--porcelain", "--untracked-files=no"); err != nil || st != "" {
		return fmt.Errorf("harness: checkout %s is modified (%v): %s", h.dir, err, st)
	}
	tagged, err := harness.Git(ctx, h.dir, "rev-parse", "--verify", "--quiet", "refs/tags/"+p.Harness.Tag+"^{commit}")
	if err != nil {
		return fmt.Errorf("harness: the repository has no tag %s (pinned with commit %s)", p.Harness.Tag, p.Harness.Commit)
	}
	if tagged != p.Harness.Commit {
		return fmt.Errorf("harness: tag %s names %s, not the pinned commit %s; fix the pin file", p.Harness.Tag, tagged, p.Harness.Commit)
	}
	return nil
}

// Score implements prcheck.Scorer by running the pinned harness's score
// command. Its progress lines (stderr) pass through to the log.
func (h *pinnedHarness) Score(ctx context.Context, sim string, shard *report.Shard, dir string) error {
	args := []string{"score", "--sim-repo", h.simRepo, "--sim", sim, "--out", dir}
	if shard != nil {
		args = append(args, "--shard", shard.String())
	}
	return h.run(ctx, append(args, h.args...))
}

// Merge implements prcheck.Scorer by running the pinned harness's merge
// command.
func (h *pinnedHarness) Merge(ctx context.Context, dir string, shards []string) error {
	return h.run(ctx, append([]string{"merge", "--out", dir}, shards...))
}

func (h *pinnedHarness) run(ctx context.Context, args []string) error {
	cmd := exec.CommandContext(ctx, h.bin, args...)
	cmd.Dir, cmd.Env = h.dir, h.env
	cmd.Stdout, cmd.Stderr = h.stdout, h.stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("harness %s: %w", args[0], err)
	}
	return nil
}

// dataArgs turns the pin's data section into harness flags. Bundled data
// passes no flag (the pinned harness's default), none passes "none", and a
// path is resolved in the consumer repository.
func dataArgs(p pin.Pin, repoDir string) []string {
	var args []string
	for _, d := range []struct{ flag, v string }{{"--ledger", p.Data.Ledger}, {"--catalog", p.Data.Catalog}, {"--registry", p.Data.Registry}} {
		switch d.v {
		case pin.Bundled:
		case pin.None:
			args = append(args, d.flag, pin.None)
		default:
			args = append(args, d.flag, filepath.Join(repoDir, filepath.FromSlash(d.v)))
		}
	}
	return args
}

// dataKey is the data part of the cache key: "bundled" (fixed by the
// harness commit), "none", or the digest of the directory handed in, by the
// same function the harness records in its provenance.
func dataKey(p pin.Pin, repoDir string) (map[string]string, error) {
	key := map[string]string{}
	for name, v := range map[string]string{"ledger": p.Data.Ledger, "catalog": p.Data.Catalog, "registry": p.Data.Registry} {
		if v == pin.Bundled || v == pin.None {
			key[name] = v
			continue
		}
		d, err := harness.DigestFS(os.DirFS(filepath.Join(repoDir, filepath.FromSlash(v))))
		if err != nil {
			return nil, fmt.Errorf("data.%s %s: %w", name, v, err)
		}
		key[name] = d
	}
	return key, nil
}

// prepareSimulator checks that the simulator checkout is clean and holds
// each commit, fetching the missing ones from its origin (a pull_request
// checkout holds only the merge commit).
func prepareSimulator(ctx context.Context, dir string, commits ...string) error {
	st, err := harness.Git(ctx, dir, "status", "--porcelain")
	if err != nil {
		return fmt.Errorf("simulator checkout %s: %w", dir, err)
	}
	if st != "" {
		return fmt.Errorf("simulator checkout %s has uncommitted changes; the harness scores commits, so commit or discard them:\n%s", dir, st)
	}
	for _, c := range commits {
		if _, err := harness.Git(ctx, dir, "cat-file", "-e", c+"^{commit}"); err == nil {
			continue
		}
		if _, err := harness.Git(ctx, dir, "fetch", "--quiet", "--no-tags", "origin", c); err != nil {
			return fmt.Errorf("simulator checkout %s lacks commit %s and fetching it failed: %w", dir, c, err)
		}
	}
	return nil
}

// simulatorHead is the commit checked out in dir.
func simulatorHead(ctx context.Context, dir string) (string, error) {
	return harness.Git(ctx, dir, "rev-parse", "HEAD")
}
