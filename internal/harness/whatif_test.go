package harness

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// whatIfSpec parses a declaration applying change to one unit of the test
// ledger (the H100 InferenceX unit unless the name ends in -h200: the H200
// one).
func whatIfSpec(t *testing.T, name, change string) *whatif.Spec {
	t.Helper()
	unit := "test/ix/test-model-7b/h100"
	if strings.HasSuffix(name, "-h200") {
		unit = "test/ix/test-model-7b/h200"
	}
	raw := "schema_version: 1\nname: " + name + "\nversion: 1\ntitle: a test change\n" +
		"limitation: the stand-in's test limitation\nunits: [" + unit + "]\nchange:\n  " + change + "\n"
	s, err := whatif.Parse([]byte(raw), name+".yaml")
	if err != nil {
		t.Fatal(err)
	}
	return &s
}

// whatIfCatalog is a catalog holding the stand-in's test model's config
// (no quantization: bf16 weights).
func whatIfCatalog(t *testing.T) (string, *runresult.DataVersion) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "models", "test-model-7b")
	if err := os.MkdirAll(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "config.json"), []byte(`{"model_type": "llama", "num_hidden_layers": 4, "hidden_size": 512}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, &runresult.DataVersion{Name: "test-catalog", Version: "1", Digest: "sha256:" + strings.Repeat("01", 32), Release: true}
}

// TestScoreWhatIfModelConfig: a merge patch on the catalog's config.json
// ({"quantization_config": {"bits": 4}}) reaches the stand-in, which prices
// the weights at 4 bits: every TPOT of the what-if's unit is a quarter of
// the plain run's and every TTFT is unchanged; only that unit is scored;
// the result is labelled "what-if: NAME" with the patch and its digest in
// the provenance; the catalog on disk is unchanged; and another patch
// (8 bits) gives other replay digests, so a --reuse of the first never
// serves the second.
func TestScoreWhatIfModelConfig(t *testing.T) {
	ctx := context.Background()
	o := scoreOpts(t, "ledger", "v0.2.0")
	o.Catalog, o.CatalogVersion = whatIfCatalog(t)
	base, err := Score(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	plain := pointsByID(base.Points)

	o.WhatIf = whatIfSpec(t, "bits-4", `model_config: {model: test-model-7b, merge_patch: '{"quantization_config": {"bits": 4}}'}`)
	res, err := Score(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 4 {
		t.Fatalf("%d points, want the 4 of test/ix/test-model-7b/h100", len(res.Points))
	}
	for _, p := range res.Points {
		b := plain[p.ID]
		if p.Detail == DetailExcluded {
			continue
		}
		if p.Unit != "test/ix/test-model-7b/h100" || !p.Scored || !b.Scored {
			t.Fatalf("point %s (%s): scored %v, plain scored %v", p.ID, p.Unit, p.Scored, b.Scored)
		}
		if got, want := p.Predicted["tpot_ms"], b.Predicted["tpot_ms"]/4; math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: TPOT %v, want a quarter of the plain %v", p.ID, got, b.Predicted["tpot_ms"])
		}
		if p.Predicted["ttft_ms"] != b.Predicted["ttft_ms"] {
			t.Errorf("%s: TTFT %v, want the plain %v", p.ID, p.Predicted["ttft_ms"], b.Predicted["ttft_ms"])
		}
		if p.ReplayDigest == "" || p.ReplayDigest == b.ReplayDigest {
			t.Errorf("%s: replay digest %q, the plain run's %q: the patch must change it", p.ID, p.ReplayDigest, b.ReplayDigest)
		}
	}
	s := res.Summary
	if s.Label != "what-if: bits-4" || !strings.Contains(s.LabelReasons[0], "quantization_config") {
		t.Errorf("label %q %q", s.Label, s.LabelReasons)
	}
	w := s.Provenance.WhatIf
	if w == nil || w.Name != "bits-4" || w.Kind != whatif.KindModelConfig || w.Patch != `{"quantization_config":{"bits":4}}` || w.Digest != o.WhatIf.Digest() {
		t.Errorf("provenance what_if %+v", w)
	}
	if s.Provenance.Catalog.Digest != "sha256:"+strings.Repeat("01", 32) || s.Provenance.Selection.Whole() {
		t.Errorf("catalog %+v selection %+v: the catalog recorded is the unpatched one, and a what-if is never the whole corpus", s.Provenance.Catalog, s.Provenance.Selection)
	}
	if raw, _ := os.ReadFile(filepath.Join(o.Catalog, "models", "test-model-7b", "config.json")); strings.Contains(string(raw), "bits") {
		t.Errorf("the catalog itself was patched: %s", raw)
	}
	out := t.TempDir()
	if err := runresult.Write(out, runresult.Output{Result: res.Result, Markdown: "x"}); err != nil {
		t.Fatalf("a what-if run does not validate: %v", err)
	}

	o.Reuse = NewReuse("bits-4", res.Points)
	o.WhatIf = whatIfSpec(t, "bits-4", `model_config: {model: test-model-7b, merge_patch: '{"quantization_config": {"bits": 8}}'}`)
	res8, err := Score(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if res8.Summary.Coverage.Reused != 0 {
		t.Errorf("%d points reused from another patch", res8.Summary.Coverage.Reused)
	}
	for _, p := range res8.Points {
		if p.Detail == DetailExcluded {
			continue
		}
		if got, want := p.Predicted["tpot_ms"], plain[p.ID].Predicted["tpot_ms"]/2; math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: 8-bit TPOT %v, want %v", p.ID, got, want)
		}
	}
	o.Reuse = NewReuse("bits-8", res8.Points)
	again, err := Score(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Summary.Coverage.Reused != 3 {
		t.Errorf("the same patch again: %d of 3 reused (the 4th is excluded in the ledger)", again.Summary.Coverage.Reused)
	}
}

// TestScoreWhatIfHardwareAndFlag: a hardware field (H200's BwPeakTBs, the
// registry's 4.8, halved: the stand-in's decode time doubles) and a simulator flag (one the
// build lacks: not scored, saying so; one the harness already passes:
// refused), and the changes a run cannot make (no catalog, no hardware
// configuration, a GPU or model it lacks) are errors naming the what-if.
func TestScoreWhatIfHardwareAndFlag(t *testing.T) {
	ctx := context.Background()
	o := scoreOpts(t, "ledger", "v0.2.0")
	o.Hardware, o.HardwareVersion = testRegistry(true)
	base, err := Score(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	plain := pointsByID(base.Points)
	o.WhatIf = whatIfSpec(t, "half-bw-h200", `hardware: {gpu: H200, field: BwPeakTBs, value: 2.4}`)
	res, err := Score(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) == 0 {
		t.Fatal("no point")
	}
	for _, p := range res.Points {
		if got, want := p.Predicted["tpot_ms"], 2*plain[p.ID].Predicted["tpot_ms"]; !p.Scored || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: TPOT %v, want twice the plain %v", p.ID, got, plain[p.ID].Predicted["tpot_ms"])
		}
	}
	if w := res.Summary.Provenance.WhatIf; w == nil || w.Patch != `{"H200":{"BwPeakTBs":2.4}}` {
		t.Errorf("provenance what_if %+v", w)
	}

	o.WhatIf = whatIfSpec(t, "no-flag", `simulator_flag: {flag: --no-such-flag, value: "1"}`)
	res, err = Score(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Points {
		if p.Detail == DetailExcluded {
			continue
		}
		if p.Scored || p.Reason != "simulator-build-unsupported" || !strings.Contains(p.Detail, "--no-such-flag") {
			t.Errorf("%s: %v %s %s, want not scored naming the flag", p.ID, p.Scored, p.Reason, p.Detail)
		}
	}
	o.WhatIf = whatIfSpec(t, "passed-flag", `simulator_flag: {flag: --max-model-len, value: "1"}`)
	if res, err = Score(ctx, o); err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Points {
		if p.Detail == DetailExcluded {
			continue
		}
		if p.Scored || !strings.Contains(p.Detail, "already passes") {
			t.Errorf("%s: %v %s %s, want refused: the harness passes --max-model-len", p.ID, p.Scored, p.Reason, p.Detail)
		}
	}

	for _, tc := range []struct{ change, want string }{
		{`model_config: {model: test-model-7b, merge_patch: '{"a": 1}'}`, "no catalog is handed"},
		{`hardware: {gpu: X999, field: BwPeakTBs, value: 1}`, `no GPU "X999"`},
		{`hardware: {gpu: H100, field: BwPeakTBs, value: 1}`, `no field "BwPeakTBs"`},
	} {
		o.WhatIf = whatIfSpec(t, "bad", tc.change)
		if _, err := Score(ctx, o); err == nil || !strings.Contains(err.Error(), "what-if bad: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.change, err, tc.want)
		}
	}
	o.Catalog, o.CatalogVersion = whatIfCatalog(t)
	o.WhatIf = whatIfSpec(t, "bad", `model_config: {model: no-such-model, merge_patch: '{"a": 1}'}`)
	if _, err := Score(ctx, o); err == nil || !strings.Contains(err.Error(), "no-such-model") {
		t.Errorf("a model the catalog lacks: err = %v", err)
	}
	o.Hardware, o.HardwareVersion = nil, nil
	o.WhatIf = whatIfSpec(t, "bad", `hardware: {gpu: H100, field: BwPeakTBs, value: 1}`)
	if _, err := Score(ctx, o); err == nil || !strings.Contains(err.Error(), "none is handed") {
		t.Errorf("no hardware configuration: err = %v", err)
	}
}
