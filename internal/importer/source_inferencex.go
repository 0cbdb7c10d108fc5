package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// inferenceXFiles is the Source of InferenceX JSON files: agg_bmk artifacts
// (run_<run-id>.json) and /api/v1/benchmarks row files.
type inferenceXFiles struct {
	fsys fs.FS
	// files by path, each with its content when discovery read it already
	// (nil when not).
	files    map[string][]byte
	runDates map[string]string
}

func (s inferenceXFiles) Read(rows *Rows) error {
	var errs []error
	for _, p := range slices.Sorted(maps.Keys(s.files)) {
		if err := s.readFile(rows, p, s.files[p]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// aggBmkRunURL is the GitHub Actions run of an agg_bmk artifact.
func aggBmkRunURL(runID string) string {
	return "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/" + runID
}

// readFile parses one InferenceX JSON file and adds its rows. data is the
// file's content, or nil to read it from the file system.
func (s inferenceXFiles) readFile(rows *Rows, p string, data []byte) error {
	if data == nil {
		var err error
		if data, err = readSource(s.fsys, p); err != nil {
			return err
		}
	}
	if runID, ok := aggBmkRunID(p); ok {
		xs, err := ParseAggBmk(p, data)
		if err != nil {
			return err
		}
		in := rows.Input(p, KindAggBmk, fmt.Sprintf("%s: InferenceX agg_bmk artifact of run %s", p, aggBmkRunURL(runID)))
		for _, r := range xs {
			in.Unknown(r.Unknown)
			in.Add(inferenceXRow(p, runID, aggBmkRunURL(runID), false, r, s.runDates))
		}
		return nil
	}
	xs, err := ParseAPIRows(p, data)
	if err != nil {
		if looksLikeAggBmk(data) {
			return fmt.Errorf("%s: looks like an agg_bmk artifact, but its name is neither run_<run-id>.json nor run_<run-id>/agg_bmk.json (the rows do not carry the run id): %w", p, err)
		}
		return err
	}
	in := rows.Input(p, KindAPI, fmt.Sprintf("%s: InferenceX /api/v1/benchmarks rows", p))
	for _, r := range xs {
		in.Unknown(r.Unknown)
		in.Add(inferenceXRow(p, runIDFromURL(r.RunURL), r.RunURL, true, r, s.runDates))
	}
	return nil
}

func looksLikeAggBmk(data []byte) bool {
	raws, err := decodeArray(data)
	if err != nil || len(raws) == 0 {
		return false
	}
	o, err := decodeObject(raws[0])
	if err != nil {
		return false
	}
	_, hw := o.fields["hw"]
	_, metrics := o.fields["metrics"]
	return hw && !metrics
}

// inferenceXRow is the Row of one InferenceX row of artifact (an agg_bmk
// file, or API rows when api is true, whose model names are short). The
// framework and image decide the version rules; the rest is read when the
// row is built.
func inferenceXRow(artifact, runID, runURL string, api bool, r XRow, runDates map[string]string) Row {
	row := Row{Artifact: artifact, Index: r.Index, RunID: runID}
	if r.Framework != "vllm" {
		row.Exclude = ReasonNotVLLM
		return row
	}
	if v, ok := imageVersion(r.Image); ok {
		row.Version = v.String()
	}
	row.Build = func() (Built, string) { return buildInferenceX(row, runURL, api, r, runDates) }
	return row
}

// buildInferenceX turns a vLLM row inside the version window into a point.
func buildInferenceX(row Row, runURL string, api bool, r XRow, runDates map[string]string) (Built, string) {
	if r.Disagg || r.MultiNode {
		return Built{}, ReasonMultiNode
	}
	if !positive(r.Metrics.MeanTTFT) || !positive(r.Metrics.MeanTPOT) {
		return Built{}, ReasonMissingMean
	}
	model := r.Model
	if api && !strings.Contains(model, "/") {
		var ok bool
		if model, ok = apiModels[r.Model]; !ok {
			return Built{}, ReasonUnknownModel
		}
	}
	facts, ok := factsFor(row.RunID, r.Date, runDates)
	if !ok {
		return Built{}, ReasonRunDate
	}
	var out Built
	hw := hardwareName(r.Hardware)
	warmups := 0
	if !facts.PreWarmup {
		warmups = 2
	}
	if r.SpecDecoding != "none" && r.SpecDecoding != "" {
		out.Spec = r.SpecDecoding
	}

	topo := "tp" + strconv.Itoa(r.TP)
	if r.EP > 1 {
		topo += "-ep" + strconv.Itoa(r.EP)
	}
	if r.DPAttention {
		topo += "-dpattn"
	}
	if out.Spec != "" {
		topo += "-" + out.Spec
	}
	if nativePrecision[model] != r.Precision {
		topo += "-" + r.Precision
	}
	shape := fmt.Sprintf("isl%d-osl%d", r.ISL, r.OSL)
	if warmups > 0 {
		shape += fmt.Sprintf("-warmup%d", warmups)
	}
	out.UnitID = strings.Join([]string{"inferencex", segment(modelBase(model)), segment(hw), segment(topo), segment(shape)}, "/")

	engines, perPoint := inferenceXEngine(model, hw, r.ISL, r.OSL, r.Conc, facts.InRecipeWindow)
	dp := measured(1, "InferenceX row: dp_attention false")
	if r.DPAttention {
		dp = ledger.Setting[int]{Value: r.TP, Evidence: ledger.Assumed, Note: "assumed: dp_attention true taken as data-parallel attention over the TP ranks"}
	}
	out.Deployment = ledger.Deployment{
		Model:          model,
		Hardware:       hw,
		Engine:         "vllm",
		TensorParallel: measured(r.TP, "InferenceX row: tp"),
		ExpertParallel: measured(r.EP, "InferenceX row: ep"),
		DataParallel:   dp,
		Precision:      measured(r.Precision, "InferenceX row: precision"),
		Engines:        engines,
	}
	out.Workload = ledger.Workload{
		Client: ledger.ClientInferenceX,
		Seed:   seed(out.UnitID),
		InferenceX: &ledger.InferenceXWorkload{
			InputLen: r.ISL, OutputLen: r.OSL, RangeRatio: 0.8,
			PromptsPerConcurrency: 10, WarmupsPerConcurrency: warmups, IgnoreEOS: true,
		},
	}
	index := r.Index
	out.Point = ledger.Point{
		Load: ledger.Offered{Concurrency: r.Conc},
		Measured: ledger.Measurement{
			TTFTMs:       *r.Metrics.MeanTTFT * 1000,
			TPOTMs:       *r.Metrics.MeanTPOT * 1000,
			ITLMs:        ms(r.Metrics.MeanITL),
			E2ELMs:       ms(r.Metrics.MeanE2EL),
			MedianTTFTMs: ms(r.Metrics.MedianTTFT),
			P99TTFTMs:    ms(r.Metrics.P99TTFT),
			MedianTPOTMs: ms(r.Metrics.MedianTPOT),
			P99TPOTMs:    ms(r.Metrics.P99TPOT),
		},
		Provenance: ledger.Provenance{
			Artifact:      row.Artifact,
			Row:           &index,
			RunID:         row.RunID,
			RunURL:        runURL,
			EngineVersion: row.Version,
			Image:         r.Image,
			Date:          facts.Date,
		},
		Overrides: perPoint,
	}
	if out.Spec != "" {
		out.Point.Excluded = ReasonSpeculative
	}
	// benchmark_serving.py draws output lengths from [floor(r·OSL), OSL].
	out.MinOutputTokens = int(math.Floor(out.Workload.InferenceX.RangeRatio * float64(r.OSL)))
	out.Interactivity = r.Metrics.MeanIntvty
	return out, ""
}

// nativePrecision is the precision a model is published in; a unit id names
// the precision only when it differs (or the model is not listed).
var nativePrecision = map[string]string{
	"openai/gpt-oss-120b": "fp4",
}
