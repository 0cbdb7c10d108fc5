package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repo makes a repository in a temporary directory with one commit of
// files (path → content) and returns its directory and the commit.
func repo(t *testing.T, files map[string]string) (string, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		out, err := Run(ctx, dir, args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	run("init", "--quiet", "-b", "main")
	run("config", "user.email", "t@example.com")
	run("config", "user.name", "t")
	commit(t, dir, files, "init")
	return dir, run("rev-parse", "HEAD")
}

// commit writes files and commits them; it returns the commit.
func commit(t *testing.T, dir string, files map[string]string, msg string) string {
	t.Helper()
	ctx := context.Background()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Run(ctx, dir, "add", "-A"); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, dir, "commit", "--quiet", "-m", msg); err != nil {
		t.Fatal(err)
	}
	head, err := Head(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	return head
}

func TestCheckout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, first := repo(t, map[string]string{"a/runs.yaml": "x", "b/c/runs.yaml": "y", " spaced.txt": "z"})
	second := commit(t, dir, map[string]string{"a/runs.yaml": "x2", "d/new.txt": "n"}, "second")

	if head, err := Head(ctx, dir); err != nil || head != second {
		t.Errorf("Head = %s, %v; want %s", head, err, second)
	}
	if !HasCommit(ctx, dir, first) || HasCommit(ctx, dir, strings.Repeat("0", 40)) {
		t.Error("HasCommit: wrong answer for a held or a missing commit")
	}
	if got, err := TrackedFiles(ctx, dir, "**/runs.yaml"); err != nil || !slices.Equal(got, []string{"a/runs.yaml", "b/c/runs.yaml"}) {
		t.Errorf("TrackedFiles = %q, %v", got, err)
	}
	if got, err := TrackedFiles(ctx, dir, "*.txt"); err != nil || !slices.Equal(got, []string{" spaced.txt"}) {
		t.Errorf("TrackedFiles keeps a name's leading space: %q, %v", got, err)
	}
	if got, err := ChangedFiles(ctx, dir, first, second); err != nil || !slices.Equal(got, []string{"a/runs.yaml", "d/new.txt"}) {
		t.Errorf("ChangedFiles = %q, %v", got, err)
	}
	if !IsTree(ctx, dir, second+":b/c") || IsTree(ctx, dir, second+":a/runs.yaml") || IsTree(ctx, dir, first+":d") {
		t.Error("IsTree: wrong answer for a directory, a file or a missing path")
	}

	if st, err := Status(ctx, dir, true); err != nil || st != "" {
		t.Errorf("clean Status = %q, %v", st, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "untracked"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _ := Status(ctx, dir, true); !strings.Contains(st, "untracked") {
		t.Errorf("Status with untracked files = %q", st)
	}
	if st, _ := Status(ctx, dir, false); st != "" {
		t.Errorf("Status without untracked files = %q", st)
	}

	if _, err := Run(ctx, dir, "tag", "-a", "-m", "v1", "v1.0.0", first); err != nil {
		t.Fatal(err)
	}
	if c, err := TagCommit(ctx, dir, "v1.0.0"); err != nil || c != first {
		t.Errorf("TagCommit of an annotated tag = %s, %v; want %s", c, err, first)
	}
	if _, err := TagCommit(ctx, dir, "v9"); err == nil || !strings.Contains(err.Error(), "no tag v9") {
		t.Errorf("TagCommit of a missing tag: %v", err)
	}

	clone := filepath.Join(t.TempDir(), "clone")
	if err := CloneAt(ctx, dir, clone, first); err != nil {
		t.Fatal(err)
	}
	if head, _ := Head(ctx, clone); head != first {
		t.Errorf("CloneAt checked out %s, want %s", head, first)
	}
	if err := CloneAt(ctx, dir, filepath.Join(t.TempDir(), "c2"), strings.Repeat("1", 40)); err == nil || !strings.Contains(err.Error(), "has no commit") {
		t.Errorf("CloneAt of a missing commit: %v", err)
	}
	if _, err := Run(ctx, dir, "no-such-command"); err == nil || !strings.Contains(err.Error(), "git no-such-command") {
		t.Errorf("a failing command's error: %v", err)
	}
}

// Fetch brings a commit the clone lacks from its origin.
func TestFetch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, first := repo(t, map[string]string{"f": "1"})
	clone := filepath.Join(t.TempDir(), "clone")
	if err := CloneAt(ctx, dir, clone, first); err != nil {
		t.Fatal(err)
	}
	second := commit(t, dir, map[string]string{"f": "2"}, "second")
	if HasCommit(ctx, clone, second) {
		t.Fatal("the clone already holds the new commit")
	}
	if err := Fetch(ctx, clone, "origin", second); err != nil || !HasCommit(ctx, clone, second) {
		t.Errorf("Fetch: %v", err)
	}
}
