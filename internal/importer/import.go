package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// Reasons a row is excluded (the keys of Report.Excluded) or a point marked
// (Report.Marked and ledger.Point.Excluded). Stable short texts. A row gets
// the first reason that applies, in the order listed.
const (
	ReasonNotVLLM      = "not vllm"
	ReasonUnnumbered   = "unnumbered or custom vllm build"
	ReasonOldVersion   = "vllm version outside the latest N"
	ReasonMultiNode    = "multi-node or disaggregated"
	ReasonMissingMean  = "missing or non-positive mean"
	ReasonUnknownModel = "unknown model name"
	ReasonRunDate      = "run date unknown"
	ReasonDuplicate    = "duplicate of a newer measurement"
	// ReasonSpeculative marks a kept point: speculative decoding cannot be
	// simulated without the acceptance rate, which no source records.
	ReasonSpeculative = "speculative decoding without acceptance rate"
)

// DefaultVersions is how many of the latest numbered vLLM versions are kept.
const DefaultVersions = 5

// Options control an import. They are recorded in the report, so an import
// can be repeated from its report alone.
type Options struct {
	// Sources are slash-separated paths inside the import file system: agg_bmk
	// files (run_<run-id>.json), API row files, inference-perf run folders, or
	// directories holding any of these.
	Sources []string `json:"sources"`
	// Versions is N: keep the latest N numbered vLLM versions present.
	Versions int `json:"versions"`
	// RunDates gives the date (YYYY-MM-DD) of InferenceX runs by run id, for
	// runs the importer does not know; a run's date decides its warmups.
	RunDates map[string]string `json:"run_dates,omitempty"`
	// InferencePerfHardware and InferencePerfEngineVersion apply to every
	// inference-perf run folder without a blis-import.yaml sidecar.
	InferencePerfHardware      string `json:"inference_perf_hardware,omitempty"`
	InferencePerfEngineVersion string `json:"inference_perf_engine_version,omitempty"`
	// Name, Version, Release and Description go into the ledger manifest.
	Name        string `json:"name"`
	Version     string `json:"version"`
	Release     bool   `json:"release"`
	Description string `json:"description,omitempty"`
	// SourceNotes are extra lines for the manifest's sources, before the
	// generated one-line-per-artifact list.
	SourceNotes []string `json:"source_notes,omitempty"`
}

// Result is a finished import: the ledger to write and its report.
type Result struct {
	Manifest ledger.Manifest
	// Units sorted by ID, points by load.
	Units  []ledger.Unit
	Report Report
}

// Import reads the sources of opts from fsys, applies the corpus rules and
// returns the ledger and its report. Every input problem found (a file that
// cannot be parsed, a run folder missing a file) is returned together
// (errors.Join), each naming its file and row, and nothing is returned then.
// The result is deterministic: the same files and options give the same
// units and report.
func Import(fsys fs.FS, opts Options) (*Result, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	found, err := discover(fsys, opts.Sources)
	if err != nil {
		return nil, err
	}
	b := &builder{opts: opts, sources: map[string]*SourceReport{}}
	var errs []error
	for _, p := range sortedKeys(found.xFiles) {
		if err := b.readInferenceX(fsys, p, found.xFiles[p]); err != nil {
			errs = append(errs, err)
		}
	}
	for _, dir := range found.ipRuns {
		if err := b.readInferencePerf(fsys, dir); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	res, err := b.finish()
	if err != nil {
		return nil, err
	}
	res.Report.Skipped = found.skipped
	return res, nil
}

func (o *Options) validate() error {
	var errs []error
	if len(o.Sources) == 0 {
		errs = append(errs, errors.New("no sources to import"))
	}
	if o.Versions < 1 {
		errs = append(errs, fmt.Errorf("versions: %d (want at least 1)", o.Versions))
	}
	ids := make([]string, 0, len(o.RunDates))
	for id := range o.RunDates {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if _, err := strconv.ParseUint(id, 10, 64); err != nil {
			errs = append(errs, fmt.Errorf("run date: run id %q is not a number", id))
		}
		if _, err := time.Parse(time.DateOnly, o.RunDates[id]); err != nil {
			errs = append(errs, fmt.Errorf("run date of %s: %q is not a YYYY-MM-DD date", id, o.RunDates[id]))
		}
	}
	if strings.TrimSpace(o.Name) == "" {
		errs = append(errs, errors.New("ledger name: must not be empty"))
	}
	if strings.TrimSpace(o.Version) == "" {
		errs = append(errs, errors.New("ledger version: must not be empty"))
	}
	return errors.Join(errs...)
}

type discovered struct {
	// xFiles are the InferenceX JSON files by path, each with its content
	// when discovery has read it already (nil when not).
	xFiles  map[string][]byte
	ipRuns  []string // inference-perf run folders
	skipped []string
}

// discover expands the sources into artifact files and run folders, each
// listed once (run folders and skipped paths sorted by path). A file named as
// a source is always read as an artifact; inside a directory, files that are
// not *.json, JSON objects (not arrays of rows) and ledger directories are
// listed as skipped instead. The content of a file read to tell an object
// from an array is kept, so the import reads it only once.
func discover(fsys fs.FS, sources []string) (*discovered, error) {
	x, ip, skip := map[string][]byte{}, map[string]bool{}, map[string]bool{}
	addX := func(p string) {
		if _, ok := x[p]; !ok {
			x[p] = nil // read by the import
		}
	}
	var errs []error
	for _, src := range sources {
		src = path.Clean(src)
		st, err := fs.Stat(fsys, src)
		if err != nil {
			errs = append(errs, fmt.Errorf("source %s: %w", src, err))
			continue
		}
		if !st.IsDir() {
			if strings.HasSuffix(src, ".json") {
				addX(src)
			} else {
				errs = append(errs, fmt.Errorf("source %s: not a JSON artifact or a directory", src))
			}
			continue
		}
		err = fs.WalkDir(fsys, src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if _, err := fs.Stat(fsys, path.Join(p, ledger.ManifestFile)); err == nil {
					skip[p+"/"] = true // a ledger (an earlier import's output), not an artifact
					return fs.SkipDir
				}
				if isInferencePerfRun(fsys, p) {
					ip[p] = true
					return fs.SkipDir
				}
				return nil
			}
			switch {
			case !strings.HasSuffix(p, ".json"):
				skip[p] = true
			case aggRunFile.MatchString(path.Base(p)):
				addX(p)
			case x[p] != nil || skip[p]:
				// Found already under another source.
			default:
				// A JSON object (a model config, a ledger report) found
				// while walking is not an artifact; arrays of rows are.
				b, err := fs.ReadFile(fsys, p)
				if err != nil {
					return err
				}
				if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
					skip[p] = true
				} else {
					x[p] = b
				}
			}
			return nil
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("source %s: %w", src, err))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	d := &discovered{xFiles: x, ipRuns: sortedKeys(ip), skipped: sortedKeys(skip)}
	if len(d.xFiles)+len(d.ipRuns) == 0 {
		return nil, fmt.Errorf("no artifacts found in %s (want run_<run-id>.json, API row files or inference-perf run folders)", strings.Join(sources, ", "))
	}
	return d, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// candidate is one input row on its way to becoming a point.
type candidate struct {
	src    *SourceReport
	reason string // exclusion reason; empty while the row survives

	version  vllmVersion
	numbered bool
	runID    string
	artifact string
	row      int

	// Set once the row is known to be a vLLM point (build succeeded).
	unitID   string
	spec     string
	dep      ledger.Deployment
	wl       ledger.Workload
	point    ledger.Point
	identity string

	// build makes the point after the version rules pass; it may set reason.
	build func(c *candidate)
}

type builder struct {
	opts    Options
	sources map[string]*SourceReport
	cands   []*candidate
}

func (b *builder) source(p, kind string) *SourceReport {
	s := &SourceReport{Path: p, Kind: kind, Excluded: map[string]int{}}
	b.sources[p] = s
	return s
}

// readInferenceX parses one InferenceX JSON file and queues its rows. data
// is the file's content, or nil to read it from fsys.
func (b *builder) readInferenceX(fsys fs.FS, p string, data []byte) error {
	if data == nil {
		var err error
		if data, err = fs.ReadFile(fsys, p); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	if m := aggRunFile.FindStringSubmatch(path.Base(p)); m != nil {
		rows, err := ParseAggBmk(p, data)
		if err != nil {
			return err
		}
		src := b.source(p, KindAggBmk)
		for _, r := range rows {
			b.addXRow(src, p, m[1], "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/"+m[1], r)
		}
		return nil
	}
	rows, err := ParseAPIRows(p, data)
	if err != nil {
		if looksLikeAggBmk(data) {
			return fmt.Errorf("%s: looks like an agg_bmk artifact, but its name is not run_<run-id>.json (the rows do not carry the run id): %w", p, err)
		}
		return err
	}
	src := b.source(p, KindAPI)
	for _, r := range rows {
		b.addXRow(src, p, runIDFromURL(r.RunURL), r.RunURL, r)
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

// addXRow queues one InferenceX row; rules that need only the row apply now.
func (b *builder) addXRow(src *SourceReport, artifact, runID, runURL string, r XRow) {
	src.RowsIn++
	c := &candidate{src: src, runID: runID, artifact: artifact, row: r.Index}
	b.cands = append(b.cands, c)
	if r.Framework != "vllm" {
		c.reason = ReasonNotVLLM
		return
	}
	c.version, c.numbered = imageVersion(r.Image)
	if !c.numbered {
		c.reason = ReasonUnnumbered
		return
	}
	c.build = func(c *candidate) { b.buildX(c, runURL, r) }
}

// buildX turns a vLLM row inside the version window into a point.
func (b *builder) buildX(c *candidate, runURL string, r XRow) {
	if r.Disagg || r.MultiNode {
		c.reason = ReasonMultiNode
		return
	}
	if !positive(r.Metrics.MeanTTFT) || !positive(r.Metrics.MeanTPOT) {
		c.reason = ReasonMissingMean
		return
	}
	model := r.Model
	if c.src.Kind == KindAPI && !strings.Contains(model, "/") {
		var ok bool
		if model, ok = apiModels[r.Model]; !ok {
			c.reason = ReasonUnknownModel
			return
		}
	}
	facts, ok := factsFor(c.runID, r.Date, b.opts.RunDates)
	if !ok {
		c.reason = ReasonRunDate
		return
	}
	hw := hardwareName(r.Hardware)
	warmups := 0
	if !facts.PreWarmup {
		warmups = 2
	}
	if r.SpecDecoding != "none" && r.SpecDecoding != "" {
		c.spec = r.SpecDecoding
	}

	topo := "tp" + strconv.Itoa(r.TP)
	if r.EP > 1 {
		topo += "-ep" + strconv.Itoa(r.EP)
	}
	if r.DPAttention {
		topo += "-dpattn"
	}
	if c.spec != "" {
		topo += "-" + c.spec
	}
	if nativePrecision[model] != r.Precision {
		topo += "-" + r.Precision
	}
	shape := fmt.Sprintf("isl%d-osl%d", r.ISL, r.OSL)
	if warmups > 0 {
		shape += fmt.Sprintf("-warmup%d", warmups)
	}
	c.unitID = strings.Join([]string{"inferencex", segment(modelBase(model)), segment(hw), segment(topo), segment(shape)}, "/")

	engines, perPoint := inferenceXEngine(model, hw, r.ISL, r.OSL, r.Conc, facts.InRecipeWindow)
	dp := measured(1, "InferenceX row: dp_attention false")
	if r.DPAttention {
		dp = ledger.Setting[int]{Value: r.TP, Evidence: ledger.Assumed, Note: "assumed: dp_attention true taken as data-parallel attention over the TP ranks"}
	}
	c.dep = ledger.Deployment{
		Model:          model,
		Hardware:       hw,
		Engine:         "vllm",
		TensorParallel: measured(r.TP, "InferenceX row: tp"),
		ExpertParallel: measured(r.EP, "InferenceX row: ep"),
		DataParallel:   dp,
		Precision:      measured(r.Precision, "InferenceX row: precision"),
		Engines:        engines,
	}
	c.wl = ledger.Workload{
		Client: ledger.ClientInferenceX,
		Seed:   seed(c.unitID),
		InferenceX: &ledger.InferenceXWorkload{
			InputLen: r.ISL, OutputLen: r.OSL, RangeRatio: 0.8,
			PromptsPerConcurrency: 10, WarmupsPerConcurrency: warmups, IgnoreEOS: true,
		},
	}
	row := r.Index
	c.point = ledger.Point{
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
			Artifact:      c.artifact,
			Row:           &row,
			RunID:         c.runID,
			RunURL:        runURL,
			EngineVersion: c.version.String(),
			Image:         r.Image,
			Date:          facts.Date,
		},
		Overrides: perPoint,
	}
}

// nativePrecision is the precision a model is published in; a unit id names
// the precision only when it differs (or the model is not listed).
var nativePrecision = map[string]string{
	"openai/gpt-oss-120b": "fp4",
}

// readInferencePerf reads one run folder and queues one row per stage.
func (b *builder) readInferencePerf(fsys fs.FS, dir string) error {
	run, err := readInferencePerfRun(fsys, dir)
	if err != nil {
		return err
	}
	hw, ver := b.opts.InferencePerfHardware, b.opts.InferencePerfEngineVersion
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
	src := b.source(dir, KindInferencePerf)
	for _, st := range run.Stages {
		src.RowsIn++
		c := &candidate{src: src, runID: run.Name, artifact: st.Artifact, row: st.Index}
		b.cands = append(b.cands, c)
		if run.Profile.ServerType != "vllm" {
			c.reason = ReasonNotVLLM
			continue
		}
		c.version, c.numbered = parseVersion(ver)
		if !c.numbered {
			c.reason = ReasonUnnumbered
			continue
		}
		c.build = func(c *candidate) { b.buildIP(c, run, st, hw) }
	}
	return nil
}

var runStamp = regexp.MustCompile(`^([0-9]{8})-([0-9]{6})-.*-([A-Za-z0-9_.]+)$`)

// buildIP turns one inference-perf stage into a point.
func (b *builder) buildIP(c *candidate, run *ipRun, st ipStage, hw string) {
	m := st.Metrics
	if m.Successes == 0 || !positive(m.TTFT.Mean) || !positive(m.TPOT.Mean) {
		c.reason = ReasonMissingMean
		return
	}
	runSeg, date := run.Name, ""
	if s := runStamp.FindStringSubmatch(run.Name); s != nil {
		runSeg = s[1] + "-" + s[2] + "-" + s[3]
		if t, err := time.Parse("20060102", s[1]); err == nil {
			date = t.Format(time.DateOnly)
		}
	}
	exp, prof := run.Exp, run.Profile
	c.unitID = strings.Join([]string{"inference-perf", segment(modelBase(exp.Model)), segment(hw),
		"tp" + strconv.Itoa(exp.TensorParallelism), segment(runSeg)}, "/")
	c.dep = ledger.Deployment{
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
	c.wl = ledger.Workload{
		Client: ledger.ClientInferencePerf,
		Seed:   seed(c.unitID),
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
	c.point = ledger.Point{
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
			EngineVersion: c.version.String(),
			Date:          date,
		},
	}
}

// finish applies the corpus-wide rules (version window, dedup), groups the
// points into units and builds the report.
func (b *builder) finish() (*Result, error) {
	// Version window: the latest N numbered versions among the vLLM rows.
	present := map[vllmVersion]bool{}
	for _, c := range b.cands {
		if c.numbered {
			present[c.version] = true
		}
	}
	versions := make([]vllmVersion, 0, len(present))
	for v := range present {
		versions = append(versions, v)
	}
	sort.Slice(versions, func(i, j int) bool { return versions[i].less(versions[j]) })
	kept := versions
	if len(kept) > b.opts.Versions {
		kept = kept[len(kept)-b.opts.Versions:]
	}
	keep := map[vllmVersion]bool{}
	for _, v := range kept {
		keep[v] = true
	}
	for _, c := range b.cands {
		if c.reason != "" || c.build == nil {
			continue
		}
		if !keep[c.version] {
			c.reason = ReasonOldVersion
			continue
		}
		c.build(c)
		if c.reason == "" {
			c.identity = identity(c)
		}
	}

	// Dedup: one point per simulator-input identity, the newest version
	// winning, then the later run, then the later artifact and row.
	best := map[string]*candidate{}
	for _, c := range b.cands {
		if c.reason != "" {
			continue
		}
		if o, ok := best[c.identity]; !ok || newer(c, o) {
			best[c.identity] = c
		}
	}
	for _, c := range b.cands {
		if c.reason == "" && best[c.identity] != c {
			c.reason = ReasonDuplicate
		}
	}

	// Group the survivors into units.
	units := map[string]*ledger.Unit{}
	for _, c := range b.cands {
		if c.reason != "" {
			c.src.Excluded[c.reason]++
			continue
		}
		if c.spec != "" {
			c.point.Excluded = ReasonSpeculative
			if c.src.Marked == nil {
				c.src.Marked = map[string]int{}
			}
			c.src.Marked[ReasonSpeculative]++
		}
		c.src.PointsOut++
		u, ok := units[c.unitID]
		if !ok {
			u = &ledger.Unit{SchemaVersion: ledger.SchemaVersion, ID: c.unitID, Deployment: c.dep, Workload: c.wl}
			units[c.unitID] = u
		} else if err := sameSweep(u, c); err != nil {
			return nil, err
		}
		u.Points = append(u.Points, c.point)
	}

	res := &Result{Report: Report{
		SchemaVersion: ReportSchemaVersion,
		Excluded:      map[string]int{},
		Marked:        map[string]int{},
		Options:       b.opts,
	}}
	for _, v := range versions {
		res.Report.VLLMVersions.Present = append(res.Report.VLLMVersions.Present, v.String())
	}
	for _, v := range kept {
		res.Report.VLLMVersions.Kept = append(res.Report.VLLMVersions.Kept, v.String())
	}
	for _, id := range sortedKeys(units) {
		u := units[id]
		sort.SliceStable(u.Points, func(i, j int) bool { return u.Points[i].Load.Value() < u.Points[j].Load.Value() })
		if err := u.Validate(); err != nil {
			return nil, fmt.Errorf("unit %s: %w", id, err)
		}
		res.Units = append(res.Units, *u)
		res.Report.PointsOut += len(u.Points)
	}
	res.Report.Units = len(res.Units)
	var lines []string
	for _, p := range sortedKeys(b.sources) {
		s := b.sources[p]
		res.Report.Sources = append(res.Report.Sources, *s)
		res.Report.RowsIn += s.RowsIn
		for k, v := range s.Excluded {
			res.Report.Excluded[k] += v
		}
		for k, v := range s.Marked {
			res.Report.Marked[k] += v
		}
		if s.PointsOut > 0 {
			lines = append(lines, b.sourceLine(s))
		}
	}
	res.Manifest = ledger.Manifest{
		SchemaVersion: ledger.SchemaVersion,
		Name:          b.opts.Name,
		Version:       b.opts.Version,
		Release:       b.opts.Release,
		Description:   b.opts.Description,
		Sources:       append(append([]string(nil), b.opts.SourceNotes...), lines...),
	}
	return res, nil
}

func (b *builder) sourceLine(s *SourceReport) string {
	switch s.Kind {
	case KindAggBmk:
		id := aggRunFile.FindStringSubmatch(path.Base(s.Path))[1]
		return fmt.Sprintf("%s: InferenceX agg_bmk artifact of run https://github.com/SemiAnalysisAI/InferenceX/actions/runs/%s", s.Path, id)
	case KindAPI:
		return fmt.Sprintf("%s: InferenceX /api/v1/benchmarks rows", s.Path)
	default:
		return fmt.Sprintf("%s: inference-perf run folder", s.Path)
	}
}

// newer reports whether c is preferred to o for the same identity.
func newer(c, o *candidate) bool {
	if c.version != o.version {
		return o.version.less(c.version)
	}
	if c.runID != o.runID {
		return runLess(o.runID, c.runID)
	}
	if c.artifact != o.artifact {
		return o.artifact < c.artifact
	}
	return o.row < c.row
}

// runLess orders run ids numerically when both are numbers, else as text.
func runLess(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	if errA == nil && errB == nil {
		return x < y
	}
	return a < b
}

// sameSweep fits c into unit u. The deployment and workload must be the
// same, except that engine settings may differ in their evidence or note (a
// point of a run inside the recipe window beside one outside it): those go
// into the point's overrides, so each point keeps its own evidence. Anything
// else differing under one id would be a naming bug.
func sameSweep(u *ledger.Unit, c *candidate) error {
	a, b := u.Deployment, c.dep
	a.Engines, b.Engines = ledger.EngineSettings{}, ledger.EngineSettings{}
	if !sameJSON([]any{a, u.Workload}, []any{b, c.wl}) || !sameJSON(settingValues(u.Deployment.Engines), settingValues(c.dep.Engines)) {
		return fmt.Errorf("unit id %s names two different deployments or workloads (%s row %d differs from the unit's first point); the unit id scheme needs a new segment: please report this",
			u.ID, c.artifact, c.row)
	}
	ue, ce := &u.Deployment.Engines, &c.dep.Engines
	o := c.point.Overrides
	if o == nil {
		o = &ledger.EngineSettings{}
	}
	overrideIfDiffers(&o.MaxNumSeqs, ue.MaxNumSeqs, ce.MaxNumSeqs)
	overrideIfDiffers(&o.MaxNumBatchedTokens, ue.MaxNumBatchedTokens, ce.MaxNumBatchedTokens)
	overrideIfDiffers(&o.GPUMemoryUtilization, ue.GPUMemoryUtilization, ce.GPUMemoryUtilization)
	overrideIfDiffers(&o.MaxModelLen, ue.MaxModelLen, ce.MaxModelLen)
	overrideIfDiffers(&o.BlockSize, ue.BlockSize, ce.BlockSize)
	overrideIfDiffers(&o.PrefixCaching, ue.PrefixCaching, ce.PrefixCaching)
	overrideIfDiffers(&o.KVCacheDtype, ue.KVCacheDtype, ce.KVCacheDtype)
	if *o != (ledger.EngineSettings{}) {
		c.point.Overrides = o
	}
	return nil
}

// overrideIfDiffers sets *dst to the point's own setting when it differs
// from the unit's (values are equal here; evidence or note differ) and the
// point does not override it already.
func overrideIfDiffers[T comparable](dst **ledger.Setting[T], unit, own *ledger.Setting[T]) {
	if *dst != nil || own == nil || unit == nil || *unit == *own {
		return
	}
	*dst = own
}

func sameJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}

// identity is the simulator-input identity of a candidate: everything the
// simulator is given (deployment, engine settings at this point, workload,
// load, speculative method) and nothing else (not the version, not the
// evidence, not the seed).
func identity(c *candidate) string {
	u := ledger.Unit{Deployment: c.dep, Points: []ledger.Point{c.point}}
	settings := u.Settings(0)
	dep := c.dep
	dep.Engines = ledger.EngineSettings{}
	wl := c.wl
	wl.Seed = 0
	key := struct {
		Spec     string
		Model    string
		Hardware string
		Engine   string
		TP, EP   int
		DP       int
		Prec     string
		Settings []any
		Workload ledger.Workload
		Load     ledger.Offered
	}{
		Spec: c.spec, Model: dep.Model, Hardware: dep.Hardware, Engine: dep.Engine,
		TP: dep.TensorParallel.Value, EP: dep.ExpertParallel.Value, DP: dep.DataParallel.Value,
		Prec:     dep.Precision.Value,
		Settings: settingValues(settings),
		Workload: wl,
		Load:     c.point.Load,
	}
	b, err := json.Marshal(key)
	if err != nil {
		panic("importer: identity of plain values cannot fail to marshal: " + err.Error())
	}
	return string(b)
}

func settingValues(s ledger.EngineSettings) []any {
	return []any{
		valueOf(s.MaxNumSeqs), valueOf(s.MaxNumBatchedTokens), valueOf(s.GPUMemoryUtilization),
		valueOf(s.MaxModelLen), valueOf(s.BlockSize), valueOf(s.PrefixCaching), valueOf(s.KVCacheDtype),
	}
}

func valueOf[T any](s *ledger.Setting[T]) any {
	if s == nil {
		return nil
	}
	return s.Value
}

func positive(p *float64) bool { return p != nil && *p > 0 }

func ms(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p * 1000
	return &v
}

func ptr[T any](v T) *T { return &v }

// seed is a stable workload seed derived from the unit id (FNV-1a, 64 bit).
func seed(unitID string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(unitID))
	return h.Sum64()
}

// modelBase is the last path element of a model id or path.
func modelBase(model string) string {
	model = strings.TrimRight(model, "/")
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		return model[i+1:]
	}
	return model
}

var notSegment = regexp.MustCompile(`[^a-z0-9._-]+`)

// segment makes s a unit-id segment: lowercase [a-z0-9._-], starting with a
// letter or digit.
func segment(s string) string {
	s = notSegment.ReplaceAllString(strings.ToLower(s), "-")
	s = strings.TrimLeft(s, "._-")
	if s == "" {
		return "x"
	}
	return s
}
