package architecture

import (
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// findInSources runs detect over every Go source file of the module's
// packages (tests aside, as go list names them) but those skip names, and
// returns what it found, each finding relative to the module's root.
func findInSources(t *testing.T, skip func(pkg string) bool, detect func(fset *token.FileSet, path string, src []byte) ([]string, error)) []string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	_, files := goList(t, root)
	fset := token.NewFileSet()
	var found []string
	for _, pkg := range slices.Sorted(maps.Keys(files)) {
		if skip(pkg) {
			continue
		}
		for _, path := range files[pkg] {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			in, err := detect(fset, path, src)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range in {
				rel, _ := filepath.Rel(root, f)
				found = append(found, rel)
			}
		}
	}
	return found
}
