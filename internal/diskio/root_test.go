package diskio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTreeRefusesLinks: a symbolic link at any depth below a tree, to a
// directory or a file, inside the tree or out of it, is refused by
// WriteFiles and ReadMax, naming it, and nothing is written on either side.
func TestTreeRefusesLinks(t *testing.T) {
	t.Parallel()
	for _, link := range []string{"a", "a/b", "a/b/f.json"} {
		t.Run(strings.ReplaceAll(link, "/", "-"), func(t *testing.T) {
			t.Parallel()
			dir, outside := t.TempDir(), t.TempDir()
			if err := WriteFiles(dir, map[string][]byte{"a/b/f.json": []byte("in")}); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(outside, "moved")
			if err := os.Rename(filepath.Join(dir, link), target); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
				t.Fatal(err)
			}
			tree, err := OpenTree(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			want := filepath.Join(dir, link) + " is a symbolic link"
			if _, err := tree.ReadMax("a/b/f.json", 1<<10); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("ReadMax through %s: %v, want %q", link, err, want)
			}
			if err := tree.WriteFiles(map[string][]byte{"a/b/f.json": []byte("out"), "a/b/g.json": []byte("new")}); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("WriteFiles through %s: %v, want %q", link, err, want)
			}
			var found []string
			filepath.WalkDir(outside, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					b, _ := os.ReadFile(p)
					found = append(found, filepath.Base(p)+"="+string(b))
				}
				return nil
			})
			if len(found) != 1 || !strings.HasSuffix(found[0], "=in") {
				t.Errorf("outside the tree: %v, want only the moved file, unchanged", found)
			}
		})
	}
	// A path that is not clean and a missing file.
	tree, err := OpenTree(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	if err := tree.WriteFiles(map[string][]byte{"../x": nil}); err == nil {
		t.Error("WriteFiles of ../x: no error")
	}
	if _, err := tree.ReadMax("nothing", 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadMax of a missing file: %v, want fs.ErrNotExist", err)
	}
}

// TestTreeApplyFilesRemoves: a nil content removes its file and the
// directories it leaves empty, an absent one is no error, the other files
// are written, and Files lists what is left under a directory.
func TestTreeApplyFilesRemoves(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := WriteFiles(dir, map[string][]byte{"d/s/a/x.json": []byte("1"), "d/s/a/w/n/y.json": []byte("2"), "d/s/b/z.json": []byte("3")}); err != nil {
		t.Fatal(err)
	}
	tree, err := OpenTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	files, err := tree.Files("d/s/a")
	if err != nil || strings.Join(files, " ") != "d/s/a/w/n/y.json d/s/a/x.json" {
		t.Fatalf("Files(d/s/a) = %v, %v", files, err)
	}
	if err := tree.ApplyFiles(map[string][]byte{"d/s/a/x.json": nil, "d/s/a/w/n/y.json": nil, "d/s/a/gone.json": nil, "d/index.json": []byte("new")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "d/s/a")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("d/s/a after its files were removed: %v, want it gone", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "d/index.json")); err != nil || string(b) != "new" {
		t.Errorf("d/index.json = %q, %v", b, err)
	}
	if files, err := tree.Files("d/s"); err != nil || strings.Join(files, " ") != "d/s/b/z.json" {
		t.Errorf("Files(d/s) = %v, %v, want the other snapshot's file kept", files, err)
	}
	if _, err := tree.Files("d/s/a"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Files of a missing directory: %v, want fs.ErrNotExist", err)
	}
	if err := tree.ApplyFiles(map[string][]byte{"d/s": nil}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("removing a directory: %v, want refused", err)
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "d/link")); err != nil {
		t.Fatal(err)
	}
	if err := tree.ApplyFiles(map[string][]byte{"d/link/f": nil}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("removing through a link: %v, want refused naming it", err)
	}
	if _, err := tree.Files("d"); err == nil || !strings.Contains(err.Error(), "d/link is a symbolic link") {
		t.Errorf("Files over a link: %v, want refused naming it", err)
	}
}
