// Package simcli is the simulator's command line as the harness and the
// leaderboard's planning both see it: the long flags a `blis` command
// lists in its --help (Flags), the engine settings' flag names across
// builds, and the flags telling a command about a serving deployment
// (DeploymentArgs). It runs nothing: the harness probes and runs builds.
package simcli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Reasons a build cannot run what is asked of it (the harness's not-scored
// reasons and the leaderboard's failed results name them).
const (
	// ReasonUnsupportedBuild: the build lacks a command or flag the run needs.
	ReasonUnsupportedBuild = "simulator-build-unsupported"
	// ReasonUnknownModel: the build has no config for the model.
	ReasonUnknownModel = "model-unknown-to-simulator"
)

// Flags are the long flag names a simulator command lists in its --help,
// without dashes.
type Flags map[string]bool

var flagRe = regexp.MustCompile(`(?m)^\s*(?:-\w,\s*)?--([a-z0-9][a-z0-9-]*)`)

// ParseFlags reads the long flag names out of a command's --help text.
func ParseFlags(help string) Flags {
	f := Flags{}
	for _, m := range flagRe.FindAllStringSubmatch(help, -1) {
		f[m[1]] = true
	}
	return f
}

// Has reports whether the command has the flag --name.
func (f Flags) Has(name string) bool { return f[name] }

// settingFlags maps each engine setting to the flag names builds have used
// for it, newest first. `replay` and `run` share them.
var settingFlags = map[string][]string{
	"max_num_seqs":           {"max-num-seqs", "max-num-running-reqs"},
	"max_num_batched_tokens": {"max-num-batched-tokens", "max-num-scheduled-tokens"},
	"gpu_memory_utilization": {"gpu-memory-utilization"},
	"max_model_len":          {"max-model-len"},
	"block_size":             {"block-size-in-tokens"},
}

// FlagFor returns the flag (without dashes) this command uses for an engine
// setting (max_num_seqs, max_num_batched_tokens, gpu_memory_utilization,
// max_model_len, block_size), "" if it has none.
func (f Flags) FlagFor(setting string) string {
	for _, name := range settingFlags[setting] {
		if f[name] {
			return name
		}
	}
	return ""
}

// Missing returns the flags of want the command lacks, as "--a, --b".
func (f Flags) Missing(want ...string) string {
	var out []string
	for _, w := range want {
		if !f[w] {
			out = append(out, "--"+w)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// SimDeployment is what the simulator is told about the serving deployment
// of one run: model, GPU, parallelism, engine settings and model data.
type SimDeployment struct {
	// Model is the org-prefixed model id ("openai/gpt-oss-120b").
	Model    string
	Hardware string
	TP       int
	// DP > 1 needs --dp; ExpertParallel needs --enable-expert-parallel.
	DP             int
	ExpertParallel bool
	// Settings are engine settings by name, in the order given.
	Settings []EngineSetting
	// Catalog and Registry are data directories ("" for none): a build with
	// --catalog gets the catalog, an older one --model-config-folder
	// <catalog>/models/<short name> when that holds a config.json.
	Catalog, Registry string
	// HardwareConfig is a hardware configuration file ("" for none), the
	// build's own merged with the hardware registry (the harness's Runner); a command
	// with --hardware-config gets it.
	HardwareConfig string
}

// EngineSetting is one engine setting: Name as settingFlags knows it
// (max_num_seqs, max_num_batched_tokens, gpu_memory_utilization,
// max_model_len, block_size) and its value. A Required setting the build has
// no flag for is an error; an optional one is left out.
type EngineSetting struct {
	Name, Value string
	Required    bool
}

// DeploymentArgs returns the flags telling a simulator command (with the
// given flags, from ProbeCommand) about d: --model, --hardware, --tp,
// parallelism, engine settings under the flag name the build has, and the
// model data. An error names what the build lacks for d.
func DeploymentArgs(f Flags, d SimDeployment) ([]string, error) {
	args := []string{"--model", d.Model, "--hardware", d.Hardware, "--tp", strconv.Itoa(d.TP)}
	if d.ExpertParallel {
		if !f.Has("enable-expert-parallel") {
			return nil, fmt.Errorf("expert parallelism: this build has no --enable-expert-parallel")
		}
		args = append(args, "--enable-expert-parallel")
	}
	if d.DP > 1 {
		if !f.Has("dp") {
			return nil, fmt.Errorf("data parallelism %d: this build has no --dp", d.DP)
		}
		args = append(args, "--dp", strconv.Itoa(d.DP))
	}
	for _, s := range d.Settings {
		flag := f.FlagFor(s.Name)
		if flag == "" {
			if s.Required {
				return nil, fmt.Errorf("engine setting %s: this build has no flag for it (tried --%s)", s.Name, strings.Join(settingFlags[s.Name], ", --"))
			}
			continue
		}
		args = append(args, "--"+flag, s.Value)
	}
	if d.Catalog != "" {
		switch {
		case f.Has("catalog"):
			args = append(args, "--catalog", d.Catalog)
		case f.Has("model-config-folder"):
			if cfg := filepath.Join(d.Catalog, "models", ModelShortName(d.Model)); fileExists(filepath.Join(cfg, "config.json")) {
				args = append(args, "--model-config-folder", cfg)
			}
		}
	}
	if d.Registry != "" && f.Has("registry") {
		args = append(args, "--registry", d.Registry)
	}
	if d.HardwareConfig != "" && f.Has("hardware-config") {
		args = append(args, "--hardware-config", d.HardwareConfig)
	}
	return args, nil
}

// ModelShortName is the simulator's folder name for a model id:
// "openai/gpt-oss-120b" → "gpt-oss-120b".
func ModelShortName(model string) string {
	if k := strings.LastIndex(model, "/"); k >= 0 {
		model = model[k+1:]
	}
	return strings.ToLower(model)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
