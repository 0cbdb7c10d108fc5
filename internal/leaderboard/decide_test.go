package leaderboard

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// rankOf is a competition rank: 1 + the number strictly better; ties share
// a rank and the next rank skips.
func TestRankOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		v      float64
		others []float64
		higher bool
		want   int
	}{
		{"alone", 5, nil, false, 1},
		{"lowest latency", 10, []float64{10, 20, 30}, false, 1},
		{"highest latency", 30, []float64{10, 20, 30}, false, 3},
		{"highest throughput", 30, []float64{10, 20, 30}, true, 1},
		{"lowest throughput", 10, []float64{10, 20, 30}, true, 3},
		{"tie for first", 10, []float64{10, 10, 30}, false, 1},
		{"after a tie, the rank skips", 30, []float64{10, 10, 30}, false, 3},
		{"a disqualified run better than all", 5, []float64{10, 20}, false, 1},
		{"a disqualified run worse than all", 50, []float64{10, 20}, false, 3},
		{"a disqualified run between", 15, []float64{10, 20}, true, 2},
	} {
		if got := rankOf(tt.v, tt.others, tt.higher); got != tt.want {
			t.Errorf("%s: rankOf(%v, %v, higher %v) = %d, want %d", tt.name, tt.v, tt.others, tt.higher, got, tt.want)
		}
	}
}

// A run that did not serve its whole offered job is disqualified, with
// every way it fell short in its reason; a trace's offered requests are
// what the simulator injected.
func TestDisqualification(t *testing.T) {
	t.Parallel()
	d := readDecl(t)
	r := d.Runs()[0] // 100 requests
	trace := r
	trace.Workload = Workload{Trace: &Trace{Format: TraceFormatV2, SHA256: strings.Repeat("0", 64)}}
	trace.Load = LoadPoint{Arrival: ArrivalRecorded}
	with := func(edit func(*Figures)) Figures {
		f := figures(100, 30, 1000)
		edit(&f)
		return f
	}
	for _, tt := range []struct {
		name string
		res  *Result
		want string
	}{
		{"served everything", okResult(t, r, figures(100, 30, 1000)), ""},
		{"fewer completed", okResult(t, r, with(func(f *Figures) { f.Completed = 90 })), "completed 90 of 100 offered requests"},
		{"dropped", okResult(t, r, with(func(f *Figures) { f.Completed, f.Dropped = 98, 2 })), "completed 98 of 100 offered requests; 2 dropped as unservable"},
		{"timed out", okResult(t, r, with(func(f *Figures) { f.Completed, f.TimedOut = 99, 1 })), "completed 99 of 100 offered requests; 1 timed out"},
		{"still queued and running", okResult(t, r, with(func(f *Figures) { f.Completed, f.StillQueued, f.StillRunning = 95, 3, 2 })),
			"completed 95 of 100 offered requests; 3 still queued at the horizon; 2 still running at the horizon"},
		{"length-capped, all completed", okResult(t, r, with(func(f *Figures) { f.LengthCapped = 4 })), "4 cut at the model's length limit"},
		{"a count without a shortfall", okResult(t, r, with(func(f *Figures) { f.TimedOut = 1 })), "1 timed out"},
		{"trace: injected is offered", okResult(t, trace, with(func(f *Figures) { f.Injected, f.Completed = 8, 8 })), ""},
		{"trace: fewer than injected", okResult(t, trace, with(func(f *Figures) { f.Injected, f.Completed = 8, 7 })), "completed 7 of 8 offered requests"},
		{"failed: not disqualified (it has no figures)", failedResult(t, r, "simulator-run-error", "boom"), ""},
	} {
		if got := tt.res.Disqualification(); got != tt.want {
			t.Errorf("%s: Disqualification() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// A candidate's capacity is the heaviest load of the unbroken run of
// kept-up loads from the lightest, for every pattern of passes and misses
// over the sweep's three loads.
func TestCapacityPatterns(t *testing.T) {
	t.Parallel()
	limit := 500.0 // TTFT p99 bound; figures(n, ttft, …) has TTFT p99 2×ttft
	pass, miss := 100.0, 300.0
	for _, tt := range []struct {
		name string
		ttft [3]float64 // mean TTFT at C=1, 4, 16
		kept int        // concurrency kept up with, 0 for none
		note string
	}{
		{"all pass", [3]float64{pass, pass, pass}, 16, ""},
		{"misses the heaviest", [3]float64{pass, pass, miss}, 4, "at C=16: TTFT p99 600 ms > 500 ms"},
		{"misses the middle, passes the heaviest", [3]float64{pass, miss, pass}, 1, "at C=4: TTFT p99 600 ms > 500 ms"},
		{"misses the lightest", [3]float64{miss, pass, pass}, 0, "at C=1: TTFT p99 600 ms > 500 ms"},
		{"misses all", [3]float64{miss, miss, miss}, 0, "at C=1: TTFT p99 600 ms > 500 ms"},
		{"at the bound", [3]float64{pass, limit / 2, miss}, 4, "at C=16: TTFT p99 600 ms > 500 ms"},
	} {
		d, res := fixtureResults(t)
		runs := d.Runs()
		d.Groups[1].KeepUp = &KeepUp{TTFTP99Ms: &limit}
		for i, ttft := range tt.ttft {
			res[runs[3+i].Group+"/"+runs[3+i].ID] = okResult(t, runs[3+i], figures(50, ttft, float64(100*(i+1))))
		}
		c := BuildBoard(d, res).Groups[1].Capacity[0]
		got := 0
		if c.Kept != nil {
			got = c.Kept.Concurrency
		}
		if got != tt.kept || c.Note != tt.note {
			t.Errorf("%s: capacity C=%d, note %q; want C=%d, %q", tt.name, got, c.Note, tt.kept, tt.note)
		}
		if want := map[int]float64{0: 0, 1: 100, 4: 200, 16: 300}[tt.kept]; c.OutputTokensPerS != want {
			t.Errorf("%s: throughput at capacity %v, want %v (the kept load's)", tt.name, c.OutputTokensPerS, want)
		}
	}
}

// Check names what ReadResults and validateResults cannot see alone: a result's
// computed values that do not follow from its figures (resealed), and a
// trace that is not stored as hashed.
func TestCheckProblems(t *testing.T) {
	t.Parallel()
	d, res := fixtureResults(t)
	traced := d.Runs()[0]
	sum := (TraceFiles{Format: TraceFormatV2, Header: []byte("h"), Data: []byte("d")}).Hash()
	traced.Workload = Workload{Trace: &Trace{Format: TraceFormatV2, SHA256: sum}}
	for _, tt := range []struct {
		name   string
		mutate func(fstest.MapFS)
		want   string
	}{
		{"stale computed value", func(f fstest.MapFS) {
			r := *res["chat-4rps/h100-tp1"]
			c := *r.Computed
			c.GPUs.Value = 2
			r.Computed = &c
			r.Seal()
			f["chat-4rps/h100-tp1.json"].Data, _ = r.Encode()
		}, "invalid: chat-4rps/h100-tp1.json: computed.gpus.value: recorded 2, but its declaration and figures give 1"},
		{"trace not stored", func(f fstest.MapFS) {
			f["chat-4rps/h100-tp1.json"].Data, _ = okResult(t, traced, figures(100, 30, 1000)).Encode()
		}, "trace: chat-4rps/h100-tp1.json: its trace is not stored under traces/" + sum + "/"},
		{"trace stored with other bytes", func(f fstest.MapFS) {
			f["chat-4rps/h100-tp1.json"].Data, _ = okResult(t, traced, figures(100, 30, 1000)).Encode()
			f["traces/"+sum+"/header.yaml"] = &fstest.MapFile{Data: []byte("h")}
			f["traces/"+sum+"/data.csv"] = &fstest.MapFile{Data: []byte("d2")}
		}, "trace: chat-4rps/h100-tp1.json: the trace stored under traces/" + sum + "/ does not hash to its name"},
	} {
		f := resultsFS(t, res)
		tt.mutate(f)
		_, probs, err := Check(d, f, "")
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, p := range probs {
			lines = append(lines, p.String())
		}
		if all := strings.Join(lines, "\n"); !strings.Contains(all, tt.want) {
			t.Errorf("%s: problems:\n%s\nlack %q", tt.name, all, tt.want)
		}
	}
}

// Merge appends the candidates of a declarations file to runs.yaml's
// groups of the same id and refuses one that does not fit.
func TestMerge(t *testing.T) {
	t.Parallel()
	base := readDecl(t)
	g := base.Groups[0]
	extraOf := func(edit func(*Group)) *Declaration {
		e := Group{ID: g.ID, Workload: g.Workload, Load: g.Load, KeepUp: g.KeepUp, Candidates: []Candidate{{ID: "l40s", Model: "test/test-model-7b", Hardware: "L40S", TP: 1}}}
		edit(&e)
		return &Declaration{Version: 1, Groups: []Group{e}}
	}
	m, err := Merge(base, extraOf(func(*Group) {}))
	if err != nil {
		t.Fatal(err)
	}
	if n, was := len(m.Group(g.ID).Candidates), len(g.Candidates); n != was+1 || len(base.Groups[0].Candidates) != was {
		t.Errorf("merged %d candidates (runs.yaml %d, now %d): want one more, runs.yaml's unchanged", n, was, len(base.Groups[0].Candidates))
	}
	saved := Group{ID: "uploaded", Workload: &Workload{Trace: &Trace{Format: TraceFormatV2, Header: "results/traces/x/header.yaml", Data: "results/traces/x/data.csv"}},
		Load: &Load{Arrival: ArrivalRecorded}, Candidates: []Candidate{{ID: "a", Model: "test/test-model-7b", Hardware: "H100", TP: 1}}}
	if m, err := Merge(base, &Declaration{Version: 1, Groups: []Group{saved}}); err != nil || m.Group("uploaded") == nil || len(m.Groups) != len(base.Groups)+1 {
		t.Errorf("a saved trace workload's group: %v; want it appended", err)
	}
	other := 99.0
	for _, tt := range []struct {
		name string
		edit func(*Group)
		want string
	}{
		{"unknown group", func(e *Group) { e.ID = "nope" }, "groups[0].id: group nope is not declared in runs.yaml"},
		{"other load", func(e *Group) { l := *e.Load; l.Rate = &other; e.Load = &l }, "groups[0].load: differs from group chat-4rps's in runs.yaml"},
		{"other workload", func(e *Group) { w := *e.Workload; w.Requests = 7; e.Workload = &w }, "groups[0].workload: differs"},
		{"an id runs.yaml has", func(e *Group) { e.Candidates[0].ID = g.Candidates[0].ID }, "groups[0].candidates[0].id: candidate h100-tp1 is declared in group chat-4rps already"},
	} {
		if _, err := Merge(base, extraOf(tt.edit)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v; want %q", tt.name, err, tt.want)
		}
	}
}

// Only a declared run without a result leaves a board drawable; every
// other problem blocks it, in the order found.
func TestBlocking(t *testing.T) {
	t.Parallel()
	missing := Problem{Kind: ProblemMissing, File: "chat/a.json", Msg: "no result"}
	tampered := Problem{Kind: problemTampered, File: "chat/b.json", Msg: "digest"}
	drift := Problem{Kind: problemDrift, File: "chat/c.json", Msg: "ran on another"}
	unplanned := Problem{Kind: ProblemUnplanned, File: "chat/d.json", Msg: "command[5]"}
	for _, tt := range []struct {
		name  string
		probs []Problem
		want  []Problem
	}{
		{"none", nil, nil},
		{"only missing results", []Problem{missing, missing}, nil},
		{"a tampered result among missing ones", []Problem{missing, tampered, missing}, []Problem{tampered}},
		{"every other kind, in order", []Problem{drift, missing, unplanned, tampered}, []Problem{drift, unplanned, tampered}},
	} {
		if got := Blocking(tt.probs); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Blocking = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Groups lists each group of the results once, sorted.
func TestGroups(t *testing.T) {
	t.Parallel()
	res := map[string]*Result{"sweep/h100--rate-2": {Group: "sweep"}, "chat/h100": {Group: "chat"}, "sweep/h100--rate-8": {Group: "sweep"}, "agentic/h100": {Group: "agentic"}}
	if got := strings.Join(Groups(res), ","); got != "agentic,chat,sweep" {
		t.Errorf("Groups = %s, want agentic,chat,sweep", got)
	}
	if got := Groups(nil); len(got) != 0 {
		t.Errorf("Groups(nil) = %v, want none", got)
	}
}

// A ProblemsError counts the problems and names each on a line of its own.
func TestProblemsError(t *testing.T) {
	t.Parallel()
	err := &ProblemsError{Dir: "leaderboard/results", Problems: []Problem{
		{Kind: problemTampered, File: "chat/h100.json", Msg: "digest sha256:aa does not match its content"},
		{Kind: ProblemHalfMoved, Msg: "catalog moved without the pin"},
	}}
	want := "2 problem(s) in leaderboard/results:\n  tampered: chat/h100.json: digest sha256:aa does not match its content\n  " + ProblemHalfMoved + ": catalog moved without the pin"
	if err.Error() != want {
		t.Errorf("ProblemsError = %q, want %q", err.Error(), want)
	}
}

// A filed result stands for running again only with the same declaration,
// simulator commit, catalog digest, command line, conversion and input
// files; the tool's own commit and the figures do not count. The reason
// names what changed.
func TestReusable(t *testing.T) {
	t.Parallel()
	d := readDecl(t)
	runs := d.Runs()
	cat := &runresult.DataVersion{Name: "catalog c", Version: "v1", Digest: "sha256:" + strings.Repeat("c", 64)}
	prev := okResult(t, runs[0], figures(100, 30, 1000))
	prev.Provenance.Catalog = cat
	prev.Inputs = map[string]string{"workload-spec.yaml": "a"}
	// planned is what the run is about to get: no figures yet.
	planned := func(edit func(*Result)) *Result {
		p := &Result{Group: prev.Group, Run: prev.Run, Declaration: prev.Declaration, Command: append([]string(nil), prev.Command...),
			Inputs: map[string]string{"workload-spec.yaml": "a"}, Provenance: prev.Provenance}
		p.Provenance.Harness = runresult.Harness{Commit: strings.Repeat("b", 40), Source: "checkout", Version: "dev"}
		edit(p)
		return p
	}
	for _, tt := range []struct {
		name string
		edit func(*Result)
		want string // "" reusable
	}{
		{"unchanged, another tool commit", func(*Result) {}, ""},
		{"another declaration", func(p *Result) { p.Declaration = runs[1] }, "the declaration changed ("},
		{"another simulator commit", func(p *Result) { p.Provenance.Simulator.Commit = strings.Repeat("e", 40) },
			"it ran on simulator " + simCommit + ", this build is " + strings.Repeat("e", 40)},
		{"no catalog now", func(p *Result) { p.Provenance.Catalog = nil }, "it ran with catalog " + cat.Digest + ", this run has none"},
		{"another catalog with the same name", func(p *Result) {
			c := *cat
			c.Digest = "sha256:" + strings.Repeat("d", 64)
			p.Provenance.Catalog = &c
		}, "this run has sha256:" + strings.Repeat("d", 64)},
		{"another command line", func(p *Result) { p.Command = append(p.Command, "--seed", "2") }, "the command line changed ("},
		{"a conversion now", func(p *Result) { p.Convert = []string{"blis", "convert", "otel"} }, "the trace's conversion command changed"},
		{"another input file", func(p *Result) { p.Inputs = map[string]string{"workload-spec.yaml": "b"} }, "the command's input files changed"},
	} {
		ok, why := Reusable(prev, planned(tt.edit))
		if ok != (tt.want == "") || !strings.Contains(why, tt.want) || (tt.want == "") != (why == "") {
			t.Errorf("%s: Reusable = %v, %q; want reusable %v with a reason containing %q", tt.name, ok, why, tt.want == "", tt.want)
		}
	}
}
