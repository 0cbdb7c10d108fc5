// Package ledger defines the on-disk format of the measured corpus (schema
// version 1) and a strict loader for it.
//
// A ledger is a directory holding a manifest, ledger.json, and one JSON file per
// unit under units/. A unit is one sweep: one deployment driven by one client
// workload at several offered loads (its points). Every deployment setting
// carries the evidence behind it (measured, resolved or assumed), and every
// point its provenance. The format is documented in docs/LEDGER.md and by the
// JSON Schemas schemas/ledger-manifest.v1.json and schemas/ledger-unit.v1.json.
package ledger

import (
	"fmt"
	"strconv"
)

// SchemaVersion is the ledger format version this package reads and writes.
const SchemaVersion = 1

// ManifestFile is the name of a ledger's manifest inside its directory.
const ManifestFile = "ledger.json"

// UnitsDir is the folder of a ledger that holds one JSON file per unit.
const UnitsDir = "units"

// Manifest describes a ledger as a whole.
type Manifest struct {
	SchemaVersion int `json:"schema_version"`
	// Name identifies the corpus, e.g. "blis-default".
	Name string `json:"name"`
	// Version is the corpus version, e.g. "2026.02.0". A ledger whose Release
	// is true claims that Version is a published, immutable release.
	Version string `json:"version"`
	Release bool   `json:"release"`
	// Sources names where the measurements came from, one line each.
	Sources []string `json:"sources,omitempty"`
	// Description is free text for readers.
	Description string `json:"description,omitempty"`
}

// Evidence says how a deployment setting is known.
type Evidence string

const (
	// Measured: captured from the real server (its config or logs).
	Measured Evidence = "measured"
	// Resolved: not captured, but fixed by the engine's documented defaults and
	// the benchmark recipe of that date.
	Resolved Evidence = "resolved"
	// Assumed: neither captured nor documented; a best guess.
	Assumed Evidence = "assumed"
)

// Valid reports whether e is one of the three kinds of evidence.
func (e Evidence) Valid() bool { return e == Measured || e == Resolved || e == Assumed }

// rank orders evidence from strongest (0) to weakest (2).
func (e Evidence) rank() int {
	switch e {
	case Measured:
		return 0
	case Resolved:
		return 1
	default:
		return 2
	}
}

// Weaker returns the weaker of two kinds of evidence.
func Weaker(a, b Evidence) Evidence {
	if b.rank() > a.rank() {
		return b
	}
	return a
}

// Setting is one deployment setting with the evidence behind it.
type Setting[T any] struct {
	Value    T        `json:"value"`
	Evidence Evidence `json:"evidence"`
	// Note says where the value came from (a recipe line, a file), optional.
	Note string `json:"note,omitempty"`
}

// Deployment is the served system: model, hardware, topology and engine.
type Deployment struct {
	// Model is the served model's HuggingFace id, e.g. "openai/gpt-oss-120b".
	Model string `json:"model"`
	// Hardware is the GPU name as the simulator spells it, e.g. "H100".
	Hardware string `json:"hardware"`
	// Engine is the serving engine, e.g. "vllm".
	Engine string `json:"engine"`

	TensorParallel Setting[int]    `json:"tensor_parallel"`
	ExpertParallel Setting[int]    `json:"expert_parallel"`
	DataParallel   Setting[int]    `json:"data_parallel"`
	Precision      Setting[string] `json:"precision"`

	Engines EngineSettings `json:"engine_settings"`
}

// EngineSettings are the serving engine's scheduler and memory settings. A
// point may override any of them (see Point.Overrides).
type EngineSettings struct {
	MaxNumSeqs           *Setting[int]     `json:"max_num_seqs,omitempty"`
	MaxNumBatchedTokens  *Setting[int]     `json:"max_num_batched_tokens,omitempty"`
	GPUMemoryUtilization *Setting[float64] `json:"gpu_memory_utilization,omitempty"`
	MaxModelLen          *Setting[int]     `json:"max_model_len,omitempty"`
	BlockSize            *Setting[int]     `json:"block_size,omitempty"`
	PrefixCaching        *Setting[bool]    `json:"prefix_caching,omitempty"`
	KVCacheDtype         *Setting[string]  `json:"kv_cache_dtype,omitempty"`
}

// Client kinds: which benchmark client produced a unit's points.
const (
	// ClientInferenceX is InferenceX's benchmark_serving.py: a closed loop of
	// random-length requests at a fixed concurrency.
	ClientInferenceX = "inferencex-closed-loop"
	// ClientInferencePerf is inference-perf's constant-rate load over a
	// shared-prefix data set.
	ClientInferencePerf = "inference-perf-constant-rate"
)

// Workload is the client that produced a unit's points, precise enough to
// regenerate every request it sent.
type Workload struct {
	Client string `json:"client"`
	// Seed makes the regenerated requests reproducible.
	Seed          uint64                 `json:"seed"`
	InferenceX    *InferenceXWorkload    `json:"inferencex,omitempty"`
	InferencePerf *InferencePerfWorkload `json:"inference_perf,omitempty"`
}

// InferenceXWorkload is benchmark_serving.py's random data set in closed loop.
type InferenceXWorkload struct {
	InputLen   int     `json:"input_len"`   // --random-input-len
	OutputLen  int     `json:"output_len"`  // --random-output-len
	RangeRatio float64 `json:"range_ratio"` // --random-range-ratio (lengths in [floor(r·L), L])
	// PromptsPerConcurrency: --num-prompts = this × concurrency.
	PromptsPerConcurrency int `json:"prompts_per_concurrency"`
	// WarmupsPerConcurrency: --num-warmups = this × concurrency (0 before 2026-01-21).
	WarmupsPerConcurrency int  `json:"warmups_per_concurrency"`
	IgnoreEOS             bool `json:"ignore_eos"`
}

// InferencePerfWorkload is inference-perf's shared_prefix data set under a
// constant-rate load.
type InferencePerfWorkload struct {
	NumUniqueSystemPrompts  int  `json:"num_unique_system_prompts"`
	NumUsersPerSystemPrompt int  `json:"num_users_per_system_prompt"`
	SystemPromptLen         int  `json:"system_prompt_len"`
	QuestionLen             int  `json:"question_len"`
	OutputLen               int  `json:"output_len"`
	EnableMultiTurnChat     bool `json:"enable_multi_turn_chat"`
	IgnoreEOS               bool `json:"ignore_eos"`
}

// Offered is a point's offered load: exactly one of Concurrency (closed loop) or
// Rate (requests per second for DurationS seconds).
type Offered struct {
	Concurrency int     `json:"concurrency,omitempty"`
	Rate        float64 `json:"rate,omitempty"`
	DurationS   float64 `json:"duration_s,omitempty"`
}

// Value is the load as one number: the concurrency or the rate.
func (l Offered) Value() float64 {
	if l.Concurrency > 0 {
		return float64(l.Concurrency)
	}
	return l.Rate
}

// Key is the load as a stable short string: "c=16" or "rate=5".
func (l Offered) Key() string {
	if l.Concurrency > 0 {
		return "c=" + strconv.Itoa(l.Concurrency)
	}
	return "rate=" + strconv.FormatFloat(l.Rate, 'g', -1, 64)
}

// Measurement is what the benchmark client reported at one point. Latencies are
// in milliseconds; fields the source lacks are omitted.
type Measurement struct {
	TTFTMs       float64  `json:"ttft_ms"`
	TPOTMs       float64  `json:"tpot_ms"`
	ITLMs        *float64 `json:"itl_ms,omitempty"`
	E2ELMs       *float64 `json:"e2el_ms,omitempty"`
	MedianTTFTMs *float64 `json:"median_ttft_ms,omitempty"`
	P99TTFTMs    *float64 `json:"p99_ttft_ms,omitempty"`
	MedianTPOTMs *float64 `json:"median_tpot_ms,omitempty"`
	P99TPOTMs    *float64 `json:"p99_tpot_ms,omitempty"`
	// Requests is how many requests succeeded, where the source says.
	Requests *int `json:"requests,omitempty"`
	// MeanInputTokens and MeanOutputTokens as the client counted them, where given.
	MeanInputTokens  *float64 `json:"mean_input_tokens,omitempty"`
	MeanOutputTokens *float64 `json:"mean_output_tokens,omitempty"`
	ThroughputTokS   *float64 `json:"throughput_tok_s,omitempty"`
	// FailedRequests is how many requests failed (a client timeout, an
	// error), where the source says. Means describe the survivors only.
	FailedRequests *int `json:"failed_requests,omitempty"`
	// TPOTDerivation, when set, says TPOTMs is not the client's own figure
	// but derived by the importer from figures the client measured
	// correctly, because the client is known to report TPOT wrongly; it
	// keeps the client's figures beside it. Figures known to be wrong and
	// not derivable (per-request TPOT percentiles, ITL) are then omitted
	// from the measurement and kept only here.
	TPOTDerivation *Derivation `json:"tpot_derivation,omitempty"`
}

// Derived is the evidence of a figure the importer computed from other
// figures of the same measurement.
const Derived = "derived"

// Derivation records how a measurement's TPOT was derived and what the
// client recorded. docs/LEDGER.md documents each rule.
type Derivation struct {
	// Evidence is always Derived.
	Evidence string `json:"evidence"`
	// Rule names the client defect corrected, e.g. "inference-perf-chunk-timing".
	Rule string `json:"rule"`
	// Formula is how TPOTMs was computed, in the measurement's field names.
	Formula string `json:"formula"`
	// OutputTokens is the output length per request the formula uses.
	OutputTokens int `json:"output_tokens"`
	// The client's own figures, as it wrote them (milliseconds).
	RecordedTPOTMs       float64  `json:"recorded_tpot_ms"`
	RecordedITLMs        *float64 `json:"recorded_itl_ms,omitempty"`
	RecordedMedianTPOTMs *float64 `json:"recorded_median_tpot_ms,omitempty"`
	RecordedP99TPOTMs    *float64 `json:"recorded_p99_tpot_ms,omitempty"`
}

// Provenance says where a point's measurement came from.
type Provenance struct {
	// Artifact is the source file, relative to the import root (e.g.
	// "inferencex/agg_bmk/run_20662362255.json").
	Artifact string `json:"artifact"`
	// Row is the 0-based index of the row in the artifact, when it is an array.
	Row *int `json:"row,omitempty"`
	// RunID is the benchmark run's id (a GitHub Actions run id for InferenceX).
	RunID  string `json:"run_id"`
	RunURL string `json:"run_url,omitempty"`
	// EngineVersion is the serving engine's version, e.g. "v0.13.0".
	EngineVersion string `json:"engine_version"`
	// Image is the container image, where known.
	Image string `json:"image,omitempty"`
	// Date is the run date, YYYY-MM-DD, where known.
	Date string `json:"date,omitempty"`
}

// Point is one measured benchmark run at one offered load.
type Point struct {
	Load       Offered     `json:"load"`
	Measured   Measurement `json:"measured"`
	Provenance Provenance  `json:"provenance"`
	// Overrides replaces deployment engine settings for this point only (for
	// example max_num_seqs = concurrency in the InferenceX recipe).
	Overrides *EngineSettings `json:"overrides,omitempty"`
	// Excluded, when set, keeps the point in the corpus but says why it
	// cannot be simulated (for example speculative decoding without an
	// acceptance rate). Such a point is counted as not scored with this reason.
	Excluded string `json:"excluded,omitempty"`
}

// Unit is one sweep: one deployment, one workload, several loads.
type Unit struct {
	SchemaVersion int `json:"schema_version"`
	// ID is unique within the ledger; lowercase [a-z0-9._-] segments joined by "/".
	ID         string     `json:"id"`
	Deployment Deployment `json:"deployment"`
	Workload   Workload   `json:"workload"`
	// Points are sorted by load, ascending.
	Points []Point `json:"points"`
}

// Settings returns the engine settings that apply at point i: the
// deployment's, with the point's overrides on top.
func (u *Unit) Settings(i int) EngineSettings {
	s := u.Deployment.Engines
	o := u.Points[i].Overrides
	if o == nil {
		return s
	}
	return EngineSettings{
		MaxNumSeqs:           override(s.MaxNumSeqs, o.MaxNumSeqs),
		MaxNumBatchedTokens:  override(s.MaxNumBatchedTokens, o.MaxNumBatchedTokens),
		GPUMemoryUtilization: override(s.GPUMemoryUtilization, o.GPUMemoryUtilization),
		MaxModelLen:          override(s.MaxModelLen, o.MaxModelLen),
		BlockSize:            override(s.BlockSize, o.BlockSize),
		PrefixCaching:        override(s.PrefixCaching, o.PrefixCaching),
		KVCacheDtype:         override(s.KVCacheDtype, o.KVCacheDtype),
	}
}

func override[T any](base, o *Setting[T]) *Setting[T] {
	if o != nil {
		return o
	}
	return base
}

// Evidence returns the weakest evidence behind any setting that applies at
// point i: Measured only when everything was measured.
func (u *Unit) Evidence(i int) Evidence {
	d := u.Deployment
	s := u.Settings(i)
	e := Measured
	for _, x := range []Evidence{
		d.TensorParallel.Evidence, d.ExpertParallel.Evidence, d.DataParallel.Evidence, d.Precision.Evidence,
		ev(s.MaxNumSeqs), ev(s.MaxNumBatchedTokens), ev(s.GPUMemoryUtilization), ev(s.MaxModelLen),
		ev(s.BlockSize), ev(s.PrefixCaching), ev(s.KVCacheDtype),
	} {
		if x != "" {
			e = Weaker(e, x)
		}
	}
	return e
}

// ev is the evidence of an optional setting, "" when it is absent.
func ev[T any](s *Setting[T]) Evidence {
	if s == nil {
		return ""
	}
	return s.Evidence
}

// PointID is the stable identity of point i of u: "<unit id>@<load key>".
func (u *Unit) PointID(i int) string {
	return fmt.Sprintf("%s@%s", u.ID, u.Points[i].Load.Key())
}

// Ledger is a loaded corpus.
type Ledger struct {
	Manifest Manifest
	// Units sorted by ID.
	Units []Unit
	// Digest is "sha256:<hex>" over the manifest and every unit file's bytes,
	// in path order: the content version of this ledger.
	Digest string
}

// NumPoints is the number of points in the corpus.
func (l *Ledger) NumPoints() int {
	n := 0
	for i := range l.Units {
		n += len(l.Units[i].Points)
	}
	return n
}
