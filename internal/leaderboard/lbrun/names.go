package lbrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/hardware"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
)

// Names are the model and hardware names a build runs, each sorted: the
// models' folder names (simcli.ModelShortName) with a config.json in the
// catalog's models/, the build's model_configs/ or the user-model store
// (one that checks), and the GPUs of the
// build's hardware_config.json. A candidate naming anything else fails
// (model-unknown-to-simulator, hardware-unknown-to-simulator).
type Names struct {
	Models, Hardware []string
}

// Names reads what s's build and catalog run (see Names). The build's
// hardware configuration is read as a file the project does not control
// (regular, capped); one that does not parse is an error naming it.
func (s *Sim) Names() (Names, error) {
	var n Names
	dirs := []string{filepath.Join(s.Build.DataDir, "model_configs")}
	if s.Catalog != "" {
		dirs = append(dirs, filepath.Join(s.Catalog, "models"))
	}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return Names{}, err
		}
		for _, e := range entries {
			if fileExists(filepath.Join(dir, e.Name(), "config.json")) {
				n.Models = append(n.Models, e.Name())
			}
		}
	}
	if err := n.withUserModels(s.UserModels); err != nil {
		return Names{}, err
	}
	file := filepath.Join(s.Build.DataDir, harness.BuildHardwareFile)
	raw, err := diskio.ReadPathMax(file, hardware.MaxBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Names{}, fmt.Errorf("the build's hardware configuration: %w", err)
	}
	if n.Hardware, err = hardware.BuildGPUs(raw); err != nil {
		return Names{}, fmt.Errorf("%s: %w", file, err)
	}
	return n, nil
}
