package hardware

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

func value(v float64, e ledger.Evidence) Value { return Value{Value: v, Evidence: e, Note: "test"} }

func testGPU(mfu ledger.Evidence) GPU {
	return GPU{Source: "a datasheet", TFlopsPeak: value(989.5, ledger.Resolved), TFlopsFP8: value(1979, ledger.Resolved),
		BwPeakTBs: value(4.8, ledger.Resolved), MemoryGiB: value(141, ledger.Resolved),
		MfuPrefill: value(0.45, mfu), MfuDecode: value(0.3, mfu)}
}

func encode(t *testing.T, r Registry) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func validRegistry() Registry {
	return Registry{SchemaVersion: 1, Name: "test-hw", Version: "1", Release: true,
		GPUs: map[string]GPU{"H200": testGPU(ledger.Assumed), "X1": testGPU(ledger.Resolved)}}
}

func TestParseValid(t *testing.T) {
	t.Parallel()
	r, err := Parse(encode(t, validRegistry()), "reg.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.GPUs["H200"].Evidence(); got != ledger.Assumed {
		t.Errorf("H200 evidence %s, want assumed (its MFUs are)", got)
	}
	if got := r.GPUs["X1"].Evidence(); got != ledger.Resolved {
		t.Errorf("X1 evidence %s, want resolved", got)
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	edit := func(f func(*Registry)) []byte {
		r := validRegistry()
		r.GPUs = map[string]GPU{"H200": testGPU(ledger.Assumed)}
		f(&r)
		return encode(t, r)
	}
	gpu := func(f func(*GPU)) []byte {
		return edit(func(r *Registry) { g := r.GPUs["H200"]; f(&g); r.GPUs["H200"] = g })
	}
	for name, c := range map[string]struct {
		raw  []byte
		want string
	}{
		"empty":          {[]byte(""), "empty file"},
		"unknown field":  {[]byte(`{"schema_version":1,"name":"a","version":"1","release":false,"gpus":{},"extra":1}`), `unknown field "extra"`},
		"trailing":       {append(edit(func(*Registry) {}), []byte(" {}")...), "trailing data"},
		"wrong version":  {edit(func(r *Registry) { r.SchemaVersion = 2 }), "schema_version 2, want 1"},
		"blank name":     {edit(func(r *Registry) { r.Name = " " }), "name is blank"},
		"no gpu":         {edit(func(r *Registry) { r.GPUs = nil }), "gpus: no GPU"},
		"bad gpu name":   {edit(func(r *Registry) { r.GPUs = map[string]GPU{"H 200": testGPU(ledger.Resolved)} }), `"H 200" is not a GPU name`},
		"no source":      {gpu(func(g *GPU) { g.Source = "" }), "gpus.H200.source is blank"},
		"missing value":  {gpu(func(g *GPU) { g.BwPeakTBs = Value{} }), "gpus.H200.BwPeakTBs is missing"},
		"zero bandwidth": {gpu(func(g *GPU) { g.BwPeakTBs = value(0, ledger.Resolved) }), "gpus.H200.BwPeakTBs: 0 is not positive"},
		"negative fp8":   {gpu(func(g *GPU) { g.TFlopsFP8 = value(-1, ledger.Resolved) }), "gpus.H200.TFlopsFP8: -1 is negative"},
		"mfu above 1":    {gpu(func(g *GPU) { g.MfuDecode = value(1.5, ledger.Assumed) }), "gpus.H200.mfuDecode: 1.5 is not a utilisation"},
		"bad evidence":   {gpu(func(g *GPU) { g.MemoryGiB.Evidence = "datasheet" }), `gpus.H200.MemoryGiB.evidence "datasheet"`},
		"blank note":     {gpu(func(g *GPU) { g.TFlopsPeak.Note = "" }), "gpus.H200.TFlopsPeak.note is blank"},
		"string value":   {[]byte(`{"schema_version":"1"}`), "schema_version"},
	} {
		_, err := Parse(c.raw, "reg.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "reg.json: ") {
			t.Errorf("%s: error %v, want one naming reg.json and %q", name, err, c.want)
		}
	}
	if _, err := Parse(make([]byte, MaxBytes+1), "big.json"); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("an oversized registry: %v", err)
	}
}

// TestMergeKeepsTheBuildsEntries: the build's own entries are handed on as
// they are, even for a GPU the registry has too; the registry supplies only
// the GPUs the build lacks, with its values.
func TestMergeKeepsTheBuildsEntries(t *testing.T) {
	t.Parallel()
	build := []byte(`{"H100": {"_comment": "own", "TFlopsPeak": 989.5, "BwPeakTBs": 3.35, "mfuPrefill": 0.45, "mfuDecode": 0.3, "MemoryGiB": 80, "TFlopsFP8": 1979}, "X1": {"TFlopsPeak": 1}}`)
	r := validRegistry()
	out, supplied, err := Merge(build, &r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(supplied, ",") != "H200" {
		t.Errorf("supplied %v, want [H200] (X1 is the build's own)", supplied)
	}
	var got map[string]map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("merged config is not JSON: %v\n%s", err, out)
	}
	if len(got) != 3 || got["X1"]["TFlopsPeak"] != 1.0 || got["H100"]["_comment"] != "own" || got["H100"]["BwPeakTBs"] != 3.35 {
		t.Errorf("the build's entries changed: %v", got)
	}
	h := got["H200"]
	if h["TFlopsPeak"] != 989.5 || h["TFlopsFP8"] != 1979.0 || h["BwPeakTBs"] != 4.8 || h["MemoryGiB"] != 141.0 || h["mfuPrefill"] != 0.45 || h["mfuDecode"] != 0.3 {
		t.Errorf("H200 entry %v", h)
	}
	if c, _ := h["_comment"].(string); !strings.Contains(c, "test-hw 1") || !strings.Contains(c, "assumed") {
		t.Errorf("H200 comment %q should name the registry and its evidence", c)
	}
	again, _, err := Merge(build, &r)
	if err != nil || string(again) != string(out) {
		t.Errorf("Merge is not deterministic: %v", err)
	}
}

func TestMergeWithoutABuildConfig(t *testing.T) {
	t.Parallel()
	r := validRegistry()
	out, supplied, err := Merge(nil, &r)
	if err != nil || strings.Join(supplied, ",") != "H200,X1" {
		t.Fatalf("supplied %v, err %v", supplied, err)
	}
	if !strings.HasSuffix(string(out), "}\n") {
		t.Errorf("output %q should end with a newline", out)
	}
}

func TestMergeRefusesABadBuildConfig(t *testing.T) {
	t.Parallel()
	r := validRegistry()
	for _, build := range []string{`[1]`, `{"H100": 3}`, `{"H100": {}`} {
		if _, _, err := Merge([]byte(build), &r); err == nil || !strings.Contains(err.Error(), "the build's hardware configuration") {
			t.Errorf("build config %s: error %v", build, err)
		}
	}
}

// BuildGPUs names the GPUs a build's --hardware takes, sorted, and refuses
// what Merge refuses.
func TestBuildGPUs(t *testing.T) {
	t.Parallel()
	gpus, err := BuildGPUs([]byte(`{"L40S": {"a": 1}, "H100": {}, "A100-80": {}}`))
	if err != nil || strings.Join(gpus, ",") != "A100-80,H100,L40S" {
		t.Errorf("gpus %v, err %v", gpus, err)
	}
	if gpus, err := BuildGPUs(nil); err != nil || len(gpus) != 0 {
		t.Errorf("no configuration: gpus %v, err %v", gpus, err)
	}
	for _, build := range []string{`[1]`, `{"H100": 3}`} {
		if _, err := BuildGPUs([]byte(build)); err == nil || !strings.Contains(err.Error(), "the build's hardware configuration") {
			t.Errorf("build config %s: error %v", build, err)
		}
	}
}

func TestDigest(t *testing.T) {
	t.Parallel()
	if d := Digest([]byte("")); d != "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("digest of nothing %s", d)
	}
}

// FuzzParse: Parse never panics, and a registry it accepts merges into any
// build configuration Merge accepts, supplying exactly the GPUs the build
// lacks.
func FuzzParse(f *testing.F) {
	r := validRegistry()
	b, _ := json.Marshal(r)
	f.Add(b, []byte(`{"H200": {}}`))
	f.Add([]byte(`{"schema_version":1,"name":"a","version":"1","release":false,"gpus":{"A":{}}}`), []byte(``))
	f.Add([]byte(`{}`), []byte(`{"X": {"a": 1}}`))
	f.Fuzz(func(t *testing.T, raw, build []byte) {
		r, err := Parse(raw, "fuzz.json")
		if err != nil {
			return
		}
		out, supplied, err := Merge(build, r)
		if err != nil {
			return
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("merged output is not a JSON object: %v", err)
		}
		for _, n := range supplied {
			if _, ok := got[n]; !ok {
				t.Fatalf("supplied %s is not in the output", n)
			}
		}
		for n := range r.GPUs {
			if _, ok := got[n]; !ok {
				t.Fatalf("registry GPU %s missing from the output", n)
			}
		}
	})
}
