// Package diskio writes the project's files the same way everywhere:
// replaced atomically, so a reader never sees a half-written one (the JSON
// they hold is jsoncodec.Encode's canonical layout). Files the project
// does not control are read with ReadFileMax: regular files only, with a
// size cap.
package diskio

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteAtomic writes data to a temporary file beside path and renames it
// over path (mode 0644). On error path is untouched and no temporary file is
// left behind.
func WriteAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ReadFileMax reads the file name of fsys when it is a regular file of at
// most max bytes. A symbolic link (the file would be read from wherever it
// points, while a digest over regular files skips it), a directory or
// device, and a larger file are errors naming the file. Input the project
// does not control (a ledger handed in, another run's artifact) is read this
// way.
func ReadFileMax(fsys fs.FS, name string, max int64) ([]byte, error) {
	st, err := fs.Lstat(fsys, name)
	if err != nil {
		return nil, err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link; only regular files are read", name)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s is larger than %d bytes (%d)", name, max, st.Size())
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, max)
	}
	return b, nil
}
