package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// inferencePerfRuns is the Source of inference-perf run folders: one row
// per load stage.
type inferencePerfRuns struct {
	fsys fs.FS
	dirs []string
	// hardware and engineVersion apply to folders without a sidecar.
	hardware, engineVersion string
	// maxFailed is the fraction of a stage's requests that may fail before
	// its point is marked ReasonOverloaded (Options.MaxFailedFraction).
	maxFailed float64
}

func (s inferencePerfRuns) Read(rows *Rows) error {
	var errs []error
	var noHW, noVersion []string // folders that do not say, reported once
	for _, dir := range s.dirs {
		hw, ver, err := s.readRun(rows, dir)
		if err != nil {
			errs = append(errs, err)
		}
		if !hw {
			noHW = append(noHW, dir)
		}
		if !ver {
			noVersion = append(noVersion, dir)
		}
	}
	if len(noHW) > 0 {
		errs = append(errs, fmt.Errorf("inference-perf %s: the GPU is not recorded: state it in %s (hardware) or with --inference-perf-hardware", runList(noHW), SidecarFile))
	}
	if len(noVersion) > 0 {
		errs = append(errs, fmt.Errorf("inference-perf %s: the vLLM version is not recorded: state it in %s (engine_version) or with --inference-perf-engine-version", runList(noVersion), SidecarFile))
	}
	return errors.Join(errs...)
}

// runList names run folders: "run a", or "runs a, b and 3 more".
func runList(dirs []string) string {
	if len(dirs) == 1 {
		return "run " + dirs[0]
	}
	if len(dirs) > 3 {
		return fmt.Sprintf("runs %s and %d more", strings.Join(dirs[:3], ", "), len(dirs)-3)
	}
	return "runs " + strings.Join(dirs, ", ")
}

// readRun reads one run folder and adds one row per stage. hasHW and
// hasVersion are false when neither the folder nor the options say which
// GPU or vLLM version served it (nothing is added then).
func (s inferencePerfRuns) readRun(rows *Rows, dir string) (hasHW, hasVersion bool, err error) {
	if dir == "." {
		// The run id and unit name come from the folder's name.
		return true, true, errors.New("inference-perf run folder given as the import root: its name (the run id) is not known; import it from its parent folder (--root)")
	}
	run, err := readInferencePerfRun(s.fsys, dir)
	if err != nil {
		return true, true, err
	}
	hw, ver := s.hardware, s.engineVersion
	if run.Sidecar != nil {
		if run.Sidecar.Hardware != "" {
			hw = run.Sidecar.Hardware
		}
		if run.Sidecar.EngineVersion != "" {
			ver = run.Sidecar.EngineVersion
		}
	}
	hasHW, hasVersion = strings.TrimSpace(hw) != "", strings.TrimSpace(ver) != ""
	if !hasHW || !hasVersion {
		return hasHW, hasVersion, nil
	}
	hw = strings.ToUpper(strings.TrimSpace(hw))
	if v, ok := parseVersion(ver); ok {
		ver = v.String()
	}
	in := rows.Input(dir, KindInferencePerf, fmt.Sprintf("%s: inference-perf run folder", dir))
	for _, d := range run.Differences {
		in.Note(d)
	}
	for _, st := range run.Stages {
		row := Row{Artifact: st.Artifact, Index: st.Index, RunID: run.Name, Version: ver}
		if run.Ran.ServerType != "vllm" {
			row.Exclude = ReasonNotVLLM
		} else {
			row.Build = func() (Built, string) { return buildInferencePerf(row, run, st, hw, s.maxFailed) }
		}
		in.Add(row)
	}
	return true, true, nil
}

var runStamp = regexp.MustCompile(`^([0-9]{8})-([0-9]{6})-.*-([A-Za-z0-9_.]+)$`)

// buildInferencePerf turns one inference-perf stage into a point. The
// workload is what the client ran (results/config.yaml). A stage with more
// failed requests than maxFailed allows is kept, marked ReasonOverloaded; a
// TPOT the client timed per chunk is derived again (see chunkTiming).
func buildInferencePerf(row Row, run *ipRun, st ipStage, hw string, maxFailed float64) (Built, string) {
	m := st.Metrics
	if m.Successes == 0 || !positive(m.TTFT.Mean) || !positive(m.TPOT.Mean) {
		return Built{}, ReasonMissingMean
	}
	runSeg, date := run.Name, ""
	if s := runStamp.FindStringSubmatch(run.Name); s != nil {
		runSeg = s[1] + "-" + s[2] + "-" + s[3]
		if t, err := time.Parse("20060102", s[1]); err == nil {
			date = t.Format(time.DateOnly)
		}
	}
	exp, prof := run.Exp, run.Ran
	var out Built
	out.UnitID = strings.Join([]string{"inference-perf", segment(modelBase(exp.Model)), segment(hw),
		"tp" + strconv.Itoa(exp.TensorParallelism), segment(runSeg)}, "/")
	out.Deployment = ledger.Deployment{
		Model:          exp.Model,
		Hardware:       hw,
		Engine:         "vllm",
		TensorParallel: measured(exp.TensorParallelism, "exp-config.yaml: tensor_parallelism"),
		ExpertParallel: *resolved(1, "vLLM default: no expert parallelism"),
		DataParallel:   *resolved(1, "vLLM default: data-parallel size 1"),
		Precision:      *resolved("fp16", "unquantized 16-bit checkpoint, vLLM --dtype auto; fp16 and bf16 are not told apart"),
		Engines: ledger.EngineSettings{
			MaxNumSeqs:           ptr(measured(exp.MaxNumSeqs, "exp-config.yaml: max_num_seqs")),
			MaxNumBatchedTokens:  ptr(measured(exp.MaxNumBatchedTokens, "exp-config.yaml: max_num_batched_tokens")),
			GPUMemoryUtilization: resolved(0.9, "vLLM default (not in exp-config.yaml)"),
			MaxModelLen:          ptr(measured(exp.MaxModelLen, "exp-config.yaml: max_model_len")),
			BlockSize:            resolved(16, "vLLM default block size"),
			PrefixCaching:        resolved(true, "vLLM V1 default: prefix caching on"),
		},
	}
	out.Workload = ledger.Workload{
		Client: ledger.ClientInferencePerf,
		Seed:   seed(out.UnitID),
		InferencePerf: &ledger.InferencePerfWorkload{
			NumUniqueSystemPrompts:  prof.NumUniqueSystemPrompts,
			NumUsersPerSystemPrompt: prof.NumUsersPerSystemPrompt,
			SystemPromptLen:         prof.SystemPromptLen,
			QuestionLen:             prof.QuestionLen,
			OutputLen:               prof.OutputLen,
			EnableMultiTurnChat:     prof.EnableMultiTurnChat,
			IgnoreEOS:               prof.IgnoreEOS,
		},
	}
	stage := prof.Stages[st.Index]
	requests, failed := m.Successes, m.Failures
	out.Point = ledger.Point{
		Load: ledger.Offered{Rate: stage.Rate, DurationS: stage.Duration},
		Measured: ledger.Measurement{
			TTFTMs:           *m.TTFT.Mean * 1000,
			TPOTMs:           *m.TPOT.Mean * 1000,
			ITLMs:            ms(m.ITL.Mean),
			E2ELMs:           ms(m.E2EL.Mean),
			MedianTTFTMs:     ms(m.TTFT.Median),
			P99TTFTMs:        ms(m.TTFT.P99),
			MedianTPOTMs:     ms(m.TPOT.Median),
			P99TPOTMs:        ms(m.TPOT.P99),
			Requests:         &requests,
			MeanInputTokens:  m.PromptLenMean,
			MeanOutputTokens: m.OutputLenMean,
			ThroughputTokS:   m.TotalTokensPerSec,
			FailedRequests:   &failed,
		},
		Provenance: ledger.Provenance{
			Artifact:      st.Artifact,
			RunID:         run.Name,
			EngineVersion: row.Version,
			Date:          date,
		},
	}
	if prof.IgnoreEOS {
		out.MinOutputTokens = prof.OutputLen
	}
	out.Point.Excluded = chunkTiming(&out.Point.Measured, m, prof)
	if float64(failed) > maxFailed*float64(failed+requests) {
		out.Point.Excluded = ReasonOverloaded // the first reason that applies
	}
	return out, ""
}

// RuleChunkTiming names the inference-perf defect corrected by chunkTiming.
const RuleChunkTiming = "inference-perf-chunk-timing"

// chunkTimingFormula is how chunkTiming derives TPOT.
const chunkTimingFormula = "(e2el_ms - ttft_ms) / (output_tokens - 1)"

// chunkTiming checks a stage's mean TPOT against its own means and corrects
// it when the client timed chunks instead of tokens (docs/LEDGER.md,
// "Corrected client figures"). With ignore_eos every request generated
// exactly L = output_len tokens, so the mean per-request TPOT is
// (mean E2E − mean TTFT) / (L − 1). A client that timestamps every line of
// the event stream (two per token, plus two for the closing event) records
// (last − first) / (2L + 1) instead: derived / recorded = (2L + 1) / (L − 1),
// about 2. Found so (within 3 %), the derived value replaces tpot_ms, the
// client's TPOT, ITL and TPOT percentiles move into tpot_derivation, and the
// per-request figures that cannot be derived (ITL, median and p99 TPOT) are
// omitted. A ratio of about 1 (within 5 %) is a client that timed tokens:
// nothing changes. Any other ratio returns ReasonTPOTInconsistent. Without
// ignore_eos or a mean E2E the check cannot be made and nothing changes.
func chunkTiming(meas *ledger.Measurement, m StageMetrics, prof Profile) string {
	l := prof.OutputLen
	if !prof.IgnoreEOS || l < 2 || m.E2EL.Mean == nil || m.TTFT.Mean == nil || m.TPOT.Mean == nil || *m.TPOT.Mean <= 0 {
		return ""
	}
	derived := (*m.E2EL.Mean - *m.TTFT.Mean) / float64(l-1)
	ratio := derived / *m.TPOT.Mean
	chunked := float64(2*l+1) / float64(l-1)
	switch {
	case math.Abs(ratio/chunked-1) <= 0.03:
		meas.TPOTDerivation = &ledger.Derivation{
			Evidence:             ledger.Derived,
			Rule:                 RuleChunkTiming,
			Formula:              chunkTimingFormula,
			OutputTokens:         l,
			RecordedTPOTMs:       meas.TPOTMs,
			RecordedITLMs:        meas.ITLMs,
			RecordedMedianTPOTMs: meas.MedianTPOTMs,
			RecordedP99TPOTMs:    meas.P99TPOTMs,
		}
		meas.TPOTMs = derived * 1000
		meas.ITLMs, meas.MedianTPOTMs, meas.P99TPOTMs = nil, nil, nil
		return ""
	case math.Abs(ratio-1) <= 0.05:
		return ""
	default:
		return ReasonTPOTInconsistent
	}
}
