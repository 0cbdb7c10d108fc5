package leaderboard

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/schemas"
)

// resultVersion is the result file format (schemas/leaderboard-result.v1.json).
const resultVersion = 1

// Result statuses.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// Failure reasons of a failed result beyond the harness's own
// (harness.Reason*: unknown hardware or model, does not fit, run error,
// timeout, unreadable output, unsupported build). A failed result carries
// no figure.
const (
	// ReasonTraceRefused: the trace cannot be offered as declared.
	ReasonTraceRefused = "trace-refused"
)

// Result is one result file: what ran, on which build, and what BLIS said.
type Result struct {
	SchemaVersion int `json:"schema_version"`
	// Group and Run are the ids the file is filed under:
	// results/<group>/<run>.json.
	Group string `json:"group"`
	Run   string `json:"run"`
	// Declaration is the run as declared (candidate with defaults filled,
	// workload, load point, the group's sweep).
	Declaration DeclaredRun `json:"declaration"`
	// ComparabilityKey is offeredKey of the declaration: equal keys mean
	// the same offered work.
	ComparabilityKey string `json:"comparability_key"`
	// Command is the exact simulator command line, argv[0] "blis", run in
	// the simulator's source tree. File arguments are names of Inputs or
	// of the output file (Output).
	Command []string `json:"command"`
	// Convert is the `blis convert` command run before Command, in the
	// same directory, for a trace that is converted before replay (otel,
	// weka); absent otherwise.
	Convert []string `json:"convert,omitempty"`
	// Inputs are the files the command reads, by the name it uses, with
	// their exact content (a generated workload spec), so that the command
	// can be re-run as recorded.
	Inputs     map[string]string `json:"inputs,omitempty"`
	Provenance Provenance        `json:"provenance"`
	Status     string            `json:"status"`
	Failure    *Failure          `json:"failure,omitempty"`
	// BLIS holds BLIS's own figures, as it wrote them (ok results only).
	BLIS *Figures `json:"blis,omitempty"`
	// Computed holds what this project computes, each with its formula
	// (ok results only).
	Computed *Computed `json:"computed,omitempty"`
	// Digest is the sha256 of the file's canonical JSON with Digest empty:
	// a result edited by hand no longer matches it.
	Digest string `json:"digest"`
}

// Provenance says which build, data and tool produced a result.
type Provenance struct {
	Simulator Simulator `json:"simulator"`
	// Catalog is the model catalog handed to the simulator (nil: none, the
	// simulator's own model_configs/).
	Catalog *runresult.DataVersion `json:"catalog"`
	// Harness is this project's commit that ran the simulation.
	Harness runresult.Harness `json:"harness"`
}

// Simulator is the build a result ran on.
type Simulator struct {
	Commit string `json:"commit"`
	// Tag is the release tag naming Commit ("" if none).
	Tag string `json:"tag"`
}

// Failure is why a result has no figures: a reason and the simulator's
// (or this tool's) message.
type Failure struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Output is the name the simulator's metrics file has in Command.
const Output = "metrics.json"

// Figures are BLIS's aggregate metrics (`blis run --metrics-path`), read as
// written: latencies in ms, throughput per second of simulated time.
type Figures struct {
	TTFTMeanMs       float64 `json:"ttft_mean_ms"`
	TTFTP99Ms        float64 `json:"ttft_p99_ms"`
	ITLMeanMs        float64 `json:"itl_mean_ms"`
	ITLP99Ms         float64 `json:"itl_p99_ms"`
	E2EMeanMs        float64 `json:"e2e_mean_ms"`
	E2EP99Ms         float64 `json:"e2e_p99_ms"`
	OutputTokensPerS float64 `json:"output_tokens_per_sec"`
	ResponsesPerS    float64 `json:"responses_per_sec"`
	Injected         int     `json:"injected_requests"`
	Completed        int     `json:"completed_requests"`
	Preemptions      int     `json:"preemption_count"`
	// The requests that did not complete, by what happened to them.
	Dropped      int `json:"dropped_unservable"`
	TimedOut     int `json:"timed_out_requests"`
	StillQueued  int `json:"still_queued"`
	StillRunning int `json:"still_running"`
	// LengthCapped counts requests cut at the model's length limit
	// (absent before upstream added it: 0).
	LengthCapped      int `json:"length_capped_requests"`
	TotalOutputTokens int `json:"total_output_tokens"`
}

// Computed are the values this project computes rather than reads from
// BLIS. Each carries its formula, which the tables show.
type Computed struct {
	GPUs                         ComputedValue `json:"gpus"`
	ServedFraction               ComputedValue `json:"served_fraction"`
	OutputTokensPerServedRequest ComputedValue `json:"output_tokens_per_served_request"`
	ArrivalProcess               ComputedText  `json:"arrival_process"`
}

// ComputedValue is a number this project computed and how.
type ComputedValue struct {
	Value   float64 `json:"value"`
	Formula string  `json:"formula"`
}

// ComputedText is a description this project wrote and from what.
type ComputedText struct {
	Value   string `json:"value"`
	Formula string `json:"formula"`
}

// Formulas of the computed values, as the tables' legends show them.
const (
	FormulaGPUs           = "TP × DP × replicas"
	FormulaServedFraction = "completed requests / offered requests"
	FormulaTokensPerReq   = "total output tokens / completed requests"
	FormulaArrival        = "the declared load, in words"
)

// metricsFile is the part of `blis run --metrics-path` a result reads.
// Every field is required: a file without one is not the expected output.
type metricsFile struct {
	TTFTMean          *float64 `json:"ttft_mean_ms"`
	TTFTP99           *float64 `json:"ttft_p99_ms"`
	ITLMean           *float64 `json:"itl_mean_ms"`
	ITLP99            *float64 `json:"itl_p99_ms"`
	E2EMean           *float64 `json:"e2e_mean_ms"`
	E2EP99            *float64 `json:"e2e_p99_ms"`
	TokensPerSec      *float64 `json:"tokens_per_sec"`
	ResponsesPerSec   *float64 `json:"responses_per_sec"`
	Injected          *int     `json:"injected_requests"`
	Completed         *int     `json:"completed_requests"`
	Preemptions       *int     `json:"preemption_count"`
	Dropped           *int     `json:"dropped_unservable"`
	TimedOut          *int     `json:"timed_out_requests"`
	StillQueued       *int     `json:"still_queued"`
	StillRunning      *int     `json:"still_running"`
	LengthCapped      *int     `json:"length_capped_requests"`
	TotalOutputTokens *int     `json:"total_output_tokens"`
}

// ParseMetrics reads BLIS's `run --metrics-path` file. A missing field or a
// number that is not finite is an error: a figure is read, never guessed.
// BLIS's tokens_per_sec counts output tokens (total_output_tokens over the
// simulated duration).
func ParseMetrics(raw []byte) (Figures, error) {
	var m metricsFile
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&m); err != nil {
		return Figures{}, fmt.Errorf("metrics file is not the expected JSON: %v", err)
	}
	var missing []string
	f := func(name string, p *float64) float64 {
		if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
			missing = append(missing, name)
			return 0
		}
		return *p
	}
	i := func(name string, p *int) int {
		if p == nil {
			missing = append(missing, name)
			return 0
		}
		return *p
	}
	fig := Figures{
		TTFTMeanMs: f("ttft_mean_ms", m.TTFTMean), TTFTP99Ms: f("ttft_p99_ms", m.TTFTP99),
		ITLMeanMs: f("itl_mean_ms", m.ITLMean), ITLP99Ms: f("itl_p99_ms", m.ITLP99),
		E2EMeanMs: f("e2e_mean_ms", m.E2EMean), E2EP99Ms: f("e2e_p99_ms", m.E2EP99),
		OutputTokensPerS: f("tokens_per_sec", m.TokensPerSec), ResponsesPerS: f("responses_per_sec", m.ResponsesPerSec),
		Injected: i("injected_requests", m.Injected), Completed: i("completed_requests", m.Completed),
		Preemptions: i("preemption_count", m.Preemptions), Dropped: i("dropped_unservable", m.Dropped),
		TimedOut: i("timed_out_requests", m.TimedOut), StillQueued: i("still_queued", m.StillQueued),
		StillRunning: i("still_running", m.StillRunning), TotalOutputTokens: i("total_output_tokens", m.TotalOutputTokens),
	}
	if m.LengthCapped != nil {
		fig.LengthCapped = *m.LengthCapped
	}
	if len(missing) > 0 {
		return Figures{}, fmt.Errorf("metrics file lacks (or has a non-finite) %s", strings.Join(missing, ", "))
	}
	return fig, nil
}

// Offered is the number of requests the run was offered: the declared
// request count, or for a trace what the simulator injected.
func (r DeclaredRun) Offered(f Figures) int {
	if r.Workload.Trace == nil && r.Workload.Requests > 0 {
		return r.Workload.Requests
	}
	return f.Injected
}

// Compute derives the computed values of run r from BLIS's figures.
func Compute(r DeclaredRun, f Figures) Computed {
	c := r.Candidate.Normalized()
	offered := r.Offered(f)
	served := 0.0
	if offered > 0 {
		served = float64(f.Completed) / float64(offered)
	}
	perReq := 0.0
	if f.Completed > 0 {
		perReq = float64(f.TotalOutputTokens) / float64(f.Completed)
	}
	return Computed{
		GPUs:                         ComputedValue{Value: float64(c.TP * c.DP * c.Replicas), Formula: FormulaGPUs},
		ServedFraction:               ComputedValue{Value: served, Formula: FormulaServedFraction},
		OutputTokensPerServedRequest: ComputedValue{Value: perReq, Formula: FormulaTokensPerReq},
		ArrivalProcess:               ComputedText{Value: r.Load.String(), Formula: FormulaArrival},
	}
}

// Disqualification says why a result cannot be ranked: it shed, dropped,
// timed out or left requests unfinished, so its percentiles describe a
// smaller, easier job. "" when it qualifies (or failed: see Status).
func (r *Result) Disqualification() string {
	if r.Status != StatusOK || r.BLIS == nil {
		return ""
	}
	f := r.BLIS
	offered := r.Declaration.Offered(*f)
	var parts []string
	if f.Completed < offered {
		parts = append(parts, fmt.Sprintf("completed %d of %d offered requests", f.Completed, offered))
	}
	for _, c := range []struct {
		n    int
		what string
	}{{f.Dropped, "dropped as unservable"}, {f.TimedOut, "timed out"}, {f.StillQueued, "still queued at the horizon"}, {f.StillRunning, "still running at the horizon"},
		// A request cut at the model's length limit completed with fewer
		// output tokens than offered: the run served a smaller job.
		{f.LengthCapped, "cut at the model's length limit"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	return strings.Join(parts, "; ")
}

// Seal fills SchemaVersion, ComparabilityKey and Digest.
func (r *Result) Seal() error {
	r.SchemaVersion = resultVersion
	r.ComparabilityKey = r.Declaration.Key()
	d, err := r.computeDigest()
	if err != nil {
		return err
	}
	r.Digest = d
	return nil
}

func (r *Result) computeDigest() (string, error) {
	c := *r
	c.Digest = ""
	raw, err := jsoncodec.Encode(c)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(raw)
	return ident.Digest(sum[:]), nil
}

// Encode validates a sealed result against its schema and returns the bytes
// of its file.
func (r *Result) Encode() ([]byte, error) {
	raw, err := jsoncodec.Encode(r)
	if err != nil {
		return nil, err
	}
	if err := schemas.Validate(schemas.LeaderboardResult, raw); err != nil {
		return nil, fmt.Errorf("result %s/%s: %w", r.Group, r.Run, err)
	}
	return raw, nil
}

// errTampered marks a result whose content no longer matches its digest.
var errTampered = errors.New("content does not match its digest (edited after it was written?)")

// ParseResult reads a result file strictly: its schema, then its digest,
// then the consistency of its parts. name is for messages.
func ParseResult(raw []byte, name string) (*Result, error) {
	if err := schemaErrors(schemas.LeaderboardResult, raw, name, nil); err != nil {
		return nil, err
	}
	var r Result
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	d, err := r.computeDigest()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if d != r.Digest {
		return nil, fmt.Errorf("%s: digest: %w", name, errTampered)
	}
	if r.Declaration.Group != r.Group || r.Declaration.ID != r.Run {
		return nil, fmt.Errorf("%s: declaration: names run %s/%s, the file says %s/%s", name, r.Declaration.Group, r.Declaration.ID, r.Group, r.Run)
	}
	if k := r.Declaration.Key(); k != r.ComparabilityKey {
		return nil, fmt.Errorf("%s: comparability_key: %s, but the declaration it records has key %s", name, r.ComparabilityKey, k)
	}
	if (r.Status == StatusOK) != (r.BLIS != nil && r.Computed != nil) || (r.Status == StatusFailed) != (r.Failure != nil) {
		return nil, fmt.Errorf("%s: status %q does not match its figures and failure", name, r.Status)
	}
	// The computed values follow from the declaration and BLIS's figures:
	// a result whose TP was edited without its GPUs is inconsistent.
	if r.Status == StatusOK {
		if d := runresult.DiffJSON(Compute(r.Declaration, *r.BLIS), *r.Computed); len(d) > 0 {
			return nil, fmt.Errorf("%s: computed.%s: recorded %s, but its declaration and figures give %s", name, d[0].Field, d[0].New, d[0].Old)
		}
	}
	return &r, nil
}

// workloadKey is the comparability key of a workload alone.
func workloadKey(w Workload) string {
	if w.Trace != nil && w.Trace.SHA256 != "" {
		t := *w.Trace
		t.Header, t.Data, t.File = "", "", ""
		w.Trace = &t
	}
	raw, _ := json.Marshal(w)
	sum := sha256.Sum256(raw)
	return ident.Digest(sum[:])
}

// offeredKey is the comparability key of a run: a digest of its offered
// work (workload and load point). Model, hardware and engine settings are
// what is compared, never part of the key.
func offeredKey(w Workload, l LoadPoint) string {
	raw, _ := json.Marshal(struct {
		Workload string    `json:"workload"`
		Load     LoadPoint `json:"load"`
	}{workloadKey(w), l})
	sum := sha256.Sum256(raw)
	return ident.Digest(sum[:])
}
