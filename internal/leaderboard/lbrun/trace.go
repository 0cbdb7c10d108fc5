package lbrun

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
)

// ConvertedTrace is the prefix, in the run directory, of the TraceV2 pair
// `blis convert otel|weka --trace-output` writes (.yaml and .csv).
const ConvertedTrace = "converted"

// convertNeeds are the `blis convert <format>` flags a conversion uses.
var convertNeeds = []string{"input", "trace-output"}

// planTrace completes a `blis replay` command for a stored trace: a TraceV2
// pair replayed as it is, or an otel or weka source converted first with
// the build's `blis convert <format>` into the run directory. Recorded
// arrivals replay the trace as it was; a concurrency load replays it as a
// pool of N concurrent sessions where the build can
// (--concurrent-sessions). A build that cannot, and a trace whose source
// spanned more than one node, are failed results with the reason.
func (s *Sim) planTrace(r leaderboard.Run, flags harness.Flags, args []string) (Invocation, error) {
	t := r.Workload.Trace
	stored := TracesDirPlaceholder + "/" + t.SHA256 + "/"
	var inv Invocation
	header, data := stored+leaderboard.TraceHeaderFile, stored+leaderboard.TraceDataFile
	switch t.Format {
	case leaderboard.TraceFormatV2:
	case leaderboard.TraceFormatOTel, leaderboard.TraceFormatWeka:
		conv, err := s.planConvert(t)
		if err != nil {
			return Invocation{}, err
		}
		inv.Convert = conv
		out := RunDirPlaceholder + "/" + ConvertedTrace
		header, data = out+".yaml", out+".csv"
	default:
		return Invocation{}, &failure{leaderboard.ReasonTraceRefused, fmt.Sprintf("trace format %q is not one the leaderboard replays", t.Format)}
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
	// An explicit horizon: BLIS's default (twice the last arrival) can end
	// a run before its requests complete. Runs are bounded by --timeout.
	inv.Args = append(args, "--trace-header", header, "--trace-data", data,
		"--horizon", "9223372036854775807", "--metrics-path", RunDirPlaceholder+"/"+leaderboard.Output)
	return inv, nil
}

// planConvert writes the `blis convert <format>` command of an otel or
// weka trace, after checking that the build offers the converter (Plan has
// checked that the trace's source ran on one node).
func (s *Sim) planConvert(t *leaderboard.Trace) ([]string, error) {
	flags, ok := s.Converters[t.Format]
	if !ok {
		offered := "it has no `blis convert`"
		if len(s.Converters) > 0 {
			names := slices.Sorted(maps.Keys(s.Converters))
			offered = "its `blis convert` offers " + strings.Join(names, ", ")
		}
		return nil, &failure{harness.ReasonUnsupportedBuild, fmt.Sprintf("the %s trace must be converted by `blis convert %s` before replay; this build cannot: %s", t.Format, t.Format, offered)}
	}
	var missing []string
	for _, f := range convertNeeds {
		if !flags.Has(f) {
			missing = append(missing, "--"+f)
		}
	}
	if len(missing) > 0 {
		return nil, &failure{harness.ReasonUnsupportedBuild, "this build's `blis convert " + t.Format + "` lacks " + strings.Join(missing, ", ")}
	}
	source := leaderboard.TraceSourceFile(t.Format)
	conv := []string{"convert", t.Format, "--input", TracesDirPlaceholder + "/" + t.SHA256 + "/" + source,
		"--trace-output", RunDirPlaceholder + "/" + ConvertedTrace}
	// The converters store each round's new input tokens; the accumulate
	// mode rebuilds every round's recorded total from them.
	if flags.Has("context-growth") {
		conv = append(conv, "--context-growth", "accumulate")
	}
	return slices.Clip(conv), nil
}

// checkNodes refuses a stored trace whose source spanned more than one
// node (leaderboard.CheckSingleNode), reading it once per content hash.
func (s *Sim) checkNodes(t *leaderboard.Trace) error {
	if v, ok := s.nodeChecks.Load(t.SHA256); ok {
		if v == nil {
			return nil
		}
		return v.(error)
	}
	var refusal error
	if s.TracesDir == "" {
		refusal = &failure{leaderboard.ReasonTraceRefused, "no traces directory is set to read the trace from"}
	} else if raw, err := readStored(s.TracesDir, t.SHA256+"/"+leaderboard.TraceSourceFile(t.Format)); err != nil {
		refusal = &failure{leaderboard.ReasonTraceRefused, "the stored trace cannot be read: " + err.Error()}
	} else if err := leaderboard.CheckSingleNode(t.Format, raw); err != nil {
		refusal = &failure{leaderboard.ReasonTraceRefused, err.Error()}
	}
	if refusal == nil {
		s.nodeChecks.Store(t.SHA256, nil)
	} else {
		s.nodeChecks.Store(t.SHA256, refusal)
	}
	return refusal
}

// readStored reads a stored trace file (name, slash-separated, below the
// traces directory dir) through OpenDir: a regular file inside it of at
// most leaderboard.MaxTraceBytes.
func readStored(dir, name string) ([]byte, error) {
	fsys, done, err := OpenDir(dir)
	if err != nil {
		return nil, err
	}
	defer done()
	return diskio.ReadFileMax(fsys, name, leaderboard.MaxTraceBytes)
}
