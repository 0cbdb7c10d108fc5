package diskio

import (
	"os"
	"path/filepath"
	"testing"
)

func TestJSONIsCanonical(t *testing.T) {
	t.Parallel()
	got, err := JSON(map[string]any{"b": "<x>", "a": []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": [\n    1\n  ],\n  \"b\": \"<x>\"\n}\n"
	if string(got) != want {
		t.Errorf("JSON = %q, want %q", got, want)
	}
}

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
