package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
)

// ImportPaths imports the sources, paths on disk (files or directories),
// from the directory root they are resolved against (ResolveSources: ""
// for the sources' common parent): opts.Sources is set to their paths
// relative to it, and Import reads them from it. The errors are
// ResolveSources' and Import's.
func ImportPaths(root string, sources []string, opts importreport.Options) (*Result, error) {
	rootDir, rel, err := ResolveSources(root, sources)
	if err != nil {
		return nil, err
	}
	opts.Sources = rel
	return Import(os.DirFS(rootDir), opts)
}

// ResolveSources makes the sources relative to root (slash-separated, as the
// import file system wants them) and returns the absolute root. Without a
// root, the sources' common parent directory is the root (a file's parent
// for a file source); when that is an inference-perf run folder given as a
// source, or an agg_bmk run folder (run_<id>/agg_bmk.json) or a file in
// one, its parent is the root, so the run keeps its name (the run id). A
// source that does not exist, or lies outside root, is an error naming it
// (the root as the --root flag); so is no source at all.
func ResolveSources(root string, sources []string) (string, []string, error) {
	if len(sources) == 0 {
		return "", nil, errors.New("no source to import")
	}
	abs := make([]string, len(sources))
	dirs := make([]string, len(sources)) // each source's directory: itself, or a file's parent
	for i, s := range sources {
		a, err := filepath.Abs(s)
		if err != nil {
			return "", nil, err
		}
		st, err := os.Stat(a)
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, fmt.Errorf("source %s: no such file or directory", s)
		} else if err != nil {
			return "", nil, fmt.Errorf("source %s: %w", s, err)
		}
		abs[i], dirs[i] = a, a
		if !st.IsDir() {
			dirs[i] = filepath.Dir(a)
		}
	}
	if root == "" {
		root = commonDir(dirs)
		for _, a := range abs {
			if a == root && IsInferencePerfRun(os.DirFS(root), ".") {
				root = filepath.Dir(root)
				break
			}
		}
		// run_<id>/agg_bmk.json (or its folder) alone: the run id is the
		// folder's name, so the root is the folder's parent.
		if IsAggBmkRunFolder(os.DirFS(filepath.Dir(root)), filepath.Base(root)) {
			root = filepath.Dir(root)
		}
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return "", nil, err
	}
	rel := make([]string, len(abs))
	for i, a := range abs {
		r, ok := relWithin(root, a)
		if !ok {
			return "", nil, fmt.Errorf("source %s is not under --root %s", sources[i], root)
		}
		rel[i] = filepath.ToSlash(r)
	}
	return root, rel, nil
}

// commonDir is the deepest directory holding every directory of dirs.
func commonDir(dirs []string) string {
	c := dirs[0]
	for _, d := range dirs[1:] {
		for !within(c, d) {
			parent := filepath.Dir(c)
			if parent == c {
				break
			}
			c = parent
		}
	}
	return c
}

func within(dir, p string) bool {
	_, ok := relWithin(dir, p)
	return ok
}

// relWithin is p relative to dir, and whether p lies within dir.
func relWithin(dir, p string) (string, bool) {
	r, err := filepath.Rel(dir, p)
	return r, err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}
