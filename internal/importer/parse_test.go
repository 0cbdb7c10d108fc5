package importer

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
)

const goodAggRow = `{"hw":"h100","conc":4,"image":"vllm/vllm-openai:v0.13.0","model":"openai/gpt-oss-120b","framework":"vllm","precision":"fp4","spec_decoding":"none","disagg":false,"isl":1024,"osl":1024,"is_multinode":false,"tp":2,"ep":1,"dp_attention":"false","mean_ttft":0.05,"mean_tpot":0.004}`

// withField returns goodAggRow with one field's JSON text replaced, or
// removed when value is "".
func withField(row, key, value string) string {
	start := strings.Index(row, `"`+key+`":`)
	if start < 0 {
		if value == "" {
			return row
		}
		return strings.TrimSuffix(row, "}") + `,"` + key + `":` + value + "}"
	}
	end := start + len(key) + 3
	depth := 0
	for ; end < len(row); end++ {
		c := row[end]
		if c == '{' || c == '[' {
			depth++
		}
		if c == '}' || c == ']' {
			if depth == 0 {
				break
			}
			depth--
		}
		if c == ',' && depth == 0 {
			break
		}
	}
	if value == "" {
		out := row[:start] + row[end:]
		out = strings.Replace(out, ",,", ",", 1)
		out = strings.Replace(out, "{,", "{", 1)
		return strings.Replace(out, ",}", "}", 1)
	}
	return row[:start] + `"` + key + `":` + value + row[end:]
}

func TestParseAggBmkGood(t *testing.T) {
	t.Parallel()
	rows, err := ParseAggBmk("run_1.json", []byte("["+goodAggRow+","+withField(goodAggRow, "conc", "8")+"]"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("got %d rows, want 2", len(rows))
	}
	r := rows[1]
	if r.Index != 1 || r.Conc != 8 || r.TP != 2 || r.EP != 1 || r.DPAttention || r.Hardware != "h100" ||
		r.Image != "vllm/vllm-openai:v0.13.0" || *r.Metrics.MeanTTFT != 0.05 || *r.Metrics.MeanTPOT != 0.004 {
		t.Errorf("row 1 parsed as %+v", r)
	}
	if r.Metrics.MeanITL != nil {
		t.Errorf("absent mean_itl parsed as %v, want nil", *r.Metrics.MeanITL)
	}
}

func TestParseAggBmkEmptyArrayIsNoRows(t *testing.T) {
	t.Parallel()
	rows, err := ParseAggBmk("run_1.json", []byte(" [ ]\n"))
	if err != nil || len(rows) != 0 {
		t.Fatalf("got %d rows, err %v; want 0 rows, no error", len(rows), err)
	}
}

func TestParseAggBmkNullMeanIsNotAnError(t *testing.T) {
	t.Parallel()
	rows, err := ParseAggBmk("run_1.json", []byte("["+withField(goodAggRow, "mean_ttft", "null")+"]"))
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Metrics.MeanTTFT != nil {
		t.Errorf("null mean_ttft parsed as %v, want nil (the rules exclude the row)", *rows[0].Metrics.MeanTTFT)
	}
}

func TestParseAggBmkBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		want []string // substrings of the error
	}{
		{"empty file", "", []string{"run_7.json", "empty file"}},
		{"not JSON", "hello", []string{"run_7.json", "invalid JSON"}},
		{"truncated", "[" + goodAggRow[:40], []string{"run_7.json", "truncated"}},
		{"object, not array", goodAggRow, []string{"run_7.json", "not a JSON array"}},
		{"trailing data", "[]]", []string{"run_7.json", "trailing data"}},
		{"row not an object", "[1]", []string{"run_7.json row 0", "not a JSON object"}},
		{"string where number belongs", "[" + withField(goodAggRow, "mean_ttft", `"0.05"`) + "]", []string{"run_7.json row 0", `"mean_ttft"`, "a string where a number belongs"}},
		{"string where integer belongs", "[" + goodAggRow + "," + withField(goodAggRow, "conc", `"4"`) + "]", []string{"run_7.json row 1", `"conc"`, "integer"}},
		{"fractional integer", "[" + withField(goodAggRow, "tp", "2.5") + "]", []string{"row 0", `"tp"`, "not an integer"}},
		{"null identity field", "[" + withField(goodAggRow, "hw", "null") + "]", []string{"row 0", `"hw"`, "null where a string belongs"}},
		{"missing identity field", "[" + withField(goodAggRow, "framework", "") + "]", []string{"row 0", `"framework"`, "missing"}},
		{"missing tp on single node", "[" + withField(goodAggRow, "tp", "") + "]", []string{"row 0", `"tp"`, "missing"}},
		{"duplicate key", "[" + strings.TrimSuffix(goodAggRow, "}") + `,"conc":8}]`, []string{"row 0", `"conc"`, "appears twice"}},
		{"bad boolean", "[" + withField(goodAggRow, "disagg", `"no"`) + "]", []string{"row 0", `"disagg"`, "boolean"}},
		{"zero concurrency", "[" + withField(goodAggRow, "conc", "0") + "]", []string{"row 0", `"conc"`, "not positive"}},
		{"huge number", "[" + withField(goodAggRow, "mean_tpot", "1e999") + "]", []string{"row 0", `"mean_tpot"`, "not a finite number"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseAggBmk("run_7.json", []byte(tc.data))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestParseAggBmkCapsErrorsPerFile(t *testing.T) {
	t.Parallel()
	bad := withField(goodAggRow, "conc", `"x"`)
	data := "[" + strings.Repeat(bad+",", 30) + bad + "]"
	_, err := ParseAggBmk("run_7.json", []byte(data))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != maxErrorsPerFile+1 || !strings.Contains(lines[len(lines)-1], "21 more problems not shown") {
		t.Errorf("got %d lines, last %q; want %d lines ending with the count of the rest", len(lines), lines[len(lines)-1], maxErrorsPerFile+1)
	}
}

const goodAPIRow = `{"hardware":"h100","framework":"vllm","model":"gptoss","precision":"fp4","spec_method":"none","disagg":false,"is_multinode":false,"decode_tp":4,"decode_ep":1,"decode_dp_attention":false,"isl":1024,"osl":1024,"conc":8,"image":null,"metrics":{"mean_ttft":0.06,"mean_tpot":0.004,"p99.9_ttft":0.1},"workers":null,"date":"2026-01-10","run_url":"https://github.com/SemiAnalysisAI/InferenceX/actions/runs/150/attempts/1"}`

func TestParseAPIRowsGood(t *testing.T) {
	t.Parallel()
	rows, err := ParseAPIRows("api.json", []byte("["+goodAPIRow+"]"))
	if err != nil {
		t.Fatal(err)
	}
	r := rows[0]
	if r.TP != 4 || r.EP != 1 || r.Image != "" || r.Date != "2026-01-10" || *r.Metrics.MeanTTFT != 0.06 || runIDFromURL(r.RunURL) != "150" {
		t.Errorf("parsed as %+v", r)
	}
}

// realAPIRow is row 0 of corpus/sources/inferencex/api/benchmarks-dsr1-sample.json
// (InferenceX /api/v1/benchmarks, DeepSeek-R1-0528 on SGLang, MI355X) with
// the five metrics the current API adds (values of the kind it publishes).
const realAPIRow = `{"hardware": "mi355x", "framework": "sglang", "model": "dsr1", "precision": "fp4", "spec_method": "none", "disagg": false, "is_multinode": false, "prefill_tp": 4, "prefill_ep": 1, "prefill_dp_attention": false, "prefill_num_workers": 0, "decode_tp": 4, "decode_ep": 1, "decode_dp_attention": false, "decode_num_workers": 0, "num_prefill_gpu": 4, "num_decode_gpu": 4, "isl": 1024, "osl": 1024, "conc": 4, "image": "lmsysorg/sglang:v0.5.12-rocm700-mi35x", "metrics": {"p90_itl": 0.009531326591968536, "p99_itl": 0.010587399266660214, "std_itl": 0.003989014545798846, "mean_itl": 0.009620007651333638, "p90_e2el": 9.838155750464647, "p90_tpot": 0.009700189354334428, "p90_ttft": 0.1711582055315385, "p99_e2el": 10.478947445219383, "p99_tpot": 0.009744551632824465, "p99_ttft": 0.8231137297395617, "std_e2el": 0.657266506500136, "std_tpot": 0.0001190444286123624, "std_ttft": 0.21257691105725865, "mean_e2el": 8.991529557155445, "mean_tpot": 0.009618676175431115, "mean_ttft": 0.17262843293137847, "p99.9_itl": 0.08329896036535504, "median_itl": 0.009406855329871178, "p90_intvty": 103.09077106347006, "p99.9_e2el": 10.531338966491633, "p99.9_tpot": 0.009746758196227407, "p99.9_ttft": 0.8233558841543273, "p99_intvty": 102.62144813636225, "std_intvty": 8400.225123144932, "avg_power_w": 628.907, "mean_intvty": 103.96441066955654, "median_e2el": 9.040930901188403, "median_tpot": 0.009648023886344358, "median_ttft": 0.10217383736744523, "p99.9_intvty": 102.59821572131145, "tput_per_gpu": 198.9447984579421, "median_intvty": 103.64816793368249, "input_tput_per_gpu": 99.95643343100151, "output_tput_per_gpu": 98.9883650269406, "joules_per_total_token": 3.161212, "joules_per_output_token": 6.353339, "avg_util_pct": 87.4, "avg_mem_used_mb": 151203.5, "decode_avg_power_w": 641.2, "prefill_avg_power_w": 602.8, "joules_per_input_token": 3.12}, "workers": null, "date": "2026-06-11", "run_url": "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/27213443242/attempts/1"}`

// TestImportCountsUnknownFields: rows carrying fields a newer InferenceX
// adds import (the whole file used to be refused); each unknown field is
// counted once per row in the report and ignored, and known fields stay
// strictly typed.
func TestImportCountsUnknownFields(t *testing.T) {
	t.Parallel()
	vllm := strings.Replace(withField(withField(goodAPIRow, "gpu_count", "8"), "image", `"vllm/vllm-openai:v0.13.0"`),
		`"p99.9_ttft":0.1`, `"p99.9_ttft":0.1,"avg_util_pct":91.0`, 1)
	fsys := fstest.MapFS{"api.json": {Data: []byte("[" + realAPIRow + "," + vllm + "]")}}
	res, err := Import(fsys, importreport.Options{Sources: []string{"."}, Versions: 5, Name: "t", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"metrics.avg_util_pct": 2, "metrics.avg_mem_used_mb": 1, "metrics.decode_avg_power_w": 1,
		"metrics.prefill_avg_power_w": 1, "metrics.joules_per_input_token": 1, "gpu_count": 1,
	}
	if d := cmp.Diff(want, res.Report.UnknownFields); d != "" {
		t.Errorf("unknown fields (-want +got):\n%s", d)
	}
	if res.Report.PointsOut != 1 || res.Report.Excluded[ReasonNotVLLM] != 1 {
		t.Errorf("points %d, excluded %v; want the vLLM row as a point", res.Report.PointsOut, res.Report.Excluded)
	}
	if !strings.Contains(Summary(&res.Report, ""), "metrics.avg_util_pct") {
		t.Errorf("summary does not name the unknown fields:\n%s", Summary(&res.Report, ""))
	}
	typed := strings.Replace(realAPIRow, `"mean_ttft": 0.17262843293137847`, `"mean_ttft": "0.17"`, 1)
	if _, err := ParseAPIRows("api.json", []byte("["+typed+"]")); err == nil || !strings.Contains(err.Error(), "mean_ttft") {
		t.Errorf("a known field of the wrong type: error %v", err)
	}
}

func TestParseAPIRowsBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		want []string
	}{
		{"metric string", "[" + withField(goodAPIRow, "metrics", `{"mean_ttft":"fast","mean_tpot":0.004}`) + "]", []string{"row 0", `"mean_ttft"`, "a string where a number belongs"}},
		{"metrics missing", "[" + withField(goodAPIRow, "metrics", "") + "]", []string{"row 0", `"metrics"`, "missing"}},
		{"metrics not object", "[" + withField(goodAPIRow, "metrics", "[]") + "]", []string{"row 0", `"metrics"`, "not a JSON object"}},
		{"bad date", "[" + withField(goodAPIRow, "date", `"10/01/2026"`) + "]", []string{"row 0", `"date"`, "YYYY-MM-DD"}},
		{"bad run url", "[" + withField(goodAPIRow, "run_url", `"https://example.com/x"`) + "]", []string{"row 0", `"run_url"`, "actions/runs"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseAPIRows("api.json", []byte(tc.data))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestParseExpConfig(t *testing.T) {
	t.Parallel()
	good := "model: m/x\ntensor_parallelism: 2\nmax_model_len: 4096\nmax_num_batched_tokens: 2048\nmax_num_seqs: 128\napp: inference-perf\n"
	c, err := ParseExpConfig("e.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if c != (ExpConfig{Model: "m/x", TensorParallelism: 2, MaxModelLen: 4096, MaxNumBatchedTokens: 2048, MaxNumSeqs: 128, App: "inference-perf"}) {
		t.Errorf("parsed as %+v", c)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"string for number", strings.Replace(good, "2048", "lots", 1), "line 4: `lots` is not an integer"},
		{"unknown field", good + "gpu: h100\n", "field gpu not found"},
		{"missing", strings.Replace(good, "max_num_seqs: 128\n", "", 1), "max_num_seqs: missing"},
		{"zero", strings.Replace(good, "tensor_parallelism: 2", "tensor_parallelism: 0", 1), "tensor_parallelism: 0 is not a positive integer"},
		{"empty", "", "empty file"},
		{"two documents", good + "---\n" + good, "more than one YAML document"},
	} {
		_, err := ParseExpConfig("e.yaml", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), "e.yaml") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming e.yaml and %q", tc.name, err, tc.want)
		}
	}
}

func TestParseProfile(t *testing.T) {
	t.Parallel()
	good := `{"data":{"type":"shared_prefix","shared_prefix":{"num_unique_system_prompts":11,"num_users_per_system_prompt":4,"system_prompt_len":100,"question_len":466,"output_len":247,"enable_multi_turn_chat":true}},"load":{"type":"constant","stages":[{"duration":600,"rate":5},{"duration":600,"rate":10}]},"server":{"type":"vllm","model_name":"m/x","ignore_eos":true,"base_url":"http://h:8000"},"api":{"streaming":true}}`
	p, err := ParseProfile("p.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if p.NumUniqueSystemPrompts != 11 || p.NumUsersPerSystemPrompt != 4 || p.SystemPromptLen != 100 || p.QuestionLen != 466 ||
		p.OutputLen != 247 || !p.EnableMultiTurnChat || !p.IgnoreEOS || p.ServerType != "vllm" || p.ModelName != "m/x" ||
		len(p.Stages) != 2 || p.Stages[1] != (Stage{Rate: 10, Duration: 600}) {
		t.Errorf("parsed as %+v", p)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"unknown top-level field", strings.Replace(good, `"api"`, `"apii"`, 1), "field apii not found"},
		{"unknown shared_prefix field", strings.Replace(good, `"question_len"`, `"num_groupz"`, 1), "field num_groupz not found"},
		{"both spellings of the sizes", strings.Replace(good, `"question_len"`, `"num_groups":10,"question_len"`, 1), "names both num_groups"},
		{"no stages", strings.Replace(good, `[{"duration":600,"rate":5},{"duration":600,"rate":10}]`, `[]`, 1), "load.stages: empty"},
		{"rate as string", strings.Replace(good, `"rate":5`, `"rate":"five"`, 1), "`five` is not a number"},
		{"negative rate", strings.Replace(good, `"rate":5`, `"rate":-5`, 1), "load.stages[0].rate"},
		{"other data type", strings.Replace(good, `"type":"shared_prefix"`, `"type":"random"`, 1), `data.type: "random" is not supported`},
		{"no ignore_eos", strings.Replace(good, `"ignore_eos":true,`, ``, 1), "server.ignore_eos: missing"},
		{"duplicate key", strings.Replace(good, `"rate":5`, `"rate":5,"rate":6`, 1), "already defined"},
		{"truncated", good[:50], "p.yaml"},
	} {
		_, err := ParseProfile("p.yaml", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), "p.yaml") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming p.yaml and %q", tc.name, err, tc.want)
		}
	}
}

// TestParseProfileGroupKeys: results/config.yaml of the older client spells
// the shared-prefix sizes num_groups and num_prompts_per_group and has no
// enable_multi_turn_chat (the real file of
// corpus/sources/inference-perf/20260217-155451-llama-2-7b-tp1-codegen).
func TestParseProfileGroupKeys(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/fixture/inference-perf/20260217-155451-llama-2-7b-tp1-codegen/results/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseProfile("config.yaml", b)
	if err != nil {
		t.Fatal(err)
	}
	if !p.GroupKeys || p.NumUniqueSystemPrompts != 10 || p.NumUsersPerSystemPrompt != 10 || p.EnableMultiTurnChat ||
		p.OutputLen != 247 || p.QuestionLen != 466 || len(p.Stages) != 2 {
		t.Errorf("parsed as %+v", p)
	}
}

func TestParseStageMetrics(t *testing.T) {
	t.Parallel()
	good := `{"load_summary":{"count":3,"requested_rate":5.0},"successes":{"count":3,"latency":{"time_to_first_token":{"mean":0.02,"median":0.019,"p99":0.04},"time_per_output_token":{"mean":0.004}},"prompt_len":{"mean":590.5},"throughput":{"total_tokens_per_sec":100}},"failures":{"count":0,"request_latency":null,"prompt_len":null}}`
	m, err := ParseStageMetrics("s.json", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if m.Successes != 3 || *m.RequestedRate != 5 || *m.TTFT.Mean != 0.02 || *m.TTFT.P99 != 0.04 || *m.TPOT.Mean != 0.004 ||
		m.TPOT.Median != nil || *m.PromptLenMean != 590.5 || m.OutputLenMean != nil || *m.TotalTokensPerSec != 100 {
		t.Errorf("parsed as %+v", m)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"string for number", strings.Replace(good, `"mean":0.02`, `"mean":"0.02"`, 1), "field successes.latency.time_to_first_token.mean: a JSON string where a number belongs"},
		{"unknown field", strings.Replace(good, `"prompt_len":{"mean":590.5}`, `"prompt_len":{"avg":590.5}`, 1), `unknown field "avg"`},
		{"duplicate key", strings.Replace(good, `"count":3,"latency"`, `"count":3,"count":4,"latency"`, 1), `"count" appears twice`},
		{"no successes count", strings.Replace(good, `"successes":{"count":3,`, `"successes":{`, 1), "successes.count: missing"},
		{"truncated", good[:60], "truncated"},
		{"not JSON", "profile: yes", "invalid JSON"},
		{"trailing data", good + "{}", "trailing data"},
		{"empty", " ", "empty file"},
	} {
		_, err := ParseStageMetrics("s.json", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), "s.json") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming s.json and %q", tc.name, err, tc.want)
		}
	}
}

func TestImageVersion(t *testing.T) {
	t.Parallel()
	for image, want := range map[string]string{
		"vllm/vllm-openai:v0.13.0":           "v0.13.0",
		"docker.io/vllm/vllm-openai:v0.11.2": "v0.11.2",
		"vllm/vllm-openai:0.9.1":             "v0.9.1",
		"vllm/vllm-openai:nightly":           "",
		"vllm/vllm-openai:v0.13.0rc1":        "",
		"vllm/vllm-openai:v0.13.0-cu130":     "",
		"myorg/vllm:v0.13.0":                 "",
		"vllm/vllm-openai@sha256:abcd":       "",
		"vllm/vllm-openai:v0.13.0@sha256:ab": "",
		"":                                   "",
	} {
		v, ok := imageVersion(image)
		got := ""
		if ok {
			got = v.String()
		}
		if got != want {
			t.Errorf("imageVersion(%q) = %q, want %q", image, got, want)
		}
	}
}

func TestHardwareName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"h100": "H100", "b200-trt": "B200", "mi355x-amd_0": "MI355X", "gb200": "GB200"} {
		if got := hardwareName(in); got != want {
			t.Errorf("hardwareName(%q) = %q, want %q", in, got, want)
		}
	}
}
