// Package git runs git for the project's own work on repositories on disk:
// whether a checkout is clean, which commits it holds (fetching a missing
// one), its head, its tracked and changed files, whether a tree exists, a
// tag's commit, and the clone of a pinned commit. Every call runs the git
// binary with no terminal prompt and the C locale; an error carries git's
// own message and the command. The harness's builds, the pinned harness's
// clone and the Action's checks of its checkouts go through it.
package git

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// Run runs git with args in dir ("" for the working directory) and returns
// its stdout trimmed of surrounding white space.
func Run(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := RunRaw(ctx, dir, args...)
	return strings.TrimSpace(out), err
}

// RunRaw is Run without trimming (for -z output, where a name may start or
// end with a space).
func RunRaw(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return out.String(), nil
}

// Status is the porcelain status of the checkout in dir ("" when clean),
// untracked files included or not.
func Status(ctx context.Context, dir string, untracked bool) (string, error) {
	args := []string{"status", "--porcelain"}
	if !untracked {
		args = append(args, "--untracked-files=no")
	}
	return Run(ctx, dir, args...)
}

// Head is the commit checked out in dir.
func Head(ctx context.Context, dir string) (string, error) {
	return Run(ctx, dir, "rev-parse", "HEAD")
}

// HasCommit reports whether the repository in dir holds commit.
func HasCommit(ctx context.Context, dir, commit string) bool {
	_, err := Run(ctx, dir, "cat-file", "-e", commit+"^{commit}")
	return err == nil
}

// Fetch fetches commit from remote into the repository in dir, without
// tags.
func Fetch(ctx context.Context, dir, remote, commit string) error {
	_, err := Run(ctx, dir, "fetch", "--quiet", "--no-tags", remote, commit)
	return err
}

// TagCommit is the commit tag names in the repository in dir (through an
// annotated tag too); an error when there is no such tag.
func TagCommit(ctx context.Context, dir, tag string) (string, error) {
	c, err := Run(ctx, dir, "rev-parse", "--verify", "--quiet", "refs/tags/"+tag+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("no tag %s", tag)
	}
	return c, nil
}

// IsTree reports whether treeish (e.g. "COMMIT:dir") names a tree (a
// directory) in the repository in dir.
func IsTree(ctx context.Context, dir, treeish string) bool {
	t, err := Run(ctx, dir, "cat-file", "-t", treeish)
	return err == nil && t == "tree"
}

// TrackedFiles lists the files tracked in the checkout in dir that match
// a git glob pathspec (e.g. "**/runs.yaml"), slash-separated, sorted.
func TrackedFiles(ctx context.Context, dir, pattern string) ([]string, error) {
	out, err := RunRaw(ctx, dir, "ls-files", "-z", "--", ":(glob)"+pattern)
	if err != nil {
		return nil, err
	}
	return splitNUL(out), nil
}

// ChangedFiles lists the files changed between base's merge base with head
// and head (base...head, as a pull request shows them; a rename is a
// deletion and an addition), sorted.
func ChangedFiles(ctx context.Context, dir, base, head string) ([]string, error) {
	out, err := RunRaw(ctx, dir, "diff", "-z", "--name-only", "--no-renames", base+"..."+head)
	if err != nil {
		return nil, err
	}
	return splitNUL(out), nil
}

// CloneAt clones url into dir without checking anything out, then checks
// out commit, detached. The error says which step failed.
func CloneAt(ctx context.Context, url, dir, commit string) error {
	if _, err := Run(ctx, "", "clone", "--quiet", "--no-checkout", url, dir); err != nil {
		return fmt.Errorf("clone %s: %w", url, err)
	}
	if _, err := Run(ctx, dir, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", commit); err != nil {
		return fmt.Errorf("%s has no commit %s: %w", url, commit, err)
	}
	return nil
}

// splitNUL splits git's -z output into its names, sorted.
func splitNUL(s string) []string {
	var out []string
	for _, f := range strings.Split(s, "\x00") {
		if f != "" {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}
