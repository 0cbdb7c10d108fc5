package publish

import (
	"errors"
	"io/fs"
	"testing"
	"testing/fstest"
)

// MemFS passes the standard library's file-system conformance test (Open,
// ReadFile, ReadDir, Stat and directory listings agree).
func TestMemFSConformance(t *testing.T) {
	t.Parallel()
	m := MemFS{"g/r.json": []byte("{}"), "g/s.json": []byte("[]"), "traces/ab/header.yaml": []byte("h"), "top": nil}
	if err := fstest.TestFS(m, "g/r.json", "g/s.json", "traces/ab/header.yaml", "top"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Open("missing/x"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(missing/x): %v, want fs.ErrNotExist", err)
	}
	if _, err := m.Open("../g"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Open(../g): %v, want fs.ErrInvalid", err)
	}
	raw, _ := m.ReadFile("g/r.json")
	raw[0] = 'x'
	if string(m["g/r.json"]) != "{}" {
		t.Error("ReadFile returned the stored bytes, not a copy")
	}
}
