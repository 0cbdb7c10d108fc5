package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/hardware"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// maxModelConfigBytes caps the catalog config.json a what-if patches.
const maxModelConfigBytes = 4 << 20

// appliedWhatIf is a what-if made ready for one run: the catalog directory
// and hardware configuration the simulator is handed instead, the
// arguments added to every command, and the record for the provenance.
type appliedWhatIf struct {
	catalog  string
	hardware string
	args     []string
	record   *runresult.WhatIf
}

// applyWhatIf prepares w's change in work: a model_config patch copies the
// catalog handed to the simulator (catalog, "" for none) and merges the
// patch into models/<model>/config.json of the copy; a hardware change
// sets the field of the GPU's entry in the hardware configuration file
// (hw, "" for none), which must exist with that field; a simulator flag is
// added to every command. A change this run cannot make (no catalog, no
// hardware configuration, a model or GPU it does not have) is an error
// naming the what-if and what is missing. takesCatalog says whether the
// build takes the catalog at all.
func applyWhatIf(w *whatif.Spec, catalog string, takesCatalog bool, hw, work string) (appliedWhatIf, error) {
	a := appliedWhatIf{catalog: catalog, hardware: hw}
	rec := &runresult.WhatIf{Name: w.Name, Version: w.Version, Title: w.Title, Limitation: w.Limitation,
		Units: slices.Clone(w.Units), Kind: w.Change.Kind(), Change: w.Change.String(), Digest: w.Digest()}
	fail := func(format string, args ...any) (appliedWhatIf, error) {
		return appliedWhatIf{}, fmt.Errorf("what-if %s: %s", w.Name, fmt.Sprintf(format, args...))
	}
	switch c := w.Change; {
	case c.ModelConfig != nil:
		m := c.ModelConfig
		if catalog == "" {
			return fail("it patches models/%s/config.json of the catalog, but no catalog is handed to the simulator (--catalog none)", m.Model)
		}
		if !takesCatalog {
			return fail("it patches the catalog, but this simulator build takes no --catalog or --model-config-folder")
		}
		src := filepath.Join(catalog, "models", m.Model, "config.json")
		raw, err := diskio.ReadPathMax(src, maxModelConfigBytes)
		if err != nil {
			return fail("the catalog's config of %s: %v", m.Model, err)
		}
		patched, err := whatif.ApplyMergePatch(raw, []byte(m.MergePatch))
		if err != nil {
			return fail("%s: %v", src, err)
		}
		dir := filepath.Join(work, "whatif-catalog")
		if err := os.CopyFS(dir, os.DirFS(catalog)); err != nil {
			return fail("copy the catalog %s: %v", catalog, err)
		}
		if err := diskio.WriteAtomic(filepath.Join(dir, "models", m.Model, "config.json"), patched); err != nil {
			return fail("%v", err)
		}
		a.catalog = dir
		rec.Patch = compact(m.MergePatch)
	case c.Hardware != nil:
		h := c.Hardware
		if hw == "" {
			return fail("it changes %s's %s in the hardware configuration, but none is handed to the simulator (a hardware registry and a build that takes --hardware-config)", h.GPU, h.Field)
		}
		raw, err := diskio.ReadPathMax(hw, hardware.MaxBytes)
		if err != nil {
			return fail("%v", err)
		}
		var cfg map[string]map[string]json.RawMessage
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return fail("the hardware configuration %s: %v", hw, err)
		}
		entry, ok := cfg[h.GPU]
		if !ok {
			return fail("the hardware configuration has no GPU %q", h.GPU)
		}
		if _, ok := entry[h.Field]; !ok {
			return fail("%s's entry has no field %q", h.GPU, h.Field)
		}
		patch, err := json.Marshal(map[string]map[string]float64{h.GPU: {h.Field: h.Value}})
		if err != nil {
			return fail("%v", err)
		}
		patched, err := whatif.ApplyMergePatch(raw, patch)
		if err != nil {
			return fail("%v", err)
		}
		path := filepath.Join(work, "whatif-"+filepath.Base(hw))
		if err := diskio.WriteAtomic(path, patched); err != nil {
			return fail("%v", err)
		}
		a.hardware = path
		rec.Patch = string(patch)
	case c.SimulatorFlag != nil:
		a.args = []string{c.SimulatorFlag.Flag, c.SimulatorFlag.Value}
		rec.Patch = strings.Join(a.args, " ")
	default:
		return fail("no change declared")
	}
	a.record = rec
	return a, nil
}

// whatIfArgs appends the what-if's arguments (flag, value) to a command of
// driver, refusing a flag the command does not list or the harness
// already passes.
func (r *Runner) whatIfArgs(driver string, args []string) ([]string, error) {
	if len(r.WhatIfArgs) == 0 {
		return args, nil
	}
	flag := r.WhatIfArgs[0]
	if !r.Caps.CommandFlags(driver).Has(strings.TrimPrefix(flag, "--")) {
		return nil, &SimError{simcli.ReasonUnsupportedBuild, fmt.Sprintf("what-if flag %s: this build's %s command lists no such flag", flag, args[0])}
	}
	if slices.Contains(args, flag) {
		return nil, errors.New("what-if flag " + flag + ": the harness already passes it")
	}
	return append(args, r.WhatIfArgs...), nil
}

func compact(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return s
	}
	return b.String()
}

// WhatIfRun is one what-if scored beside a plain run, and what it changed
// against it.
type WhatIfRun struct {
	Result      *Result
	Attribution whatif.Attribution
}

// WhatIfRuns are the what-ifs scored beside one plain run.
type WhatIfRuns []WhatIfRun

// Attributions are the runs' attributions, in order.
func (rs WhatIfRuns) Attributions() []whatif.Attribution {
	out := make([]whatif.Attribution, len(rs))
	for i, r := range rs {
		out[i] = r.Attribution
	}
	return out
}

// ScoreWhatIfs scores each what-if arg names among those declared in
// corpus/whatif/ (whatif.Declared: names or whatif.All; "" is none) with o
// (o.WhatIf set to it: its units among o.Units, its change made) and
// attributes it against plain, the run of o without a what-if. A named
// what-if none of whose units o selects is an error; with whatif.All it is
// left out with a log line.
func ScoreWhatIfs(ctx context.Context, o Options, plain runresult.Result, arg string) (WhatIfRuns, error) {
	if arg == "" {
		return nil, nil
	}
	specs, err := whatif.Declared(arg)
	if err != nil {
		return nil, err
	}
	skipUnmatched := arg == whatif.All
	selected, err := SelectUnits(o.Ledger.Units, o.Units)
	if err != nil {
		return nil, err
	}
	var out WhatIfRuns
	for i := range specs {
		w := &specs[i]
		if _, err := SelectUnits(selected, w.Units); err != nil && skipUnmatched {
			if o.Log != nil {
				o.Log.Info("what-if left out: none of its units is selected", "what_if", w.Name, "units", strings.Join(w.Units, ","))
			}
			continue
		}
		wo := o
		wo.WhatIf = w
		res, err := Score(ctx, wo)
		if err != nil {
			return nil, err
		}
		a, err := whatif.Attribute(plain.Points, res.Result)
		if err != nil {
			return nil, err
		}
		out = append(out, WhatIfRun{Result: res, Attribution: a})
	}
	return out, nil
}
