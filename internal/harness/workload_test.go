package harness

import (
	"os"
	"path/filepath"
	"reflect"
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
	tr, err := Generate(u, 1) // 4 req/s for 5 s
	if err != nil {
		t.Fatal(err)
	}
	if tr.ClosedLoop || len(tr.Requests) != 20 {
		t.Fatalf("trace: closed %v, %d requests; want open loop, 20", tr.ClosedLoop, len(tr.Requests))
	}
	groups := map[string]bool{}
	for k, r := range tr.Requests {
		if r.ArrivalUs != int64(k)*250_000 {
			t.Errorf("request %d arrives at %d µs, want %d", k, r.ArrivalUs, k*250_000)
		}
		if r.InputTokens != 150 || r.OutputTokens != 40 || r.PrefixLength != 50 {
			t.Errorf("request %d = %+v", k, r)
		}
		groups[r.PrefixGroup] = true
	}
	if len(groups) != 2 {
		t.Errorf("prefix groups = %v, want 2", groups)
	}
	if tr.HorizonUs <= tr.Requests[19].ArrivalUs {
		t.Errorf("horizon %d does not extend past the last arrival", tr.HorizonUs)
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
