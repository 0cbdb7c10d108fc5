package diskio

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Tree is a directory whose files are read and written through one
// os.Root, so that no path leaves it, and that refuses a symbolic link at
// any depth below it, naming the link: a link committed in a repository
// checkout (a directory such as data/ or a file) must not make a write
// land, or a read come from, outside the checkout. The directory itself
// may be reached through links. Paths are clean slash paths relative to
// it (fs.ValidPath).
type Tree struct {
	dir  string
	root *os.Root
}

// OpenTree opens the directory dir as a Tree. Close it when done.
func OpenTree(dir string) (*Tree, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &Tree{dir: dir, root: r}, nil
}

// Close releases the tree's directory.
func (t *Tree) Close() error { return t.root.Close() }

// name is the file p of the tree as the user knows it, for errors.
func (t *Tree) name(p string) string { return filepath.Join(t.dir, filepath.FromSlash(p)) }

// noLinks checks that no component of p that exists is a symbolic link,
// and returns the Lstat of p itself (nil when it does not exist).
func (t *Tree) noLinks(p string) (fs.FileInfo, error) {
	if !fs.ValidPath(p) || p == "." {
		return nil, fmt.Errorf("%s: %q is not a clean relative path", t.dir, p)
	}
	parts := strings.Split(p, "/")
	for i := range parts {
		sub := strings.Join(parts[:i+1], "/")
		st, err := t.root.Lstat(sub)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.name(sub), err)
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link: no link is followed under %s", t.name(sub), t.dir)
		}
		if i < len(parts)-1 && !st.IsDir() {
			return nil, fmt.Errorf("%s is not a directory", t.name(sub))
		}
		if i == len(parts)-1 {
			return st, nil
		}
	}
	return nil, nil
}

// ReadMax reads the file p of the tree: a regular file of at most max
// bytes, no component of its path a link (ReadPathMax's rules). A missing
// file is an error wrapping fs.ErrNotExist.
func (t *Tree) ReadMax(p string, max int64) ([]byte, error) {
	st, err := t.noLinks(p)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, &fs.PathError{Op: "open", Path: t.name(p), Err: fs.ErrNotExist}
	}
	if err := regular(t.name(p), st.Mode()); err != nil {
		return nil, err
	}
	f, err := t.root.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(f, t.name(p), max, st)
}

// WriteFiles is the package's WriteFiles within the tree: every file and
// its directories written through the tree's root, a path with a link in
// it (a directory or the file itself) refused before anything is written.
func (t *Tree) WriteFiles(files map[string][]byte) error {
	for p := range files {
		if !fs.ValidPath(p) || p == "." {
			return fmt.Errorf("write %s: %q is not a clean relative path", t.dir, p)
		}
		if _, err := t.noLinks(p); err != nil {
			return fmt.Errorf("write %w", err)
		}
	}
	type staged struct{ tmp, dst string }
	var done []staged
	cleanup := func() {
		for _, s := range done {
			t.root.Remove(s.tmp)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if dir := path.Dir(p); dir != "." {
			if err := t.root.MkdirAll(dir, 0o755); err != nil {
				cleanup()
				return fmt.Errorf("write %s: %w", t.name(p), err)
			}
		}
		tmp := path.Join(path.Dir(p), "."+path.Base(p)+".tmp-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := t.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			cleanup()
			return fmt.Errorf("write %s: %w", t.name(p), err)
		}
		done = append(done, staged{tmp, p})
		_, err = f.Write(files[p])
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = t.root.Chmod(tmp, 0o644)
		}
		if err != nil {
			cleanup()
			return fmt.Errorf("write %s: %w", t.name(p), err)
		}
	}
	// A directory or a link where a file goes (the link made since the
	// check above): find it before the first rename, so that nothing is
	// replaced.
	for _, s := range done {
		st, err := t.noLinks(s.dst)
		if err == nil && st != nil && st.IsDir() {
			err = fmt.Errorf("%s: a directory is there", t.name(s.dst))
		}
		if err != nil {
			cleanup()
			return fmt.Errorf("write %w", err)
		}
	}
	for _, s := range done {
		if err := t.root.Rename(s.tmp, s.dst); err != nil {
			cleanup()
			return fmt.Errorf("write %s: %w", t.name(s.dst), err)
		}
	}
	return nil
}

// Files lists every regular file under the directory dir of the tree, at
// any depth, as slash paths from the tree's root, sorted; a missing dir
// is an error wrapping fs.ErrNotExist. A symbolic link on the way to dir
// or below it, or anything but a regular file or a directory below it, is
// an error naming it.
func (t *Tree) Files(dir string) ([]string, error) {
	st, err := t.noLinks(dir)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, &fs.PathError{Op: "open", Path: t.name(dir), Err: fs.ErrNotExist}
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", t.name(dir))
	}
	var files []string
	err = fs.WalkDir(t.root.FS(), dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			return nil
		case d.Type().IsRegular():
			files = append(files, p)
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link: no link is followed under %s", t.name(p), t.dir)
		}
		return fmt.Errorf("%s is not a regular file", t.name(p))
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// ApplyFiles is WriteFiles, but a nil content removes its path, as in a
// commit the bot makes: every other file is written (WriteFiles, all or
// nothing), then each removed file goes, and with it each directory it
// leaves empty up to the tree's root. A removed path with a link in it is
// refused before anything is written; a removed path that is already
// absent is no error; a removed path that is a directory is an error (it
// is removed file by file). A process killed between the writes and the
// removals leaves the files to remove in place.
func (t *Tree) ApplyFiles(files map[string][]byte) error {
	writes := map[string][]byte{}
	var removes []string
	for p, data := range files {
		if data != nil {
			writes[p] = data
			continue
		}
		st, err := t.noLinks(p)
		if err != nil {
			return fmt.Errorf("remove %w", err)
		}
		if st != nil && !st.Mode().IsRegular() {
			return fmt.Errorf("remove %s: not a regular file", t.name(p))
		}
		removes = append(removes, p)
	}
	if err := t.WriteFiles(writes); err != nil {
		return err
	}
	slices.Sort(removes)
	for _, p := range removes {
		if err := t.root.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", t.name(p), err)
		}
		// The directories it leaves empty: Remove fails on one that is not.
		for dir := path.Dir(p); dir != "."; dir = path.Dir(dir) {
			if t.root.Remove(dir) != nil {
				break
			}
		}
	}
	return nil
}
