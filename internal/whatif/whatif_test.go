package whatif

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/inference-sim/accuracy-dashboard/corpus"
)

const validSpec = `schema_version: 1
name: m-4bit
version: 2
title: m at 4-bit weights
limitation: the simulator reads no precision from this quantization
units: [inferencex/m]
change:
  model_config:
    model: m
    merge_patch: '{"quantization_config": {"bits": 4}}'
`

func TestParseValid(t *testing.T) {
	t.Parallel()
	s, err := Parse([]byte(validSpec), "m-4bit.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "m-4bit" || s.Version != 2 || s.Change.Kind() != KindModelConfig || s.Units[0] != "inferencex/m" {
		t.Fatalf("parsed %+v", s)
	}
	if got, want := s.Change.String(), `models/m/config.json merge patch {"quantization_config":{"bits":4}}`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, edit, want string }{
		{"unknown field", "version: 2\n", "version: 2\ncolour: red\n"},
		{"schema version", "schema_version: 1", "schema_version: 2"},
		{"bad name", "name: m-4bit", "name: M 4bit"},
		{"version 0", "version: 2", "version: 0"},
		{"two-line limitation", "limitation: the simulator reads no precision from this quantization", "limitation: \"a\\nb\""},
		{"no units", "units: [inferencex/m]", "units: []"},
		{"bad glob", "units: [inferencex/m]", "units: ['inferencex/[']"},
		{"patch not an object", `'{"quantization_config": {"bits": 4}}'`, `'[1]'`},
		{"patch not JSON", `'{"quantization_config": {"bits": 4}}'`, `'{bits'`},
		{"two changes", "change:\n", "change:\n  simulator_flag: {flag: --x, value: '1'}\n"},
		{"alias", "units: [inferencex/m]", "units: &u [inferencex/m]\nx: *u"},
	} {
		raw := strings.Replace(validSpec, tc.edit, tc.want, 1)
		if raw == validSpec {
			t.Fatalf("%s: the edit did not apply", tc.name)
		}
		if _, err := Parse([]byte(raw), "m-4bit.yaml"); err == nil || !strings.Contains(err.Error(), "m-4bit.yaml") {
			t.Errorf("%s: err = %v, want an error naming the file", tc.name, err)
		}
	}
	noChange := strings.Split(validSpec, "change:")[0] + "change: {}\n"
	if _, err := Parse([]byte(noChange), "x.yaml"); err == nil || !strings.Contains(err.Error(), "exactly one of") {
		t.Errorf("no change: err = %v", err)
	}
	for _, c := range []string{
		"hardware: {gpu: H100, field: BwPeakTBs, value: 0}",
		"hardware: {gpu: '', field: BwPeakTBs, value: 1}",
		"hardware: {gpu: H100, field: 'a b', value: 1}",
		"simulator_flag: {flag: -x, value: '1'}",
	} {
		raw := strings.Split(validSpec, "change:")[0] + "change:\n  " + c + "\n"
		if _, err := Parse([]byte(raw), "x.yaml"); err == nil {
			t.Errorf("%s: accepted", c)
		}
	}
}

func TestDigestChangesWithThePatch(t *testing.T) {
	t.Parallel()
	a, err := Parse([]byte(validSpec), "a.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Parse([]byte(strings.Replace(validSpec, `"bits": 4`, `"bits": 8`, 1)), "b.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if a.Digest() == b.Digest() {
		t.Errorf("two patches, one digest %s", a.Digest())
	}
	if a.Digest() != a.Digest() || !strings.HasPrefix(a.Digest(), "sha256:") {
		t.Errorf("digest %q", a.Digest())
	}
}

func TestLoadAndSelect(t *testing.T) {
	t.Parallel()
	other := strings.NewReplacer("name: m-4bit", "name: a-flag", "  model_config:\n    model: m\n    merge_patch: '{\"quantization_config\": {\"bits\": 4}}'", "  simulator_flag: {flag: --x, value: '1'}").Replace(validSpec)
	fsys := fstest.MapFS{
		"m-4bit.yaml": {Data: []byte(validSpec)},
		"a-flag.yaml": {Data: []byte(other)},
		"README.md":   {Data: []byte("about")},
	}
	specs, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 2 || specs[0].Name != "a-flag" || specs[1].Name != "m-4bit" {
		t.Fatalf("loaded %+v", specs)
	}
	if got, err := Select(specs, All); err != nil || len(got) != 2 {
		t.Errorf("all: %v, %v", got, err)
	}
	if got, err := Select(specs, "m-4bit, m-4bit"); err != nil || len(got) != 1 || got[0].Name != "m-4bit" {
		t.Errorf("one name: %v, %v", got, err)
	}
	if _, err := Select(specs, "nope"); err == nil || !strings.Contains(err.Error(), "a-flag, m-4bit") {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := Load(fstest.MapFS{"x.yaml": {Data: []byte(validSpec)}}); err == nil || !strings.Contains(err.Error(), "m-4bit.yaml") {
		t.Errorf("misnamed file: %v", err)
	}
	if _, err := Load(fstest.MapFS{"x.json": {Data: []byte("{}")}}); err == nil {
		t.Error("a file that is no declaration was accepted")
	}
}

// TestBundled checks the shipped declarations: each parses, and the
// gpt-oss one is the patch on gpt-oss-120b's catalog config.
func TestBundled(t *testing.T) {
	t.Parallel()
	specs, err := Load(corpus.WhatIf())
	if err != nil {
		t.Fatal(err)
	}
	s, err := Select(specs, "gpt-oss-120b-mxfp4")
	if err != nil {
		t.Fatal(err)
	}
	m := s[0].Change.ModelConfig
	if m == nil || m.Model != "gpt-oss-120b" || compactJSON(m.MergePatch) != `{"quantization_config":{"bits":4}}` {
		t.Fatalf("gpt-oss-120b-mxfp4: %+v", s[0].Change)
	}
	raw, err := os.ReadFile("../../corpus/catalog/models/gpt-oss-120b/config.json")
	if err != nil {
		t.Fatal(err)
	}
	out, err := ApplyMergePatch(raw, []byte(m.MergePatch))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"bits": 4`, `"quant_method": "mxfp4"`, `"num_local_experts": 128`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("patched config lacks %s", want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(validSpec))
	f.Add([]byte("schema_version: 1\nchange: {hardware: {gpu: H100, field: BwPeakTBs, value: 3}}\n"))
	f.Add([]byte("a: &x 1\nb: *x\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := Parse(raw, "fuzz.yaml")
		if err != nil {
			return
		}
		if s.Change.Kind() == "" || s.Name == "" || len(s.Units) == 0 || s.Digest() == "" {
			t.Fatalf("accepted an incomplete what-if: %+v", s)
		}
	})
}
