package leaderboard

import (
	"os"
	"strings"
	"testing"
)

func readDecl(t testing.TB) *Declaration {
	t.Helper()
	src, err := os.ReadFile("testdata/runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(src, "runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDecodeExpandsRuns(t *testing.T) {
	t.Parallel()
	d := readDecl(t)
	runs := d.Runs()
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.Group+"/"+r.ID)
	}
	want := "chat-4rps/h100-tp1 chat-4rps/a100-tp1 chat-4rps/h100-tp2 sweep/h100--conc-1 sweep/h100--conc-4 sweep/h100--conc-16"
	if got := strings.Join(ids, " "); got != want {
		t.Fatalf("runs = %s\nwant %s", got, want)
	}
	if runs[0].Key() != runs[1].Key() || runs[0].Key() == runs[3].Key() || runs[3].Key() == runs[4].Key() {
		t.Error("comparability keys: same offered work must share a key, different work must not")
	}
	if c := runs[0].Candidate; c.DP != 1 || c.Replicas != 1 {
		t.Errorf("defaults not filled: %+v", c)
	}
	if runs[0].Load.String() != "Poisson arrivals at 4 req/s" || runs[3].Load.String() != "1 user at a time (closed loop, no think time)" {
		t.Errorf("load words: %q, %q", runs[0].Load.String(), runs[3].Load.String())
	}
	if len(runs[3].Sweep) != 3 || runs[0].Sweep != nil {
		t.Errorf("sweep: %v / %v", runs[3].Sweep, runs[0].Sweep)
	}
}

// Model and hardware are what is compared: changing them keeps the key.
func TestKeyIgnoresDeployment(t *testing.T) {
	t.Parallel()
	d := readDecl(t)
	r := d.Runs()[0]
	r2 := r
	r2.Candidate.Model, r2.Candidate.Hardware, r2.Candidate.TP = "x/y", "A100-80", 8
	if r.Key() != r2.Key() {
		t.Error("deployment changed the comparability key")
	}
	seed := int64(8)
	r2.Workload.Seed = &seed
	if r.Key() == r2.Key() {
		t.Error("another seed kept the comparability key")
	}
}

func TestDecodeErrorsNameFileLineField(t *testing.T) {
	t.Parallel()
	base, err := os.ReadFile("testdata/runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	edit := func(old, new string) string {
		if !strings.Contains(string(base), old) {
			t.Fatalf("fixture lacks %q", old)
		}
		return strings.Replace(string(base), old, new, 1)
	}
	cases := []struct {
		name, src string
		want      []string
	}{
		{"malformed yaml", edit("    load:\n      arrival: poisson", "    load:\n     - arrival: [poisson"), []string{"runs.yaml:"}},
		{"unknown field", edit("        tp: 2\n", "        tp: 2\n        colour: red\n"), []string{"runs.yaml:29:", "groups[0].candidates[2].colour", "unknown field"}},
		{"missing hardware", edit("        hardware: A100-80\n", ""), []string{"runs.yaml:19:", "groups[0].candidates[1]", "hardware"}},
		{"missing tp", edit("        hardware: A100-80\n        tp: 1\n", "        hardware: A100-80\n"), []string{"runs.yaml:19:", "tp"}},
		{"model without org", edit("model: test/test-model-7b\n        hardware: A100-80", "model: test-model-7b\n        hardware: A100-80"), []string{"runs.yaml:20:", "groups[0].candidates[1].model"}},
		{"wrong type", edit("requests: 100", "requests: many"), []string{"runs.yaml:7:", "groups[0].workload.requests"}},
		{"duplicate candidate", edit("id: h100-tp2", "id: h100-tp1"), []string{"runs.yaml:25:", "groups[0].candidates[2].id", "declared twice"}},
		{"duplicate key", edit("        tp: 2\n", "        tp: 2\n        tp: 4\n"), []string{"runs.yaml:29:", "already defined"}},
		{"candidate offered another load", edit("        tp: 2\n", "        tp: 2\n        load: {rate: 8}\n"), []string{"runs.yaml:29:", "groups[0].candidates[2].load", "8 req/s", "same load"}},
		{"candidate offered another workload", edit("        tp: 2\n", "        tp: 2\n        workload: {requests: 100, seed: 8, prompt_tokens: {mean: 512, stdev: 128, min: 16, max: 2048}, output_tokens: {mean: 256, stdev: 64, min: 16, max: 1024}}\n"), []string{"groups[0].candidates[2].workload", "same work"}},
		{"sweep without keep_up", edit("    keep_up: {ttft_p99_ms: 500}\n", ""), []string{"runs.yaml:29:", "groups[1]", "needs keep_up"}},
		{"keep_up on one load", edit("      rate: 4\n", "      rate: 4\n    keep_up: {ttft_p99_ms: 500}\n"), []string{"groups[0].keep_up", "one load"}},
		{"two loads", edit("      rate: 4\n", "      rate: 4\n      concurrency: 2\n"), []string{"groups[0].load", "exactly one"}},
		{"bad token bounds", edit("mean: 512, stdev: 128, min: 16", "mean: 8, stdev: 128, min: 16"), []string{"runs.yaml:9:", "prompt_tokens", "min <= mean"}},
		{"no seed", edit("      seed: 7\n", ""), []string{"groups[0].workload.seed", "required"}},
		{"version", edit("version: 1", "version: 2"), []string{"runs.yaml:2:", "version"}},
		{"empty", "", []string{"runs.yaml: empty document"}},
		{"two documents", string(base) + "---\nversion: 1\n", []string{"more than one YAML document"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d, err := Decode([]byte(c.src), "runs.yaml")
			if err == nil {
				t.Fatalf("accepted: %+v", d)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	runs := readDecl(t).Runs()
	got, err := Select(runs, []string{"sweep", "chat-4rps/a100-tp1"})
	if err != nil || len(got) != 4 || got[3].ID != "a100-tp1" {
		t.Fatalf("Select = %v, %v", got, err)
	}
	if _, err := Select(runs, []string{"chat-4rps/nope"}); err == nil {
		t.Error("unknown run selected")
	}
}

func FuzzDecode(f *testing.F) {
	src, err := os.ReadFile("testdata/runs.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(src)
	f.Add([]byte("version: 1\ngroups: []\n"))
	f.Add([]byte("version: 1\ngroups:\n  - id: a\n    load: {rates: [1, 1]}\n"))
	f.Add([]byte("&a [*a]"))
	f.Fuzz(func(t *testing.T, src []byte) {
		d, err := Decode(src, "f.yaml")
		if err != nil {
			if _, ok := err.(Errors); !ok {
				t.Fatalf("error is %T, not Errors", err)
			}
			return
		}
		for _, r := range d.Runs() {
			if !idPattern.MatchString(r.ID) || !idPattern.MatchString(r.Group) {
				t.Fatalf("accepted an ill-formed run id %q/%q", r.Group, r.ID)
			}
		}
	})
}

// The schema bounds every number a run's cost grows with (10^12 requests
// made BLIS allocate 2.4 GB before crashing): each is refused by file,
// line and field.
func TestDecodeRefusesUnboundedValues(t *testing.T) {
	t.Parallel()
	base, err := os.ReadFile("testdata/runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ from, to, want string }{
		{"requests: 100", "requests: 1000000000000", "runs.yaml:7: groups[0].workload.requests: maximum: got 1×10¹², want 1×10⁰⁶"},
		{"mean: 512", "mean: 2000000", "runs.yaml:9: groups[0].workload.prompt_tokens.mean: maximum: got"},
		{"rate: 4", "rate: 1e9", "runs.yaml:13: groups[0].load.rate: maximum: got 1×10⁰⁹, want 100,000"},
		{"tp: 2", "tp: 4096", "groups[0].candidates[2].tp: maximum: got 4,096, want 128"},
		{"max_num_seqs: 64", "max_num_seqs: 100000000", "runs.yaml:24: groups[0].candidates[1].engine.max_num_seqs: maximum: got"},
		{"concurrencies: [1, 4, 16]", "concurrencies: [1, 4, 16000000]", "runs.yaml:36: groups[1].load.concurrencies[2]: maximum: got"},
	} {
		src := strings.Replace(string(base), tt.from, tt.to, 1)
		_, err := Decode([]byte(src), "runs.yaml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v; want %q", tt.to, err, tt.want)
		}
	}
}
