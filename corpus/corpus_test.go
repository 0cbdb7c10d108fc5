package corpus_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/inference-sim/accuracy-dashboard/corpus"
	"github.com/inference-sim/accuracy-dashboard/internal/hardware"
	"github.com/inference-sim/accuracy-dashboard/internal/importer"
	"github.com/inference-sim/accuracy-dashboard/internal/importer/importertest"
	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

func TestBundledLedgerLoads(t *testing.T) {
	t.Parallel()
	l, err := ledger.Load(corpus.Ledger())
	if err != nil {
		t.Fatal(err)
	}
	if l.Manifest.Name != "blis-default" || !l.Manifest.Release || len(l.Manifest.Sources) == 0 {
		t.Errorf("manifest %+v: want the released blis-default corpus with its sources named", l.Manifest)
	}
	r := bundledReport(t)
	if r.PointsOut != l.NumPoints() || r.Units != len(l.Units) {
		t.Errorf("report says %d points in %d units, the ledger holds %d in %d", r.PointsOut, r.Units, l.NumPoints(), len(l.Units))
	}
	sum := 0
	for _, n := range r.Excluded {
		sum += n
	}
	if r.PointsOut+sum != r.RowsIn {
		t.Errorf("report does not balance: %d points + %d excluded != %d rows", r.PointsOut, sum, r.RowsIn)
	}
}

func TestBundledCatalogHasGptOss(t *testing.T) {
	t.Parallel()
	raw, err := fs.ReadFile(corpus.Catalog(), "models/gpt-oss-120b/config.json")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		ModelType       string `json:"model_type"`
		NumHiddenLayers int    `json:"num_hidden_layers"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.ModelType != "gpt_oss" || cfg.NumHiddenLayers != 36 {
		t.Errorf("catalog config: %+v", cfg)
	}
	l, err := ledger.Load(corpus.Ledger())
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range l.Units {
		if u.Deployment.Model == "openai/gpt-oss-120b" {
			return
		}
	}
	t.Error("the catalog bundles gpt-oss-120b but no unit serves it")
}

// TestBundleMatchesFreshImport repeats the import recorded in the bundle's
// import-report.json over corpus/sources and compares every file: the
// committed bundle cannot drift from its sources or the importer silently,
// and the report records enough to repeat the import. (cmd/action's
// TestGoGenerateRegeneratesBundledLedger runs the go:generate line itself.)
// Regenerate with `go generate ./corpus` (docs/LEDGER.md).
func TestBundleMatchesFreshImport(t *testing.T) {
	t.Parallel()
	data := importertest.Sources(t)
	r := bundledReport(t)
	res, err := importer.Import(os.DirFS(data), r.Options)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "ledger")
	if err := importer.Write(out, res); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(testkit.Files(t, corpus.Ledger()), testkit.Files(t, os.DirFS(out))); d != "" {
		t.Errorf("the bundled ledger differs from a fresh import of %s (-bundle +fresh); run go generate ./corpus:\n%s", data, d)
	}
}

// TestBundledCatalogCoversEveryModel: the catalog holds a configuration
// for every model the bundled ledger serves (five), under the short name
// the harness looks for.
func TestBundledCatalogCoversEveryModel(t *testing.T) {
	t.Parallel()
	l, err := ledger.Load(corpus.Ledger())
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]bool{}
	for _, u := range l.Units {
		models[u.Deployment.Model] = true
	}
	if len(models) != 5 {
		t.Errorf("the bundled ledger serves %d models, want 5: %v", len(models), models)
	}
	for m := range models {
		if _, err := fs.Stat(corpus.Catalog(), "models/"+simcli.ModelShortName(m)+"/config.json"); err != nil {
			t.Errorf("model %s: no catalog config: %v", m, err)
		}
	}
}

// TestBundledHardwareRegistry: the bundled registry parses, supplies H200
// and B200 (the corpus GPUs builds up to f90a1e3a lack), gives every
// published value as resolved and the calibration factors no datasheet
// gives as assumed, so points on its GPUs never reach the headline tier.
func TestBundledHardwareRegistry(t *testing.T) {
	t.Parallel()
	raw, err := fs.ReadFile(corpus.Hardware(), hardware.File)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := hardware.Parse(raw, "corpus/hardware/registry.json")
	if err != nil {
		t.Fatal(err)
	}
	if reg.Name != "blis-hardware" || len(reg.GPUs) != 2 {
		t.Errorf("registry %s with %d GPUs, want blis-hardware with H200 and B200", reg.Name, len(reg.GPUs))
	}
	for _, n := range []string{"H200", "B200"} {
		g, ok := reg.GPUs[n]
		if !ok {
			t.Errorf("no %s entry", n)
			continue
		}
		if g.Evidence() != ledger.Assumed || g.MfuPrefill.Evidence != ledger.Assumed || g.MfuDecode.Evidence != ledger.Assumed {
			t.Errorf("%s: the calibration factors must be assumed (entry evidence %s)", n, g.Evidence())
		}
		for name, v := range map[string]hardware.Value{"TFlopsPeak": g.TFlopsPeak, "TFlopsFP8": g.TFlopsFP8, "BwPeakTBs": g.BwPeakTBs, "MemoryGiB": g.MemoryGiB} {
			if v.Evidence != ledger.Resolved {
				t.Errorf("%s %s: evidence %s, want resolved (from the datasheet)", n, name, v.Evidence)
			}
		}
	}
	l, err := ledger.Load(corpus.Ledger())
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range l.Units {
		if hw := u.Deployment.Hardware; hw != "H100" {
			if _, ok := reg.GPUs[hw]; !ok {
				t.Errorf("unit %s on %s: neither H100 nor in the registry", u.ID, hw)
			}
		}
	}
}

// bundledReport is the import report the bundled ledger carries.
func bundledReport(t *testing.T) importreport.Report {
	t.Helper()
	raw, err := fs.ReadFile(corpus.Ledger(), importreport.File)
	if err != nil {
		t.Fatal(err)
	}
	var r importreport.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r
}
