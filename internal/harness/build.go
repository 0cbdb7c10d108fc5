package harness

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/cachedir"
	"github.com/inference-sim/accuracy-dashboard/internal/git"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// DefaultSimRepo is where the BLIS simulator lives.
const DefaultSimRepo = "https://github.com/inference-sim/inference-sim"

// Build is a simulator build ready to run.
type Build struct {
	// Binary is the simulator executable.
	Binary string
	// DataDir is the working directory of every run: the simulator's source
	// tree, where it finds defaults.yaml, model_configs/ and hardware_config.json.
	DataDir string
	Repo    string
	Ref     string
	// Commit is the exact commit built ("" for a binary handed in).
	Commit string
	// Tag is the release tag naming Commit ("" when none does).
	Tag            string
	BuiltByHarness bool
	// Cached is true when the build came from the cache, not a fresh go build.
	Cached bool
}

// ErrBuildFailed is in the error of a build whose go build failed (the
// compiler's message follows it): the commit does not build, which a
// bisect skips.
var ErrBuildFailed = errors.New("go build failed")

// Builder builds simulators from source, caching mirrors and builds under CacheDir.
type Builder struct {
	CacheDir string
	Log      *slog.Logger
}

// DefaultRef returns the newest release tag (vX.Y.Z) of repo.
func (b *Builder) DefaultRef(ctx context.Context, repo string) (string, error) {
	mirror, err := b.mirror(ctx, repo)
	if err != nil {
		return "", err
	}
	out, err := git.Run(ctx, mirror, "tag", "--list")
	if err != nil {
		return "", err
	}
	tag := ident.NewestRelease(strings.Split(out, "\n"))
	if tag == "" {
		return "", fmt.Errorf("simulator repository %s has no release tag (vX.Y.Z); pass --sim", repo)
	}
	return tag, nil
}

// Build resolves ref in repo to an exact commit and builds the simulator
// there, or returns the cached build of that commit. ref must be a tag or a
// full 40-hex commit; a branch or anything else is refused (ErrNotPinned).
func (b *Builder) Build(ctx context.Context, repo, ref string) (*Build, error) {
	if err := checkRefSyntax(ref); err != nil {
		return nil, err
	}
	mirror, err := b.mirror(ctx, repo)
	if err != nil {
		return nil, err
	}
	commit, err := resolveRef(ctx, mirror, repo, ref)
	if err != nil {
		return nil, err
	}
	bld := &Build{Repo: repo, Ref: ref, Commit: commit, Tag: ident.NewestRelease(tagsAt(ctx, mirror, commit)), BuiltByHarness: true}

	final := filepath.Join(b.CacheDir, "builds", commit)
	bld.Binary = filepath.Join(final, "blis")
	bld.DataDir = filepath.Join(final, "src")
	cached, err := cachedir.Fill(final, func(tmp string) error {
		src := filepath.Join(tmp, "src")
		if err := ExportTree(ctx, mirror, commit, src); err != nil {
			return fmt.Errorf("export simulator %s (%s): %w", ref, commit, err)
		}
		b.log().Info("building simulator", "ref", ref, "commit", commit)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(tmp, "blis"), "main.go")
		cmd.Dir = src
		cmd.Env = append(simulatorEnv(), "GOWORK=off", "GOFLAGS=-mod=mod")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("build simulator %s (commit %s): %w: %v\n%s", ref, commit, ErrBuildFailed, err, strings.TrimSpace(out.String()))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if cached {
		b.log().Info("simulator build cache hit", "ref", ref, "commit", commit)
	}
	bld.Cached = cached
	return bld, nil
}

func (b *Builder) log() *slog.Logger {
	if b.Log != nil {
		return b.Log
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// mirror returns a bare mirror of repo in the cache, created or refreshed.
// A refresh that fails (offline) is tolerated when the mirror exists.
func (b *Builder) mirror(ctx context.Context, repo string) (string, error) {
	if repo == "" {
		return "", errors.New("simulator repository is empty")
	}
	if !strings.Contains(repo, "://") && !strings.HasPrefix(repo, "git@") {
		abs, err := filepath.Abs(repo)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(abs); err != nil {
			return "", fmt.Errorf("simulator repository %s: %w", repo, err)
		}
		repo = abs
	}
	sum := sha256.Sum256([]byte(repo))
	dir := filepath.Join(b.CacheDir, "repos", hex.EncodeToString(sum[:8])+".git")
	cached, err := cachedir.Fill(dir, func(tmp string) error {
		b.log().Info("cloning simulator repository", "repo", repo)
		if _, err := git.Run(ctx, filepath.Dir(tmp), "clone", "--quiet", "--bare", repo, tmp); err != nil {
			return fmt.Errorf("clone simulator repository %s (offline? pass --sim-repo with the path of a local clone): %w", repo, err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if cached {
		if _, err := git.Run(ctx, dir, "fetch", "--quiet", "--prune", "--force", "--tags", repo, "+refs/heads/*:refs/heads/*"); err != nil {
			b.log().Warn("could not refresh simulator mirror; using what it has", "repo", repo, "err", err)
		}
	}
	return dir, nil
}

func resolveRef(ctx context.Context, mirror, repo, ref string) (string, error) {
	if ident.IsCommit(ref) {
		if _, err := git.Run(ctx, mirror, "cat-file", "-e", ref+"^{commit}"); err == nil {
			return ref, nil
		}
		if _, err := git.Run(ctx, mirror, "fetch", "--quiet", repo, ref); err == nil {
			if _, err := git.Run(ctx, mirror, "cat-file", "-e", ref+"^{commit}"); err == nil {
				return ref, nil
			}
		}
		return "", fmt.Errorf("simulator commit %s is not in %s", ref, repo)
	}
	if c, err := git.Run(ctx, mirror, "rev-parse", "-q", "--verify", "refs/tags/"+ref+"^{commit}"); err == nil && c != "" {
		return c, nil
	}
	if _, err := git.Run(ctx, mirror, "rev-parse", "-q", "--verify", "refs/heads/"+ref); err == nil {
		return "", fmt.Errorf("simulator ref %q is a branch of %s; a branch moves, so its figures could not be regenerated: give a release tag or a 40-hex commit: %w", ref, repo, ErrNotPinned)
	}
	return "", fmt.Errorf("simulator ref %q is neither a tag of %s nor a 40-hex commit: %w", ref, repo, ErrNotPinned)
}

// ExportTree writes a tree of repository repo into dir (no .git): a commit's
// whole tree, or "<commit>:<path>" for one directory of it, whose entries
// land at dir's root. Nothing is written outside dir (extractTar).
func ExportTree(ctx context.Context, repo, treeish, dir string) error {
	cmd := exec.CommandContext(ctx, "git", "archive", "--format=tar", treeish)
	cmd.Dir = repo
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	exErr := extractTar(out, dir)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("git archive: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	return exErr
}

// extractTar writes the archive's directories, files and symbolic links
// into dir without ever following a link: every write goes through an
// os.Root (nothing outside dir can be reached), an entry under or over a
// link the archive created is refused, and files are created exclusively.
// A simulator tree is exported as git stores it, links included; writing
// through them would let a pull request's tree write outside the export.
func extractTar(r io.Reader, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	var links []string
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if h.Typeflag != tar.TypeDir && h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeSymlink {
			continue // pax headers and the like carry no file
		}
		if !fs.ValidPath(name) || name == "." {
			return fmt.Errorf("archive entry %q escapes the export directory", h.Name)
		}
		for _, l := range links {
			if name == l || strings.HasPrefix(name, l+"/") {
				return fmt.Errorf("archive entry %q lies under or over the symbolic link %q", h.Name, l)
			}
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := root.MkdirAll(name, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := root.MkdirAll(path.Dir(name), 0o755); err != nil {
				return err
			}
			f, err := root.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, os.FileMode(h.Mode)&0o755|0o644)
			if err != nil {
				return err
			}
			if _, err := io.Copy(f, tr); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := root.MkdirAll(path.Dir(name), 0o755); err != nil {
				return err
			}
			if err := root.Symlink(h.Linkname, name); err != nil {
				return err
			}
			links = append(links, name)
		}
	}
}
