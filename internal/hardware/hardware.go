// Package hardware is the harness's hardware registry: GPUs a simulator build
// may not know (its hardware_config.json lacks them), each value with its
// evidence and its source. The harness merges the registry into a build's own
// hardware configuration (the build's entries always win) and hands the
// result to builds that take --hardware-config; a point whose GPU came from
// the registry takes the entry's weakest evidence as its own. Pure: parsing,
// checking and merging bytes; reading files is the caller's.
package hardware

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// SchemaVersion is the registry format's version.
const SchemaVersion = 1

// File is the registry's file name in a registry directory.
const File = "registry.json"

// MaxBytes caps a registry file: a real one is a few kilobytes.
const MaxBytes = 1 << 20

// Registry is a registry file.
type Registry struct {
	SchemaVersion int    `json:"schema_version"`
	Name          string `json:"name"`
	Version       string `json:"version"`
	// Release: this version is published and immutable.
	Release     bool   `json:"release"`
	Description string `json:"description,omitempty"`
	// GPUs by the name the simulator's --hardware takes ("H200").
	GPUs map[string]GPU `json:"gpus"`
}

// GPU is one entry: the simulator's HardwareCalib fields, each a Value.
type GPU struct {
	// Source names the document the entry's published values come from.
	Source string `json:"source"`
	// TFlopsPeak is dense BF16/FP16 Tensor Core TFLOPS.
	TFlopsPeak Value `json:"TFlopsPeak"`
	// TFlopsFP8 is dense FP8 Tensor Core TFLOPS (0: no native FP8).
	TFlopsFP8 Value `json:"TFlopsFP8"`
	// BwPeakTBs is the peak memory bandwidth in TB/s.
	BwPeakTBs Value `json:"BwPeakTBs"`
	// MemoryGiB is the memory per GPU, as the simulator's entries state it
	// (the vendor's GB figure: 80 for the 80 GB H100).
	MemoryGiB Value `json:"MemoryGiB"`
	// MfuPrefill and MfuDecode are the roofline model's calibration
	// factors (model FLOPs utilisation in prefill and decode).
	MfuPrefill Value `json:"mfuPrefill"`
	MfuDecode  Value `json:"mfuDecode"`
}

// Value is one figure with its evidence (measured, resolved: from a
// published document, assumed: a best guess) and where it came from.
type Value struct {
	Value    float64         `json:"value"`
	Evidence ledger.Evidence `json:"evidence"`
	Note     string          `json:"note"`
}

// fields lists a GPU's values by their JSON name, in the simulator's order.
func (g GPU) fields() []struct {
	name string
	v    Value
} {
	return []struct {
		name string
		v    Value
	}{
		{"TFlopsPeak", g.TFlopsPeak}, {"TFlopsFP8", g.TFlopsFP8}, {"BwPeakTBs", g.BwPeakTBs},
		{"mfuPrefill", g.MfuPrefill}, {"mfuDecode", g.MfuDecode}, {"MemoryGiB", g.MemoryGiB},
	}
}

// Evidence is the weakest evidence of the entry's values.
func (g GPU) Evidence() ledger.Evidence {
	e := ledger.Measured
	for _, f := range g.fields() {
		e = ledger.Weaker(e, f.v.Evidence)
	}
	return e
}

var gpuName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Parse reads a registry strictly (unknown fields, trailing data, a wrong
// type are errors) and checks every value; name names the file in errors,
// which list every problem found.
func Parse(raw []byte, name string) (*Registry, error) {
	if len(raw) > MaxBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a hardware registry may have", name, len(raw), MaxBytes)
	}
	var r Registry
	if err := jsoncodec.Decode(raw, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if r.SchemaVersion != SchemaVersion {
		bad("schema_version %d, want %d", r.SchemaVersion, SchemaVersion)
	}
	if strings.TrimSpace(r.Name) == "" {
		bad("name is blank")
	}
	if strings.TrimSpace(r.Version) == "" {
		bad("version is blank")
	}
	if len(r.GPUs) == 0 {
		bad("gpus: no GPU")
	}
	for _, n := range slices.Sorted(maps.Keys(r.GPUs)) {
		g := r.GPUs[n]
		if !gpuName.MatchString(n) {
			bad("gpus: %q is not a GPU name the simulator's --hardware takes (letters, digits, . _ -)", n)
		}
		if strings.TrimSpace(g.Source) == "" {
			bad("gpus.%s.source is blank: name the document its values come from", n)
		}
		for _, f := range g.fields() {
			at := "gpus." + n + "." + f.name
			switch v := f.v.Value; {
			case f.v.Evidence == "" && v == 0 && f.v.Note == "":
				bad("%s is missing", at)
				continue
			case math.IsNaN(v) || math.IsInf(v, 0):
				bad("%s: %v is not a finite number", at, v)
			case f.name == "TFlopsFP8" && v < 0:
				bad("%s: %v is negative (0 means no native FP8)", at, v)
			case (f.name == "mfuPrefill" || f.name == "mfuDecode") && (v <= 0 || v > 1):
				bad("%s: %v is not a utilisation in (0, 1]", at, v)
			case f.name != "TFlopsFP8" && v <= 0:
				bad("%s: %v is not positive", at, v)
			}
			if !f.v.Evidence.Valid() {
				bad("%s.evidence %q: want measured, resolved or assumed", at, f.v.Evidence)
			}
			if strings.TrimSpace(f.v.Note) == "" {
				bad("%s.note is blank: say where the value comes from", at)
			}
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: %s", name, strings.Join(errs, "; "))
	}
	return &r, nil
}

// Digest is "sha256:<hex>" of a registry file's bytes.
func Digest(raw []byte) string {
	h := sha256.Sum256(raw)
	return ident.Digest(h[:])
}

// Merge returns the hardware configuration to hand a build: its own
// configuration (build, the bytes of its hardware_config.json; nil or empty
// when it has none), every entry kept as it is, plus an entry for each GPU
// of the registry the build does not have. supplied lists those GPUs,
// sorted. The output is deterministic (keys sorted, two-space indent). A
// build configuration that is not a JSON object of objects is an error.
func Merge(build []byte, r *Registry) (out []byte, supplied []string, err error) {
	entries, err := buildEntries(build)
	if err != nil {
		return nil, nil, err
	}
	if r == nil {
		return nil, nil, errors.New("no hardware registry")
	}
	for _, n := range slices.Sorted(maps.Keys(r.GPUs)) {
		if _, ok := entries[n]; ok {
			continue // the build's own entry wins
		}
		g := r.GPUs[n]
		e := map[string]any{"_comment": fmt.Sprintf("supplied by the accuracy harness from hardware registry %s %s (%s evidence): %s", r.Name, r.Version, g.Evidence(), g.Source)}
		for _, f := range g.fields() {
			e[f.name] = f.v.Value
		}
		raw, err := json.Marshal(e)
		if err != nil {
			return nil, nil, err
		}
		entries[n] = raw
		supplied = append(supplied, n)
	}
	out, err = json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	return append(out, '\n'), supplied, nil
}

// BuildGPUs lists the GPUs of a build's own hardware configuration (its
// hardware_config.json; empty: none), sorted: the names its --hardware
// takes. A configuration that is not a JSON object of objects is an error.
func BuildGPUs(build []byte) ([]string, error) {
	entries, err := buildEntries(build)
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(entries)), nil
}

// buildEntries decodes a build's hardware configuration: a JSON object of
// GPU objects (empty: none).
func buildEntries(build []byte) (map[string]json.RawMessage, error) {
	entries := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(build)) > 0 {
		if err := json.Unmarshal(build, &entries); err != nil {
			return nil, fmt.Errorf("the build's hardware configuration is not a JSON object of GPUs: %v", err)
		}
		for n, e := range entries {
			if t := bytes.TrimSpace(e); len(t) == 0 || t[0] != '{' {
				return nil, fmt.Errorf("the build's hardware configuration: GPU %q is not an object", n)
			}
		}
	}
	return entries, nil
}
