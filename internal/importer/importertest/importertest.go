// Package importertest holds test helpers shared by the importer's tests and
// the tests of what it reads and writes: finding the real data beside the
// repository, reading every file of a tree, and checking a ledger against the
// ledger JSON Schemas embedded in package schemas (also used by the ledger
// package's schema tests). Only tests import it.
package importertest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/schemas"
)

// Ledger schema file names inside package schemas.
const (
	ManifestSchemaFile = "ledger-manifest.v1.json"
	UnitSchemaFile     = "ledger-unit.v1.json"
)

// SharedDataDir returns ../shared/data relative to the repository root (the
// nearest directory holding go.mod at or above the working directory). The
// error says why when the root or the data (its inferencex/agg_bmk folder)
// is absent: the real data is not part of the repository.
func SharedDataDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("repository root (go.mod) not found")
		}
		dir = parent
	}
	data := filepath.Join(dir, "..", "shared", "data")
	if _, err := os.Stat(filepath.Join(data, "inferencex", "agg_bmk")); err != nil {
		return "", fmt.Errorf("real data absent (%w)", err)
	}
	return data, nil
}

// SharedData is SharedDataDir for a test, which it skips when the data is
// absent.
func SharedData(t testing.TB) string {
	t.Helper()
	data, err := SharedDataDir()
	if err != nil {
		t.Skip(err)
	}
	return data
}

// Files returns the content of every file of fsys by slash path.
func Files(t testing.TB, fsys fs.FS) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// compiled holds the ledger schemas, compiled once with one compiler.
var compiled = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	for _, name := range []string{ManifestSchemaFile, UnitSchemaFile} {
		raw, err := fs.ReadFile(schemas.FS, name)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if err := c.AddResource("mem:///"+name, doc); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	out := map[string]*jsonschema.Schema{}
	for _, name := range []string{ManifestSchemaFile, UnitSchemaFile} {
		s, err := c.Compile("mem:///" + name)
		if err != nil {
			return nil, fmt.Errorf("compile %s: %w", name, err)
		}
		out[name] = s
	}
	return out, nil
})

// Schema returns the compiled ledger schema of that file name
// (ManifestSchemaFile or UnitSchemaFile).
func Schema(t testing.TB, name string) *jsonschema.Schema {
	t.Helper()
	all, err := compiled()
	if err != nil {
		t.Fatal(err)
	}
	s, ok := all[name]
	if !ok {
		t.Fatalf("no ledger schema %s", name)
	}
	return s
}

// Validate checks raw JSON against s.
func Validate(s *jsonschema.Schema, raw []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}

// CheckLedgerSchemas validates the manifest and every unit file of the ledger
// in fsys against the ledger schemas, reporting each failure under name; a
// ledger without units fails too.
func CheckLedgerSchemas(t testing.TB, name string, fsys fs.FS) {
	t.Helper()
	manifest, unit := Schema(t, ManifestSchemaFile), Schema(t, UnitSchemaFile)
	raw, err := fs.ReadFile(fsys, ledger.ManifestFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(manifest, raw); err != nil {
		t.Errorf("%s %s: %v", name, ledger.ManifestFile, err)
	}
	n := 0
	err = fs.WalkDir(fsys, ledger.UnitsDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if err := Validate(unit, raw); err != nil {
			t.Errorf("%s %s: %v", name, p, err)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Errorf("%s: no units validated", name)
	}
}
