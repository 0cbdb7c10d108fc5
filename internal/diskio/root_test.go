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
