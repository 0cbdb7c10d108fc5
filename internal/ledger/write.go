package ledger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
)

// ExtraFile is a file written beside a ledger's manifest (for example an
// import report). Name is a plain file name.
type ExtraFile struct {
	Name string
	Data []byte
}

// WriteDir validates the ledger and writes it as a directory at dir: the
// manifest, one file per unit and any extra files. Everything is first
// written complete into a temporary sibling directory and then renamed into
// place (diskio.ReplaceDir), so dir never holds a half-written ledger. An
// existing dir is replaced only when it is a ledger (holds ledger.json) or
// empty; anything else, and a dir that is a symbolic link, is refused.
func WriteDir(dir string, m Manifest, units []Unit, extras ...ExtraFile) error {
	if m.SchemaVersion == 0 {
		m.SchemaVersion = SchemaVersion
	}
	if err := m.validate(); err != nil {
		return fmt.Errorf("write ledger: manifest: %w", err)
	}
	sorted := append([]Unit(nil), units...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	var errs []error
	for i := range sorted {
		if sorted[i].SchemaVersion == 0 {
			sorted[i].SchemaVersion = SchemaVersion
		}
		if err := sorted[i].Validate(); err != nil {
			errs = append(errs, fmt.Errorf("unit %s: %w", sorted[i].ID, err))
		}
		if i > 0 && sorted[i].ID == sorted[i-1].ID {
			errs = append(errs, fmt.Errorf("unit %s: duplicate id", sorted[i].ID))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("write ledger: %w", errors.Join(errs...))
	}
	for _, x := range extras {
		if x.Name == ManifestFile || x.Name == UnitsDir || x.Name != filepath.Base(x.Name) || x.Name == "." || x.Name == ".." {
			return fmt.Errorf("write ledger: extra file %q: want a plain file name other than %s and %s", x.Name, ManifestFile, UnitsDir)
		}
	}
	if err := checkReplaceable(dir); err != nil {
		return err
	}

	files := map[string][]byte{}
	b, err := encode(filepath.Join(dir, ManifestFile), m)
	if err != nil {
		return err
	}
	files[ManifestFile] = b
	for i := range sorted {
		p := UnitPath(sorted[i].ID)
		if files[p], err = encode(filepath.Join(dir, filepath.FromSlash(p)), &sorted[i]); err != nil {
			return err
		}
	}
	for _, x := range extras {
		files[x.Name] = x.Data
	}
	if err := diskio.ReplaceDir(dir, files); err != nil {
		return fmt.Errorf("write ledger: %w", err)
	}
	return nil
}

func checkReplaceable(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("write ledger: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err != nil {
		return fmt.Errorf("write ledger: %s exists and is not a ledger (no %s); refusing to replace it", dir, ManifestFile)
	}
	return nil
}

func encode(path string, v any) ([]byte, error) {
	b, err := jsoncodec.Encode(v)
	if err != nil {
		return nil, fmt.Errorf("write ledger %s: %w", path, err)
	}
	return b, nil
}
