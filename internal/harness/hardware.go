package harness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/hardware"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// BuildHardwareFile is the build's own hardware configuration, in its data
// directory (BLIS reads it beside defaults.yaml unless --hardware-config
// names another).
const BuildHardwareFile = "hardware_config.json"

// Hardware is the hardware configuration a run hands the simulator.
type Hardware struct {
	// Config is the merged file ("" when nothing is handed: no registry,
	// or the build takes no --hardware-config).
	Config string
	// Supplied maps each GPU the registry supplied to its entry's evidence.
	Supplied map[string]ledger.Evidence
}

// SuppliedNames lists the supplied GPUs, sorted (nil for none).
func (h Hardware) SuppliedNames() []string {
	if len(h.Supplied) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(h.Supplied))
}

// PrepareHardware writes into dir the hardware configuration for build: its
// own hardware_config.json (absent: none) with every GPU of reg it lacks
// added (hardware.Merge). Nothing is written, and the zero Hardware
// returned, when reg is nil or neither of the build's commands takes
// --hardware-config. A build configuration that cannot be read or merged is
// an error naming the file.
func PrepareHardware(build *Build, caps Capabilities, reg *hardware.Registry, dir string) (Hardware, error) {
	if reg == nil || !caps.Replay.Has("hardware-config") && !caps.Run.Has("hardware-config") {
		return Hardware{}, nil
	}
	// The build's tree may be a pull request's: its file is read as any
	// file the harness does not control is (regular, capped while read).
	own := filepath.Join(build.DataDir, BuildHardwareFile)
	raw, err := diskio.ReadPathMax(own, hardware.MaxBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Hardware{}, fmt.Errorf("the build's hardware configuration %s: %w", own, err)
	}
	merged, supplied, err := hardware.Merge(raw, reg)
	if err != nil {
		return Hardware{}, fmt.Errorf("%s: %w", own, err)
	}
	path := filepath.Join(dir, BuildHardwareFile)
	if err := diskio.WriteAtomic(path, merged); err != nil {
		return Hardware{}, err
	}
	h := Hardware{Config: path, Supplied: map[string]ledger.Evidence{}}
	for _, n := range supplied {
		h.Supplied[n] = reg.GPUs[n].Evidence()
	}
	return h, nil
}

// BundledHardwareVersion identifies a hardware registry embedded in the
// harness (immutable with the harness commit, like the bundled ledger): a
// release when its manifest says so.
func BundledHardwareVersion(reg *hardware.Registry, raw []byte) runresult.DataVersion {
	return runresult.DataVersion{Name: reg.Name + " (bundled)", Version: reg.Version, Digest: hardware.Digest(raw), Release: reg.Release}
}

// HardwareRegistryFile reads the hardware registry at path (a registry.json,
// or a directory holding one) and identifies it: a release only when its
// manifest says so and its directory is a clean git checkout whose HEAD a
// tag names; otherwise its version is "<version>+<commit or digest>" and
// the figures are experimental. A symbolic link is refused (the digest
// must cover what the simulator is given).
func HardwareRegistryFile(ctx context.Context, path string) (*hardware.Registry, runresult.DataVersion, error) {
	file := path
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		file = filepath.Join(path, hardware.File)
	}
	raw, err := diskio.ReadPathMax(file, hardware.MaxBytes)
	if err != nil {
		return nil, runresult.DataVersion{}, fmt.Errorf("hardware registry: %w", err)
	}
	reg, err := hardware.Parse(raw, file)
	if err != nil {
		return nil, runresult.DataVersion{}, fmt.Errorf("hardware registry %w", err)
	}
	digest := hardware.Digest(raw)
	v := runresult.DataVersion{Name: reg.Name, Version: reg.Version, Digest: digest, Release: false}
	version, release, ok := CheckoutVersion(ctx, filepath.Dir(file))
	if !ok {
		version = ident.ShortDigest(digest)
	}
	v.Release = reg.Release && release
	if !v.Release {
		v.Version = reg.Version + "+" + version
	}
	return reg, v, nil
}

// hardwareProvenance records in prov the hardware registry v (nil: none
// given) when the run handed it to the simulator (hw.Config set), with the
// GPUs it supplied; otherwise, when one was given, NotPassed says the build
// takes no --hardware-config and the registry is not recorded (the figures
// record only the data the simulator was given).
func hardwareProvenance(prov *runresult.Provenance, v *runresult.DataVersion, hw Hardware) {
	switch {
	case v == nil:
	case hw.Config != "":
		prov.Hardware, prov.HardwareSupplied = v, hw.SuppliedNames()
	default:
		prov.NotPassed = append(prov.NotPassed, fmt.Sprintf("hardware registry %s %s: this build takes no --hardware-config", v.Name, v.Version))
	}
}
