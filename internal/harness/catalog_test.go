package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/inference-sim/accuracy-dashboard/corpus"
)

// A catalog argument is none, the bundled catalog (copied into the cache
// once, versioned with the bundled ledger) or a directory (by absolute
// path, DirVersion); a missing directory is named.
func TestResolveCatalog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cat := fstest.MapFS{"models/m/config.json": {Data: []byte(`{"num_hidden_layers": 40}`)}}
	bundled := BundledCatalog{Catalog: cat, Ledger: corpus.Ledger()}
	digest, err := DigestFS(cat)
	if err != nil {
		t.Fatal(err)
	}

	for _, arg := range []string{"", CatalogNone} {
		// The ledger is read only when the bundled catalog is named.
		dir, v, err := ResolveCatalog(ctx, arg, t.TempDir(), BundledCatalog{})
		if dir != "" || v != nil || err != nil {
			t.Errorf("catalog %q: %q, %+v, %v; want none", arg, dir, v, err)
		}
	}

	cache := t.TempDir()
	dir, v, err := ResolveCatalog(ctx, CatalogBundled, cache, bundled)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(cache, "catalog", strings.TrimPrefix(digest, "sha256:")[:16])
	if dir != want || v.Name != "blis-default catalog (bundled)" || v.Digest != digest || v.Version == "" || !v.Release {
		t.Errorf("bundled: %q, %+v; want %s, the bundled ledger's release version and the catalog's digest", dir, v, want)
	}
	if raw, err := os.ReadFile(filepath.Join(dir, "models", "m", "config.json")); err != nil || string(raw) != `{"num_hidden_layers": 40}` {
		t.Errorf("bundled catalog not copied into the cache: %v %q", err, raw)
	}
	if again, _, err := ResolveCatalog(ctx, CatalogBundled, cache, bundled); err != nil || again != dir {
		t.Errorf("bundled again: %q, %v; want the cached %s", again, err, dir)
	}

	own := t.TempDir()
	os.MkdirAll(filepath.Join(own, "models", "m"), 0o755)
	os.WriteFile(filepath.Join(own, "models", "m", "config.json"), []byte("{}"), 0o644)
	rel, err := filepath.Rel(mustWd(t), own)
	if err != nil {
		t.Fatal(err)
	}
	dir, v, err = ResolveCatalog(ctx, rel, cache, bundled)
	if err != nil || dir != own || v == nil || v.Name != "catalog "+filepath.Base(own) || !strings.HasPrefix(v.Digest, "sha256:") {
		t.Errorf("directory %s: %q, %+v, %v; want its absolute path and DirVersion", rel, dir, v, err)
	}

	missing := filepath.Join(own, "no-such-catalog")
	if _, _, err := ResolveCatalog(ctx, missing, cache, bundled); err == nil || !strings.Contains(err.Error(), "catalog "+missing+": ") {
		t.Errorf("missing directory: %v, want an error naming it", err)
	}
}

func mustWd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
