package diskio

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// TestWriteFiles: every file lands with its content and mode 0644 and its
// directories made; a failure before the renames replaces nothing and
// leaves no temporary file.
func TestWriteFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "keep"), []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"a.txt": []byte("A"), "d/e/f.json": []byte("{}"), "keep": []byte("new")}
	if err := WriteFiles(root, files); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.txt": "A", "d/e/f.json": "{}", "keep": "new"}
	if got := testkit.Files(t, os.DirFS(root)); !maps.Equal(got, want) {
		t.Errorf("tree %v, want %v", got, want)
	}
	for p := range want {
		if st, _ := os.Stat(filepath.Join(root, p)); st.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v, want 0644", p, st.Mode().Perm())
		}
	}

	// "a.txt" is staged before "keep/x" fails (keep is a file): nothing
	// is replaced.
	err := WriteFiles(root, map[string][]byte{"a.txt": []byte("changed"), "keep/x": []byte("x")})
	if err == nil {
		t.Fatal("a file under a regular file was written")
	}
	if got := testkit.Files(t, os.DirFS(root)); !maps.Equal(got, want) {
		t.Errorf("after a failed write the tree is %v, want it unchanged %v", got, want)
	}

	// "d/e" is a directory: no file can take its place, so "a.txt",
	// renamed before it would be, is not replaced either.
	err = WriteFiles(root, map[string][]byte{"a.txt": []byte("changed"), "d/e": []byte("x")})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(root, "d", "e")) {
		t.Fatalf("a file over a directory: %v, want an error naming it", err)
	}
	if got := testkit.Files(t, os.DirFS(root)); !maps.Equal(got, want) {
		t.Errorf("after a write over a directory the tree is %v, want it unchanged %v", got, want)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "d"))
	if len(entries) != 1 || entries[0].Name() != "e" {
		t.Errorf("beside the directory: %v, want only e (no temporary file)", entries)
	}

	// A path that is not a clean one under root (here root/d; "../escape"
	// would land in root) is refused before anything is written.
	for _, p := range []string{"../escape", "/abs", "d/../a.txt", ".", ""} {
		err := WriteFiles(filepath.Join(root, "d"), map[string][]byte{"a.txt": []byte("changed"), p: []byte("x")})
		if err == nil || !strings.Contains(err.Error(), "is not a clean relative path") {
			t.Errorf("path %q: %v, want it refused", p, err)
		}
	}
	if got := testkit.Files(t, os.DirFS(root)); !maps.Equal(got, want) {
		t.Errorf("after refused paths the tree is %v, want it unchanged %v", got, want)
	}
}

// TestReplaceDir: dir ends holding exactly the files (a stale one gone),
// also when it did not exist; a failed replacement leaves it as it was and
// no sibling behind.
func TestReplaceDir(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "site")
	if err := ReplaceDir(dir, map[string][]byte{"index.html": []byte("1"), "stale.html": []byte("s")}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"index.html": "2", "assets/site.css": "c"}
	if err := ReplaceDir(dir, map[string][]byte{"index.html": []byte("2"), "assets/site.css": []byte("c")}); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Files(t, os.DirFS(dir)); !maps.Equal(got, want) {
		t.Errorf("replaced dir holds %v, want %v", got, want)
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o755 {
		t.Errorf("dir mode %v, want 0755", st.Mode().Perm())
	}

	// "x" and "x/y" cannot both be files: the replacement fails.
	if err := ReplaceDir(dir, map[string][]byte{"x": []byte("1"), "x/y": []byte("2")}); err == nil {
		t.Fatal("an impossible file set replaced the directory")
	}
	if got := testkit.Files(t, os.DirFS(dir)); !maps.Equal(got, want) {
		t.Errorf("after a failed replacement dir holds %v, want %v", got, want)
	}
	entries, _ := os.ReadDir(parent)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"site"}) {
		t.Errorf("beside dir: %v, want only site (no temporary sibling)", names)
	}
}

// TestReplaceDirFunc: files written a few at a time replace dir as one
// set; a fill that fails after some writes leaves dir as it was, its error
// returned.
func TestReplaceDirFunc(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "site")
	if err := ReplaceDir(dir, map[string][]byte{"old.html": []byte("o")}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"index.html": "1", "data/a.js": "a"}
	err := ReplaceDirFunc(dir, func(tmp string) error {
		for p, d := range want {
			if err := WriteFiles(tmp, map[string][]byte{p: []byte(d)}); err != nil {
				return err
			}
		}
		return nil
	})
	if got := testkit.Files(t, os.DirFS(dir)); err != nil || !maps.Equal(got, want) {
		t.Fatalf("ReplaceDirFunc = %v, dir holds %v, want %v", err, got, want)
	}
	stop := errors.New("stop")
	err = ReplaceDirFunc(dir, func(tmp string) error {
		if err := WriteFiles(tmp, map[string][]byte{"half.html": []byte("h")}); err != nil {
			return err
		}
		return stop
	})
	if got := testkit.Files(t, os.DirFS(dir)); !errors.Is(err, stop) || !maps.Equal(got, want) {
		t.Errorf("a failed fill: %v, dir holds %v, want %v as it was", err, got, want)
	}
}

// TestReplaceDirRefusesLinkAndFile: a dir that is a symbolic link (to a
// directory, or dangling) or a file is refused with an error naming it, and
// nothing changes: replacing the link would leave its target's old content
// where the user looks for the new, and a file would be lost.
func TestReplaceDirRefusesLinkAndFile(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	target := filepath.Join(parent, "target")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "index.html"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, "site")
	dangling := filepath.Join(parent, "dangling")
	file := filepath.Join(parent, "file")
	for _, err := range []error{
		os.Symlink("target", link),
		os.Symlink("nowhere", dangling),
		os.WriteFile(file, []byte("keep"), 0o644),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for dir, want := range map[string]string{link: "is a symbolic link", dangling: "is a symbolic link", file: "is not a directory"} {
		err := ReplaceDir(dir, map[string][]byte{"index.html": []byte("new")})
		if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), want) {
			t.Errorf("ReplaceDir(%s): %v, want an error naming it that says it %s", dir, err, want)
		}
	}
	for _, l := range []string{link, dangling} {
		if st, err := os.Lstat(l); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link (%v)", l, err)
		}
	}
	if got := testkit.Files(t, os.DirFS(target)); !maps.Equal(got, map[string]string{"index.html": "old"}) {
		t.Errorf("the link's target holds %v, want it unchanged", got)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "keep" {
		t.Errorf("the file holds %q (%v), want it unchanged", b, err)
	}
	entries, _ := os.ReadDir(parent)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"dangling", "file", "site", "target"}; !slices.Equal(names, want) {
		t.Errorf("in the parent: %v, want %v (no temporary sibling)", names, want)
	}
}
