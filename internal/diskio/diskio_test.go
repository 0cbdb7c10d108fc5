package diskio

import (
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

func TestWriteAtomicReplacesAndCleansUp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(b) != "new" || st.Mode().Perm() != 0o644 {
		t.Errorf("content %q mode %v", b, st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	if err := WriteAtomic(filepath.Join(dir, "missing", "f"), []byte("x")); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

func TestReadFileMax(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ok"), []byte("12345"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink(filepath.Join(dir, "ok"), filepath.Join(dir, "link"))
	fsys := os.DirFS(dir)
	if b, err := ReadFileMax(fsys, "ok", 5); err != nil || string(b) != "12345" {
		t.Errorf("ok: %q, %v", b, err)
	}
	for name, want := range map[string]string{"ok": "larger than 4 bytes", "link": "symbolic link", "sub": "not a regular file", "missing": "no such file"} {
		if _, err := ReadFileMax(fsys, name, 4); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", name, err, want)
		}
	}
}

// TestReadPathMaxRefusesWhatIsNotARegularFile: ReadPathMax opens the path
// first, not following a last element that is a link and not blocking on a
// named pipe, and refuses the open file unless it is regular: a named pipe,
// a link (to a device, to a system file, to nothing), a directory, a device
// and a socket (which cannot be opened) are each refused, naming the path. Nothing here replaces the file
// between a check and the open, as ReadPathMax makes no check before it (no
// moment to hook); that swap is tested on ReadFileMax, whose fs.FS open a
// test can intercept (TestReadFileMaxRefusesAFileReplacedWhileOpened).
func TestReadPathMaxRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	testkit.Fifo(t, at("fifo"))
	testkit.Symlink(t, "/dev/zero", at("zero"))
	testkit.Symlink(t, "/etc/passwd", at("passwd"))
	testkit.Symlink(t, at("nowhere"), at("dangling"))
	if err := os.Mkdir(at("sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	sock, err := net.Listen("unix", at("sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	for path, want := range map[string]string{
		at("fifo"):     at("fifo") + " is a named pipe (FIFO), not a regular file",
		at("zero"):     at("zero") + " is a symbolic link; only regular files are read",
		at("passwd"):   at("passwd") + " is a symbolic link",
		at("dangling"): at("dangling") + " is a symbolic link",
		at("sub"):      at("sub") + " is a directory, not a regular file",
		"/dev/null":    "/dev/null is not a regular file",
		at("sock"):     at("sock") + " is not a regular file (S---------)",
		at("missing"):  "lstat " + at("missing") + ": no such file or directory",
	} {
		testkit.Refuses(t, filepath.Base(path), want, func() error {
			_, err := ReadPathMax(path, 1<<20)
			return err
		})
	}
	os.WriteFile(at("ok"), []byte("12345"), 0o644)
	if b, err := ReadPathMax(at("ok"), 5); err != nil || string(b) != "12345" {
		t.Errorf("a regular file at the cap: %q, %v", b, err)
	}
}

// TestReadFileMaxRefusesWhatIsNotARegularFile: through an fs.FS (which
// opens with no flags) a named pipe is refused without being opened (the
// open would block until a writer comes), a symbolic link to a device or to
// a system file is refused, not followed.
func TestReadFileMaxRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testkit.Fifo(t, filepath.Join(dir, "fifo"))
	testkit.Symlink(t, "/dev/zero", filepath.Join(dir, "zero"))
	testkit.Symlink(t, "/etc/passwd", filepath.Join(dir, "passwd"))
	for name, want := range map[string]string{
		"fifo":   "fifo is a named pipe (FIFO), not a regular file",
		"zero":   "zero is a symbolic link",
		"passwd": "passwd is a symbolic link",
	} {
		testkit.Refuses(t, name, want, func() error {
			_, err := ReadFileMax(os.DirFS(dir), name, 1<<20)
			return err
		})
	}
}

// swapFS is a directory whose files swap replaces between ReadFileMax's
// check of a name (Lstat) and its open: the moment another process would
// have to hit, made certain.
type swapFS struct {
	dir  string
	swap func(path string)
}

func (s swapFS) Open(name string) (fs.File, error) {
	s.swap(filepath.Join(s.dir, name))
	return os.DirFS(s.dir).Open(name)
}

func (s swapFS) Lstat(name string) (fs.FileInfo, error) {
	return os.Lstat(filepath.Join(s.dir, name))
}

func (s swapFS) ReadLink(name string) (string, error) {
	return os.Readlink(filepath.Join(s.dir, name))
}

// TestReadFileMaxRefusesAFileReplacedWhileOpened: a regular file replaced
// after its check, by a link to a file outside the tree or by another
// regular file, is refused: the open file is not the one checked. (Checking
// the open file's mode alone passes both: the link's target is regular.)
func TestReadFileMaxRefusesAFileReplacedWhileOpened(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("secret"), 0o644)
	for what, swap := range map[string]func(path string){
		"by a link outside": func(path string) {
			os.Remove(path)
			os.Symlink(secret, path)
		},
		"by another file": func(path string) {
			os.WriteFile(path+".new", []byte("other"), 0o644)
			os.Rename(path+".new", path)
		},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "f"), []byte("checked"), 0o644)
		b, err := ReadFileMax(swapFS{dir, swap}, "f", 1<<20)
		if want := "f was replaced while it was opened"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("replaced %s: read %q, err = %v, want %q", what, b, err, want)
		}
	}
}

// endless is a stream that never ends, like /dev/zero or a file still growing.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	clear(p)
	e.n += int64(len(p))
	return len(p), nil
}

// TestReadAllMaxStopsAtTheCap: the size is checked while reading, so an
// endless stream costs max+1 bytes, not all of memory.
func TestReadAllMaxStopsAtTheCap(t *testing.T) {
	t.Parallel()
	e := &endless{}
	_, err := ReadAllMax(e, "stream", 1000)
	if err == nil || !strings.Contains(err.Error(), "stream is larger than 1000 bytes") {
		t.Fatalf("err = %v", err)
	}
	if e.n > 1<<16 {
		t.Errorf("read %d bytes of an endless stream for a cap of 1000", e.n)
	}
	if b, err := ReadAllMax(strings.NewReader("abc"), "s", 3); err != nil || string(b) != "abc" {
		t.Errorf("at the cap: %q, %v", b, err)
	}
}
