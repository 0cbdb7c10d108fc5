package leaderboard

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

const simCommit = "f90a1e3a6787da17c2cd463dab6fb2660b1b1760"

// okResult is a sealed ok result of run r with figures f.
func okResult(t testing.TB, r DeclaredRun, f Figures) *Result {
	t.Helper()
	res := &Result{Group: r.Group, Run: r.ID, Declaration: r, Command: []string{"blis", "run", "--model", r.Candidate.Model},
		Provenance: Provenance{Simulator: Simulator{Commit: simCommit}, Harness: runresult.Harness{Commit: strings.Repeat("a", 40), Source: "checkout", Version: "dev"}},
		Status:     StatusOK, BLIS: &f}
	c := Compute(r, f)
	res.Computed = &c
	if err := res.Seal(); err != nil {
		t.Fatal(err)
	}
	return res
}

func failedResult(t testing.TB, r DeclaredRun, reason, msg string) *Result {
	t.Helper()
	res := &Result{Group: r.Group, Run: r.ID, Declaration: r, Command: []string{"blis", "run"},
		Provenance: Provenance{Simulator: Simulator{Commit: simCommit}, Harness: runresult.Harness{Commit: strings.Repeat("a", 40), Source: "checkout", Version: "dev"}},
		Status:     StatusFailed, Failure: &Failure{Reason: reason, Message: msg}}
	if err := res.Seal(); err != nil {
		t.Fatal(err)
	}
	return res
}

func figures(n int, ttft, tps float64) Figures {
	return Figures{TTFTMeanMs: ttft, TTFTP99Ms: 2 * ttft, ITLMeanMs: 10, ITLP99Ms: 12, E2EMeanMs: 1000 + ttft, E2EP99Ms: 2000,
		OutputTokensPerS: tps, ResponsesPerS: tps / 256, Injected: n, Completed: n, TotalOutputTokens: 256 * n}
}

// fixtureResults: chat-4rps has a qualified pair (h100-tp1 30 ms, h100-tp2
// 20 ms) and a disqualified a100 (5 timed out, 10 ms TTFT: better than
// both); the sweep's h100 keeps up at C=1 and C=4 and drops requests at 16.
func fixtureResults(t testing.TB) (*Declaration, map[string]*Result) {
	d := readDecl(t)
	runs := d.Runs()
	res := map[string]*Result{}
	put := func(r *Result) { res[r.Group+"/"+r.Run] = r }
	put(okResult(t, runs[0], figures(100, 30, 1000)))
	a := figures(100, 10, 900)
	a.Completed, a.TimedOut = 95, 5
	put(okResult(t, runs[1], a))
	put(okResult(t, runs[2], figures(100, 20, 1000)))
	put(okResult(t, runs[3], figures(50, 12, 300)))
	put(okResult(t, runs[4], figures(50, 15, 1100)))
	s := figures(50, 40, 2000)
	s.Completed, s.Dropped = 48, 2
	put(okResult(t, runs[5], s))
	return d, res
}

func TestBoardRanksAndDisqualifies(t *testing.T) {
	t.Parallel()
	d, res := fixtureResults(t)
	b := BuildBoard(d, res)
	chat := b.Groups[0].Tables[0]
	if len(chat.Rows) != 2 || chat.Rows[0].Run != "h100-tp1" || chat.Rows[1].Run != "h100-tp2" {
		t.Fatalf("qualified rows (declaration order) = %+v", chat.Rows)
	}
	// TTFT mean: lower is better; tokens/s tie: both rank 1.
	if chat.Rows[0].Cells[0].Rank != 2 || chat.Rows[1].Cells[0].Rank != 1 {
		t.Errorf("TTFT ranks = %d, %d; want 2, 1", chat.Rows[0].Cells[0].Rank, chat.Rows[1].Cells[0].Rank)
	}
	if chat.Rows[0].Cells[6].Rank != 1 || chat.Rows[1].Cells[6].Rank != 1 {
		t.Errorf("tied throughput ranks = %d, %d; want 1, 1", chat.Rows[0].Cells[6].Rank, chat.Rows[1].Cells[6].Rank)
	}
	if len(chat.Disqualified) != 1 || chat.Disqualified[0].Run != "a100-tp1" {
		t.Fatalf("disqualified = %+v", chat.Disqualified)
	}
	dq := chat.Disqualified[0]
	if dq.Reason != "completed 95 of 100 offered requests; 5 timed out" {
		t.Errorf("reason = %q", dq.Reason)
	}
	if dq.Cells[0].Rank != 1 || dq.Cells[6].Rank != 3 {
		t.Errorf("would-be ranks TTFT %d tok/s %d; want 1, 3", dq.Cells[0].Rank, dq.Cells[6].Rank)
	}
	sweep := b.Groups[1]
	if len(sweep.Tables) != 3 || len(sweep.Capacity) != 1 {
		t.Fatalf("sweep: %d tables, %d capacity rows", len(sweep.Tables), len(sweep.Capacity))
	}
	c := sweep.Capacity[0]
	if c.Kept == nil || c.Kept.Concurrency != 4 || c.OutputTokensPerS != 1100 || !strings.Contains(c.Note, "C=16: completed 48 of 50") {
		t.Errorf("capacity = %+v", c)
	}
}

func TestBoardListsFailedAndMissing(t *testing.T) {
	t.Parallel()
	d, res := fixtureResults(t)
	runs := d.Runs()
	res["chat-4rps/h100-tp2"] = failedResult(t, runs[2], "hardware-unknown-to-simulator", "GPU \"H200\" not found")
	delete(res, "sweep/h100--conc-1")
	b := BuildBoard(d, res)
	if f := b.Groups[0].Tables[0].Failed; len(f) != 1 || !strings.HasPrefix(f[0].Reason, "hardware-unknown-to-simulator") || f[0].Cells != nil {
		t.Errorf("failed rows = %+v", f)
	}
	if f := b.Groups[1].Tables[0].Pending; len(f) != 1 || f[0].Reason != PendingReason || len(b.Groups[1].Tables[0].Failed) != 0 {
		t.Errorf("missing rows = %+v, failed rows = %+v", f, b.Groups[1].Tables[0].Failed)
	}
	if c := b.Groups[1].Capacity[0]; c.Kept != nil || c.Note != "at C=1: no result" {
		t.Errorf("capacity without the lightest load = %+v", c)
	}
}

func resultsFS(t testing.TB, res map[string]*Result) fstest.MapFS {
	fsys := fstest.MapFS{}
	for k, r := range res {
		raw, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		fsys[k+".json"] = &fstest.MapFile{Data: raw}
	}
	return fsys
}

func TestValidate(t *testing.T) {
	t.Parallel()
	d, res := fixtureResults(t)
	fsys := resultsFS(t, res)
	got, probs, err := ReadResults(fsys)
	if err != nil || len(probs) > 0 {
		t.Fatalf("clean results: %v %v", probs, err)
	}
	if p := validateResults(d, got, simCommit); len(p) > 0 {
		t.Fatalf("clean results have problems: %v", p)
	}

	type tc struct {
		name   string
		mutate func(fstest.MapFS, map[string]*Result)
		pinned string
		want   string
	}
	cases := []tc{
		{"tampered", func(f fstest.MapFS, _ map[string]*Result) {
			f["chat-4rps/h100-tp1.json"].Data = []byte(strings.Replace(string(f["chat-4rps/h100-tp1.json"].Data), `"ttft_mean_ms": 30`, `"ttft_mean_ms": 3`, 1))
		}, simCommit, "tampered: chat-4rps/h100-tp1.json: digest: content does not match"},
		{"misfiled", func(f fstest.MapFS, _ map[string]*Result) {
			f["chat-4rps/h100-tp9.json"] = f["chat-4rps/h100-tp1.json"]
			delete(f, "chat-4rps/h100-tp1.json")
		}, simCommit, "misfiled: chat-4rps/h100-tp9.json: holds the result of chat-4rps/h100-tp1, so it belongs at chat-4rps/h100-tp1.json"},
		{"mixed loads", func(f fstest.MapFS, r map[string]*Result) {
			run := r["chat-4rps/a100-tp1"].Declaration
			run.Load.Rate = 8
			f["chat-4rps/a100-tp1.json"].Data, _ = okResult(t, run, figures(100, 10, 900)).Encode()
		}, simCommit, "mixed-offered-work: chat-4rps/a100-tp1.json: was offered 8 req/s; group chat-4rps offers 4 req/s"},
		{"mixed workloads", func(f fstest.MapFS, r map[string]*Result) {
			run := r["chat-4rps/a100-tp1"].Declaration
			run.Workload.Requests = 99
			f["chat-4rps/a100-tp1.json"].Data, _ = okResult(t, run, figures(99, 10, 900)).Encode()
		}, simCommit, "mixed-offered-work: chat-4rps/: results of one group were offered different workloads"},
		{"mixed builds", func(f fstest.MapFS, r map[string]*Result) {
			other := okResult(t, r["chat-4rps/a100-tp1"].Declaration, figures(100, 10, 900))
			other.Provenance.Simulator = Simulator{Commit: "3260837d16048bdfe7cd45d0dc3d3c6a688c645b", Tag: "v0.7.15"}
			if err := other.Seal(); err != nil {
				t.Fatal(err)
			}
			f["chat-4rps/a100-tp1.json"].Data, _ = other.Encode()
		}, "", "mixed-builds: chat-4rps/: results of one group ran on different simulator builds or catalogs; a table ranks one build's results only (builds " +
			"3260837d16048bdfe7cd45d0dc3d3c6a688c645b (v0.7.15), catalog none: chat-4rps/a100-tp1.json; " + simCommit + ", catalog none: chat-4rps/h100-tp1.json, chat-4rps/h100-tp2.json)"},
		{"drift", func(f fstest.MapFS, _ map[string]*Result) {}, "3260837d16048bdfe7cd45d0dc3d3c6a688c645b",
			"simulator-drift: chat-4rps/a100-tp1.json: ran on simulator commit " + simCommit + ", the pinned one is 3260837d16048bdfe7cd45d0dc3d3c6a688c645b"},
		{"missing", func(f fstest.MapFS, _ map[string]*Result) { delete(f, "sweep/h100--conc-4.json") }, simCommit,
			"missing-result: sweep/h100--conc-4.json: run h100--conc-4 of group sweep is declared but has no result"},
		{"undeclared", func(f fstest.MapFS, r map[string]*Result) {
			run := r["sweep/h100--conc-4"].Declaration
			run.ID = "old"
			f["sweep/old.json"] = &fstest.MapFile{}
			f["sweep/old.json"].Data, _ = okResult(t, run, figures(50, 1, 1)).Encode()
		}, simCommit, "undeclared-result: sweep/old.json: no declaration asks for this run"},
		{"changed declaration", func(f fstest.MapFS, r map[string]*Result) {
			run := r["chat-4rps/h100-tp1"].Declaration
			run.Candidate.TP = 4
			f["chat-4rps/h100-tp1.json"].Data, _ = okResult(t, run, figures(100, 30, 1000)).Encode()
		}, simCommit, "declaration-changed: chat-4rps/h100-tp1.json: ran another declaration than runs.yaml's; re-run it (candidate.tp: 1 → 4)"},
		{"not a result", func(f fstest.MapFS, _ map[string]*Result) { f["notes.txt"] = &fstest.MapFile{Data: []byte("hi")} }, simCommit,
			"unexpected-file: notes.txt: not <group>/<run>.json"},
		{"schema", func(f fstest.MapFS, _ map[string]*Result) {
			f["sweep/x.json"] = &fstest.MapFile{Data: []byte(`{"schema_version": 1}`)}
		}, simCommit,
			"invalid: sweep/x.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := resultsFS(t, res)
			c.mutate(f, res)
			got, probs, err := ReadResults(f)
			if err != nil {
				t.Fatal(err)
			}
			probs = append(probs, validateResults(d, got, c.pinned)...)
			var lines []string
			for _, p := range probs {
				lines = append(lines, p.String())
			}
			all := strings.Join(lines, "\n")
			if !strings.Contains(all, c.want) {
				t.Errorf("problems:\n%s\nlack %q", all, c.want)
			}
		})
	}
}

func TestDiffNamesFieldOldNew(t *testing.T) {
	t.Parallel()
	_, res := fixtureResults(t)
	a := res["chat-4rps/h100-tp1"]
	var b Result
	raw, _ := json.Marshal(a)
	_ = json.Unmarshal(raw, &b)
	b.Provenance.Harness.Commit = strings.Repeat("b", 40) // ignored: a later tool
	if d := Diff(a, &b); len(d) != 0 {
		t.Fatalf("identical results differ: %v", d)
	}
	f := *b.BLIS
	f.TTFTP99Ms = 61.5
	b.BLIS = &f
	d := Diff(a, &b)
	if len(d) != 1 || d[0].String() != "blis.ttft_p99_ms: 60 → 61.5" {
		t.Errorf("diff = %v", d)
	}
}

func TestParseMetrics(t *testing.T) {
	t.Parallel()
	good := `{"completed_requests": 50, "still_queued": 0, "still_running": 0, "injected_requests": 50, "total_output_tokens": 28839,
	"responses_per_sec": 1.43, "tokens_per_sec": 823.9, "e2e_mean_ms": 7747.2, "e2e_p99_ms": 16199.1, "ttft_mean_ms": 37.4,
	"ttft_p99_ms": 44.7, "itl_mean_ms": 13.3, "itl_p99_ms": 15.7, "preemption_count": 0, "dropped_unservable": 0,
	"timed_out_requests": 0, "requests": []}`
	f, err := ParseMetrics([]byte(good))
	if err != nil || f.TTFTMeanMs != 37.4 || f.OutputTokensPerS != 823.9 || f.Completed != 50 {
		t.Fatalf("ParseMetrics = %+v, %v", f, err)
	}
	if _, err := ParseMetrics([]byte(strings.Replace(good, `"ttft_p99_ms": 44.7,`, "", 1))); err == nil || !strings.Contains(err.Error(), "ttft_p99_ms") {
		t.Errorf("missing field: %v", err)
	}
	if _, err := ParseMetrics([]byte("not json")); err == nil {
		t.Error("garbage accepted")
	}
}

func TestComputed(t *testing.T) {
	t.Parallel()
	d := readDecl(t)
	r := d.Runs()[5] // sweep h100, replicas 2
	f := figures(50, 1, 1)
	f.Completed, f.TotalOutputTokens = 40, 4000
	c := Compute(r, f)
	if c.GPUs.Value != 2 || c.ServedFraction.Value != 0.8 || c.OutputTokensPerServedRequest.Value != 100 || c.ArrivalProcess.Value != "16 concurrent users (closed loop, no think time)" {
		t.Errorf("computed = %+v", c)
	}
	if c.GPUs.Formula != FormulaGPUs || c.ServedFraction.Formula == "" {
		t.Error("a computed value lacks its formula")
	}
}

func FuzzParseResult(f *testing.F) {
	_, res := fixtureResults(f)
	for _, r := range res {
		raw, err := r.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := ParseResult(raw, "x.json")
		if err != nil {
			return
		}
		if r.Status == StatusOK && r.BLIS == nil {
			t.Fatal("ok result without figures accepted")
		}
		if r.Status == StatusFailed && (r.BLIS != nil || r.Failure == nil) {
			t.Fatal("failed result with figures accepted")
		}
	})
}

// KeptUp is the one definition of keeping up with a load: figures (status
// ok), every offered request completed, and every declared bound met (a
// figure equal to its bound meets it).
func TestKeptUp(t *testing.T) {
	t.Parallel()
	d := readDecl(t)
	r := d.Runs()[0]
	bound := func(ttft, e2e float64) *KeepUp {
		k := &KeepUp{}
		if ttft > 0 {
			k.TTFTP99Ms = &ttft
		}
		if e2e > 0 {
			k.E2EP99Ms = &e2e
		}
		return k
	}
	f := figures(100, 250, 1000) // TTFT p99 500, E2E p99 2000
	over := f
	over.TTFTP99Ms, over.E2EP99Ms = 500.04, 2000.4
	dq := f
	dq.Completed, dq.StillQueued = 99, 1
	capped := f
	capped.LengthCapped = 3
	for _, tt := range []struct {
		name string
		res  *Result
		k    *KeepUp
		why  string // "" when kept up
	}{
		{"no bound, qualified", okResult(t, r, f), nil, ""},
		{"at the bounds", okResult(t, r, f), bound(500, 2000), ""},
		{"TTFT just above", okResult(t, r, over), bound(500, 0), "TTFT p99 500.04 ms > 500 ms"},
		{"both just above", okResult(t, r, over), bound(500, 2000), "TTFT p99 500.04 ms > 500 ms, E2E p99 2000.4 ms > 2000 ms"},
		{"E2E bound only", okResult(t, r, over), bound(0, 3000), ""},
		{"disqualified within bounds", okResult(t, r, dq), bound(500, 2000), "completed 99 of 100 offered requests; 1 still queued at the horizon"},
		{"disqualified, no bound", okResult(t, r, dq), nil, "completed 99 of 100 offered requests; 1 still queued at the horizon"},
		{"length-capped requests", okResult(t, r, capped), nil, "3 cut at the model's length limit"},
		{"failed", failedResult(t, r, "simulator-timeout", "killed"), bound(500, 0), "failed (simulator-timeout)"},
		{"missing", nil, bound(500, 0), "no result"},
	} {
		kept, why := KeptUp(tt.res, tt.k)
		if kept != (tt.why == "") || why != tt.why {
			t.Errorf("%s: KeptUp = %v, %q; want %v, %q", tt.name, kept, why, tt.why == "", tt.why)
		}
	}
}

// The capacity table needs keep_up, and a candidate's capacity is the
// highest load it kept up with there and at every lighter load: a heavier
// load it happens to pass after missing one does not count.
func TestCapacity(t *testing.T) {
	t.Parallel()
	d, res := fixtureResults(t)
	runs := d.Runs()
	if c := BuildBoard(d, res).Groups[1].Capacity; len(c) != 1 {
		t.Fatalf("sweep with keep_up: %d capacity rows", len(c))
	}
	// C=1 TTFT p99 24 ms, C=4 misses 25 ms, C=16 qualified again under it.
	slow := figures(50, 13, 1100) // TTFT p99 26
	res["sweep/h100--conc-4"] = okResult(t, runs[4], slow)
	res["sweep/h100--conc-16"] = okResult(t, runs[5], figures(50, 10, 2000))
	limit := 25.0
	d.Groups[1].KeepUp = &KeepUp{TTFTP99Ms: &limit}
	c := BuildBoard(d, res).Groups[1].Capacity[0]
	if c.Kept == nil || c.Kept.Concurrency != 1 || c.Run != "h100--conc-1" || c.OutputTokensPerS != 300 || c.Note != "at C=4: TTFT p99 26 ms > 25 ms" {
		t.Errorf("capacity = %+v (kept %v), want C=1, stopped at C=4 on TTFT p99", c, c.Kept)
	}
	d.Groups[1].KeepUp = nil
	if g := BuildBoard(d, res).Groups[1]; !g.Sweep || g.Capacity != nil {
		t.Errorf("a sweep without keep_up: capacity %+v, want none", g.Capacity)
	}
}
