package publish

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// MemFS is a read-only file system in memory: clean slash-separated path →
// content. Directories are implied by the paths of their files. It is what
// an artifact's results read into (ResultsFromArtifact) and how one file
// read from a repository is opened (repoFS.Open).
type MemFS map[string][]byte

var (
	_ fs.ReadFileFS = MemFS(nil)
	_ fs.ReadDirFS  = MemFS(nil)
)

// ReadFile returns a copy of name's content.
func (m MemFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	raw, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return slices.Clone(raw), nil
}

// Open opens a file or a directory (one that holds a file, or ".").
func (m MemFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if raw, ok := m[name]; ok {
		return &memFile{info: memInfo{name: path.Base(name), size: int64(len(raw))}, r: bytes.NewReader(raw)}, nil
	}
	entries, ok := m.dir(name)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memDir{info: memInfo{name: path.Base(name), dir: true}, entries: entries}, nil
}

// ReadDir lists a directory, sorted by name.
func (m MemFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	entries, ok := m.dir(name)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return entries, nil
}

// dir lists the entries directly in directory name, sorted; false when no
// file lies under it.
func (m MemFS) dir(name string) ([]fs.DirEntry, bool) {
	prefix := name + "/"
	if name == "." {
		prefix = ""
	}
	seen := map[string]fs.DirEntry{}
	for p, raw := range m {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok || rest == "" {
			continue
		}
		if child, _, isDir := strings.Cut(rest, "/"); isDir {
			seen[child] = fs.FileInfoToDirEntry(memInfo{name: child, dir: true})
		} else {
			seen[child] = fs.FileInfoToDirEntry(memInfo{name: child, size: int64(len(raw))})
		}
	}
	if len(seen) == 0 && name != "." {
		return nil, false
	}
	out := make([]fs.DirEntry, 0, len(seen))
	for _, e := range seen {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, true
}

type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

type memFile struct {
	info memInfo
	r    *bytes.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *memFile) Close() error               { return nil }

type memDir struct {
	info    memInfo
	entries []fs.DirEntry
}

func (d *memDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: fs.ErrInvalid}
}
func (d *memDir) Close() error { return nil }

// ReadDir returns the next n entries (all for n <= 0), io.EOF after the
// last when n > 0.
func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if n <= 0 {
		out := d.entries
		d.entries = nil
		return out, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	out := d.entries[:n]
	d.entries = d.entries[n:]
	return out, nil
}
