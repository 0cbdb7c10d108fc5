package lbrun

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
)

// OpenDir opens dir (a results directory, or the directory of a runs.yaml
// whose traces are read) through os.Root: nothing outside it is read, a
// symbolic link leading out of it is refused. close releases it.
func OpenDir(dir string) (fsys fs.FS, close func(), err error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	return root.FS(), func() { root.Close() }, nil
}

// ReadResults reads the results of dir (leaderboard.ReadResults) through
// OpenDir.
func ReadResults(dir string) (map[string]*leaderboard.Result, []leaderboard.Problem, error) {
	fsys, done, err := OpenDir(dir)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	return leaderboard.ReadResults(fsys)
}

// ResultFile is where run of group is filed in the results directory dir.
func ResultFile(dir, group, run string) string {
	return filepath.Join(dir, group, run+".json")
}

// FileResult writes r as <dir>/<group>/<run>.json, atomically.
func FileResult(dir string, r *leaderboard.Result) error {
	raw, err := r.Encode()
	if err != nil {
		return err
	}
	return writeResultFile(dir, ResultFile(dir, r.Group, r.Run), raw)
}

// writeResultFile writes a result's bytes to path, a file of the results
// directory dir, atomically and through os.Root (WriteBelow).
func writeResultFile(dir, path string, raw []byte) error {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return err
	}
	return WriteBelow(dir, rel, raw)
}

// WriteBelow writes data to rel (a path below dir, which is made when
// missing) atomically, through os.Root: a temporary file beside it, then a
// rename, its directories made as needed. Nothing is written outside dir:
// a directory on the way that is a symbolic link leading out of it (a
// results directory's traces/<sha256>/ or group directory linked to /etc)
// is refused.
func WriteBelow(dir, rel string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if d := filepath.Dir(rel); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("write %s: %w", filepath.Join(dir, rel), err)
		}
	}
	var suffix [6]byte
	rand.Read(suffix[:])
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".tmp-"+hex.EncodeToString(suffix[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Join(dir, rel), err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = root.Rename(tmp, rel)
	}
	if werr != nil {
		root.Remove(tmp)
		return fmt.Errorf("write %s: %w", filepath.Join(dir, rel), werr)
	}
	return nil
}

// StoreTraces writes each trace under dir/<sha256>/ (dir is the results'
// traces/), once, through WriteBelow: a trace already stored with the same
// bytes is left alone.
func StoreTraces(dir string, traces map[string]leaderboard.TraceFiles) error {
	for sum, tf := range traces {
		for name, raw := range tf.Files() {
			rel := filepath.Join(sum, name)
			if old, err := readStored(dir, sum+"/"+name); err == nil && bytes.Equal(old, raw) {
				continue
			}
			if err := WriteBelow(dir, rel, raw); err != nil {
				return err
			}
		}
	}
	return nil
}

// Undeclared lists the results of dir (as <group>/<run>.json, sorted) that
// no run of d asks for: runs removed from runs.yaml or renamed. A missing
// dir has none. Files that are not results are not listed (validate names
// them).
func Undeclared(dir string, d *leaderboard.Declaration) ([]string, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	res, _, err := ReadResults(dir)
	if err != nil {
		return nil, err
	}
	declared := map[string]bool{}
	for _, r := range d.Runs() {
		declared[r.Group+"/"+r.ID] = true
	}
	var out []string
	for key := range res {
		if !declared[key] {
			out = append(out, key+".json")
		}
	}
	slices.Sort(out)
	return out, nil
}

// Prune removes the files Undeclared listed from dir, and a group
// directory it leaves empty.
func Prune(dir string, files []string) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("prune %s: %w", f, err)
		}
		// Only an empty directory is removed; one still holding results
		// stays (the error says so and is not one).
		_ = os.Remove(filepath.Dir(p))
	}
	return nil
}

// ResolveTraces reads the traces d names from dir, the directory of its
// runs.yaml, through os.Root (OpenDir): a trace outside dir, a
// symbolic link or a file that is not regular is refused, naming the
// runs.yaml line that declares it.
func ResolveTraces(d *leaderboard.Declaration, dir string) (map[string]leaderboard.TraceFiles, error) {
	if len(d.TracePaths()) == 0 {
		return nil, nil
	}
	fsys, done, err := OpenDir(dir)
	if err != nil {
		return nil, err
	}
	defer done()
	return leaderboard.ResolveTraces(d, fsys)
}
