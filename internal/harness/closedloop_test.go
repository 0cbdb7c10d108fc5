package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
	"github.com/inference-sim/accuracy-dashboard/internal/workloadspec"
)

// The --help texts in testdata/help are the real simulator's, printed by
// builds of github.com/inference-sim/inference-sim at v0.7.15 and f90a1e3a.
func TestChooseDriversOnRealHelpTexts(t *testing.T) {
	t.Parallel()
	read := func(name string) simcli.Flags {
		raw, err := os.ReadFile(filepath.Join("testdata", "help", name))
		if err != nil {
			t.Fatal(err)
		}
		return simcli.ParseFlags(string(raw))
	}
	for _, tc := range []struct {
		build, rate, closed string
		seqs                string
	}{
		{"v0.7.15", DriverReplayResults, DriverRunClosedLoop, "max-num-running-reqs"},
		{"f90a1e3a", DriverReplayMetrics, DriverReplayMetrics, "max-num-seqs"},
	} {
		c := ChooseDrivers(read(tc.build+"-replay.txt"), read(tc.build+"-run.txt"))
		if c.Rate != tc.rate || c.ClosedLoop != tc.closed {
			t.Errorf("%s: drivers %s (rate), %s (closed loop); want %s, %s (missing %q / %q)", tc.build, c.Rate, c.ClosedLoop, tc.rate, tc.closed, c.RateMissing, c.ClosedLoopMissing)
		}
		if got := c.Run.FlagFor("max_num_seqs"); got != tc.seqs {
			t.Errorf("%s: run's flag for max_num_seqs = %q, want %q", tc.build, got, tc.seqs)
		}
		forced, err := c.Force(DriverRunClosedLoop)
		if err != nil || forced.ClosedLoop != DriverRunClosedLoop || forced.Rate != tc.rate {
			t.Errorf("%s forced to run-closed-loop: %+v, %v", tc.build, forced, err)
		}
	}
	// v0.7.15 cannot be forced to replay closed loop: it says why.
	c := ChooseDrivers(read("v0.7.15-replay.txt"), read("v0.7.15-run.txt"))
	forced, err := c.Force(DriverReplayMetrics)
	if err != nil || forced.ClosedLoop != DriverNone || !strings.Contains(forced.ClosedLoopMissing, "--results-path, omits closed-loop follow-up rounds") {
		t.Errorf("v0.7.15 forced to replay-metrics: %s, %q, %v", forced.ClosedLoop, forced.ClosedLoopMissing, err)
	}
	if _, err := c.Force("replay"); err == nil || !strings.Contains(err.Error(), `"replay"`) {
		t.Errorf("Force(replay): %v, want an error naming the value", err)
	}
	// Neither route: the reason names what each lacks.
	none := ChooseDrivers(simcli.Flags{"model": true}, nil)
	if none.Rate != DriverNone || none.ClosedLoop != DriverNone ||
		!strings.Contains(none.ClosedLoopMissing, "replay flags --hardware") || !strings.Contains(none.ClosedLoopMissing, "a `run` command") {
		t.Errorf("neither route: %+v", none)
	}
	runOnly := ChooseDrivers(nil, simcli.Flags{"workload-spec": true, "model": true})
	if runOnly.ClosedLoop != DriverNone || !strings.Contains(runOnly.ClosedLoopMissing, "run flags --concurrency") || !strings.Contains(runOnly.ClosedLoopMissing, "--metrics-path") {
		t.Errorf("run without --concurrency: %+v", runOnly)
	}
}

// flatPrediction is the stand-in's flat-* latency model over a closed-loop
// point of concurrency c with w warm-ups per user and p measured requests
// per user: TTFT 8 + 0.5·(c−1) + 1 ms, plus 20 ms for a session's first
// request (excluded with the warm-ups when there are any), TPOT
// 4 + 0.08·(c−1) ms. It does not depend on the requests drawn.
func flatPrediction(c, w, p int) struct{ TTFTMs, TPOTMs float64 } {
	ttft := 9 + 0.5*float64(c-1)
	if w == 0 {
		ttft += 20 * float64(c) / float64(p*c) // c cold requests among the p·c measured
	}
	return struct{ TTFTMs, TPOTMs float64 }{ttft, 4 + 0.08*float64(c-1)}
}

func TestTheTwoClosedLoopDriversAgreeWhenAnswersIgnoreTheDraws(t *testing.T) {
	byDriver := map[string]map[string]runresult.Point{}
	for _, driver := range []string{DriverReplayMetrics, DriverRunClosedLoop} {
		o := scoreOpts(t, "agreement", "v0.2.0")
		o.ClosedLoopDriver = driver
		res, err := Score(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if res.Caps.ClosedLoop != driver {
			t.Fatalf("closed-loop driver = %s, want %s forced", res.Caps.ClosedLoop, driver)
		}
		if c := res.Summary.Coverage; c.Scored != 8 || c.ScoredByDriver[driver] != 8 {
			t.Fatalf("%s: coverage %+v, want all 8 points scored by it", driver, c)
		}
		byDriver[driver] = pointsByID(res.Points)
	}
	l := testLedger(t, "agreement")
	for ui := range l.Units {
		u := &l.Units[ui]
		for i := range u.Points {
			id := u.PointID(i)
			a, b := byDriver[DriverReplayMetrics][id], byDriver[DriverRunClosedLoop][id]
			if !a.Scored || !b.Scored || a.Driver != DriverReplayMetrics || b.Driver != DriverRunClosedLoop {
				t.Errorf("%s: %+v / %+v, want scored by each driver", id, a, b)
				continue
			}
			w := u.Workload.InferenceX
			want := flatPrediction(u.Points[i].Load.Concurrency, w.WarmupsPerConcurrency, w.PromptsPerConcurrency)
			for _, p := range []runresult.Point{a, b} {
				if math.Abs(p.Predicted["ttft_ms"]-want.TTFTMs) > 1e-9 || math.Abs(p.Predicted["tpot_ms"]-want.TPOTMs) > 1e-9 {
					t.Errorf("%s by %s: predicted %v, want %+v", id, p.Driver, p.Predicted, want)
				}
			}
		}
	}
}

func TestTheClosedLoopDriversDrawDifferentRequests(t *testing.T) {
	// With a model whose TTFT grows with the input length the two drivers
	// differ by their draws, a little: the same distributions, other draws.
	o := scoreOpts(t, "ledger", "v0.2.0")
	o.Units = []string{"test/ix/test-model-7b/h100"}
	preds := map[string]map[string]runresult.Point{}
	for _, d := range []string{DriverReplayMetrics, DriverRunClosedLoop} {
		o.ClosedLoopDriver = d
		res, err := Score(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if sel := res.Summary.Provenance.Selection; sel == nil || sel.All || !slices.Equal(sel.Units, o.Units) {
			t.Errorf("selection = %+v, want the --units patterns %v, not all", sel, o.Units)
		}
		preds[d] = pointsByID(res.Points)
	}
	differ := 0
	for id, a := range preds[DriverReplayMetrics] {
		b := preds[DriverRunClosedLoop][id]
		if !a.Scored {
			continue
		}
		if !b.Scored {
			t.Errorf("%s not scored by run-closed-loop: %s %s", id, b.Reason, b.Detail)
			continue
		}
		rel := math.Abs(b.Predicted["ttft_ms"]/a.Predicted["ttft_ms"] - 1)
		if rel > 0.05 {
			t.Errorf("%s: TTFT %v (replay) vs %v (run), %.1f%% apart: more than other draws explain", id, a.Predicted["ttft_ms"], b.Predicted["ttft_ms"], 100*rel)
		}
		if rel > 0 {
			differ++
		}
		if math.Abs(a.Predicted["tpot_ms"]-b.Predicted["tpot_ms"]) > 1e-9 {
			t.Errorf("%s: TPOT %v vs %v; the stand-in's TPOT does not depend on lengths", id, a.Predicted["tpot_ms"], b.Predicted["tpot_ms"])
		}
	}
	if differ == 0 {
		t.Error("the run driver gave exactly the replay driver's TTFT everywhere: its requests are not drawn by the simulator")
	}
}

func TestWriteClosedLoopSpec(t *testing.T) {
	t.Parallel()
	l := testLedger(t, "ledger")
	u := unitByID(t, l, "test/ix/test-model-7b/h100")
	tr, err := Generate(u, 2) // concurrency 4, 2 warm-ups and 10 requests per user
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "spec.yaml")
	if err := WriteClosedLoopSpec(tr, path); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	var spec workloadspec.Spec
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		t.Fatal(err)
	}
	if spec.NumRequests != 48 || spec.Seed != tr.Seed || spec.Horizon != tr.HorizonUs || len(spec.Clients) != 1 || spec.Clients[0].Concurrency != 4 {
		t.Fatalf("spec = %+v", spec)
	}
	// Input 128 and output 64 at range ratio 0.8: every integer of
	// [102, 128] and [51, 64] with the same weight, nothing else.
	for _, d := range []struct {
		dist   workloadspec.Dist
		lo, hi int
	}{{spec.Clients[0].InputDist, 102, 128}, {spec.Clients[0].OutputDist, 51, 64}} {
		if d.dist.Type != "empirical" || len(d.dist.Params) != d.hi-d.lo+1 {
			t.Errorf("distribution %+v, want empirical over [%d, %d]", d.dist, d.lo, d.hi)
		}
		for n := d.lo; n <= d.hi; n++ {
			if d.dist.Params[strconv.Itoa(n)] != 1 {
				t.Errorf("weight of %d = %v, want 1", n, d.dist.Params[strconv.Itoa(n)])
			}
		}
	}
	open, _ := Generate(unitByID(t, l, "test/ip/test-model-7b/h100"), 0)
	if err := WriteClosedLoopSpec(open, path); err == nil {
		t.Error("an open-loop trace was written as a closed-loop specification")
	}
}

// runOutput builds a --metrics-path output of a closed-loop client with c
// users and n requests, every one finished, with edit applied to the rows.
func runOutput(c, n int, edit func(rows []map[string]any) []map[string]any) []byte {
	var rows []map[string]any
	for k := 0; k < n; k++ {
		u, round := k%c, k/c
		id := fmt.Sprintf("request_%d", k)
		if k >= c {
			id = fmt.Sprintf("session_concurrency_client_user_%d_round_%d_%d", u, round, k-c+1)
		}
		ttft := 10.0
		if k < 2*c {
			ttft = 1000 // warm-ups: far off, so including one shows
		}
		rows = append(rows, map[string]any{"requestID": id, "session_id": fmt.Sprintf("concurrency_client_user_%d", u), "round_index": round,
			"num_decode_tokens": 11, "ttft_ms": ttft, "e2e_ms": ttft + 10*2})
	}
	if edit != nil {
		rows = edit(rows)
	}
	raw, _ := json.Marshal(map[string]any{"completed_requests": n, "injected_requests": n, "requests": rows})
	return raw
}

// fromRun parses a run-closed-loop output into the client's figures.
func fromRun(raw []byte, t Trace) (metric.Values, error) {
	rows, err := rowsFromRun(raw, t)
	if err != nil {
		return nil, err
	}
	return clientFigures(rows)
}

func TestMeansFromRun(t *testing.T) {
	t.Parallel()
	c := 2
	tr := Trace{ClosedLoop: true, Concurrency: c}
	for k := 0; k < 12; k++ {
		tr.Requests = append(tr.Requests, Request{ID: k, Warmup: k < 2*c})
	}
	v, err := fromRun(runOutput(c, 12, nil), tr)
	if err != nil || v["ttft_ms"] != 10 || v["tpot_ms"] != 2 {
		t.Fatalf("figures = %v, %v; want TTFT 10 (warm-ups excluded), TPOT 2", v, err)
	}
	for _, tc := range []struct {
		name string
		edit func([]map[string]any) []map[string]any
		want string
	}{
		{"a request twice", func(r []map[string]any) []map[string]any { return append(r[:11], r[5]) }, "twice"},
		{"a request missing", func(r []map[string]any) []map[string]any { return r[:11] }, "lists 11 of 12"},
		{"an unfinished request", func(r []map[string]any) []map[string]any { r[7]["e2e_ms"] = 0.0; return r }, "did not finish"},
		{"a follow-up beyond the count", func(r []map[string]any) []map[string]any {
			r[11]["requestID"] = "session_concurrency_client_user_1_round_5_11"
			return r
		}, "cannot have sent"},
		{"a first request beyond the users", func(r []map[string]any) []map[string]any { r[0]["requestID"] = "request_2"; return r }, "cannot have sent"},
		{"a follow-up of another session", func(r []map[string]any) []map[string]any { r[6]["session_id"] = "elsewhere"; return r }, "cannot have sent"},
		{"no latency", func(r []map[string]any) []map[string]any { delete(r[8], "ttft_ms"); return r }, "lacks"},
	} {
		_, err := fromRun(runOutput(c, 12, tc.edit), tr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	raw, _ := json.Marshal(map[string]any{"completed_requests": 10, "injected_requests": 12, "still_running": 2})
	if _, err := fromRun(raw, tr); err == nil || !strings.Contains(err.Error(), "completed 10 of 12") {
		t.Errorf("incomplete run: %v", err)
	}
}

// FuzzSimulatorOutput feeds arbitrary bytes to the parsers of the three
// drivers' outputs: they return means or an error, never panic, and return
// means only when the output lists exactly the trace's requests.
func FuzzSimulatorOutput(f *testing.F) {
	// listed counts the rows an output lists: requests[] of --metrics-path,
	// or the elements of --results-path's array.
	listed := func(raw []byte) int {
		var m struct {
			Requests []json.RawMessage `json:"requests"`
		}
		if json.Unmarshal(raw, &m) == nil {
			return len(m.Requests)
		}
		var rows []json.RawMessage
		json.Unmarshal(raw, &rows)
		return len(rows)
	}
	f.Add(runOutput(2, 12, nil))
	f.Add([]byte(`[{"request_id":0,"ttft_us":1000,"e2e_us":5000,"output_tokens":5}]`))
	f.Add([]byte(`{"completed_requests":1,"injected_requests":1,"requests":[{"requestID":"request_0","ttft_ms":1,"e2e_ms":3,"num_decode_tokens":3}]}`))
	f.Add([]byte(`{"completed_requests":1,"injected_requests":1,"requests":[{"requestID":"session_x_round_1_99999999999999999999","session_id":"x"}]}`))
	closed := Trace{ClosedLoop: true, Concurrency: 2}
	for k := 0; k < 12; k++ {
		closed.Requests = append(closed.Requests, Request{ID: k, Session: "s" + strconv.Itoa(k%2), Round: k / 2, Warmup: k < 4})
	}
	open := Trace{Requests: []Request{{ID: 0}}}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for name, parse := range map[string]func([]byte, Trace) ([]row, error){
			"run": rowsFromRun, "metrics": rowsFromMetrics, "results": rowsFromResults,
		} {
			for _, tr := range []Trace{closed, open} {
				if rows, err := parse(raw, tr); err == nil {
					if n := listed(raw); n != len(tr.Requests) || len(rows) != n {
						t.Errorf("%s: means from an output listing %d requests, the trace has %d: %q", name, n, len(tr.Requests), raw)
					}
				}
			}
		}
	})
}
