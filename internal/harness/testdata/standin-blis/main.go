// Command blis is a stand-in for the BLIS simulator used by the harness's
// tests. It honours the part of BLIS's command-line contract the harness uses
// (`replay` with a trace v2 header and CSV, closed-loop sessions, engine
// flags, --metrics-path or --results-path) with a simple deterministic latency
// model, and misbehaves on purpose for models named fault-*.
//
// The variant constant selects which generation of BLIS it imitates:
// "metrics" (upstream main: --metrics-path, --max-num-seqs) or "results"
// (v0.7.15: only --results-path, --max-num-running-reqs). Tests rewrite it.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

const variant = "metrics"

func fatal(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(os.Stderr, "time=\"2026-01-01T00:00:00Z\" level=fatal msg=%q\n", msg)
	os.Exit(1)
}

type req struct {
	id            int
	session       string
	round         int
	input, output int
	arrivalUs     int64
}

func main() {
	if len(os.Args) < 2 || os.Args[1] != "replay" {
		fmt.Fprintln(os.Stderr, "usage: blis replay [flags]")
		os.Exit(1)
	}
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	header := fs.String("trace-header", "", "Path to TraceV2 header YAML file (required)")
	data := fs.String("trace-data", "", "Path to TraceV2 data CSV file (required)")
	model := fs.String("model", "", "LLM name")
	hw := fs.String("hardware", "", "GPU type")
	tp := fs.Int("tp", 1, "Tensor parallelism")
	horizon := fs.Int64("horizon", math.MaxInt64, "Total simulation horizon (in ticks)")
	sessionMode := fs.String("session-mode", "fixed", "Session replay mode")
	cfgFolder := fs.String("model-config-folder", "", "Path to folder containing config.json")
	fs.Float64("gpu-memory-utilization", 0.9, "Fraction of GPU memory to use for KV cache")
	fs.Int("block-size-in-tokens", 16, "Number of tokens contained in a KV cache block")
	fs.Int("max-model-len", 0, "Max total sequence length")
	var out string
	var seqs, batched *int
	if variant == "metrics" {
		fs.StringVar(&out, "metrics-path", "", "File to write aggregate MetricsOutput JSON")
		seqs = fs.Int("max-num-seqs", 256, "Maximum number of requests running together")
		batched = fs.Int("max-num-batched-tokens", 2048, "Maximum total number of new tokens")
	} else {
		fs.StringVar(&out, "results-path", "", "File to write []SimResult JSON")
		seqs = fs.Int("max-num-running-reqs", 256, "Maximum number of requests running together")
		batched = fs.Int("max-num-scheduled-tokens", 2048, "Maximum total number of new tokens")
	}
	fs.SetOutput(os.Stdout)
	fs.Usage = func() {
		fmt.Println("Usage:\n  blis replay [flags]\n\nFlags:")
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
	if *header == "" || *data == "" || out == "" {
		fatal("--trace-header, --trace-data and an output path are required")
	}
	if h, err := os.ReadFile(*header); err != nil || !strings.Contains(string(h), "trace_version: 2") {
		fatal("bad trace header %s", *header)
	}
	hwcfg := map[string]any{}
	if raw, err := os.ReadFile("hardware_config.json"); err == nil {
		_ = json.Unmarshal(raw, &hwcfg)
	}
	if _, ok := hwcfg[*hw]; !ok {
		fatal("Failed to load hardware config: GPU %q not found in hardware config", *hw)
	}
	short := strings.ToLower((*model)[strings.LastIndex(*model, "/")+1:])
	cfg := filepath.Join("model_configs", short, "config.json")
	if *cfgFolder != "" {
		cfg = filepath.Join(*cfgFolder, "config.json")
	}
	if _, err := os.Stat(cfg); err != nil && !strings.HasPrefix(short, "fault-") {
		fatal("--latency-model: could not find config.json for model %q. Provide --model-config-folder explicitly", *model)
	}
	switch short {
	case "fault-too-big":
		fatal("--latency-model: KV capacity auto-calculation failed: CalculateKVBlocks: model overhead (226.27 GiB) exceeds available GPU memory (72.00 GiB = 80.0 GiB × 90%% util × 1 GPUs)")
	case "fault-crash":
		fmt.Fprintln(os.Stderr, "panic: simulated crash in the stand-in")
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
		return
	}

	reqs := readTrace(*data)
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
	// Deterministic latency model: prefill cost grows with input and load,
	// decode cost with load; both shrink with tensor parallelism.
	scale := 1 / math.Sqrt(float64(*tp))
	queue := 0.0
	if closed && conc > float64(*seqs) {
		queue = (conc - float64(*seqs)) * 2
	}
	ttftOf := func(r req) float64 {
		return (8+0.02*float64(r.input)*(1+0.04*(conc-1))+queue)*scale + 2048/float64(*batched)
	}
	tpotOf := func(r req) float64 { return (4 + 0.08*(conc-1)) * scale }

	type done struct {
		r         req
		ttft, e2e float64
		startUs   float64
	}
	var results []done
	if closed {
		sessClock := map[string]float64{}
		sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].round < reqs[j].round })
		for _, r := range reqs {
			t := ttftOf(r)
			e := t + float64(r.output-1)*tpotOf(r)
			start := sessClock[r.session]
			sessClock[r.session] = start + e*1000
			results = append(results, done{r, t, e, start})
		}
	} else {
		for _, r := range reqs {
			t := ttftOf(r)
			results = append(results, done{r, t, t + float64(r.output-1)*tpotOf(r), float64(r.arrivalUs)})
		}
	}
	completed := 0
	var rows []map[string]any
	var resRows []map[string]any
	n := 0
	for _, d := range results {
		if d.startUs+d.e2e*1000 > float64(*horizon) {
			continue
		}
		if short == "fault-incomplete" && d.r.id%2 == 1 {
			continue
		}
		completed++
		id := fmt.Sprintf("request_%d", d.r.id)
		if closed && d.r.round > 0 {
			id = fmt.Sprintf("session_%s_round_%d_%d", d.r.session, d.r.round, n)
			n++
		} else if variant == "results" {
			resRows = append(resRows, map[string]any{"request_id": d.r.id, "ttft_us": math.Round(d.ttft * 1000), "e2e_us": math.Round(d.e2e * 1000), "input_tokens": d.r.input, "output_tokens": d.r.output})
		}
		ttft := d.ttft
		if short == "fault-zero" {
			ttft = 0 // a latency no real server has
		}
		row := map[string]any{"requestID": id, "num_prefill_tokens": d.r.input, "num_decode_tokens": d.r.output, "ttft_ms": ttft, "e2e_ms": d.e2e, "handled_by": "instance_0"}
		if d.r.session != "" {
			row["session_id"], row["round_index"] = d.r.session, d.r.round
		}
		rows = append(rows, row)
	}
	var raw []byte
	if variant == "metrics" {
		raw, _ = json.MarshalIndent(map[string]any{
			"completed_requests": completed, "injected_requests": len(reqs), "still_queued": 0,
			"still_running": len(reqs) - completed, "timed_out_requests": 0, "dropped_unservable": 0, "requests": rows,
		}, "", " ")
	} else {
		raw, _ = json.MarshalIndent(resRows, "", " ")
	}
	if err := os.WriteFile(out, raw, 0o644); err != nil {
		fatal("write output: %v", err)
	}
	fmt.Println("=== Simulation Metrics ===")
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
		out = append(out, req{id: atoi(c[0]), session: c[4], round: atoi(c[5]), input: atoi(c[9]), output: atoi(c[10]), arrivalUs: arr})
	}
	return out
}
