package importer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// Write puts the result at dir: the ledger (ledger.json, units/) and
// import-report.json. Everything is first written into a temporary sibling
// directory and then renamed into place, so dir holds either its old content
// or the complete new ledger, never a half-written one. An existing dir is
// replaced only when it is empty or a ledger (holds ledger.json).
func Write(dir string, res *Result) error {
	if err := res.Report.check(); err != nil {
		return err
	}
	report, err := MarshalReport(&res.Report)
	if err != nil {
		return fmt.Errorf("write %s: %w", ReportFile, err)
	}
	if err := checkReplaceable(dir); err != nil {
		return err
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("write ledger: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".import-")
	if err != nil {
		return fmt.Errorf("write ledger: %w", err)
	}
	defer os.RemoveAll(tmp)
	staged := filepath.Join(tmp, "ledger")
	if err := ledger.WriteDir(staged, res.Manifest, res.Units); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(staged, ReportFile), report, 0o644); err != nil {
		return fmt.Errorf("write ledger: %w", err)
	}
	return ledger.ReplaceDir(dir, staged)
}

// checkReplaceable refuses to replace a directory that holds something other
// than a ledger.
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
	if _, err := os.Stat(filepath.Join(dir, ledger.ManifestFile)); err != nil {
		return fmt.Errorf("write ledger: %s exists and is not a ledger (no %s); refusing to replace it", dir, ledger.ManifestFile)
	}
	return nil
}
