package importer

import (
	"errors"
	"fmt"
	"io/fs"
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
}

func (s inferencePerfRuns) Read(rows *Rows) error {
	var errs []error
	for _, dir := range s.dirs {
		if err := s.readRun(rows, dir); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// readRun reads one run folder and adds one row per stage.
func (s inferencePerfRuns) readRun(rows *Rows, dir string) error {
	run, err := readInferencePerfRun(s.fsys, dir)
	if err != nil {
		return err
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
	var errs []error
	if strings.TrimSpace(hw) == "" {
		errs = append(errs, fmt.Errorf("inference-perf run %s: the GPU is not recorded: state it in %s (hardware) or with --inference-perf-hardware", dir, SidecarFile))
	}
	if strings.TrimSpace(ver) == "" {
		errs = append(errs, fmt.Errorf("inference-perf run %s: the vLLM version is not recorded: state it in %s (engine_version) or with --inference-perf-engine-version", dir, SidecarFile))
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	hw = strings.ToUpper(strings.TrimSpace(hw))
	if v, ok := parseVersion(ver); ok {
		ver = v.String()
	}
	in := rows.Input(dir, KindInferencePerf, fmt.Sprintf("%s: inference-perf run folder", dir))
	for _, st := range run.Stages {
		row := Row{Artifact: st.Artifact, Index: st.Index, RunID: run.Name, Version: ver}
		if run.Profile.ServerType != "vllm" {
			row.Exclude = ReasonNotVLLM
		} else {
			row.Build = func() (Built, string) { return buildInferencePerf(row, run, st, hw) }
		}
		in.Add(row)
	}
	return nil
}

var runStamp = regexp.MustCompile(`^([0-9]{8})-([0-9]{6})-.*-([A-Za-z0-9_.]+)$`)

// buildInferencePerf turns one inference-perf stage into a point.
func buildInferencePerf(row Row, run *ipRun, st ipStage, hw string) (Built, string) {
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
	exp, prof := run.Exp, run.Profile
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
	requests := m.Successes
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
		},
		Provenance: ledger.Provenance{
			Artifact:      st.Artifact,
			RunID:         run.Name,
			EngineVersion: row.Version,
			Date:          date,
		},
	}
	return out, ""
}
