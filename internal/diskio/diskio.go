// Package diskio writes the project's files the same way everywhere:
// replaced atomically, so a reader never sees a half-written one (the JSON
// they hold is jsoncodec.Encode's canonical layout). Files the project
// does not control are read with ReadFileMax (or ReadPathMax, ReadAllMax):
// regular files only, the size capped while reading. Nothing is synced to
// the disk: a write is atomic to other processes and to a crash of the
// writer, not to the machine's (a renamed file may then be empty).
package diskio

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
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
// most max bytes: the one read of every file the project does not control (a
// ledger or import source handed in, a pin file or runs.yaml of a checkout,
// another run's artifact). A symbolic link (the file would be read from
// wherever it points, /dev/zero or /etc/passwd, while a digest over regular
// files skips it), a directory, a named pipe (opening one would block until
// a writer comes), a device or a socket is refused. An fs.FS opens with no
// flags (none says "do not follow" or "do not block"), so the name's mode is
// checked before it is opened, the open file's mode after, and a file
// replaced in between (the open reached another file than the one checked)
// is refused; a name swapped for a named pipe in between still blocks the
// open until a writer comes, but nothing is read from it. The size is
// checked while reading, through a limited reader (a stat can lie: /proc
// files, a file still growing), so at most max+1 bytes are ever held. Every
// error names the file.
func ReadFileMax(fsys fs.FS, name string, max int64) ([]byte, error) {
	st, err := fs.Lstat(fsys, name)
	if err != nil {
		return nil, err
	}
	if err := regular(name, st.Mode()); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readOpen(f, name, max, st)
}

// ReadPathMax is ReadFileMax for a path of the operating system (relative to
// the working directory or absolute), its errors naming path. Only its last
// element must not be a symbolic link. It opens path first, not following a
// last element that is a symbolic link and not blocking on a named pipe, then
// refuses the open file unless it is regular: no check comes before the open,
// so nothing can be swapped in between. A device is opened (and closed
// unread), never read; a terminal so opened does not become the process's
// controlling terminal. The descriptor stays non-blocking, which a regular
// file's reads ignore.
func ReadPathMax(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		// Say why as a check before the open would have: a missing path,
		// a link (ELOOP), a socket (ENXIO) named by what it is.
		st, lerr := os.Lstat(path)
		if lerr != nil {
			return nil, lerr
		}
		if rerr := regular(path, st.Mode()); rerr != nil {
			return nil, rerr
		}
		return nil, err
	}
	defer f.Close()
	return readOpen(f, path, max, nil)
}

// readOpen reads the open file f, named name, when it is a regular file (the
// one checked, when checked is its stat before the open) of at most max
// bytes.
func readOpen(f fs.File, name string, max int64, checked fs.FileInfo) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := regular(name, st.Mode()); err != nil {
		return nil, err
	}
	if checked != nil && !sameFile(checked, st) {
		return nil, fmt.Errorf("%s was replaced while it was opened; only regular files are read", name)
	}
	return ReadAllMax(f, name, max)
}

// sameFile reports whether a and b, a name's stat before its open and the
// open file's, describe one file of the operating system (device and inode).
// When neither is the system's (an fs.FS in memory or in an archive), no
// other process can replace the file, and they are taken as one.
func sameFile(a, b fs.FileInfo) bool {
	sa, okA := a.Sys().(*syscall.Stat_t)
	sb, okB := b.Sys().(*syscall.Stat_t)
	if !okA || !okB {
		return okA == okB
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

// ReadAllMax reads r to its end when it holds at most max bytes, through a
// limited reader: more is an error naming name, after at most max+1 bytes
// were read. Streams the project does not control (an archive's entry, a
// response body) are read this way.
func ReadAllMax(r io.Reader, name string, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, max)
	}
	return b, nil
}

// regular refuses every mode but a regular file's, naming the file.
func regular(name string, m fs.FileMode) error {
	switch {
	case m.IsRegular():
		return nil
	case m&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link; only regular files are read", name)
	case m.IsDir():
		return fmt.Errorf("%s is a directory, not a regular file", name)
	case m&fs.ModeNamedPipe != 0:
		return fmt.Errorf("%s is a named pipe (FIFO), not a regular file", name)
	default:
		return fmt.Errorf("%s is not a regular file (%s)", name, m.Type())
	}
}
