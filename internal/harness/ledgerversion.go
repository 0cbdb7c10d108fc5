package harness

import (
	"context"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// LedgerVersion is the version the provenance records for ledger l, read
// from dir ("" for the bundled ledger, whose manifest is taken as it is:
// it is immutable with the harness commit). A ledger directory is a
// release only when its manifest says so and it is a clean checkout at a
// tag (its version is then the manifest's), or when it was imported from
// an InferenceX weekly dump by the harness in harnessDir itself
// (DumpLedgerVersion; imp is what its import report says, nil when it
// names no dump). Otherwise its version is the manifest's with the
// checkout's commit or the content digest appended. why says what kept a
// dump-imported ledger from being a release ("" otherwise).
func LedgerVersion(ctx context.Context, l *ledger.Ledger, dir string, imp *DumpImport, harnessDir string) (v runresult.DataVersion, why string, err error) {
	v = runresult.DataVersion{Name: l.Manifest.Name, Version: l.Manifest.Version, Digest: l.Digest, Release: l.Manifest.Release}
	if dir == "" {
		return v, "", nil
	}
	version, release, ok := CheckoutVersion(ctx, dir)
	if imp != nil && !release {
		scorer, err := HarnessIdentity(ctx, harnessDir)
		if err != nil {
			return v, "", err
		}
		v.Version, v.Release, why = DumpLedgerVersion(l.Manifest, l.Digest, *imp, scorer)
		return v, why, nil
	}
	if !ok {
		version = ident.ShortDigest(l.Digest)
	}
	v.Release = l.Manifest.Release && release
	if !release {
		v.Version = l.Manifest.Version + "+" + version
	}
	return v, "", nil
}
