package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Fatal(...any)          { r.failed = true }

func TestAssert(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.golden")
	if err := os.WriteFile(p, []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Assert(r, p, []byte("same\n"))
	if r.failed {
		t.Error("equal content reported as different")
	}
	r = &recorder{TB: t}
	Assert(r, p, []byte("other\n"))
	if !r.failed {
		t.Error("different content passed")
	}
	r = &recorder{TB: t}
	Assert(r, filepath.Join(dir, "missing.golden"), []byte("x"))
	if !r.failed {
		t.Error("a missing golden file passed")
	}
}
