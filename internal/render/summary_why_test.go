package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/golden"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

func sampleWhatIf(title string) *runresult.WhatIf {
	return &runresult.WhatIf{Name: "gpt-oss-120b-mxfp4", Version: 1, Title: title,
		Limitation: "quant_method mxfp4 without bits is priced as bf16", Units: []string{"ix/gpt-oss"}, Kind: whatif.KindModelConfig,
		Change: `models/gpt-oss-120b/config.json merge patch {"quantization_config":{"bits":4}}`, Patch: `{"quantization_config":{"bits":4}}`,
		Digest: "sha256:" + strings.Repeat("e", 64)}
}

// TestWhyGolden: the plain run's summary with the Why section of a what-if
// that scores the two H200 points the plain run did not and quarters the
// H100 TPOTs (the H100 group's figures over the same 3 points, the H200
// group's over none), and the what-if run's own summary, labelled so.
func TestWhyGolden(t *testing.T) {
	t.Parallel()
	plain := sampleRun(t, "resolved", true, nil)
	wi := sampleRun(t, "resolved", true, sampleWhatIf("gpt-oss-120b at 4-bit weights"))
	a, err := whatif.Attribute(plain.Points, wi)
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "summary-why.golden"), []byte(SummaryWhy(plain.Summary, []whatif.Attribution{a})))
	golden.Assert(t, filepath.Join("testdata", "summary-whatif.golden"), []byte(Summary(wi.Summary)))
	if Why(plain.Summary, nil) != "" || SummaryWhy(plain.Summary, nil) != Summary(plain.Summary) {
		t.Error("no what-if, but a Why section")
	}
}

func TestWhyEscapesUntrustedText(t *testing.T) {
	t.Parallel()
	plain := sampleRun(t, "resolved", true, nil)
	wi := sampleRun(t, "resolved", true, sampleWhatIf(evilText))
	a, err := whatif.Attribute(plain.Points, wi)
	if err != nil {
		t.Fatal(err)
	}
	if md := Why(plain.Summary, []whatif.Attribution{a}); len(activeIn(md)) > 0 {
		t.Errorf("untrusted text is active in the Why section (%v):\n%s", activeIn(md), md)
	}
}
