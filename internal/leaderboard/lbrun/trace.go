package lbrun

import (
	"fmt"
	"strconv"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
)

// planTrace completes a `blis replay` command for a stored TraceV2 trace.
// Recorded arrivals replay the trace as it was; a concurrency load replays
// it as a pool of N concurrent sessions where the build can
// (--concurrent-sessions). A build that cannot is a failed result.
func planTrace(r leaderboard.Run, flags harness.Flags, args []string) (Invocation, error) {
	t := r.Workload.Trace
	if t.Format != "tracev2" {
		return Invocation{}, &failure{leaderboard.ReasonTraceRefused, fmt.Sprintf("a %s trace must be converted with `blis convert %s` first; this version of the leaderboard replays TraceV2 pairs only", t.Format, t.Format)}
	}
	if t.SHA256 == "" {
		return Invocation{}, &failure{leaderboard.ReasonTraceRefused, "the trace was not resolved to its content hash"}
	}
	switch r.Load.Arrival {
	case leaderboard.ArrivalRecorded:
	case leaderboard.ArrivalClosedLoop:
		if !flags.Has("concurrent-sessions") {
			return Invocation{}, &failure{harness.ReasonUnsupportedBuild, fmt.Sprintf("a pool of %d concurrent sessions: this build's `blis replay` has no --concurrent-sessions", r.Load.Concurrency)}
		}
		args = append(args, "--concurrent-sessions", strconv.Itoa(r.Load.Concurrency))
	default:
		return Invocation{}, &failure{leaderboard.ReasonTraceRefused, "a trace is offered at its recorded arrivals or as concurrent sessions"}
	}
	dir := TracesDirPlaceholder + "/" + t.SHA256 + "/"
	// An explicit horizon: BLIS's default (twice the last arrival) can end
	// a run before its requests complete. Runs are bounded by --timeout.
	args = append(args, "--trace-header", dir+leaderboard.TraceHeaderFile, "--trace-data", dir+leaderboard.TraceDataFile,
		"--horizon", "9223372036854775807", "--metrics-path", RunDirPlaceholder+"/"+leaderboard.Output)
	return Invocation{Args: args}, nil
}
