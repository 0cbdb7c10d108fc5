package ledger

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/inference-sim/accuracy-dashboard/schemas"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
)

// CheckSchemas validates the manifest and every unit file of the ledger in
// fsys against the JSON Schemas (schemas/ledger-*.v1.json), the published
// description of the format that other tools read. Load is the stricter
// check; this one keeps the schemas honest. All failures are returned
// together; a ledger without unit files fails too.
func CheckSchemas(fsys fs.FS) error {
	var errs []error
	raw, err := diskio.ReadFileMax(fsys, ManifestFile, MaxFileBytes)
	if err != nil {
		return err
	}
	if err := schemas.Validate(schemas.LedgerManifest, raw); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", ManifestFile, err))
	}
	n := 0
	err = fs.WalkDir(fsys, UnitsDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := diskio.ReadFileMax(fsys, p, MaxFileBytes)
		if err != nil {
			return err
		}
		if err := schemas.Validate(schemas.LedgerUnit, raw); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
		}
		n++
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if n == 0 {
		errs = append(errs, fmt.Errorf("no unit files under %s/", UnitsDir))
	}
	return errors.Join(errs...)
}
