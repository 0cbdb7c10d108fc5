package harness

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/cachedir"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Catalog arguments that name no directory (the --catalog flag of `score`
// and of the leaderboard's commands).
const (
	// CatalogNone hands the simulator no catalog: it reads its own
	// model_configs/.
	CatalogNone = "none"
	// CatalogBundled is the catalog embedded in the binary.
	CatalogBundled = "bundled"
)

// BundledCatalog is what a catalog argument of CatalogBundled names: the
// model catalog embedded in the binary (corpus.Catalog, rooted at the
// directory holding models/) and the bundled ledger it is versioned with
// (corpus.Ledger), read only when it is named.
type BundledCatalog struct {
	Catalog, Ledger fs.FS
}

// ResolveCatalog turns a catalog argument into the directory handed to the
// simulator and its version. CatalogNone or "" is none (the directory ""
// and a nil version). CatalogBundled is bundled.Catalog, copied once per
// content digest into cacheDir/catalog/ so the simulator reads it from disk,
// and versioned with bundled.Ledger's manifest (also when another ledger is
// scored). Anything else is a directory: its absolute path, versioned by
// DirVersion.
func ResolveCatalog(ctx context.Context, arg, cacheDir string, bundled BundledCatalog) (string, *runresult.DataVersion, error) {
	switch arg {
	case CatalogNone, "":
		return "", nil, nil
	case CatalogBundled:
		l, err := ledger.Load(bundled.Ledger)
		if err != nil {
			return "", nil, err
		}
		return extractBundledCatalog(cacheDir, bundled.Catalog, l.Manifest)
	}
	dv, err := DirVersion(ctx, "catalog", arg)
	if err != nil {
		return "", nil, err
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return "", nil, err
	}
	return abs, &dv, nil
}

// extractBundledCatalog copies cat, the catalog embedded in the binary, into
// the cache (once per content digest) so the simulator can read it from
// disk; m is the manifest of the ledger it is bundled with.
func extractBundledCatalog(cacheDir string, cat fs.FS, m ledger.Manifest) (string, *runresult.DataVersion, error) {
	digest, err := DigestFS(cat)
	if err != nil {
		return "", nil, fmt.Errorf("bundled catalog: %w", err)
	}
	dv := &runresult.DataVersion{Name: "blis-default catalog (bundled)", Version: m.Version, Digest: digest, Release: m.Release}
	dir := filepath.Join(cacheDir, "catalog", strings.TrimPrefix(digest, ident.DigestPrefix)[:16])
	if _, err := cachedir.Fill(dir, func(tmp string) error { return os.CopyFS(tmp, cat) }); err != nil {
		return "", nil, fmt.Errorf("bundled catalog: %w", err)
	}
	return dir, dv, nil
}
