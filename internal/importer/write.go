package importer

import (
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// Write puts the result at dir: the ledger (ledger.json, units/) and
// import-report.json. Everything is first written into a temporary sibling
// directory and then renamed into place, so dir holds either its old content
// or the complete new ledger, never a half-written one. An existing dir is
// replaced only when it is empty or a ledger (holds ledger.json).
func Write(dir string, res *Result) error {
	if err := checkReport(&res.Report); err != nil {
		return err
	}
	report, err := jsoncodec.Encode(&res.Report)
	if err != nil {
		return fmt.Errorf("write %s: %w", importreport.File, err)
	}
	return ledger.WriteDir(dir, res.Manifest, res.Units, ledger.ExtraFile{Name: importreport.File, Data: report})
}
