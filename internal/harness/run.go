package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/accuracy"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
)

// Not-scored reasons the harness gives (points.json "reason"), besides
// simcli.ReasonUnsupportedBuild and simcli.ReasonUnknownModel. A point the
// ledger itself marks excluded carries the ledger's text instead.
const (
	ReasonUnknownHardware = "hardware-unknown-to-simulator"
	ReasonDoesNotFit      = "model-does-not-fit-gpus"
	ReasonRunError        = "simulator-run-error"
	ReasonTimeout         = "simulator-timeout"
	ReasonIncomplete      = "incomplete-run"
	ReasonBadOutput       = "unreadable-simulator-output"
	ReasonBadPrediction   = "invalid-prediction"
	ReasonPromptMismatch  = "simulator-prompt-mismatch"
)

// DetailExcluded is the detail of a point the ledger marks excluded: it is
// in the corpus, never run, its reason the ledger's.
const DetailExcluded = "marked excluded in the ledger"

// Runner runs one point at a time through a simulator build. It is safe for
// concurrent use: every run gets its own directory.
type Runner struct {
	Build *Build
	Caps  Capabilities
	// Catalog and Registry are data directories handed to the simulator ("" for none).
	Catalog  string
	Registry string
	// HardwareConfig is the hardware configuration file handed to commands
	// that take --hardware-config ("" for none): the build's own entries
	// plus the hardware registry's GPUs it lacks (PrepareHardware).
	HardwareConfig string
	// Supplied maps each GPU the registry supplied (the build lacks it) to
	// the evidence of its entry: a point on it takes that evidence too.
	Supplied map[string]ledger.Evidence
	// Timeout bounds one simulator run; the process is killed past it.
	Timeout time.Duration
	// WorkDir holds the per-point run directories.
	WorkDir string
	// Keep leaves run directories in place for inspection.
	Keep bool
	// DigestInputs is the run-wide part of every point's replay digest
	// (nil: the build is not identified by a commit; no point gets a
	// digest, none is reused).
	DigestInputs []DigestInput
	// Reuse holds the predictions of an earlier run by replay digest: a
	// point whose digest is there takes its prediction without running
	// (nil: every point runs).
	Reuse *Reuse
	// WhatIfArgs is a what-if's simulator flag and its value, added to
	// every command (nil: none).
	WhatIfArgs []string
}

// Outcome is the result of one point: a prediction, or a reason it has none.
type Outcome struct {
	// Predicted holds every metric the simulator's rows allow (the headline
	// metrics always), nil when the point is not scored.
	Predicted metric.Values
	Reason    string
	Detail    string
	// Driver is the driver the point was run with ("" when it was not run:
	// excluded in the ledger, or no driver fits).
	Driver string
	// NotPassed lists the ledger's settings of the point the simulator was
	// not given (no flag for them), as "name value".
	NotPassed []string
	// HardwareEvidence is the evidence of the hardware registry's entry
	// for the point's GPU when the registry supplied it ("" when the build
	// knows the GPU itself): the point's tier is no stronger.
	HardwareEvidence ledger.Evidence
	// ReplayDigest covers everything that decided the run's result ("" when
	// the point did not run or the build has no commit).
	ReplayDigest string
	// ReusedFrom names the earlier run whose prediction was taken for this
	// digest ("" when the point was simulated here).
	ReusedFrom string
	// CompletionRate is, for a scored rate point, the rate at which its
	// simulated requests completed (CompletionRate); 0 otherwise.
	CompletionRate float64
	// Warnings are what the simulator warned about on stderr while it ran
	// the point, scored or not (Build.ExecWarnings); WarningsOmitted counts
	// the warning lines past the bound. A reused prediction takes the
	// earlier run's.
	Warnings        []runresult.Warning
	WarningsOmitted int
}

func notScored(reason, format string, args ...any) Outcome {
	return Outcome{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// RunPoint regenerates point i of u, runs it through the simulator and
// computes the client-side means. It never returns a number it could not
// account for: any failure becomes a not-scored Outcome with one reason.
func (r *Runner) RunPoint(ctx context.Context, u *ledger.Unit, i int) Outcome {
	oc := r.runPoint(ctx, u, i)
	oc.HardwareEvidence = r.Supplied[u.Deployment.Hardware]
	return oc
}

func (r *Runner) runPoint(ctx context.Context, u *ledger.Unit, i int) Outcome {
	p := u.Points[i]
	if p.Excluded != "" {
		return Outcome{Reason: p.Excluded, Detail: DetailExcluded}
	}
	trace, err := Generate(u, i)
	if err != nil {
		return notScored(simcli.ReasonUnsupportedBuild, "%v", err)
	}
	driver, missing := r.Caps.DriverFor(trace.ClosedLoop)
	if driver == DriverNone || driver == "" {
		kind := "rate point"
		if trace.ClosedLoop {
			kind = "closed-loop point"
		}
		return notScored(simcli.ReasonUnsupportedBuild, "%s: this simulator build lacks %s", kind, missing)
	}
	oc := r.runWith(ctx, driver, u, i, trace)
	oc.Driver = driver
	oc.NotPassed = NotPassedSettings(r.Caps.CommandFlags(driver), u, i)
	return oc
}

// NotPassedSettings lists the settings of point i of u that a simulator
// command with flags is not given, as "name value": the precision, prefix
// caching and KV-cache dtype (no build takes them), and an optional engine
// setting the build has no flag for.
func NotPassedSettings(flags simcli.Flags, u *ledger.Unit, i int) []string {
	var out []string
	if p := u.Deployment.Precision.Value; p != "" {
		out = append(out, "precision "+p)
	}
	s := u.Settings(i)
	if s.PrefixCaching != nil {
		out = append(out, fmt.Sprintf("prefix_caching %t", s.PrefixCaching.Value))
	}
	if s.KVCacheDtype != nil {
		out = append(out, "kv_cache_dtype "+s.KVCacheDtype.Value)
	}
	if s.BlockSize != nil && flags.FlagFor("block_size") == "" {
		out = append(out, "block_size "+intVal(s.BlockSize))
	}
	return out
}

func (r *Runner) runWith(ctx context.Context, driver string, u *ledger.Unit, i int, trace Trace) Outcome {
	dir, err := os.MkdirTemp(r.WorkDir, "point-")
	if err != nil {
		return notScored(ReasonRunError, "harness: %v", err)
	}
	if !r.Keep {
		defer os.RemoveAll(dir)
	}
	args, out, err := r.Command(driver, u, i, trace, dir)
	if err != nil {
		var se *SimError
		if errors.As(err, &se) {
			return Outcome{Reason: se.Reason, Detail: se.Detail}
		}
		return notScored(ReasonRunError, "harness: %v", err)
	}
	digest, err := replayDigest(r.DigestInputs, driver, args, dir, map[string]string{"RUN": dir, "CATALOG": r.Catalog, "REGISTRY": r.Registry, "HARDWARE": r.HardwareConfig})
	if err != nil {
		return notScored(ReasonRunError, "harness: %v", err)
	}
	if p, ok := r.Reuse.lookup(digest); ok {
		return Outcome{Predicted: p.Predicted, CompletionRate: p.CompletionRate, ReplayDigest: digest, ReusedFrom: r.Reuse.From,
			Warnings: p.Warnings, WarningsOmitted: p.WarningsOmitted}
	}
	oc := r.simulate(ctx, driver, args, out, trace)
	oc.ReplayDigest = digest
	return oc
}

// simulate runs the simulator's command line args, reads its output file
// out and computes the client's figures; the outcome keeps the simulator's
// warnings.
func (r *Runner) simulate(ctx context.Context, driver string, args []string, out string, trace Trace) Outcome {
	warnings, omitted, err := r.Build.ExecWarnings(ctx, args, r.Timeout)
	oc := r.figures(err, driver, out, trace)
	oc.Warnings, oc.WarningsOmitted = warnings, omitted
	return oc
}

// figures is the outcome of a simulator run that ended with err: its
// reason, or the client's figures from its output file out.
func (r *Runner) figures(err error, driver, out string, trace Trace) Outcome {
	if err != nil {
		var se *SimError
		if errors.As(err, &se) {
			return Outcome{Reason: se.Reason, Detail: se.Detail}
		}
		return notScored(ReasonRunError, "%v", err)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		return notScored(ReasonBadOutput, "the simulator exited 0 but wrote no output file: %v", err)
	}
	var rows []row
	switch driver {
	case DriverReplayMetrics:
		rows, err = rowsFromMetrics(raw, trace)
	case DriverRunClosedLoop:
		rows, err = rowsFromRun(raw, trace)
	default:
		rows, err = rowsFromResults(raw, trace)
	}
	var pred metric.Values
	if err == nil {
		pred, err = clientFigures(rows)
	}
	if err != nil {
		var inc *incompleteError
		if errors.As(err, &inc) {
			return notScored(ReasonIncomplete, "%v", err)
		}
		var pm *promptMismatchError
		if errors.As(err, &pm) {
			return notScored(ReasonPromptMismatch, "%v", err)
		}
		return notScored(ReasonBadOutput, "%v", err)
	}
	valid, figures := true, []string{}
	for _, d := range metric.Headline() {
		x, _ := d.Of(pred)
		valid = valid && accuracy.Positive(x)
		figures = append(figures, fmt.Sprintf("%s%s %v %s", strings.ToLower(d.Name[:1]), d.Name[1:], x, d.Unit))
	}
	if !valid {
		return notScored(ReasonBadPrediction, "predicted %s", strings.Join(figures, ", "))
	}
	oc := Outcome{Predicted: pred}
	if !trace.ClosedLoop {
		oc.CompletionRate = CompletionRate(rows)
	}
	return oc
}

// CompletionRate is the rate (req/s) at which an open-loop run's requests
// completed: the completions after the first over the time from the first
// completion to the last. A server that keeps up completes at the offered
// rate, whatever its latency; one that falls behind completes at its own
// capacity. 0 when fewer than two requests completed at distinct times.
func CompletionRate(rows []row) float64 {
	if len(rows) < 2 {
		return 0
	}
	first, last := math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		first, last = math.Min(first, r.doneMs), math.Max(last, r.doneMs)
	}
	if !(last > first) {
		return 0
	}
	return float64(len(rows)-1) / ((last - first) / 1000)
}

// Command writes the input files of point i (trace t) for driver into dir
// and returns the simulator's command line and the output file it will
// write. A deployment the build cannot be told about is a *SimError with
// simcli.ReasonUnsupportedBuild.
func (r *Runner) Command(driver string, u *ledger.Unit, i int, t Trace, dir string) (args []string, out string, err error) {
	dep, err := simcli.DeploymentArgs(r.Caps.CommandFlags(driver), r.deployment(u, i))
	if err != nil {
		return nil, "", &SimError{simcli.ReasonUnsupportedBuild, err.Error()}
	}
	out = filepath.Join(dir, "out.json")
	horizon := strconv.FormatInt(t.HorizonUs, 10)
	switch driver {
	case DriverRunClosedLoop:
		spec := filepath.Join(dir, "workload.yaml")
		if err := WriteClosedLoopSpec(t, spec); err != nil {
			return nil, "", fmt.Errorf("write workload spec: %w", err)
		}
		args = append([]string{"run"}, dep...)
		args = append(args, "--workload-spec", spec, "--num-requests", strconv.Itoa(len(t.Requests)),
			"--seed", strconv.FormatInt(t.Seed, 10), "--horizon", horizon, "--metrics-path", out)
	case DriverReplayMetrics, DriverReplayResults:
		header, data := filepath.Join(dir, "trace.yaml"), filepath.Join(dir, "trace.csv")
		if err := WriteTrace(t, header, data); err != nil {
			return nil, "", fmt.Errorf("write trace: %w", err)
		}
		args = append([]string{"replay"}, dep...)
		args = append(args, "--trace-header", header, "--trace-data", data, "--horizon", horizon)
		if t.ClosedLoop {
			args = append(args, "--session-mode", "closed-loop")
		}
		if driver == DriverReplayMetrics {
			args = append(args, "--metrics-path", out)
		} else {
			args = append(args, "--results-path", out)
		}
	default:
		return nil, "", fmt.Errorf("no command for driver %q", driver)
	}
	if args, err = r.whatIfArgs(driver, args); err != nil {
		return nil, "", err
	}
	return args, out, nil
}

// deployment is what the simulator is told about point i's deployment.
func (r *Runner) deployment(u *ledger.Unit, i int) simcli.SimDeployment {
	d := u.Deployment
	s := u.Settings(i)
	dep := simcli.SimDeployment{
		Model: d.Model, Hardware: d.Hardware, TP: d.TensorParallel.Value, DP: d.DataParallel.Value,
		ExpertParallel: d.ExpertParallel.Value > 1, Catalog: r.Catalog, Registry: r.Registry,
		HardwareConfig: r.HardwareConfig,
	}
	add := func(name string, set bool, value string, required bool) {
		if set {
			dep.Settings = append(dep.Settings, simcli.EngineSetting{Name: name, Value: value, Required: required})
		}
	}
	add("max_num_seqs", s.MaxNumSeqs != nil, intVal(s.MaxNumSeqs), true)
	add("max_num_batched_tokens", s.MaxNumBatchedTokens != nil, intVal(s.MaxNumBatchedTokens), true)
	add("gpu_memory_utilization", s.GPUMemoryUtilization != nil, floatVal(s.GPUMemoryUtilization), true)
	add("max_model_len", s.MaxModelLen != nil, intVal(s.MaxModelLen), true)
	add("block_size", s.BlockSize != nil, intVal(s.BlockSize), false)
	return dep
}

func intVal(s *ledger.Setting[int]) string {
	if s == nil {
		return ""
	}
	return strconv.Itoa(s.Value)
}

func floatVal(s *ledger.Setting[float64]) string {
	if s == nil {
		return ""
	}
	return strconv.FormatFloat(s.Value, 'g', -1, 64)
}

type incompleteError struct{ msg string }

func (e *incompleteError) Error() string { return e.msg }

// promptMismatchError: the simulator prefilled a request with another
// number of tokens than the prompt the trace gives it (the trace and the
// simulator disagree on what a row means), so its latencies are not those of
// the client's requests.
type promptMismatchError struct {
	request, prefilled, prompt int
}

func (e *promptMismatchError) Error() string {
	return fmt.Sprintf("the simulator prefilled %d tokens for request %d, whose prompt is %d tokens", e.prefilled, e.request, e.prompt)
}

// checkPrefill compares the simulator's own prefill count of request k
// (nil when its output has none) with the prompt the trace gives it.
func checkPrefill(t Trace, k int, prefilled *int) error {
	if prefilled != nil && *prefilled != t.Requests[k].InputTokens {
		return &promptMismatchError{request: k, prefilled: *prefilled, prompt: t.Requests[k].InputTokens}
	}
	return nil
}

// metricsOutput is the part of `replay --metrics-path` the harness reads.
type metricsOutput struct {
	CompletedRequests *int `json:"completed_requests"`
	InjectedRequests  *int `json:"injected_requests"`
	StillQueued       int  `json:"still_queued"`
	StillRunning      int  `json:"still_running"`
	TimedOut          int  `json:"timed_out_requests"`
	Dropped           int  `json:"dropped_unservable"`
	Requests          []struct {
		RequestID string   `json:"requestID"`
		SessionID string   `json:"session_id"`
		Round     *int     `json:"round_index"`
		Prefill   *int     `json:"num_prefill_tokens"`
		Decode    *int     `json:"num_decode_tokens"`
		TTFTMs    *float64 `json:"ttft_ms"`
		E2EMs     *float64 `json:"e2e_ms"`
	} `json:"requests"`
}

var requestIDRe = regexp.MustCompile(`^request_(\d+)$`)

// rowsFromMetrics reads the per-request rows of --metrics-path, one per
// request of the trace. Every request must have completed, with the
// trace's prompt as its prefill count (num_prefill_tokens).
func rowsFromMetrics(raw []byte, t Trace) ([]row, error) {
	var m metricsOutput
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("metrics output is not the expected JSON: %v", err)
	}
	if m.CompletedRequests == nil || m.InjectedRequests == nil {
		return nil, errors.New("metrics output lacks completed_requests/injected_requests")
	}
	want := len(t.Requests)
	if *m.InjectedRequests != want || *m.CompletedRequests != want {
		return nil, &incompleteError{fmt.Sprintf("completed %d of %d requests (injected %d, still queued %d, still running %d, timed out %d, dropped %d)",
			*m.CompletedRequests, want, *m.InjectedRequests, m.StillQueued, m.StillRunning, m.TimedOut, m.Dropped)}
	}
	bySession := map[string]int{}
	if t.ClosedLoop {
		for k, r := range t.Requests {
			bySession[r.Session+"#"+strconv.Itoa(r.Round)] = k
		}
	}
	seen := make([]bool, want)
	var rows []row
	for _, q := range m.Requests {
		k := -1
		if t.ClosedLoop && q.SessionID != "" && q.Round != nil {
			if j, ok := bySession[q.SessionID+"#"+strconv.Itoa(*q.Round)]; ok {
				k = j
			}
		} else if mm := requestIDRe.FindStringSubmatch(q.RequestID); mm != nil {
			j, _ := strconv.Atoi(mm[1])
			if j < want {
				k = j
			}
		}
		if k < 0 {
			return nil, fmt.Errorf("metrics output has a request the trace does not: %q (session %q)", q.RequestID, q.SessionID)
		}
		if seen[k] {
			return nil, fmt.Errorf("metrics output reports request %d twice", k)
		}
		seen[k] = true
		if q.TTFTMs == nil || q.E2EMs == nil || q.Decode == nil {
			return nil, fmt.Errorf("metrics output request %q lacks ttft_ms, e2e_ms or num_decode_tokens", q.RequestID)
		}
		if *q.E2EMs <= 0 {
			return nil, &incompleteError{fmt.Sprintf("request %q did not finish (e2e_ms %v)", q.RequestID, *q.E2EMs)}
		}
		if err := checkPrefill(t, k, q.Prefill); err != nil {
			return nil, err
		}
		rows = append(rows, row{warmup: t.Requests[k].Warmup, ttft: *q.TTFTMs, e2e: *q.E2EMs, out: *q.Decode,
			doneMs: float64(t.Requests[k].ArrivalUs)/1000 + *q.E2EMs})
	}
	if len(rows) != want {
		return nil, &incompleteError{fmt.Sprintf("metrics output lists %d of %d requests", len(rows), want)}
	}
	return rows, nil
}

// resultsRow is one element of `replay --results-path`.
type resultsRow struct {
	RequestID *int     `json:"request_id"`
	TTFTUs    *float64 `json:"ttft_us"`
	E2EUs     *float64 `json:"e2e_us"`
	Input     *int     `json:"input_tokens"`
	Output    *int     `json:"output_tokens"`
}

// rowsFromResults reads the per-request rows of --results-path (completed
// requests only, numeric ids). Every request must be present, with the
// trace's prompt as its prefill count (input_tokens).
func rowsFromResults(raw []byte, t Trace) ([]row, error) {
	var rs []resultsRow
	if err := json.Unmarshal(raw, &rs); err != nil {
		return nil, fmt.Errorf("results output is not the expected JSON: %v", err)
	}
	want := len(t.Requests)
	seen := make([]bool, want)
	var rows []row
	for _, q := range rs {
		if q.RequestID == nil || q.TTFTUs == nil || q.E2EUs == nil || q.Output == nil {
			return nil, errors.New("results output row lacks request_id, ttft_us, e2e_us or output_tokens")
		}
		k := *q.RequestID
		if k < 0 || k >= want {
			return nil, fmt.Errorf("results output has request %d, not in the trace", k)
		}
		if seen[k] {
			return nil, fmt.Errorf("results output reports request %d twice", k)
		}
		seen[k] = true
		if err := checkPrefill(t, k, q.Input); err != nil {
			return nil, err
		}
		rows = append(rows, row{warmup: t.Requests[k].Warmup, ttft: *q.TTFTUs / 1000, e2e: *q.E2EUs / 1000, out: *q.Output,
			doneMs: float64(t.Requests[k].ArrivalUs)/1000 + *q.E2EUs/1000})
	}
	if len(rows) != want {
		return nil, &incompleteError{fmt.Sprintf("completed %d of %d requests", len(rows), want)}
	}
	return rows, nil
}

type row struct {
	warmup    bool
	ttft, e2e float64
	out       int
	// doneMs is when an open-loop request completed: its arrival in the
	// trace plus its end-to-end latency (ms).
	doneMs float64
}

// clientFigures computes every metric of internal/metric from the rows the
// way the benchmark client computes its own figures (docs/SCORING.md),
// warm-up requests excluded. The headline metrics must be computable.
func clientFigures(rows []row) (metric.Values, error) {
	var reqs []metric.Request
	for _, r := range rows {
		if !r.warmup {
			reqs = append(reqs, metric.Request{TTFTMs: r.ttft, E2EMs: r.e2e, OutputTokens: r.out})
		}
	}
	v := metric.Predicted(reqs)
	for _, d := range metric.Headline() {
		if _, ok := d.Of(v); !ok {
			return nil, errors.New("no measured request with more than one output token")
		}
	}
	return v, nil
}

// Request ids in `blis run --metrics-path` of a closed-loop client: the C
// first requests are "request_<k>" (k < C, all sent at 0); each follow-up is
// "session_<session>_round_<r>_<n>", n = 1, 2, ... in the order the
// simulator's client sent them.
var (
	runSeedRe     = regexp.MustCompile(`^request_(\d+)$`)
	runFollowUpRe = regexp.MustCompile(`^session_(.+)_round_(\d+)_(\d+)$`)
)

// rowsFromRun reads the per-request rows of `blis run --metrics-path` for a
// closed-loop client that drew the requests itself. Requests are put in the order the client sent them (the C first
// ones, then follow-ups by their sequence number); the first t.Warmups() of
// them are the warm-ups, as the benchmark client sends its warm-ups first
// under the same semaphore. Every one of the len(t.Requests) requests must
// appear exactly once and have completed.
func rowsFromRun(raw []byte, t Trace) ([]row, error) {
	var m metricsOutput
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("metrics output is not the expected JSON: %v", err)
	}
	if m.CompletedRequests == nil || m.InjectedRequests == nil {
		return nil, errors.New("metrics output lacks completed_requests/injected_requests")
	}
	want, c := len(t.Requests), t.Concurrency
	if *m.InjectedRequests != want || *m.CompletedRequests != want {
		return nil, &incompleteError{fmt.Sprintf("completed %d of %d requests (injected %d, still queued %d, still running %d, timed out %d, dropped %d)",
			*m.CompletedRequests, want, *m.InjectedRequests, m.StillQueued, m.StillRunning, m.TimedOut, m.Dropped)}
	}
	warm := t.Warmups()
	seen := make([]bool, want)
	rows := make([]row, 0, want)
	for _, q := range m.Requests {
		// order is the request's place in the client's sending order.
		order := -1
		if mm := runSeedRe.FindStringSubmatch(q.RequestID); mm != nil {
			if k, err := strconv.Atoi(mm[1]); err == nil && k < c && (q.Round == nil || *q.Round == 0) {
				order = k
			}
		} else if mm := runFollowUpRe.FindStringSubmatch(q.RequestID); mm != nil {
			round, _ := strconv.Atoi(mm[2])
			n, err := strconv.Atoi(mm[3])
			if err == nil && n >= 1 && c-1+n < want && mm[1] == q.SessionID && round >= 1 && (q.Round == nil || *q.Round == round) {
				order = c - 1 + n
			}
		}
		if order < 0 {
			return nil, fmt.Errorf("metrics output has a request the closed-loop client of %d users and %d requests cannot have sent: %q (session %q)", c, want, q.RequestID, q.SessionID)
		}
		if seen[order] {
			return nil, fmt.Errorf("metrics output reports request %q twice", q.RequestID)
		}
		seen[order] = true
		if q.TTFTMs == nil || q.E2EMs == nil || q.Decode == nil {
			return nil, fmt.Errorf("metrics output request %q lacks ttft_ms, e2e_ms or num_decode_tokens", q.RequestID)
		}
		if *q.E2EMs <= 0 {
			return nil, &incompleteError{fmt.Sprintf("request %q did not finish (e2e_ms %v)", q.RequestID, *q.E2EMs)}
		}
		rows = append(rows, row{warmup: order < warm, ttft: *q.TTFTMs, e2e: *q.E2EMs, out: *q.Decode})
	}
	if len(rows) != want {
		return nil, &incompleteError{fmt.Sprintf("metrics output lists %d of %d requests", len(rows), want)}
	}
	return rows, nil
}
