package diskio

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestReadFileMaxRefusesWhatIsNotARegularFile: a named pipe is refused
// without being opened (opening it blocks until a writer comes), a symbolic
// link to a device or to a system file is refused, not followed.
func TestReadFileMaxRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	os.Symlink("/dev/zero", filepath.Join(dir, "zero"))
	os.Symlink("/etc/passwd", filepath.Join(dir, "passwd"))
	for name, want := range map[string]string{
		"fifo":   "fifo is a named pipe (FIFO), not a regular file",
		"zero":   "zero is a symbolic link",
		"passwd": "passwd is a symbolic link",
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadPathMax(filepath.Join(dir, name), 1<<20); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err = %v, want %q", name, err, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: the read blocked", name)
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
