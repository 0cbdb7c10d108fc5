package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/hardware"
	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// Bundled is the data embedded in the running binary (package corpus), each
// part rooted at its own directory: the ledger (ledger.json), the model
// catalog (models/<name>/config.json) and the hardware registry
// (hardware.File).
type Bundled struct {
	Ledger, Catalog, Hardware fs.FS
}

// Data names the data a run is scored against, as the score command's
// flags name it.
type Data struct {
	// Ledger is a ledger directory; "" scores the bundled ledger.
	Ledger string
	// Catalog is a model catalog directory, "bundled" or "none" ("" is
	// none).
	Catalog string
	// Registry is a coefficient registry directory or "none" ("" is none).
	Registry string
	// HardwareRegistry is a registry.json or the directory holding one,
	// "bundled" or "none" ("" is none).
	HardwareRegistry string
	// CacheDir receives the copy of the bundled catalog (ResolveCatalog).
	CacheDir string
	// Bundled is the binary's own data, which "bundled" and an empty
	// Ledger select.
	Bundled Bundled
}

// LoadData resolves d into o: it loads the ledger (strictly, ledger.Load)
// and sets o.Ledger and o.LedgerVersion by the release policy of
// LedgerVersion, reading a ledger directory's import report for an import
// from an InferenceX weekly dump (ReadDumpImport) against the harness in
// o.HarnessDir; then the catalog (ResolveCatalog: the bundled catalog is
// versioned with the bundled ledger, also when another ledger is scored),
// the hardware registry and the coefficient registry with their versions.
// It logs a warning on o.Log (when set) saying why a dump-imported ledger
// is not a release. On error, o's data fields may be partly set.
func LoadData(ctx context.Context, d Data, o *Options) error {
	var ledgerFS fs.FS
	bundled := d.Ledger == ""
	if bundled {
		ledgerFS = d.Bundled.Ledger
	} else {
		ledgerFS = os.DirFS(d.Ledger)
	}
	l, err := ledger.Load(ledgerFS)
	if err != nil {
		return err
	}
	o.Ledger = l
	var imp *DumpImport
	if !bundled {
		di, fromDump, err := ReadDumpImport(d.Ledger)
		if err != nil {
			return err
		}
		if fromDump {
			imp = &di
		}
	}
	v, why, err := LedgerVersion(ctx, l, d.Ledger, imp, o.HarnessDir)
	if err != nil {
		return err
	}
	o.LedgerVersion = v
	if why != "" && o.Log != nil {
		o.Log.Warn("the ledger imported from an InferenceX dump is not a release", "ledger", d.Ledger, "why", why)
	}
	cat := BundledCatalog{Catalog: d.Bundled.Catalog, Ledger: d.Bundled.Ledger}
	if o.Catalog, o.CatalogVersion, err = ResolveCatalog(ctx, d.Catalog, d.CacheDir, cat); err != nil {
		return err
	}
	switch d.HardwareRegistry {
	case "none", "":
	case "bundled":
		raw, err := fs.ReadFile(d.Bundled.Hardware, hardware.File)
		if err != nil {
			return fmt.Errorf("bundled hardware registry: %w", err)
		}
		reg, err := hardware.Parse(raw, "bundled hardware registry")
		if err != nil {
			return err
		}
		dv := BundledHardwareVersion(reg, raw)
		o.Hardware, o.HardwareVersion = reg, &dv
	default:
		reg, dv, err := HardwareRegistryFile(ctx, d.HardwareRegistry)
		if err != nil {
			return err
		}
		o.Hardware, o.HardwareVersion = reg, &dv
	}
	if d.Registry != "none" && d.Registry != "" {
		dv, err := DirVersion(ctx, "registry", d.Registry)
		if err != nil {
			return err
		}
		o.Registry, o.RegistryVersion = d.Registry, &dv
	}
	return nil
}

// ReadDumpImport reads what dir's import report (importreport.File,
// written by 'ledger import') says about an import from an InferenceX
// weekly dump; fromDump is false when there is no report or it names no
// dump. A report that is no JSON is an error naming dir and the file.
func ReadDumpImport(dir string) (imp DumpImport, fromDump bool, err error) {
	name := filepath.Join(dir, importreport.File)
	raw, err := diskio.ReadPathMax(name, ledger.MaxFileBytes)
	if errors.Is(err, os.ErrNotExist) {
		return imp, false, nil
	}
	if err != nil {
		return imp, false, err
	}
	var rep importreport.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		return imp, false, fmt.Errorf("ledger %s: %s: %w", dir, importreport.File, err)
	}
	if rep.Options.InferenceXDump == "" {
		return imp, false, nil
	}
	imp.Dump = rep.Options.InferenceXDump
	if im := rep.Importer; im != nil {
		imp.Importer = *im
	}
	return imp, true, nil
}
