package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/golden"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
)

func samplePlan() nightly.Plan {
	return nightly.Plan{Version: nightly.Version,
		Simulator: nightly.Source{Repository: "inference-sim/inference-sim", Release: "v0.7.15", Commit: strings.Repeat("ab", 20)},
		Harness:   nightly.Source{Repository: "inference-sim/accuracy-dashboard", Release: "v1.3.0", Commit: strings.Repeat("cd", 20)},
		Data:      []nightly.Data{{Name: "ledger", Version: "bundled"}, {Name: nightly.DataInferenceXDump, Version: "db-dump/2026-12-06"}}}
}

func TestNightlyPlanGolden(t *testing.T) {
	t.Parallel()
	golden.Assert(t, filepath.Join("testdata", "nightly-plan-unchanged.golden"), []byte(NightlyPlan(samplePlan(), nil, "v0.7.15_ledger-bundled_harness-v1.3.0_run-41")))
	changes := []string{"harness release v1.2.0 → v1.3.0", "data inferencex-dump db-dump/2026-11-29 → db-dump/2026-12-06"}
	golden.Assert(t, filepath.Join("testdata", "nightly-plan-changed.golden"), []byte(NightlyPlan(samplePlan(), changes, "")))
}

// Data versions, the snapshot id and the changes are read from files.
func TestNightlyPlanRendersUntrustedTextInert(t *testing.T) {
	t.Parallel()
	p := samplePlan()
	p.Data[0].Name, p.Data[0].Version = evilText, evilText
	for _, md := range []string{NightlyPlan(p, nil, evilText), NightlyPlan(p, []string{evilText}, "")} {
		if found := activeIn(md); len(found) > 0 {
			t.Errorf("the plan summary holds active Markdown: %q\n%s", found, md)
		}
	}
}
