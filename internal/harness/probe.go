package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
)

// Drivers: how the harness drives a simulator build. The simulator's command
// line changes between versions, so the harness probes what a build offers
// (`replay --help`, `run --help`) and picks, for each kind of point (rate or
// closed loop), the first driver whose needs the build meets.
const (
	// DriverReplayMetrics: `blis replay` with --metrics-path, whose
	// requests[] has one row per request, closed-loop follow-ups included.
	// Upstream main at f90a1e3a and later. Preferred for every point.
	DriverReplayMetrics = "replay-metrics"
	// DriverReplayResults: `blis replay` with --results-path only (v0.7.15):
	// one row per completed request with a numeric id. Closed-loop
	// follow-up rounds are not reported, so it drives rate points only.
	DriverReplayResults = "replay-results"
	// DriverRunClosedLoop: `blis run --workload-spec` with a closed-loop
	// client of concurrency C (clients[].concurrency) drawing the benchmark
	// client's length distributions, and --metrics-path's requests[]. For
	// closed-loop points of builds whose replay cannot do closed loop
	// (v0.7.15). The simulator draws the requests, with the unit's seed.
	DriverRunClosedLoop = "run-closed-loop"
	// DriverNone: no driver fits this build (for that kind of point).
	DriverNone = "none"
)

// ProbeCommand runs `<binary> <command...> --help` in dir and returns the
// flags the command lists. A command the build does not have lists none
// (the simulator exits non-zero with "unknown command"): that is no error.
// The error is for a binary that cannot be run at all.
func ProbeCommand(ctx context.Context, binary, dir string, command ...string) (simcli.Flags, error) {
	help, err := helpText(ctx, binary, dir, command)
	if err != nil {
		return nil, err
	}
	return simcli.ParseFlags(help), nil
}

// helpText is the output of `<binary> <command...> --help` in dir.
func helpText(ctx context.Context, binary, dir string, command []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append(slices.Clone(command), "--help")...)
	cmd.Dir, cmd.Env = dir, simulatorEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) || ctx.Err() != nil {
		return "", fmt.Errorf("probe simulator: `%s --help`: %v", strings.Join(command, " "), err)
	}
	return out.String(), nil
}

// subcommandRe matches one entry of a cobra "Available Commands:" list.
var subcommandRe = regexp.MustCompile(`^\s+([a-z0-9][a-z0-9-]*)\s`)

// ParseSubcommands reads the names listed under "Available Commands:" in a
// command's --help text.
func ParseSubcommands(help string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(help, "\n") {
		switch {
		case strings.HasPrefix(line, "Available Commands:"):
			in = true
		case in && strings.TrimSpace(line) == "":
			in = false
		case in:
			if m := subcommandRe.FindStringSubmatch(line + " "); m != nil {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// ProbeConverters returns the flags of each `blis convert <format>` the
// build offers (inference-perf, preset, servegen at f90a1e3a; otel and
// weka later), by the format's name. The subcommands are read from
// `convert --help`'s "Available Commands:", never guessed from flags: cobra
// prints convert's own help for a format it does not know. A build
// without `convert` offers none.
func ProbeConverters(ctx context.Context, binary, dir string) (map[string]simcli.Flags, error) {
	help, err := helpText(ctx, binary, dir, []string{"convert"})
	if err != nil {
		return nil, err
	}
	out := map[string]simcli.Flags{}
	for _, sub := range ParseSubcommands(help) {
		if sub == "help" || sub == "completion" {
			continue
		}
		if out[sub], err = ProbeCommand(ctx, binary, dir, "convert", sub); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Capabilities is what a build offers and the driver chosen for each kind
// of point.
type Capabilities struct {
	// Replay and Run are the flags of `replay` and `run` (empty when the
	// build lacks the command).
	Replay, Run simcli.Flags
	// Rate and ClosedLoop are the drivers for rate (open-loop) points and
	// closed-loop points, DriverNone when nothing fits.
	Rate, ClosedLoop string
	// RateMissing and ClosedLoopMissing say what the build lacks when the
	// matching driver is DriverNone.
	RateMissing, ClosedLoopMissing string
}

// DriverFor returns the driver for a closed-loop or a rate point, and what
// the build lacks when it is DriverNone.
func (c Capabilities) DriverFor(closedLoop bool) (driver, missing string) {
	if closedLoop {
		return c.ClosedLoop, c.ClosedLoopMissing
	}
	return c.Rate, c.RateMissing
}

// CommandFlags is the flags of the simulator command driver runs: `run`
// for DriverRunClosedLoop, `replay` otherwise.
func (c Capabilities) CommandFlags(driver string) simcli.Flags {
	if driver == DriverRunClosedLoop {
		return c.Run
	}
	return c.Replay
}

// Drivers lists the distinct drivers chosen (DriverNone included when a kind
// of point has none), for logs.
func (c Capabilities) Drivers() []string {
	if c.Rate == c.ClosedLoop {
		return []string{c.Rate}
	}
	return []string{c.Rate, c.ClosedLoop}
}

// Forcing a closed-loop driver (Options.ClosedLoopDriver): "" or
// ClosedLoopAuto lets the probe choose.
const ClosedLoopAuto = "auto"

// Force restricts closed-loop points to one driver (DriverReplayMetrics or
// DriverRunClosedLoop), e.g. to compare the two on a build that has both. A
// build that cannot use it gets DriverNone for closed-loop points, saying why.
func (c Capabilities) Force(driver string) (Capabilities, error) {
	switch driver {
	case "", ClosedLoopAuto:
		return c, nil
	case DriverReplayMetrics:
		if d, why := replayClosedLoop(c.Replay); d == DriverNone {
			c.ClosedLoop, c.ClosedLoopMissing = DriverNone, why+" (closed-loop driver forced to "+driver+")"
		} else {
			c.ClosedLoop, c.ClosedLoopMissing = d, ""
		}
	case DriverRunClosedLoop:
		if why := runClosedLoopMissing(c.Run); why != "" {
			c.ClosedLoop, c.ClosedLoopMissing = DriverNone, why+" (closed-loop driver forced to "+driver+")"
		} else {
			c.ClosedLoop, c.ClosedLoopMissing = DriverRunClosedLoop, ""
		}
	default:
		return c, fmt.Errorf("closed-loop driver %q: want %s, %s or %s", driver, ClosedLoopAuto, DriverReplayMetrics, DriverRunClosedLoop)
	}
	return c, nil
}

// Probe reads `replay --help` and `run --help` of the build in dir and
// chooses the drivers.
func Probe(ctx context.Context, binary, dir string) (Capabilities, error) {
	replay, err := ProbeCommand(ctx, binary, dir, "replay")
	if err != nil {
		return Capabilities{}, err
	}
	run, err := ProbeCommand(ctx, binary, dir, "run")
	if err != nil {
		return Capabilities{}, err
	}
	return ChooseDrivers(replay, run), nil
}

// The flags each driver needs.
var (
	replayBase = []string{"trace-header", "trace-data", "model", "hardware", "tp", "horizon"}
	runBase    = []string{"workload-spec", "concurrency", "num-requests", "seed", "metrics-path", "model", "hardware", "tp", "horizon"}
)

// ChooseDrivers picks the drivers for the flags of `replay` and `run`:
//
//	rate points:        replay-metrics, else replay-results
//	closed-loop points: replay-metrics with --session-mode, else run-closed-loop
func ChooseDrivers(replay, run simcli.Flags) Capabilities {
	c := Capabilities{Replay: replay, Run: run}
	c.Rate, c.RateMissing = replayRate(replay)
	d, replayWhy := replayClosedLoop(replay)
	if d != DriverNone {
		c.ClosedLoop = d
		return c
	}
	if runWhy := runClosedLoopMissing(run); runWhy == "" {
		c.ClosedLoop = DriverRunClosedLoop
	} else {
		c.ClosedLoop, c.ClosedLoopMissing = DriverNone, replayWhy+"; and "+runWhy
	}
	return c
}

func replayRate(f simcli.Flags) (driver, missing string) {
	switch {
	case len(f) == 0:
		return DriverNone, "a `replay` command"
	case f.Missing(replayBase...) != "":
		return DriverNone, "replay flags " + f.Missing(replayBase...)
	case f["metrics-path"]:
		return DriverReplayMetrics, ""
	case f["results-path"]:
		return DriverReplayResults, ""
	}
	return DriverNone, "a per-request output of replay (--metrics-path or --results-path)"
}

func replayClosedLoop(f simcli.Flags) (driver, missing string) {
	switch {
	case len(f) == 0:
		return DriverNone, "a `replay` command"
	case f.Missing(replayBase...) != "":
		return DriverNone, "replay flags " + f.Missing(replayBase...)
	case !f["metrics-path"] && f["results-path"]:
		return DriverNone, "replay --metrics-path (its only per-request output, --results-path, omits closed-loop follow-up rounds)"
	case !f["metrics-path"]:
		return DriverNone, "replay --metrics-path"
	case !f["session-mode"]:
		return DriverNone, "replay --session-mode"
	}
	return DriverReplayMetrics, ""
}

func runClosedLoopMissing(f simcli.Flags) string {
	if len(f) == 0 {
		return "a `run` command"
	}
	if m := f.Missing(runBase...); m != "" {
		return "run flags " + m
	}
	return ""
}
