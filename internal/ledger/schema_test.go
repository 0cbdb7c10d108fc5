package ledger_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/schemas"
)

// fixtureLedger is the importer's golden fixture ledger: real importer
// output with every client, per-point overrides and a marked point.
const fixtureLedger = "../importer/testdata/golden/fixture-ledger"

// TestFixtureLedgerMatchesSchemas validates the fixture ledger's manifest
// and every unit against the JSON Schemas: it has what the bundled corpus
// lacks (a marked point, the inference-perf client beside InferenceX).
func TestFixtureLedgerMatchesSchemas(t *testing.T) {
	t.Parallel()
	if err := ledger.CheckSchemas(os.DirFS(fixtureLedger)); err != nil {
		t.Error(err)
	}
}

// TestSchemaAgreesWithLoader breaks a valid unit in ways the loader refuses
// and checks the schema refuses each too (and accepts the valid one).
func TestSchemaAgreesWithLoader(t *testing.T) {
	t.Parallel()
	const id = "inference-perf/llama-2-7b-hf/h100/tp1/20260217-155451-codegen"
	good, err := os.ReadFile(filepath.Join(fixtureLedger, filepath.FromSlash(ledger.UnitPath(id))))
	if err != nil {
		t.Fatal(err)
	}
	xID := "inferencex/gpt-oss-120b/h100/tp2/isl1024-osl1024"
	goodX, err := os.ReadFile(filepath.Join(fixtureLedger, filepath.FromSlash(ledger.UnitPath(xID))))
	if err != nil {
		t.Fatal(err)
	}
	manifest := []byte(`{"schema_version":1,"name":"t","version":"1","release":false}`)
	load := func(unitID string, raw []byte) error {
		_, err := ledger.Load(fstest.MapFS{
			ledger.ManifestFile:     {Data: manifest},
			ledger.UnitPath(unitID): {Data: raw},
		})
		return err
	}
	edit := func(raw []byte, f func(u map[string]any)) []byte {
		var u map[string]any
		if err := json.Unmarshal(raw, &u); err != nil {
			t.Fatal(err)
		}
		f(u)
		b, _ := json.Marshal(u)
		return b
	}
	dig := func(m map[string]any, keys ...string) map[string]any {
		for _, k := range keys {
			m = m[k].(map[string]any)
		}
		return m
	}
	point := func(u map[string]any, i int) map[string]any { return u["points"].([]any)[i].(map[string]any) }
	cases := []struct {
		name string
		id   string
		raw  []byte
	}{
		{"unknown field", id, edit(good, func(u map[string]any) { u["colour"] = "red" })},
		{"bad evidence", id, edit(good, func(u map[string]any) { dig(u, "deployment", "tensor_parallel")["evidence"] = "guessed" })},
		{"tp zero", id, edit(good, func(u map[string]any) { dig(u, "deployment", "tensor_parallel")["value"] = 0 })},
		{"uppercase id", "Inference-perf/x", edit(good, func(u map[string]any) { u["id"] = "Inference-perf/x" })},
		{"no points", id, edit(good, func(u map[string]any) { u["points"] = []any{} })},
		{"zero ttft", id, edit(good, func(u map[string]any) { dig(point(u, 0), "measured")["ttft_ms"] = 0 })},
		{"missing tpot", id, edit(good, func(u map[string]any) { delete(dig(point(u, 0), "measured"), "tpot_ms") })},
		{"rate point missing duration", id, edit(good, func(u map[string]any) { delete(dig(point(u, 0), "load"), "duration_s") })},
		{"wrong client section", id, edit(good, func(u map[string]any) { dig(u, "workload")["client"] = ledger.ClientInferenceX })},
		{"unknown client", id, edit(good, func(u map[string]any) { dig(u, "workload")["client"] = "wrk" })},
		{"gpu memory over 1", id, edit(good, func(u map[string]any) {
			dig(u, "deployment", "engine_settings", "gpu_memory_utilization")["value"] = 1.5
		})},
		{"string seed", id, edit(good, func(u map[string]any) { dig(u, "workload")["seed"] = "7" })},
		{"empty engine version", id, edit(good, func(u map[string]any) { dig(point(u, 0), "provenance")["engine_version"] = " " })},
		{"closed-loop point with rate", xID, edit(goodX, func(u map[string]any) { dig(point(u, 0), "load")["rate"] = 3 })},
		{"closed-loop point without concurrency", xID, edit(goodX, func(u map[string]any) { delete(dig(point(u, 0), "load"), "concurrency") })},
		{"range ratio 0", xID, edit(goodX, func(u map[string]any) { dig(u, "workload", "inferencex")["range_ratio"] = 0 })},
		{"derivation not derived", id, edit(good, func(u map[string]any) {
			dig(point(u, 0), "measured", "tpot_derivation")["evidence"] = "measured"
		})},
		{"derivation without recorded tpot", id, edit(good, func(u map[string]any) {
			delete(dig(point(u, 0), "measured", "tpot_derivation"), "recorded_tpot_ms")
		})},
		{"derivation over one token", id, edit(good, func(u map[string]any) {
			dig(point(u, 0), "measured", "tpot_derivation")["output_tokens"] = 1
		})},
		{"negative failed requests", id, edit(good, func(u map[string]any) { dig(point(u, 0), "measured")["failed_requests"] = -1 })},
		{"override unknown setting", xID, edit(goodX, func(u map[string]any) {
			dig(point(u, 0), "overrides")["swap_space"] = map[string]any{"value": 4, "evidence": "assumed"}
		})},
	}
	for _, ok := range []struct {
		id  string
		raw []byte
	}{{id, good}, {xID, goodX}} {
		if err := schemas.Validate(schemas.LedgerUnit, ok.raw); err != nil {
			t.Errorf("valid unit %s fails the schema: %v", ok.id, err)
		}
		if err := load(ok.id, ok.raw); err != nil {
			t.Errorf("valid unit %s fails the loader: %v", ok.id, err)
		}
	}
	for _, tc := range cases {
		schemaErr := schemas.Validate(schemas.LedgerUnit, tc.raw)
		loadErr := load(tc.id, tc.raw)
		if schemaErr == nil || loadErr == nil {
			t.Errorf("%s: schema error %v, loader error %v; want both to refuse", tc.name, schemaErr, loadErr)
		}
	}
}

// TestSchemaPropertiesMatchGoTypes walks the ledger's Go types and checks
// that every schema object lists exactly the struct's JSON fields, requires
// exactly those without omitempty, and gives each the matching JSON type.
func TestSchemaPropertiesMatchGoTypes(t *testing.T) {
	t.Parallel()
	for name, typ := range map[string]reflect.Type{
		schemas.LedgerUnit:     reflect.TypeOf(ledger.Unit{}),
		schemas.LedgerManifest: reflect.TypeOf(ledger.Manifest{}),
	} {
		raw, err := fs.ReadFile(schemas.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		checkSchemaType(t, doc, doc, typ, name)
	}
}

func checkSchemaType(t *testing.T, root, node map[string]any, typ reflect.Type, where string) {
	t.Helper()
	for {
		ref, ok := node["$ref"].(string)
		if !ok {
			break
		}
		def := strings.TrimPrefix(ref, "#/$defs/")
		node = root["$defs"].(map[string]any)[def].(map[string]any)
		where += "→" + def
	}
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	jsonType, _ := node["type"].(string)
	switch typ.Kind() {
	case reflect.Struct:
		if jsonType != "object" || node["additionalProperties"] != false {
			t.Errorf("%s: want a closed object for %s", where, typ)
			return
		}
		props, _ := node["properties"].(map[string]any)
		var fields, required []string
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			tag := f.Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			fields = append(fields, name)
			if !strings.Contains(opts, "omitempty") {
				required = append(required, name)
			}
			p, ok := props[name].(map[string]any)
			if !ok {
				t.Errorf("%s: no property %q for %s.%s", where, name, typ, f.Name)
				continue
			}
			checkSchemaType(t, root, p, f.Type, where+"."+name)
		}
		var listed []string
		for k := range props {
			listed = append(listed, k)
		}
		var req []string
		for _, r := range asSlice(node["required"]) {
			req = append(req, r.(string))
		}
		sort.Strings(fields)
		sort.Strings(listed)
		sort.Strings(required)
		sort.Strings(req)
		if d := cmp.Diff(fields, listed); d != "" {
			t.Errorf("%s: properties of %s (-go +schema):\n%s", where, typ, d)
		}
		if d := cmp.Diff(required, req); d != "" {
			t.Errorf("%s: required of %s (-go +schema):\n%s", where, typ, d)
		}
	case reflect.Slice:
		if jsonType != "array" {
			t.Errorf("%s: want an array for %s", where, typ)
			return
		}
		checkSchemaType(t, root, node["items"].(map[string]any), typ.Elem(), where+"[]")
	case reflect.String:
		if jsonType != "string" && node["enum"] == nil && node["const"] == nil {
			t.Errorf("%s: want a string for %s", where, typ)
		}
	case reflect.Bool:
		if jsonType != "boolean" {
			t.Errorf("%s: want a boolean for %s", where, typ)
		}
	case reflect.Int, reflect.Uint64:
		if jsonType != "integer" && node["const"] == nil {
			t.Errorf("%s: want an integer for %s", where, typ)
		}
	case reflect.Float64:
		if jsonType != "number" {
			t.Errorf("%s: want a number for %s", where, typ)
		}
	default:
		t.Errorf("%s: unexpected Go type %s", where, typ)
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func TestCheckSchemasRefuses(t *testing.T) {
	t.Parallel()
	manifest := []byte(`{"schema_version":1,"name":"t","version":"1","release":false}`)
	if err := ledger.CheckSchemas(fstest.MapFS{ledger.ManifestFile: {Data: manifest}}); err == nil || !strings.Contains(err.Error(), "no unit files") {
		t.Errorf("ledger without units: %v", err)
	}
	bad := fstest.MapFS{
		ledger.ManifestFile:    {Data: []byte(`{"schema_version":2,"name":"t","version":"1","release":false}`)},
		ledger.UnitPath("a/b"): {Data: []byte(`{"id":"a/b"}`)},
	}
	err := ledger.CheckSchemas(bad)
	if err == nil || !strings.Contains(err.Error(), ledger.ManifestFile) || !strings.Contains(err.Error(), "units/a/b.json") {
		t.Errorf("bad manifest and unit: %v, want both named", err)
	}
}
