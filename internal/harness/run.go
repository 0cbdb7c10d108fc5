package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
	"github.com/inference-sim/accuracy-dashboard/internal/score"
)

// Not-scored reasons the harness gives (points.json "reason"). A point the
// ledger itself marks excluded carries the ledger's text instead.
const (
	ReasonUnsupportedBuild = "simulator-build-unsupported"
	ReasonUnknownHardware  = "hardware-unknown-to-simulator"
	ReasonUnknownModel     = "model-unknown-to-simulator"
	ReasonDoesNotFit       = "model-does-not-fit-gpus"
	ReasonRunError         = "simulator-run-error"
	ReasonTimeout          = "simulator-timeout"
	ReasonIncomplete       = "incomplete-run"
	ReasonBadOutput        = "unreadable-simulator-output"
	ReasonBadPrediction    = "invalid-prediction"
)

// Runner runs one point at a time through a simulator build. It is safe for
// concurrent use: every run gets its own directory.
type Runner struct {
	Build *Build
	Caps  Capabilities
	// Catalog and Registry are data directories handed to the simulator ("" for none).
	Catalog  string
	Registry string
	// Timeout bounds one simulator run; the process is killed past it.
	Timeout time.Duration
	// WorkDir holds the per-point run directories.
	WorkDir string
	// Keep leaves run directories in place for inspection.
	Keep bool
}

// Outcome is the result of one point: a prediction, or a reason it has none.
type Outcome struct {
	Predicted *report.Latencies
	Reason    string
	Detail    string
}

func notScored(reason, format string, args ...any) Outcome {
	return Outcome{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// RunPoint regenerates point i of u, runs it through the simulator and
// computes the client-side means. It never returns a number it could not
// account for: any failure becomes a not-scored Outcome with one reason.
func (r *Runner) RunPoint(ctx context.Context, u *ledger.Unit, i int) Outcome {
	p := u.Points[i]
	if p.Excluded != "" {
		return Outcome{Reason: p.Excluded, Detail: "marked excluded in the ledger"}
	}
	if r.Caps.Driver == DriverNone || r.Caps.Driver == "" {
		return notScored(ReasonUnsupportedBuild, "this simulator build lacks %s", r.Caps.Missing)
	}
	trace, err := Generate(u, i)
	if err != nil {
		return notScored(ReasonUnsupportedBuild, "%v", err)
	}
	if trace.ClosedLoop && r.Caps.Driver == DriverReplayResults {
		return notScored(ReasonUnsupportedBuild, "closed-loop point: this build's only per-request output, replay --results-path, omits closed-loop follow-up rounds; needs replay --metrics-path")
	}
	if trace.ClosedLoop && !r.Caps.Has("session-mode") {
		return notScored(ReasonUnsupportedBuild, "closed-loop point: this build's replay has no --session-mode")
	}
	args, err := r.args(u, i, trace)
	if err != nil {
		return notScored(ReasonUnsupportedBuild, "%v", err)
	}

	dir, err := os.MkdirTemp(r.WorkDir, "point-")
	if err != nil {
		return notScored(ReasonRunError, "harness: %v", err)
	}
	if !r.Keep {
		defer os.RemoveAll(dir)
	}
	header, data, out := filepath.Join(dir, "trace.yaml"), filepath.Join(dir, "trace.csv"), filepath.Join(dir, "out.json")
	if err := WriteTrace(trace, header, data); err != nil {
		return notScored(ReasonRunError, "harness: write trace: %v", err)
	}
	args = append(args, "--trace-header", header, "--trace-data", data)
	if r.Caps.Driver == DriverReplayMetrics {
		args = append(args, "--metrics-path", out)
	} else {
		args = append(args, "--results-path", out)
	}

	if oc, failed := r.exec(ctx, args); failed {
		return oc
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		return notScored(ReasonBadOutput, "the simulator exited 0 but wrote no output file: %v", err)
	}
	var lat report.Latencies
	if r.Caps.Driver == DriverReplayMetrics {
		lat, err = meansFromMetrics(raw, trace)
	} else {
		lat, err = meansFromResults(raw, trace)
	}
	if err != nil {
		var inc *incompleteError
		if errors.As(err, &inc) {
			return notScored(ReasonIncomplete, "%v", err)
		}
		return notScored(ReasonBadOutput, "%v", err)
	}
	if !score.Positive(lat.TTFTMs) || !score.Positive(lat.TPOTMs) {
		return notScored(ReasonBadPrediction, "predicted mean TTFT %v ms, mean TPOT %v ms", lat.TTFTMs, lat.TPOTMs)
	}
	return Outcome{Predicted: &lat}
}

// args builds the simulator command line for point i, without the file paths.
func (r *Runner) args(u *ledger.Unit, i int, t Trace) ([]string, error) {
	d := u.Deployment
	args := []string{"replay",
		"--model", d.Model,
		"--hardware", d.Hardware,
		"--tp", strconv.Itoa(d.TensorParallel.Value),
		"--horizon", strconv.FormatInt(t.HorizonUs, 10),
	}
	if t.ClosedLoop {
		args = append(args, "--session-mode", "closed-loop")
	}
	if d.ExpertParallel.Value > 1 {
		if !r.Caps.Has("enable-expert-parallel") {
			return nil, fmt.Errorf("expert parallelism %d: this build has no --enable-expert-parallel", d.ExpertParallel.Value)
		}
		args = append(args, "--enable-expert-parallel")
	}
	if d.DataParallel.Value > 1 {
		if !r.Caps.Has("dp") {
			return nil, fmt.Errorf("data parallelism %d: this build has no --dp", d.DataParallel.Value)
		}
		args = append(args, "--dp", strconv.Itoa(d.DataParallel.Value))
	}
	s := u.Settings(i)
	type setting struct {
		name     string
		set      bool
		value    string
		required bool
	}
	for _, st := range []setting{
		{"max_num_seqs", s.MaxNumSeqs != nil, intVal(s.MaxNumSeqs), true},
		{"max_num_batched_tokens", s.MaxNumBatchedTokens != nil, intVal(s.MaxNumBatchedTokens), true},
		{"gpu_memory_utilization", s.GPUMemoryUtilization != nil, floatVal(s.GPUMemoryUtilization), true},
		{"max_model_len", s.MaxModelLen != nil, intVal(s.MaxModelLen), true},
		{"block_size", s.BlockSize != nil, intVal(s.BlockSize), false},
	} {
		if !st.set {
			continue
		}
		flag := r.Caps.FlagFor(st.name)
		if flag == "" {
			if st.required {
				return nil, fmt.Errorf("engine setting %s: this build has no flag for it (tried --%s)", st.name, strings.Join(settingFlags[st.name], ", --"))
			}
			continue
		}
		args = append(args, "--"+flag, st.value)
	}
	if r.Catalog != "" {
		switch {
		case r.Caps.Has("catalog"):
			args = append(args, "--catalog", r.Catalog)
		case r.Caps.Has("model-config-folder"):
			if cfg := filepath.Join(r.Catalog, "models", ModelShortName(d.Model)); fileExists(filepath.Join(cfg, "config.json")) {
				args = append(args, "--model-config-folder", cfg)
			}
		}
	}
	if r.Registry != "" && r.Caps.Has("registry") {
		args = append(args, "--registry", r.Registry)
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

// exec runs the simulator; failed is true (with the outcome) when the run
// errored or timed out.
func (r *Runner) exec(ctx context.Context, args []string) (Outcome, bool) {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultPointTimeout
	}
	cmd := exec.Command(r.Build.Binary, args...)
	cmd.Dir, cmd.Env = r.Build.DataDir, simulatorEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr tailBuffer
	stderr.max = 64 << 10
	cmd.Stdout = io.Discard // BLIS's stdout is for people; results come from files
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return notScored(ReasonRunError, "start simulator: %v", err), true
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			msg := simulatorMessage(stderr.String())
			switch {
			case strings.Contains(msg, "not found in hardware config"):
				return notScored(ReasonUnknownHardware, "%s", msg), true
			case strings.Contains(msg, "could not find config.json"):
				return notScored(ReasonUnknownModel, "%s", msg), true
			case strings.Contains(msg, "exceeds available GPU memory"):
				return notScored(ReasonDoesNotFit, "%s", msg), true
			}
			return notScored(ReasonRunError, "%v: %s", err, msg), true
		}
		return Outcome{}, false
	case <-timer.C:
		killGroup(cmd)
		<-done
		return notScored(ReasonTimeout, "no result within %s; the simulator was killed", timeout), true
	case <-ctx.Done():
		killGroup(cmd)
		<-done
		return notScored(ReasonRunError, "cancelled: %v", ctx.Err()), true
	}
}

// DefaultPointTimeout bounds one simulator run.
const DefaultPointTimeout = 15 * time.Minute

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

var fatalRe = regexp.MustCompile(`level=(?:fatal|error|panic) msg="((?:[^"\\]|\\.)*)"`)

// simulatorMessage picks the simulator's own error message out of its stderr:
// the last logrus fatal/error message, else the last non-empty line.
func simulatorMessage(stderr string) string {
	if m := fatalRe.FindAllStringSubmatch(stderr, -1); len(m) > 0 {
		s := m[len(m)-1][1]
		if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
			s = u
		}
		return oneLine(s)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for k := len(lines) - 1; k >= 0; k-- {
		if l := strings.TrimSpace(lines[k]); l != "" {
			return oneLine(l)
		}
	}
	return "(no message on stderr)"
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	buf bytes.Buffer
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf.Write(p)
	if over := t.buf.Len() - t.max; over > 0 {
		t.buf.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return t.buf.String() }

type incompleteError struct{ msg string }

func (e *incompleteError) Error() string { return e.msg }

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
		Decode    *int     `json:"num_decode_tokens"`
		TTFTMs    *float64 `json:"ttft_ms"`
		E2EMs     *float64 `json:"e2e_ms"`
	} `json:"requests"`
}

var requestIDRe = regexp.MustCompile(`^request_(\d+)$`)

// meansFromMetrics computes client-side mean TTFT and mean TPOT from the
// per-request rows of --metrics-path, the way the benchmark client does:
// mean TTFT over measured requests; mean TPOT over measured requests with
// more than one output token of (e2e − ttft) / (output tokens − 1).
// Warm-up requests are excluded. Every request must have completed.
func meansFromMetrics(raw []byte, t Trace) (report.Latencies, error) {
	var m metricsOutput
	if err := json.Unmarshal(raw, &m); err != nil {
		return report.Latencies{}, fmt.Errorf("metrics output is not the expected JSON: %v", err)
	}
	if m.CompletedRequests == nil || m.InjectedRequests == nil {
		return report.Latencies{}, errors.New("metrics output lacks completed_requests/injected_requests")
	}
	want := len(t.Requests)
	if *m.InjectedRequests != want || *m.CompletedRequests != want {
		return report.Latencies{}, &incompleteError{fmt.Sprintf("completed %d of %d requests (injected %d, still queued %d, still running %d, timed out %d, dropped %d)",
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
			return report.Latencies{}, fmt.Errorf("metrics output has a request the trace does not: %q (session %q)", q.RequestID, q.SessionID)
		}
		if seen[k] {
			return report.Latencies{}, fmt.Errorf("metrics output reports request %d twice", k)
		}
		seen[k] = true
		if q.TTFTMs == nil || q.E2EMs == nil || q.Decode == nil {
			return report.Latencies{}, fmt.Errorf("metrics output request %q lacks ttft_ms, e2e_ms or num_decode_tokens", q.RequestID)
		}
		if *q.E2EMs <= 0 {
			return report.Latencies{}, &incompleteError{fmt.Sprintf("request %q did not finish (e2e_ms %v)", q.RequestID, *q.E2EMs)}
		}
		rows = append(rows, row{warmup: t.Requests[k].Warmup, ttft: *q.TTFTMs, e2e: *q.E2EMs, out: *q.Decode})
	}
	if len(rows) != want {
		return report.Latencies{}, &incompleteError{fmt.Sprintf("metrics output lists %d of %d requests", len(rows), want)}
	}
	return clientMeans(rows)
}

// resultsRow is one element of `replay --results-path`.
type resultsRow struct {
	RequestID *int     `json:"request_id"`
	TTFTUs    *float64 `json:"ttft_us"`
	E2EUs     *float64 `json:"e2e_us"`
	Output    *int     `json:"output_tokens"`
}

// meansFromResults computes the client-side means from --results-path rows
// (completed requests only, numeric ids). Every request must be present.
func meansFromResults(raw []byte, t Trace) (report.Latencies, error) {
	var rs []resultsRow
	if err := json.Unmarshal(raw, &rs); err != nil {
		return report.Latencies{}, fmt.Errorf("results output is not the expected JSON: %v", err)
	}
	want := len(t.Requests)
	seen := make([]bool, want)
	var rows []row
	for _, q := range rs {
		if q.RequestID == nil || q.TTFTUs == nil || q.E2EUs == nil || q.Output == nil {
			return report.Latencies{}, errors.New("results output row lacks request_id, ttft_us, e2e_us or output_tokens")
		}
		k := *q.RequestID
		if k < 0 || k >= want {
			return report.Latencies{}, fmt.Errorf("results output has request %d, not in the trace", k)
		}
		if seen[k] {
			return report.Latencies{}, fmt.Errorf("results output reports request %d twice", k)
		}
		seen[k] = true
		rows = append(rows, row{warmup: t.Requests[k].Warmup, ttft: *q.TTFTUs / 1000, e2e: *q.E2EUs / 1000, out: *q.Output})
	}
	if len(rows) != want {
		return report.Latencies{}, &incompleteError{fmt.Sprintf("completed %d of %d requests", len(rows), want)}
	}
	return clientMeans(rows)
}

type row struct {
	warmup    bool
	ttft, e2e float64
	out       int
}

func clientMeans(rows []row) (report.Latencies, error) {
	var sumTTFT, sumTPOT float64
	var nTTFT, nTPOT int
	for _, r := range rows {
		if r.warmup {
			continue
		}
		sumTTFT += r.ttft
		nTTFT++
		if r.out > 1 {
			sumTPOT += (r.e2e - r.ttft) / float64(r.out-1)
			nTPOT++
		}
	}
	if nTTFT == 0 || nTPOT == 0 {
		return report.Latencies{}, errors.New("no measured request with more than one output token")
	}
	return report.Latencies{TTFTMs: sumTTFT / float64(nTTFT), TPOTMs: sumTPOT / float64(nTPOT)}, nil
}
