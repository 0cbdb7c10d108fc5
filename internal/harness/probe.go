package harness

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Drivers: how the harness drives a simulator build. The simulator's command
// line changes between versions, so the harness probes what a build offers
// and picks the first driver whose needs it meets.
const (
	// DriverReplayMetrics: `blis replay` with --metrics-path, whose
	// requests[] has one row per request, closed-loop follow-ups included.
	// Upstream main at f90a1e3a and later.
	DriverReplayMetrics = "replay-metrics"
	// DriverReplayResults: `blis replay` with --results-path only (v0.7.15):
	// one row per completed request with a numeric id. Closed-loop
	// follow-up rounds are not reported, so closed-loop points cannot be
	// scored with it.
	DriverReplayResults = "replay-results"
	// DriverNone: no driver fits this build.
	DriverNone = "none"
)

// Capabilities is what a build's `replay --help` offers.
type Capabilities struct {
	// Flags are the long flag names of `replay`, without dashes.
	Flags map[string]bool
	// Driver is the chosen driver, DriverNone when nothing fits.
	Driver string
	// Missing names what the build lacks when Driver is DriverNone.
	Missing string
}

var flagRe = regexp.MustCompile(`(?m)^\s*(?:-\w,\s*)?--([a-z0-9][a-z0-9-]*)`)

// settingFlags maps each engine setting to the flag names builds have used
// for it, newest first.
var settingFlags = map[string][]string{
	"max_num_seqs":           {"max-num-seqs", "max-num-running-reqs"},
	"max_num_batched_tokens": {"max-num-batched-tokens", "max-num-scheduled-tokens"},
	"gpu_memory_utilization": {"gpu-memory-utilization"},
	"max_model_len":          {"max-model-len"},
	"block_size":             {"block-size-in-tokens"},
}

// Has reports whether the build has the flag --name.
func (c Capabilities) Has(name string) bool { return c.Flags[name] }

// FlagFor returns the flag this build uses for an engine setting, "" if none.
func (c Capabilities) FlagFor(setting string) string {
	for _, f := range settingFlags[setting] {
		if c.Flags[f] {
			return f
		}
	}
	return ""
}

// Probe runs `<binary> replay --help` in dir and chooses a driver.
func Probe(ctx context.Context, binary, dir string) (Capabilities, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "replay", "--help")
	cmd.Dir, cmd.Env = dir, simulatorEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	caps := ParseHelp(out.String())
	if len(caps.Flags) == 0 {
		msg := strings.TrimSpace(out.String())
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		if runErr != nil {
			return caps, fmt.Errorf("probe simulator: `replay --help` failed: %v: %s", runErr, msg)
		}
		caps.Driver = DriverNone
		caps.Missing = "a `replay` command (its --help lists no flags)"
	}
	return caps, nil
}

// ParseHelp reads the flags from a `replay --help` text and chooses a driver.
func ParseHelp(help string) Capabilities {
	c := Capabilities{Flags: map[string]bool{}}
	for _, m := range flagRe.FindAllStringSubmatch(help, -1) {
		c.Flags[m[1]] = true
	}
	base := []string{"trace-header", "trace-data", "model", "hardware", "tp", "horizon"}
	var missing []string
	for _, f := range base {
		if !c.Flags[f] {
			missing = append(missing, "--"+f)
		}
	}
	switch {
	case len(c.Flags) == 0:
		c.Driver, c.Missing = DriverNone, "a `replay` command"
	case len(missing) > 0:
		sort.Strings(missing)
		c.Driver, c.Missing = DriverNone, "replay flags "+strings.Join(missing, ", ")
	case c.Flags["metrics-path"]:
		c.Driver = DriverReplayMetrics
	case c.Flags["results-path"]:
		c.Driver = DriverReplayResults
	default:
		c.Driver, c.Missing = DriverNone, "a per-request output (replay --metrics-path or --results-path)"
	}
	return c
}
