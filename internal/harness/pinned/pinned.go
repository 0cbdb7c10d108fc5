// Package pinned runs the harness build a pin names: a clone of the harness
// repository at the pinned commit, verified (HEAD is the commit, the
// checkout unchanged, the pinned tag names it), and its cmd/action built
// from it, cached per commit. Scores run as subprocesses from inside the
// clone, so the harness reads its commit from its own checkout: the
// figure's harness commit is checked, not asserted. The pin's data section
// becomes the harness's flags (DataArgs) and the data part of a result
// cache key (DataKey).
package pinned

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
	"github.com/inference-sim/accuracy-dashboard/internal/git"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Harness is a prepared pinned harness build. It implements
// prcheck.Scorer.
type Harness struct {
	// Dir is the verified clone, Bin its cmd/action build.
	Dir, Bin string
	// SimRepo is the simulator repository Score scores (set by the caller).
	SimRepo string
	// Args are passed to every score run (data, jobs, cache).
	Args []string
	// Env is the subprocesses' environment; Stdout and Stderr their output.
	Env    []string
	Stdout io.Writer
	Stderr io.Writer
}

// Prepare clones (or reuses from cacheDir) the pinned harness, verifies
// that HEAD is the pinned commit and that the pinned tag names it, and
// builds it. The clone and its build are one cache entry
// (action/harness/<commit>/, with src/ and bin/action), filled atomically
// by cachedir.Fill: jobs sharing a cache (a matrix on one machine) never
// see, nor remove, another job's half-made entry. A cached entry that no
// longer verifies is an error naming the directory to delete; it is never
// rewritten in place.
func Prepare(ctx context.Context, p pin.Pin, cloneURL, cacheDir string, env []string, stdout, stderr io.Writer) (*Harness, error) {
	entry := filepath.Join(cacheDir, "action", "harness", p.Harness.Commit)
	h := &Harness{
		Dir:    filepath.Join(entry, "src"),
		Bin:    filepath.Join(entry, "bin", "action"),
		Env:    env,
		Stdout: stdout,
		Stderr: stderr,
	}
	cached, err := cachedir.Fill(entry, func(tmp string) error {
		fresh := &Harness{Dir: filepath.Join(tmp, "src")}
		if err := git.CloneAt(ctx, cloneURL, fresh.Dir, p.Harness.Commit); err != nil {
			return err
		}
		if err := fresh.Verify(ctx, p); err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(tmp, "bin", "action"), "./cmd/action")
		cmd.Dir, cmd.Env = fresh.Dir, env
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
	if err := h.Verify(ctx, p); err != nil {
		return nil, fmt.Errorf("%w (cached in %s: delete that directory to clone and build again)", err, entry)
	}
	fmt.Fprintf(stdout, "Reusing the pinned harness %s (%s) from %s\n", p.Harness.Tag, p.Harness.Commit, h.Dir)
	return h, nil
}

// Verify checks that the clone's HEAD is the pinned commit, that its
// tracked files are unchanged, and that the pinned tag names that commit.
func (h *Harness) Verify(ctx context.Context, p pin.Pin) error {
	head, err := git.Head(ctx, h.Dir)
	if err != nil {
		return fmt.Errorf("harness: %w", err)
	}
	if head != p.Harness.Commit {
		return fmt.Errorf("harness: checkout is at %s, not the pinned %s", head, p.Harness.Commit)
	}
	if st, err := git.Status(ctx, h.Dir, false); err != nil || st != "" {
		return fmt.Errorf("harness: checkout %s is modified (%v): %s", h.Dir, err, st)
	}
	tagged, err := git.TagCommit(ctx, h.Dir, p.Harness.Tag)
	if err != nil {
		return fmt.Errorf("harness: the repository has no tag %s (pinned with commit %s)", p.Harness.Tag, p.Harness.Commit)
	}
	if tagged != p.Harness.Commit {
		return fmt.Errorf("harness: tag %s names %s, not the pinned commit %s; fix the pin file", p.Harness.Tag, tagged, p.Harness.Commit)
	}
	return nil
}

// ScoreCommit implements prcheck.Scorer by running the pinned harness's
// score command on SimRepo with Args. Its progress lines (stderr) pass
// through to the log.
func (h *Harness) ScoreCommit(ctx context.Context, sim string, shard *runresult.Shard, dir string) error {
	args := []string{"score", "--sim-repo", h.SimRepo, "--sim", sim, "--out", dir}
	if shard != nil {
		args = append(args, "--shard", shard.String())
	}
	return h.RunCommand(ctx, append(args, h.Args...))
}

// Merge implements prcheck.Scorer by running the pinned harness's merge
// command.
func (h *Harness) Merge(ctx context.Context, dir string, shards []string) error {
	return h.RunCommand(ctx, append([]string{"merge", "--out", dir}, shards...))
}

// RunCommand runs the pinned harness's command line args in its clone,
// its output passed through to Stdout and Stderr.
func (h *Harness) RunCommand(ctx context.Context, args []string) error {
	cmd := exec.CommandContext(ctx, h.Bin, args...)
	cmd.Dir, cmd.Env = h.Dir, h.Env
	cmd.Stdout, cmd.Stderr = h.Stdout, h.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("harness %s: %w", args[0], err)
	}
	return nil
}

// Output runs args like RunCommand and returns its combined output instead.
func (h *Harness) Output(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, h.Bin, args...)
	cmd.Dir, cmd.Env = h.Dir, h.Env
	return cmd.CombinedOutput()
}

// DataArgs turns the pin's data section into harness flags. Bundled data
// passes no flag (the pinned harness's default), none passes "none", and a
// path is resolved in the consumer repository repoDir.
func DataArgs(p pin.Pin, repoDir string) []string {
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

// DataKey is the pin's data by name (ledger, catalog, registry), as a
// result cache key and a nightly plan name them: "bundled" (fixed by the
// harness commit), "none", or the digest of the directory handed in, by
// the same function the harness records in its provenance.
func DataKey(p pin.Pin, repoDir string) (map[string]string, error) {
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
