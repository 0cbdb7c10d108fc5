package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

type discovered struct {
	// xFiles are the InferenceX JSON files by path, each with its content
	// when discovery has read it already (nil when not).
	xFiles  map[string][]byte
	ipRuns  []string // inference-perf run folders
	skipped []string
}

// discover expands the sources into artifact files and run folders, each
// listed once (run folders and skipped paths sorted by path). A file named as
// a source is always read as an artifact; inside a directory, files that are
// not *.json, JSON objects (not arrays of rows) and ledger directories are
// listed as skipped instead. The content of a file read to tell an object
// from an array is kept, so the import reads it only once.
func discover(fsys fs.FS, sources []string) (*discovered, error) {
	x, ip, skip := map[string][]byte{}, map[string]bool{}, map[string]bool{}
	addX := func(p string) {
		if _, ok := x[p]; !ok {
			x[p] = nil // read by the import
		}
	}
	var errs []error
	for _, src := range sources {
		src = path.Clean(src)
		st, err := fs.Lstat(fsys, src)
		if err != nil {
			errs = append(errs, fmt.Errorf("source %s: %w", src, err))
			continue
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			errs = append(errs, fmt.Errorf("source %s is a symbolic link; name the file or directory it points to", src))
			continue
		}
		if !st.IsDir() {
			if strings.HasSuffix(src, ".json") {
				addX(src)
			} else {
				errs = append(errs, fmt.Errorf("source %s: not a JSON artifact or a directory", src))
			}
			continue
		}
		err = fs.WalkDir(fsys, src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if _, err := fs.Stat(fsys, path.Join(p, ledger.ManifestFile)); err == nil {
					skip[p+"/"] = true // a ledger (an earlier import's output), not an artifact
					return fs.SkipDir
				}
				if IsInferencePerfRun(fsys, p) {
					ip[p] = true
					return fs.SkipDir
				}
				return nil
			}
			switch {
			case !strings.HasSuffix(p, ".json"):
				skip[p] = true
			case isAggBmk(p):
				addX(p)
			case x[p] != nil || skip[p]:
				// Found already under another source.
			default:
				// A JSON object (a model config, a ledger report) found
				// while walking is not an artifact; arrays of rows are.
				b, err := readSource(fsys, p)
				if err != nil {
					return err
				}
				if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
					skip[p] = true
				} else {
					x[p] = b
				}
			}
			return nil
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("source %s: %w", src, err))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	d := &discovered{xFiles: x, ipRuns: slices.Sorted(maps.Keys(ip)), skipped: slices.Sorted(maps.Keys(skip))}
	if len(d.xFiles)+len(d.ipRuns) == 0 {
		return nil, fmt.Errorf("no artifacts found in %s (want run_<run-id>.json, API row files or inference-perf run folders)", strings.Join(sources, ", "))
	}
	return d, nil
}

func isAggBmk(p string) bool {
	_, ok := aggBmkRunID(p)
	return ok
}
