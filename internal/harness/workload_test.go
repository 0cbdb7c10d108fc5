package harness

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

func testLedger(t testing.TB, name string) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Load(os.DirFS(filepath.Join("testdata", name)))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func unitByID(t testing.TB, l *ledger.Ledger, id string) *ledger.Unit {
	t.Helper()
	for i := range l.Units {
		if l.Units[i].ID == id {
			return &l.Units[i]
		}
	}
	t.Fatalf("no unit %s", id)
	return nil
}

func TestGenerateInferenceX(t *testing.T) {
	t.Parallel()
	l := testLedger(t, "ledger")
	u := unitByID(t, l, "test/ix/test-model-7b/h100")
	tr, err := Generate(u, 2) // concurrency 4
	if err != nil {
		t.Fatal(err)
	}
	if !tr.ClosedLoop || tr.Concurrency != 4 {
		t.Fatalf("trace = closed %v conc %d, want closed loop at 4", tr.ClosedLoop, tr.Concurrency)
	}
	// 2×C warm-ups then 10×C measured requests.
	if len(tr.Requests) != 48 || tr.Measured() != 40 {
		t.Fatalf("requests = %d (measured %d), want 48 (40)", len(tr.Requests), tr.Measured())
	}
	sessions := map[string]int{}
	for k, r := range tr.Requests {
		if r.Warmup != (k < 8) {
			t.Errorf("request %d warmup = %v", k, r.Warmup)
		}
		if r.InputTokens < 102 || r.InputTokens > 128 || r.OutputTokens < 51 || r.OutputTokens > 64 {
			t.Errorf("request %d lengths %d/%d outside [floor(0.8·L), L]", k, r.InputTokens, r.OutputTokens)
		}
		if r.ArrivalUs != 0 {
			t.Errorf("closed-loop request %d arrives at %d, want 0", k, r.ArrivalUs)
		}
		if r.Round != sessions[r.Session] {
			t.Errorf("request %d is round %d of %s, want %d", k, r.Round, r.Session, sessions[r.Session])
		}
		sessions[r.Session]++
	}
	if len(sessions) != 4 {
		t.Errorf("%d sessions, want 4", len(sessions))
	}
	again, _ := Generate(u, 2)
	if !reflect.DeepEqual(tr, again) {
		t.Error("the same point generated different requests")
	}
	other, _ := Generate(u, 1)
	if reflect.DeepEqual(tr.Requests[:8], other.Requests[:8]) {
		t.Error("two loads of one sweep drew identical lengths: the seed ignores the load")
	}
}

func TestGenerateInferencePerf(t *testing.T) {
	t.Parallel()
	l := testLedger(t, "ledger")
	u := unitByID(t, l, "test/ip/test-model-7b/h100")
	tr, err := Generate(u, 1) // 4 req/s for 5 s; 2 groups of 3 prompts
	if err != nil {
		t.Fatal(err)
	}
	if tr.ClosedLoop || len(tr.Requests) != 20 {
		t.Fatalf("trace: closed %v, %d requests; want open loop, 20", tr.ClosedLoop, len(tr.Requests))
	}
	const prompts = 6
	for k, r := range tr.Requests {
		if r.ArrivalUs != int64(k)*250_000 {
			t.Errorf("request %d arrives at %d µs, want %d", k, r.ArrivalUs, k*250_000)
		}
		// The whole prompt (50-token system prompt + 100-token question) is
		// the request's prefix: every repeat of it is the same tokens.
		if r.InputTokens != 150 || r.OutputTokens != 40 || r.PrefixLength != 150 {
			t.Errorf("request %d = %+v, want a 150-token prompt, all of it its prefix, 40 out", k, r)
		}
	}
	// The client cycles through its 6 prompts in one shuffled order: each
	// cycle of 6 requests sends every prompt once, in the same order.
	var first []string
	for k := 0; k < prompts; k++ {
		first = append(first, tr.Requests[k].PrefixGroup)
	}
	if got := slices.Sorted(slices.Values(first)); !slices.Equal(got, []string{"g0-p0", "g0-p1", "g0-p2", "g1-p0", "g1-p1", "g1-p2"}) {
		t.Fatalf("first cycle sends %v, want each of the 6 prompts once", first)
	}
	if slices.Equal(first, []string{"g0-p0", "g0-p1", "g0-p2", "g1-p0", "g1-p1", "g1-p2"}) {
		t.Errorf("first cycle %v is in prompt order: not shuffled", first)
	}
	for k, r := range tr.Requests {
		if r.PrefixGroup != first[k%prompts] {
			t.Errorf("request %d sends %s, want %s (cycle of %d)", k, r.PrefixGroup, first[k%prompts], prompts)
		}
	}
	// Every stage of the run cycles in the same order (one client).
	other, err := Generate(u, 0)
	if err != nil {
		t.Fatal(err)
	}
	for k := range min(len(other.Requests), prompts) {
		if other.Requests[k].PrefixGroup != first[k] {
			t.Errorf("stage 0 request %d sends %s, stage 1 %s: the order depends on the stage", k, other.Requests[k].PrefixGroup, first[k])
		}
	}
	if tr.HorizonUs <= tr.Requests[19].ArrivalUs {
		t.Errorf("horizon %d does not extend past the last arrival", tr.HorizonUs)
	}
}

// TestWriteTracePrefixIsNotCountedTwice: BLIS reads input_tokens as the
// tokens after the prefix and adds the prefix on top, so a row carries the
// prompt minus its prefix; a prefix longer than the prompt is refused.
func TestWriteTracePrefixIsNotCountedTwice(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h, d := filepath.Join(dir, "h.yaml"), filepath.Join(dir, "d.csv")
	tr := Trace{Requests: []Request{
		{ID: 0, PrefixGroup: "sys0", PrefixLength: 100, InputTokens: 547, OutputTokens: 248},
		{ID: 1, PrefixGroup: "g0-p0", PrefixLength: 547, InputTokens: 547, OutputTokens: 248, ArrivalUs: 125000},
		{ID: 2, InputTokens: 300, OutputTokens: 10, ArrivalUs: 250000},
	}}
	if err := WriteTrace(tr, h, d); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(d)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	for k, want := range []string{"sys0,100,true,447,248,447,", "g0-p0,547,true,0,248,0,", ",0,true,300,10,300,"} {
		if !strings.Contains(lines[k+1], want) {
			t.Errorf("row %d = %q, want prefix_group,prefix_length,streaming,input_tokens,output_tokens,text_tokens %q", k, lines[k+1], want)
		}
	}
	for _, bad := range []Request{
		{ID: 7, PrefixGroup: "sys0", PrefixLength: 600, InputTokens: 547},
		{ID: 7, PrefixLength: 5, InputTokens: 547},
	} {
		err := WriteTrace(Trace{Requests: []Request{bad}}, h, d)
		if err == nil || !strings.Contains(err.Error(), "request 7") {
			t.Errorf("WriteTrace(%+v) = %v, want an error naming request 7", bad, err)
		}
	}
}

func TestWriteTrace(t *testing.T) {
	t.Parallel()
	l := testLedger(t, "ledger")
	tr, _ := Generate(unitByID(t, l, "test/ix/test-model-7b/h100"), 0)
	dir := t.TempDir()
	h, d := filepath.Join(dir, "h.yaml"), filepath.Join(dir, "d.csv")
	if err := WriteTrace(tr, h, d); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(d)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != len(tr.Requests)+1 {
		t.Fatalf("%d lines, want header + %d", len(lines), len(tr.Requests))
	}
	for k, line := range lines {
		if n := len(strings.Split(line, ",")); n != 27 {
			t.Fatalf("line %d has %d columns, want 27", k+1, n)
		}
	}
	if !strings.HasPrefix(lines[1], "0,client0,,,s0,0,,0,true,") {
		t.Errorf("first row = %q", lines[1])
	}
	hdr, _ := os.ReadFile(h)
	if !strings.Contains(string(hdr), "trace_version: 2") || !strings.Contains(string(hdr), "time_unit: microseconds") {
		t.Errorf("header = %q", hdr)
	}
}

// TestPrefillMustBeThePrompt: a simulator output whose prefill count of a
// request differs from the prompt the trace gives it is refused with
// ReasonPromptMismatch's error, naming the request, for both replay outputs.
func TestPrefillMustBeThePrompt(t *testing.T) {
	t.Parallel()
	tr := Trace{Requests: []Request{
		{ID: 0, PrefixGroup: "g0-p0", PrefixLength: 547, InputTokens: 547, OutputTokens: 4},
		{ID: 1, PrefixGroup: "g0-p1", PrefixLength: 547, InputTokens: 547, OutputTokens: 4},
	}}
	metrics := func(prefill1 int) []byte {
		return []byte(`{"completed_requests":2,"injected_requests":2,"requests":[` +
			`{"requestID":"request_0","num_prefill_tokens":547,"num_decode_tokens":4,"ttft_ms":10,"e2e_ms":40},` +
			`{"requestID":"request_1","num_prefill_tokens":` + strconv.Itoa(prefill1) + `,"num_decode_tokens":4,"ttft_ms":10,"e2e_ms":40}]}`)
	}
	results := func(prefill1 int) []byte {
		return []byte(`[{"request_id":0,"ttft_us":10000,"e2e_us":40000,"input_tokens":547,"output_tokens":4},` +
			`{"request_id":1,"ttft_us":10000,"e2e_us":40000,"input_tokens":` + strconv.Itoa(prefill1) + `,"output_tokens":4}]`)
	}
	for name, c := range map[string]struct {
		parse func([]byte, Trace) ([]row, error)
		out   func(int) []byte
	}{"metrics": {rowsFromMetrics, metrics}, "results": {rowsFromResults, results}} {
		if _, err := c.parse(c.out(547), tr); err != nil {
			t.Errorf("%s: prefill = prompt: %v", name, err)
		}
		// 1094: the prefix added on top of a row that already counted it.
		_, err := c.parse(c.out(1094), tr)
		var pm *promptMismatchError
		if !errors.As(err, &pm) || !strings.Contains(err.Error(), "prefilled 1094 tokens for request 1, whose prompt is 547") {
			t.Errorf("%s: prefill 1094 of a 547-token prompt: err = %v, want a prompt mismatch naming request 1", name, err)
		}
	}
}

// TestCompletionRate: requests completing every 1/r s complete at r
// whatever their latency; a server that falls behind completes at its own
// pace.
func TestCompletionRate(t *testing.T) {
	t.Parallel()
	keepsUp, behind := []row{}, []row{}
	for k := 0; k < 200; k++ {
		keepsUp = append(keepsUp, row{doneMs: float64(k)*50 + 3000}) // 20/s, 3 s latency
		behind = append(behind, row{doneMs: float64(k) * 62.5})      // 16/s
	}
	if got := CompletionRate(keepsUp); math.Abs(got-20) > 1e-9 {
		t.Errorf("keeping up at 20/s: %v", got)
	}
	if got := CompletionRate(behind); math.Abs(got-16) > 1e-9 {
		t.Errorf("falling behind at 16/s: %v", got)
	}
	if got := CompletionRate(keepsUp[:1]); got != 0 {
		t.Errorf("one request: %v, want 0", got)
	}
}
