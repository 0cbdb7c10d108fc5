// Command blis is a stand-in for the BLIS simulator used by the harness's
// tests. It honours the part of BLIS's command-line contract the harness
// uses, with a simple deterministic latency model:
//
//   - `replay` with a trace v2 header and CSV (input_tokens read as BLIS
//     does: the tokens after the prefix, prefix_length added on top for a
//     request of a prefix group), closed-loop sessions, engine flags, and
//     --metrics-path or --results-path (each request's prefill count:
//     num_prefill_tokens, input_tokens);
//   - `run` with a distribution workload from its flags (--rate: constant
//     arrivals; --concurrency: closed loop; Gaussian --prompt-tokens and
//     --output-tokens), or a --workload-spec of one rate client (constant or
//     poisson arrivals at aggregate_rate) as the leaderboard writes;
//   - `run --workload-spec FILE` whose one client has a concurrency C (as in
//     BLIS, --concurrency and --workload-spec are mutually exclusive) and
//     empirical length distributions, with --num-requests, --seed, --horizon
//     and --metrics-path: C users send a request each at 0 and a follow-up
//     whenever one completes, until the count is reached; requests are
//     "request_<k>" for the first C and "session_<session>_round_<r>_<n>"
//     for follow-ups, n counting up in sending order. The specification is
//     read in its JSON form (YAML's JSON subset), which is what the harness
//     writes;
//   - --hardware-config FILE replaces the bundled hardware_config.json, as in
//     BLIS; a GPU entry with BwPeakTBs scales decode time by 3.35 / BwPeakTBs
//     (H100 = 1), so a test can tell which entry a run used;
//   - the model's config.json (model_configs/<model>/ or
//     --model-config-folder) with quantization_config.bits scales decode
//     time by bits / 16 (weights priced at bits/8 bytes instead of bf16's
//     2), so a what-if that patches it changes TPOT by a known factor.
//
// It writes its diagnostics to stderr as BLIS's logger does (level=fatal
// before exiting 1; level=warning for what BLIS warns about: a
// quantization_config whose weight precision it cannot determine, a
// preemption when a closed-loop replay has more sessions than
// --max-num-seqs).
//
// It misbehaves on purpose for models named fault-*. Models named flat-*
// answer without looking at request lengths (TTFT and TPOT depend on the
// load and, like a cold server, on whether the request is a session's
// first), so two drivers of one point give the same means whatever requests
// they draw, provided they exclude the same warm-ups.
//
// The variant constant selects which generation of BLIS it imitates:
// "metrics" (upstream main: replay --metrics-path, --max-num-seqs),
// "results" (v0.7.15: replay --results-path only, --max-num-running-reqs;
// run --metrics-path) or "agentic" (upstream after f90a1e3a: "metrics"
// plus `convert otel|weka --input --trace-output [--context-growth]`, which
// writes a TraceV2 pair, and `replay --concurrent-sessions N`, a pool of N
// closed-loop sessions). Tests rewrite it.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

const variant = "metrics"

// fatal and warn write to stderr as BLIS's logrus does when stderr is not
// a terminal (its text formatter; BLIS logs at level warn by default).
func fatal(format string, args ...any) {
	logLine("fatal", format, args...)
	os.Exit(1)
}

func warn(format string, args ...any) { logLine("warning", format, args...) }

func logLine(level, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(os.Stderr, "time=\"2026-01-01T00:00:00Z\" level=%s msg=%q\n", level, msg)
}

type req struct {
	id            int
	session       string
	round         int
	input, output int
	arrivalUs     int64
}

// sim is what `replay` and `run` share: the deployment flags and the
// latency model.
type sim struct {
	model, hw, cfgFolder string
	hwConfig             string
	// bwScale scales decode time by H100's bandwidth over the GPU's
	// (BwPeakTBs of its hardware entry; 1 when the entry has none).
	bwScale float64
	// weightScale scales decode time by the weights' bytes per parameter
	// over 2 (bf16), as BLIS prices weights: quantization_config.bits of
	// the model's config.json when it has one (bits 4: 0.25), else 1.
	weightScale   float64
	tp            *int
	horizon       *int64
	seqs, batched *int
	short         string
}

func simFlags(fs *flag.FlagSet) *sim {
	s := &sim{bwScale: 1, weightScale: 1}
	fs.StringVar(&s.model, "model", "", "LLM name")
	fs.StringVar(&s.hw, "hardware", "", "GPU type")
	s.tp = fs.Int("tp", 1, "Tensor parallelism")
	s.horizon = fs.Int64("horizon", math.MaxInt64, "Total simulation horizon (in ticks)")
	fs.StringVar(&s.cfgFolder, "model-config-folder", "", "Path to folder containing config.json")
	fs.StringVar(&s.hwConfig, "hardware-config", "", "Path to file containing hardware config")
	fs.Float64("gpu-memory-utilization", 0.9, "Fraction of GPU memory to use for KV cache")
	fs.Int("block-size-in-tokens", 16, "Number of tokens contained in a KV cache block")
	fs.Int("max-model-len", 0, "Max total sequence length")
	if variant != "results" {
		s.seqs = fs.Int("max-num-seqs", 256, "Maximum number of requests running together")
		s.batched = fs.Int("max-num-batched-tokens", 2048, "Maximum total number of new tokens")
	} else {
		s.seqs = fs.Int("max-num-running-reqs", 256, "Maximum number of requests running together")
		s.batched = fs.Int("max-num-scheduled-tokens", 2048, "Maximum total number of new tokens")
	}
	return s
}

func parse(fs *flag.FlagSet) {
	fs.SetOutput(os.Stdout)
	fs.Usage = func() {
		fmt.Printf("Usage:\n  blis %s [flags]\n\nFlags:\n", fs.Name())
		fs.VisitAll(func(f *flag.Flag) {
			fmt.Printf("      --%s string   %s\n", f.Name, f.Usage)
		})
	}
	if err := fs.Parse(os.Args[2:]); err != nil {
		if err == flag.ErrHelp {
			os.Exit(0)
		}
		os.Exit(1)
	}
}

// load checks the GPU and model as BLIS does and acts out the fault-*
// models; it returns false when the run is over (fault-garbage).
func (s *sim) load(out string) bool {
	// As BLIS: an explicit --hardware-config replaces the bundled
	// hardware_config.json beside defaults.yaml.
	hwFile := "hardware_config.json"
	if s.hwConfig != "" {
		hwFile = s.hwConfig
	}
	hwcfg := map[string]map[string]any{}
	raw, err := os.ReadFile(hwFile)
	if err != nil && s.hwConfig != "" {
		fatal("get hardware config: read %q: %v", hwFile, err)
	}
	if err == nil {
		if err := json.Unmarshal(raw, &hwcfg); err != nil {
			fatal("get hardware config: parse %q: %v", hwFile, err)
		}
	}
	entry, ok := hwcfg[s.hw]
	if !ok {
		fatal("Failed to load hardware config: GPU %q not found in hardware config", s.hw)
	}
	s.bwScale = 1
	if bw, ok := entry["BwPeakTBs"].(float64); ok && bw > 0 {
		s.bwScale = 3.35 / bw
	}
	s.short = strings.ToLower(s.model[strings.LastIndex(s.model, "/")+1:])
	cfg := filepath.Join("model_configs", s.short, "config.json")
	if s.cfgFolder != "" {
		cfg = filepath.Join(s.cfgFolder, "config.json")
	}
	raw, err = os.ReadFile(cfg)
	if err != nil && !strings.HasPrefix(s.short, "fault-") {
		fatal("--latency-model: could not find config.json for model %q. Provide --model-config-folder explicitly", s.model)
	}
	if err == nil {
		checkQuantization(raw, s.model)
		var c struct {
			Quantization struct {
				Bits float64 `json:"bits"`
			} `json:"quantization_config"`
		}
		if json.Unmarshal(raw, &c) == nil && c.Quantization.Bits > 0 {
			s.weightScale = c.Quantization.Bits / 16
		}
	}
	switch s.short {
	case "fault-too-big":
		// BLIS's message when the weights do not fit (sim/latency/kv_capacity.go).
		fatal("--latency-model: KV capacity auto-calculation failed: CalculateKVBlocks: model overhead (226.27 GiB = 217.07 weights + 8.00 activation + 1.20 non-torch + 0.00 lora-adapter-reservation) " +
			"exceeds available GPU memory (72.00 GiB = 80.0 GiB × 90%% util × 1 GPUs). Minimum GPUs required per instance: 4")
	case "fault-crash":
		// As a Go panic prints it: the crash, its goroutine and frames;
		// the last line says nothing of the crash.
		fmt.Fprint(os.Stderr, "panic: simulated crash in the stand-in\n\ngoroutine 1 [running]:\n"+
			"main.(*sim).load(0xc000012345)\n\t/src/standin-blis/main.go:163 +0x1d\nmain.main()\n\t/src/standin-blis/main.go:60 +0x25\n")
		os.Exit(2)
	case "fault-hang":
		time.Sleep(time.Hour)
	case "fault-env":
		// Reports the names of its environment variables, so tests can
		// check what the harness hands the simulator.
		var names []string
		for _, kv := range os.Environ() {
			name, _, _ := strings.Cut(kv, "=")
			names = append(names, name)
		}
		sort.Strings(names)
		fatal("environment: %s", strings.Join(names, " "))
	case "fault-garbage":
		os.WriteFile(out, []byte("this is not json {"), 0o644)
		return false
	}
	return true
}

// checkQuantization warns, as BLIS's config parser does
// (cmd/hfconfig.go applyWeightPrecisionFallback, sim/latency/config.go
// parseQuantizationConfig), when a model's config.json has a
// quantization_config whose weight precision it cannot determine: no
// "bits", a quant_method other than fp8 or compressed-tensors with
// num_bits, and no precision in the model's name (here: "fp8").
func checkQuantization(raw []byte, model string) {
	var cfg struct {
		QC map[string]any `json:"quantization_config"`
	}
	if json.Unmarshal(raw, &cfg) != nil || cfg.QC == nil {
		return
	}
	if bits, ok := cfg.QC["bits"].(float64); ok && bits > 0 {
		return
	}
	method, _ := cfg.QC["quant_method"].(string)
	if strings.EqualFold(method, "fp8") || strings.Contains(strings.ToLower(model), "fp8") {
		return
	}
	if strings.EqualFold(method, "compressed-tensors") {
		groups, _ := cfg.QC["config_groups"].(map[string]any)
		for _, g := range groups {
			gm, _ := g.(map[string]any)
			w, _ := gm["weights"].(map[string]any)
			if nb, ok := w["num_bits"].(float64); ok && nb > 0 {
				return
			}
		}
	}
	warn("HuggingFace config has quantization_config but weight precision could not be determined")
}

// Deterministic latency model: prefill cost grows with input and load,
// decode cost with load; both shrink with tensor parallelism. flat-* models
// ignore the input length and add 20 ms to a session's first request.
func (s *sim) ttft(r req, conc float64, closed bool) float64 {
	scale := 1 / math.Sqrt(float64(*s.tp))
	queue := 0.0
	if closed && conc > float64(*s.seqs) {
		queue = (conc - float64(*s.seqs)) * 2
	}
	if strings.HasPrefix(s.short, "flat-") {
		cold := 0.0
		if r.round == 0 {
			cold = 20
		}
		return (8+0.5*(conc-1)+queue+cold)*scale + 2048/float64(*s.batched)
	}
	return (8+0.02*float64(r.input)*(1+0.04*(conc-1))+queue)*scale + 2048/float64(*s.batched)
}

func (s *sim) tpot(conc float64) float64 {
	return (4 + 0.08*(conc-1)) / math.Sqrt(float64(*s.tp)) * s.bwScale * s.weightScale
}

type done struct {
	r         req
	ttft, e2e float64
	startUs   float64
	id        string
}

// row is one element of --metrics-path's requests[].
func (s *sim) row(d done) map[string]any {
	ttft := d.ttft
	if s.short == "fault-zero" {
		ttft = 0 // a latency no real server has
	}
	row := map[string]any{"requestID": d.id, "arrived_at": d.startUs / 1e6, "num_prefill_tokens": d.r.input, "num_decode_tokens": d.r.output,
		"ttft_ms": ttft, "e2e_ms": d.e2e, "handled_by": "instance_0", "round_index": d.r.round}
	if d.r.session != "" {
		row["session_id"] = d.r.session
	}
	return row
}

// metrics writes the --metrics-path output for the requests that finished
// within the horizon.
func (s *sim) metrics(out string, injected int, results []done) {
	completed := 0
	rows := []map[string]any{}
	for _, d := range results {
		if d.startUs+d.e2e*1000 > float64(*s.horizon) {
			continue
		}
		if s.short == "fault-incomplete" && d.r.id%2 == 1 {
			continue
		}
		completed++
		rows = append(rows, s.row(d))
	}
	m := map[string]any{
		"completed_requests": completed, "injected_requests": injected, "still_queued": 0,
		"still_running": injected - completed, "timed_out_requests": 0, "dropped_unservable": 0, "requests": rows,
		"preemption_count": 0, "length_capped_requests": 0,
	}
	// BLIS's aggregate figures over the finished requests.
	var ttfts, e2es, itls []float64
	outTokens, end := 0, 0.0
	for _, row := range rows {
		t, e, o := row["ttft_ms"].(float64), row["e2e_ms"].(float64), row["num_decode_tokens"].(int)
		ttfts, e2es, outTokens = append(ttfts, t), append(e2es, e), outTokens+o
		if o > 1 {
			itls = append(itls, (e-t)/float64(o-1))
		}
		end = math.Max(end, row["arrived_at"].(float64)*1000+e)
	}
	agg := func(name string, v []float64) {
		mean, p99 := 0.0, 0.0
		if len(v) > 0 {
			sort.Float64s(v)
			for _, x := range v {
				mean += x
			}
			mean, p99 = mean/float64(len(v)), v[int(math.Ceil(0.99*float64(len(v))))-1]
		}
		m[name+"_mean_ms"], m[name+"_p99_ms"] = mean, p99
	}
	agg("ttft", ttfts)
	agg("e2e", e2es)
	agg("itl", itls)
	secs := math.Max(end/1000, 1e-9)
	m["total_output_tokens"], m["tokens_per_sec"], m["responses_per_sec"] = outTokens, float64(outTokens)/secs, float64(completed)/secs
	raw, _ := json.MarshalIndent(m, "", " ")
	if err := os.WriteFile(out, raw, 0o644); err != nil {
		fatal("write output: %v", err)
	}
}

func main() {
	if len(os.Args) >= 2 && os.Args[1] == "convert" && variant == "agentic" {
		convert()
		return
	}
	if len(os.Args) < 2 || (os.Args[1] != "replay" && os.Args[1] != "run") {
		fmt.Fprintf(os.Stderr, "Error: unknown command %q for \"blis\"\nRun 'blis --help' for usage.\n", strings.Join(os.Args[1:min(2, len(os.Args))], ""))
		os.Exit(1)
	}
	if os.Args[1] == "run" {
		run()
	} else {
		replay()
	}
	fmt.Println("=== Simulation Metrics ===")
}

func replay() {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	header := fs.String("trace-header", "", "Path to TraceV2 header YAML file (required)")
	data := fs.String("trace-data", "", "Path to TraceV2 data CSV file (required)")
	sessionMode := fs.String("session-mode", "fixed", "Session replay mode")
	pool := new(int)
	if variant == "agentic" {
		pool = fs.Int("concurrent-sessions", 0, "Run a fixed pool of N concurrent closed-loop sessions")
	}
	s := simFlags(fs)
	var out string
	if variant != "results" {
		fs.StringVar(&out, "metrics-path", "", "File to write aggregate MetricsOutput JSON")
	} else {
		fs.StringVar(&out, "results-path", "", "File to write []SimResult JSON")
	}
	parse(fs)
	if *header == "" || *data == "" || out == "" {
		fatal("--trace-header, --trace-data and an output path are required")
	}
	if h, err := os.ReadFile(*header); err != nil || !strings.Contains(string(h), "trace_version: 2") {
		fatal("bad trace header %s", *header)
	}
	if !s.load(out) {
		return
	}

	reqs := readTrace(*data)
	if *pool > 0 {
		s.metrics(out, len(reqs), s.sessionPool(reqs, *pool))
		return
	}
	closed := *sessionMode == "closed-loop"
	sessions := map[string]bool{}
	for _, r := range reqs {
		if r.session != "" {
			sessions[r.session] = true
		}
	}
	conc := float64(len(sessions))
	if !closed {
		conc = 1
	}
	var results []done
	if closed {
		sessClock := map[string]float64{}
		sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].round < reqs[j].round })
		n := 0
		for _, r := range reqs {
			t := s.ttft(r, conc, true)
			e := t + float64(r.output-1)*s.tpot(conc)
			start := sessClock[r.session]
			sessClock[r.session] = start + e*1000
			id := fmt.Sprintf("request_%d", r.id)
			if r.round > 0 {
				id = fmt.Sprintf("session_%s_round_%d_%d", r.session, r.round, n)
				n++
			}
			if conc > float64(*s.seqs) && r.round > 0 {
				// More sessions than running slots: BLIS preempts (sim/batch_formation.go).
				warn("[tick %07d] preemption: evicting %s to make room", int64(start), id)
			}
			results = append(results, done{r, t, e, start, id})
		}
	} else {
		for _, r := range reqs {
			t := s.ttft(r, conc, false)
			results = append(results, done{r, t, t + float64(r.output-1)*s.tpot(conc), float64(r.arrivalUs), fmt.Sprintf("request_%d", r.id)})
		}
	}
	if variant != "results" {
		s.metrics(out, len(reqs), results)
		return
	}
	// --results-path: completed requests with numeric ids only; closed-loop
	// follow-up rounds are missing, as in BLIS v0.7.15.
	resRows := []map[string]any{}
	for _, d := range results {
		if d.startUs+d.e2e*1000 > float64(*s.horizon) || (s.short == "fault-incomplete" && d.r.id%2 == 1) || (closed && d.r.round > 0) {
			continue
		}
		resRows = append(resRows, map[string]any{"request_id": d.r.id, "ttft_us": math.Round(d.ttft * 1000), "e2e_us": math.Round(d.e2e * 1000), "input_tokens": d.r.input, "output_tokens": d.r.output})
	}
	raw, _ := json.MarshalIndent(resRows, "", " ")
	if err := os.WriteFile(out, raw, 0o644); err != nil {
		fatal("write output: %v", err)
	}
}

// spec is the part of a v2 workload specification the stand-in reads;
// unknown fields are refused, as BLIS does.
type spec struct {
	Version     string `json:"version"`
	Seed        int64  `json:"seed"`
	Category    string `json:"category"`
	NumRequests int64  `json:"num_requests"`
	Horizon     int64  `json:"horizon"`
	// AggregateRate is the request rate of rate clients (req/s).
	AggregateRate float64      `json:"aggregate_rate"`
	Clients       []specClient `json:"clients"`
}

type specClient struct {
	ID          string  `json:"id"`
	Concurrency int     `json:"concurrency"`
	InputDist   distrib `json:"input_distribution"`
	OutputDist  distrib `json:"output_distribution"`
	Streaming   bool    `json:"streaming"`
	// A rate client (no concurrency): its share of the aggregate rate and
	// its arrival process (constant or poisson).
	RateFraction float64 `json:"rate_fraction"`
	Arrival      struct {
		Process string `json:"process"`
	} `json:"arrival"`
	PrefixGroup  string `json:"prefix_group"`
	PrefixLength int    `json:"prefix_length"`
}

type distrib struct {
	Type   string             `json:"type"`
	Params map[string]float64 `json:"params"`
}

// sampler returns a draw from an empirical distribution (token count →
// weight) or a clipped Gaussian.
func (d distrib) sampler(name string) func(*rand.Rand) int {
	if d.Type == "gaussian" {
		// BLIS's distribution workload: a Gaussian rounded and clipped.
		p := d.Params
		return func(rng *rand.Rand) int {
			v := math.Round(p["mean"] + rng.NormFloat64()*p["std_dev"])
			return int(math.Min(math.Max(v, p["min"]), p["max"]))
		}
	}
	if d.Type != "empirical" || len(d.Params) == 0 {
		fatal("Failed to generate workload: %s: the stand-in draws only from non-empty empirical distributions, got %q", name, d.Type)
	}
	var values []int
	var cdf []float64
	total := 0.0
	for k := range d.Params {
		v, err := strconv.Atoi(k)
		if err != nil {
			fatal("Failed to generate workload: empirical PDF key %q is not an integer", k)
		}
		values = append(values, v)
	}
	sort.Ints(values)
	for _, v := range values {
		total += d.Params[strconv.Itoa(v)]
		cdf = append(cdf, total)
	}
	return func(rng *rand.Rand) int {
		u := rng.Float64() * total
		return values[min(sort.SearchFloat64s(cdf, u), len(values)-1)]
	}
}

func run() {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	specPath := fs.String("workload-spec", "", "Path to YAML workload specification file (overrides --workload)")
	concurrency := fs.Int("concurrency", 0, "Number of concurrent virtual users (closed-loop, mutually exclusive with --rate)")
	numRequests := fs.Int("num-requests", 100, "Number of requests to generate")
	seed := fs.Int64("seed", 42, "Seed for random request generation")
	out := fs.String("metrics-path", "", "File to write MetricsOutput JSON")
	rate := fs.Float64("rate", 1, "Requests arrival per second")
	fs.Int("num-instances", 1, "Number of instances in the cluster")
	fs.Int("dp", 1, "Data parallelism degree")
	fs.Int("prefix-tokens", 0, "Prefix Token Count")
	tok := map[string]*int{}
	for _, k := range []string{"prompt-tokens", "output-tokens"} {
		tok[k] = fs.Int(k, 512, "Average Token Count")
		tok[k+"-stdev"] = fs.Int(k+"-stdev", 256, "Stddev Token Count")
		tok[k+"-min"] = fs.Int(k+"-min", 2, "Min Token Count")
		tok[k+"-max"] = fs.Int(k+"-max", 7000, "Max Token Count")
	}
	s := simFlags(fs)
	parse(fs)
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var sp spec
	if *specPath == "" {
		// The distribution workload, synthesized from the flags as BLIS
		// does: Gaussian lengths, a constant-rate or a closed-loop client.
		gauss := func(k string) distrib {
			return distrib{Type: "gaussian", Params: map[string]float64{"mean": float64(*tok[k]), "std_dev": float64(*tok[k+"-stdev"]),
				"min": float64(*tok[k+"-min"]), "max": float64(*tok[k+"-max"])}}
		}
		cl := specClient{ID: "distribution", Concurrency: *concurrency, InputDist: gauss("prompt-tokens"), OutputDist: gauss("output-tokens")}
		if *concurrency == 0 {
			cl.RateFraction, cl.Arrival.Process, sp.AggregateRate = 1, "constant", *rate
		}
		sp.Seed, sp.NumRequests, sp.Clients = *seed, int64(*numRequests), []specClient{cl}
	} else {
		if *concurrency > 0 {
			fatal("--concurrency cannot be used with --workload-spec; define concurrency in the spec file using clients[].concurrency instead")
		}
		raw, err := os.ReadFile(*specPath)
		if err != nil {
			fatal("Failed to load workload spec: reading workload spec: %v", err)
		}
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&sp); err != nil {
			fatal("Failed to load workload spec: parsing workload spec: %v", err)
		}
	}
	if len(sp.Clients) != 1 || (sp.Clients[0].Concurrency <= 0 && sp.AggregateRate <= 0) {
		fatal("the stand-in runs only a workload of one client with a concurrency or a rate")
	}
	if set["seed"] {
		sp.Seed = *seed
	}
	n := int(sp.NumRequests)
	if set["num-requests"] {
		n = *numRequests
	}
	if !set["horizon"] && sp.Horizon > 0 {
		*s.horizon = sp.Horizon
	}
	if n <= 0 {
		fatal("Workload requires either num_requests or --horizon to bound generation")
	}
	if *out == "" {
		fatal("the stand-in needs --metrics-path")
	}
	if !s.load(*out) {
		return
	}

	cl := sp.Clients[0]
	c := cl.Concurrency
	input, output := cl.InputDist.sampler("input_distribution"), cl.OutputDist.sampler("output_distribution")
	rng := rand.New(rand.NewPCG(uint64(sp.Seed), 10007))
	if c == 0 {
		// Open loop: request k arrives at k/rate (constant) or after
		// exponential gaps (poisson); the load is the rate.
		var results []done
		at, load := 0.0, 1+sp.AggregateRate/4
		for k := 0; k < n; k++ {
			if cl.Arrival.Process == "poisson" {
				at += rng.ExpFloat64() / sp.AggregateRate * 1e6
			} else {
				at = float64(k+1) / sp.AggregateRate * 1e6
			}
			r := req{id: k, input: input(rng), output: output(rng)}
			t := s.ttft(r, load, false)
			results = append(results, done{r, t, t + float64(r.output-1)*s.tpot(load), at, fmt.Sprintf("request_%d", k)})
		}
		s.metrics(*out, n, results)
		return
	}
	conc := float64(c)
	// Each user sends a request at 0 and its next one when the previous
	// completes; the earliest completion (then the lowest user) sends next.
	clock := make([]float64, c) // when each user's current request completes, µs
	round := make([]int, c)
	var results []done
	send := func(u int, id string) {
		r := req{id: len(results), session: fmt.Sprintf("concurrency_%s_user_%d", cl.ID, u), round: round[u], input: input(rng), output: output(rng)}
		t := s.ttft(r, conc, true)
		e := t + float64(r.output-1)*s.tpot(conc)
		results = append(results, done{r, t, e, clock[u], id})
		clock[u] += e * 1000
		round[u]++
	}
	for u := 0; u < c && u < n; u++ {
		send(u, fmt.Sprintf("request_%d", u))
	}
	for k := 1; len(results) < n; k++ {
		u := 0
		for v := range clock {
			if clock[v] < clock[u] {
				u = v
			}
		}
		if clock[u] > float64(*s.horizon) {
			break
		}
		send(u, fmt.Sprintf("session_concurrency_%s_user_%d_round_%d_%d", cl.ID, u, round[u], k))
	}
	// BLIS lists the requests by arrival.
	sort.SliceStable(results, func(i, j int) bool { return results[i].startUs < results[j].startUs })
	s.metrics(*out, len(results), results)
}

func readTrace(path string) []req {
	f, err := os.Open(path)
	if err != nil {
		fatal("open trace data: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var out []req
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			continue
		}
		c := strings.Split(sc.Text(), ",")
		if len(c) != 27 {
			fatal("trace data line %d: %d columns, want 27", line, len(c))
		}
		atoi := func(s string) int {
			// Like BLIS, every integer column must hold an integer.
			v, err := strconv.Atoi(s)
			if err != nil {
				fatal("trace data line %d: %v", line, err)
			}
			return v
		}
		if c[8] == "" {
			fatal("trace data line %d: streaming is empty", line)
		}
		arr, _ := strconv.ParseInt(c[19], 10, 64)
		// Like BLIS, input_tokens is the part after the prefix: a request of
		// a prefix group prefills the group's prefix_length tokens on top.
		input := atoi(c[9])
		if prefix := atoi(c[7]); c[6] != "" && prefix > 0 {
			input += prefix
		}
		out = append(out, req{id: atoi(c[0]), session: c[4], round: atoi(c[5]), input: input, output: atoi(c[10]), arrivalUs: arr})
	}
	return out
}

// sessionPool replays the trace's sessions (in order of their first
// arrival; a request without a session is a session of its own) as a pool
// of n concurrent closed-loop sessions: n start at 0, and whenever one
// finishes its last round the next starts. A session's rounds are serial.
func (s *sim) sessionPool(reqs []req, n int) []done {
	bySession := map[string][]req{}
	var order []string
	for _, r := range reqs {
		key := r.session
		if key == "" {
			key = fmt.Sprintf("request_%d", r.id)
		}
		if bySession[key] == nil {
			order = append(order, key)
		}
		bySession[key] = append(bySession[key], r)
	}
	sort.SliceStable(order, func(i, j int) bool { return bySession[order[i]][0].arrivalUs < bySession[order[j]][0].arrivalUs })
	conc := float64(min(n, len(order)))
	free := make([]float64, min(n, len(order))) // when each pool slot is free, µs
	var results []done
	for _, key := range order {
		slot := 0
		for k := range free {
			if free[k] < free[slot] {
				slot = k
			}
		}
		clock := free[slot]
		rounds := bySession[key]
		sort.SliceStable(rounds, func(i, j int) bool { return rounds[i].round < rounds[j].round })
		for _, r := range rounds {
			t := s.ttft(r, conc, true)
			e := t + float64(r.output-1)*s.tpot(conc)
			results = append(results, done{r, t, e, clock, fmt.Sprintf("session_%s_round_%d", key, r.round)})
			clock += e * 1000
		}
		free[slot] = clock
	}
	sort.SliceStable(results, func(i, j int) bool { return results[i].startUs < results[j].startUs })
	return results
}

// convert is `blis convert <format>`: the agentic variant offers otel and
// weka, each writing the TraceV2 pair <trace-output>.yaml and .csv: one
// row per LLM call, sessions and rounds from the source, arrivals in µs
// from the first call.
func convert() {
	formats := map[string]string{"otel": "Convert OpenTelemetry agentic trace JSON to TraceV2", "weka": "Convert Weka agentic trace JSONL to TraceV2"}
	if len(os.Args) < 3 || formats[os.Args[2]] == "" || os.Args[2] == "--help" {
		// cobra prints the parent's help for --help and for an unknown
		// subcommand.
		fmt.Println("Convert external workload formats to TraceV2.\n\nUsage:\n  blis convert [command]\n\nAvailable Commands:")
		fmt.Println("  otel        " + formats["otel"])
		fmt.Println("  weka        " + formats["weka"])
		fmt.Println("\nFlags:\n  -h, --help   help for convert")
		return
	}
	format := os.Args[2]
	fs := flag.NewFlagSet("convert "+format, flag.ContinueOnError)
	input := fs.String("input", "", "Input trace file")
	output := fs.String("trace-output", "", "Output prefix: writes <prefix>.yaml and <prefix>.csv")
	growth := fs.String("context-growth", "", "Per-round input assembly: accumulate or empty")
	fs.SetOutput(os.Stdout)
	fs.Usage = func() {
		fmt.Printf("Usage:\n  blis convert %s [flags]\n\nFlags:\n", format)
		fs.VisitAll(func(f *flag.Flag) { fmt.Printf("      --%s string   %s\n", f.Name, f.Usage) })
	}
	if err := fs.Parse(os.Args[3:]); err != nil {
		if err == flag.ErrHelp {
			os.Exit(0)
		}
		os.Exit(1)
	}
	if *input == "" || *output == "" {
		fatal("--input and --trace-output are required")
	}
	raw, err := os.ReadFile(*input)
	if err != nil {
		fatal("read input: %v", err)
	}
	var reqs []req
	if format == "otel" {
		reqs = convertOTel(raw)
	} else {
		reqs = convertWeka(raw)
	}
	if len(reqs) == 0 {
		fatal("no LLM calls in %s", *input)
	}
	header := "trace_version: 2\ntime_unit: microseconds\nmode: real\nwarm_up_requests: 0\n"
	if *growth != "" {
		header += "session_context_growth: " + *growth + "\n"
	}
	var csv strings.Builder
	csv.WriteString("request_id,client_id,tenant_id,slo_class,session_id,round_index,prefix_group,prefix_length,streaming,input_tokens,output_tokens,text_tokens,image_tokens,audio_tokens,video_tokens,reason_ratio,model,deadline_us,server_input_tokens,arrival_time_us,send_time_us,first_chunk_time_us,last_chunk_time_us,num_chunks,status,error_message,finish_reason\n")
	for i, r := range reqs {
		fmt.Fprintf(&csv, "%d,client0,,,%s,%d,,0,true,%d,%d,%d,0,0,0,0,,0,0,%d,0,0,0,0,,,\n", i, r.session, r.round, r.input, r.output, r.input, r.arrivalUs)
	}
	if err := os.WriteFile(*output+".yaml", []byte(header), 0o644); err != nil {
		fatal("write trace: %v", err)
	}
	if err := os.WriteFile(*output+".csv", []byte(csv.String()), 0o644); err != nil {
		fatal("write trace: %v", err)
	}
	fmt.Printf("Wrote %d records from %s\n", len(reqs), *input)
}

// convertOTel reads the flat span export ({"spans": [...]}): the LLM calls
// (gen_ai.operation.name chat, or a name starting "chat ") with their token
// usage, a session per trace_id, ordered by start time.
func convertOTel(raw []byte) []req {
	var doc struct {
		Spans []struct {
			TraceID    string         `json:"trace_id"`
			Name       string         `json:"name"`
			StartTime  string         `json:"start_time"`
			Attributes map[string]any `json:"attributes"`
		} `json:"spans"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		fatal("parse otel trace: %v", err)
	}
	type call struct {
		at      time.Time
		session string
		in, out int
	}
	var calls []call
	for _, sp := range doc.Spans {
		if sp.Attributes["gen_ai.operation.name"] != "chat" && !strings.HasPrefix(sp.Name, "chat ") {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, sp.StartTime)
		if err != nil {
			fatal("span start_time %q: %v", sp.StartTime, err)
		}
		in, _ := sp.Attributes["gen_ai.usage.input_tokens"].(float64)
		out, _ := sp.Attributes["gen_ai.usage.output_tokens"].(float64)
		calls = append(calls, call{at, sp.TraceID, int(in), int(out)})
	}
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].at.Before(calls[j].at) })
	var reqs []req
	round := map[string]int{}
	for _, c := range calls {
		reqs = append(reqs, req{session: c.session, round: round[c.session], input: c.in, output: max(c.out, 1), arrivalUs: c.at.Sub(calls[0].at).Microseconds()})
		round[c.session]++
	}
	return reqs
}

// convertWeka reads WekaTrace JSONL: a session per trace id, its main
// requests (type n or s) as rounds; subagent entries are skipped.
func convertWeka(raw []byte) []req {
	var reqs []req
	for i, line := range strings.Split(string(raw), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var t struct {
			ID       string `json:"id"`
			Requests []struct {
				T    float64 `json:"t"`
				Type string  `json:"type"`
				In   int     `json:"in"`
				Out  int     `json:"out"`
			} `json:"requests"`
		}
		if err := json.Unmarshal([]byte(line), &t); err != nil {
			fatal("parse weka trace line %d: %v", i+1, err)
		}
		round := 0
		for _, r := range t.Requests {
			if r.Type != "n" && r.Type != "s" {
				continue
			}
			reqs = append(reqs, req{session: t.ID, round: round, input: r.In, output: max(r.Out, 1), arrivalUs: int64(math.Round(r.T * 1e6))})
			round++
		}
	}
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].arrivalUs < reqs[j].arrivalUs })
	return reqs
}
