package harness

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
)

// standinPrediction is the stand-in simulator's latency model applied to the
// regenerated trace, computed here independently of the harness's parsing:
// every metric, the tails by numpy's linear-interpolation percentile.
func standinPrediction(t *testing.T, tr Trace) metric.Values {
	t.Helper()
	conc := 1.0
	if tr.ClosedLoop {
		conc = float64(tr.Concurrency)
	}
	tpot := 4 + 0.08*(conc-1)
	var ttfts, e2es []float64
	for _, r := range tr.Requests {
		if r.Warmup {
			continue
		}
		ttft := 9 + 0.02*float64(r.InputTokens)*(1+0.04*(conc-1))
		ttfts = append(ttfts, ttft)
		e2es = append(e2es, ttft+float64(r.OutputTokens-1)*tpot)
	}
	mean := func(xs []float64) float64 {
		sum := 0.0
		for _, x := range xs {
			sum += x
		}
		return sum / float64(len(xs))
	}
	pct := func(xs []float64, q float64) float64 {
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		pos := q / 100 * float64(len(s)-1)
		i := int(pos)
		if i+1 >= len(s) {
			return s[len(s)-1]
		}
		return s[i]*(1-(pos-float64(i))) + s[i+1]*(pos-float64(i))
	}
	return metric.Values{
		"ttft_ms": mean(ttfts), "tpot_ms": tpot, "e2e_ms": mean(e2es),
		"median_ttft_ms": pct(ttfts, 50), "p99_ttft_ms": pct(ttfts, 99), "p99_tpot_ms": tpot,
	}
}

func scoreOpts(t *testing.T, ledgerName, simRef string) Options {
	t.Helper()
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	l := testLedger(t, ledgerName)
	return Options{
		HarnessDir: hdir, SimRepo: repo.Dir, SimRef: simRef,
		Ledger:        l,
		LedgerVersion: runresult.DataVersion{Name: l.Manifest.Name, Version: l.Manifest.Version, Digest: l.Digest, Release: l.Manifest.Release},
		Jobs:          2, CacheDir: sharedCache(t), PointTimeout: time.Minute,
	}
}

var cacheDir string

// sharedCache is one build cache for the whole test binary, so the stand-in
// is compiled once per commit.
func sharedCache(t testing.TB) string {
	if cacheDir == "" {
		d, err := os.MkdirTemp("", "harness-cache-")
		if err != nil {
			t.Fatal(err)
		}
		cacheDir = d
	}
	return cacheDir
}

func pointsByID(ps []runresult.Point) map[string]runresult.Point {
	m := map[string]runresult.Point{}
	for _, p := range ps {
		m[p.ID] = p
	}
	return m
}

func TestScoreWithMetricsDriver(t *testing.T) {
	o := scoreOpts(t, "ledger", "v0.2.0")
	res, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Caps.Rate != DriverReplayMetrics || res.Caps.ClosedLoop != DriverReplayMetrics {
		t.Fatalf("drivers = %s (rate), %s (closed loop); want %s for both", res.Caps.Rate, res.Caps.ClosedLoop, DriverReplayMetrics)
	}
	s := res.Summary
	c := s.Coverage
	if c.CorpusPoints != 10 || c.Scored != 8 || c.NotScored != 2 {
		t.Fatalf("coverage = %+v, want 10 points: 8 scored, 2 not", c)
	}
	if c.NotScoredByReason["speculative decoding without an acceptance rate"] != 1 || c.NotScoredByReason[ReasonUnknownHardware] != 1 {
		t.Errorf("reasons = %v", c.NotScoredByReason)
	}
	pts := pointsByID(res.Points)
	h200 := pts["test/ix/test-model-7b/h200@c=1"]
	if h200.Scored || !strings.Contains(h200.Detail, `GPU "H200" not found`) {
		t.Errorf("H200 point = %+v, want not scored with the simulator's own message", h200)
	}

	// Every scored prediction equals the stand-in's model over the
	// regenerated requests, warm-ups excluded.
	for ui := range o.Ledger.Units {
		u := &o.Ledger.Units[ui]
		for i := range u.Points {
			p := pts[u.PointID(i)]
			if !p.Scored {
				continue
			}
			tr, _ := Generate(u, i)
			want := standinPrediction(t, tr)
			if len(p.Predicted) != len(want) {
				t.Errorf("%s predicted %v, want %v", p.ID, p.Predicted, want)
			}
			for k, w := range want {
				if got, ok := p.Predicted[k]; !ok || math.Abs(got-w) > 1e-6 {
					t.Errorf("%s predicted %s = %v, want %v", p.ID, k, got, w)
				}
			}
		}
	}

	// Rate points keep up on the stand-in (its latency does not grow with
	// the rate): they complete at the offered rate and are not saturated;
	// closed-loop points have no completion rate. Every point names its source.
	for _, p := range res.Points {
		want := runresult.SourceInferenceX
		if p.Load.Rate > 0 {
			want = runresult.SourceInferencePerf
			if p.Scored && (math.Abs(p.CompletionRate-p.Load.Rate) > 0.01*p.Load.Rate || p.Saturated) {
				t.Errorf("%s: completion rate %v at %v offered, saturated %v", p.ID, p.CompletionRate, p.Load.Rate, p.Saturated)
			}
		} else if p.CompletionRate != 0 || p.Saturated {
			t.Errorf("closed-loop %s: completion rate %v, saturated %v", p.ID, p.CompletionRate, p.Saturated)
		}
		if p.Source != want {
			t.Errorf("%s: source %q, want %q", p.ID, p.Source, want)
		}
	}
	if sel := s.Provenance.Selection; sel == nil || !sel.All || len(sel.Units) != 0 {
		t.Errorf("selection = %+v, want all units, no patterns", sel)
	}

	// Tiers: the A100 sweep's max_num_seqs is assumed, so it is only in tier all.
	if s.Tiers.All["ttft"].N != 8 || s.Tiers.MeasuredResolved["ttft"].N != 5 {
		t.Errorf("tier n: all %d, measured_resolved %d; want 8 and 5", s.Tiers.All["ttft"].N, s.Tiers.MeasuredResolved["ttft"].N)
	}
	if got := pts["test/ix/test-model-7b/a100-assumed@c=1"].Tier; got != "assumed" {
		t.Errorf("a100 tier = %q, want assumed", got)
	}
	// Shape: the H100 sweep has 3 scored points (anchor + 2), the A100 one 3.
	if s.Tiers.All["ttft"].ShapeN != 4 {
		t.Errorf("shape n = %d, want 4", s.Tiers.All["ttft"].ShapeN)
	}
	p := s.Provenance
	if p.Simulator.Commit != harnesstest.StandinRepo(t).V020 || p.Simulator.Tag != "v0.2.0" || !p.Simulator.Release || p.Harness.Source != runresult.HarnessCheckout {
		t.Errorf("provenance = %+v", p)
	}
	if s.Label != runresult.LabelRelease {
		t.Errorf("label = %s %v, want release (released simulator, released data)", s.Label, s.LabelReasons)
	}
}

func TestScoreIsDeterministicAcrossJobs(t *testing.T) {
	o := scoreOpts(t, "ledger", "v0.2.0")
	o.Jobs = 1
	a, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	o.Jobs = 4
	b, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct{ a, b any }{{a.Summary, b.Summary}, {a.Points, b.Points}} {
		ja, _ := jsoncodec.Encode(v.a)
		jb, _ := jsoncodec.Encode(v.b)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("outputs differ between --jobs 1 and --jobs 4:\n%s\n---\n%s", ja, jb)
		}
	}
}

func TestShardsMergeToTheUnshardedRun(t *testing.T) {
	o := scoreOpts(t, "ledger", "v0.2.0")
	whole, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var parts []runresult.Part
	total := 0
	for k := 1; k <= 3; k++ {
		o.Shard = &runresult.Shard{Index: k, Count: 3}
		r, err := Score(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		total += r.Summary.Coverage.CorpusPoints
		parts = append(parts, runresult.Part{Name: "shard", Result: r.Result})
	}
	if total != whole.Summary.Coverage.CorpusPoints {
		t.Fatalf("shards hold %d points, the corpus %d", total, whole.Summary.Coverage.CorpusPoints)
	}
	s, p, err := runresult.Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := jsoncodec.Encode(whole.Summary)
	jb, _ := jsoncodec.Encode(s)
	if !bytes.Equal(ja, jb) {
		t.Errorf("merged summary differs from the unsharded one:\n%s\n---\n%s", ja, jb)
	}
	pa, _ := jsoncodec.Encode(whole.Points)
	pb, _ := jsoncodec.Encode(p)
	if !bytes.Equal(pa, pb) {
		t.Error("merged points differ from the unsharded ones")
	}
	if _, _, err := runresult.Merge(parts[:2]); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("merge of 2 of 3 shards: err = %v, want missing shards", err)
	}
}

func TestScoreWithResultsDriver(t *testing.T) {
	// Like BLIS v0.7.15: replay has only --results-path, so rate points are
	// replayed through it and closed-loop points run through blis run.
	o := scoreOpts(t, "ledger", "v0.1.0")
	res, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Caps.Rate != DriverReplayResults || res.Caps.ClosedLoop != DriverRunClosedLoop {
		t.Fatalf("drivers = %s (rate), %s (closed loop); want %s, %s", res.Caps.Rate, res.Caps.ClosedLoop, DriverReplayResults, DriverRunClosedLoop)
	}
	l := o.Ledger
	for ui := range l.Units {
		u := &l.Units[ui]
		for i := range u.Points {
			id := u.PointID(i)
			p := pointsByID(res.Points)[id]
			closed := p.Load.Concurrency > 0
			switch {
			case p.Reason == ReasonUnknownHardware, strings.HasPrefix(p.Reason, "speculative"):
			case !p.Scored:
				t.Errorf("%s not scored (%s: %s)", id, p.Reason, p.Detail)
			case !closed:
				if p.Driver != DriverReplayResults || math.Abs(p.Predicted["ttft_ms"]-12) > 1e-3 || math.Abs(p.Predicted["tpot_ms"]-4) > 1e-3 || math.Abs(p.Predicted["p99_tpot_ms"]-4) > 1e-3 {
					t.Errorf("%s by %s predicted %v, want ttft 12, tpot 4, p99 tpot 4 through %s", id, p.Driver, p.Predicted, DriverReplayResults)
				}
			default:
				// The simulator drew the lengths: TTFT lies within what the
				// client's input range allows, TPOT does not depend on them.
				c := float64(p.Load.Concurrency)
				w := u.Workload.InferenceX
				lo, hi := math.Floor(w.RangeRatio*float64(w.InputLen)), float64(w.InputLen)
				ttft := func(in float64) float64 { return 9 + 0.02*in*(1+0.04*(c-1)) }
				if p.Driver != DriverRunClosedLoop || p.Predicted["ttft_ms"] < ttft(lo) || p.Predicted["ttft_ms"] > ttft(hi) || math.Abs(p.Predicted["tpot_ms"]-(4+0.08*(c-1))) > 1e-9 {
					t.Errorf("%s by %s predicted %v, want TTFT in [%v, %v] and TPOT %v through %s", id, p.Driver, p.Predicted, ttft(lo), ttft(hi), 4+0.08*(c-1), DriverRunClosedLoop)
				}
			}
		}
	}
	if c := res.Summary.Coverage; c.Scored != 8 || c.ScoredByDriver[DriverReplayResults] != 2 || c.ScoredByDriver[DriverRunClosedLoop] != 6 {
		t.Errorf("coverage = %+v, want the 2 rate points replayed and the 6 closed-loop points run", c)
	}
}

func TestSimulatorFaultsAreNotScored(t *testing.T) {
	o := scoreOpts(t, "faults", "v0.2.0")
	o.PointTimeout = 3 * time.Second
	// The simulator is pull-request code: it gets a clean environment, with
	// neither tokens nor the runner's file commands.
	leaks := []string{"GITHUB_TOKEN", "INPUT_GITHUB_TOKEN", "GH_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
		"GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_STEP_SUMMARY", "MY_DEPLOY_KEY"}
	for _, name := range leaks {
		t.Setenv(name, "secret-"+name)
	}
	res, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ reason, detail string }{
		"fault/crash@c=2":      {ReasonRunError, "simulated crash"},
		"fault/hang@c=2":       {ReasonTimeout, "killed"},
		"fault/garbage@c=2":    {ReasonBadOutput, "not the expected JSON"},
		"fault/incomplete@c=2": {ReasonIncomplete, "completed"},
		"fault/too-big@c=2":    {ReasonDoesNotFit, "model overhead (226.27 GiB = 217.07 weights + 8.00 activation + 1.20 non-torch + 0.00 lora-adapter-reservation) exceeds available GPU memory (72.00 GiB = 80.0 GiB × 90% util × 1 GPUs)"},
		"fault/zero@c=2":       {ReasonBadPrediction, "mean TTFT 0 ms"},
		"fault/env@c=2":        {ReasonRunError, "environment: "},
	}
	for _, p := range res.Points {
		w, ok := want[p.ID]
		if !ok {
			t.Errorf("unexpected point %s", p.ID)
			continue
		}
		if p.Scored || p.Predicted != nil || p.Reason != w.reason || !strings.Contains(p.Detail, w.detail) {
			t.Errorf("%s = scored %v reason %q detail %q; want reason %q with %q", p.ID, p.Scored, p.Reason, p.Detail, w.reason, w.detail)
		}
	}
	// A point that is not scored keeps the warnings printed before the
	// simulator gave up: fault-too-big's config is gpt-oss's quantization.
	for _, p := range res.Points {
		var want []runresult.Warning
		if p.ID == "fault/too-big@c=2" {
			want = []runresult.Warning{{Message: "HuggingFace config has quantization_config but weight precision could not be determined", Count: 1}}
		}
		if !slices.Equal(p.Warnings, want) {
			t.Errorf("%s: warnings %+v, want %+v", p.ID, p.Warnings, want)
		}
	}
	for _, p := range res.Points {
		if p.ID != "fault/env@c=2" {
			continue
		}
		names := strings.Fields(strings.TrimPrefix(p.Detail[strings.Index(p.Detail, "environment: "):], "environment: "))
		if !slices.Contains(names, "PATH") {
			t.Errorf("the simulator has no PATH: %v", names)
		}
		for _, leak := range leaks {
			if slices.Contains(names, leak) {
				t.Errorf("the simulator's environment holds %s: %v", leak, names)
			}
		}
	}
	if c := res.Summary.Coverage; c.Scored != 0 || c.NotScored != 7 || !c.Balanced() {
		t.Errorf("coverage = %+v", c)
	}
	if res.Summary.Label != runresult.LabelExperimental {
		t.Errorf("label = %s, want experimental (the fault ledger is not a release)", res.Summary.Label)
	}
}

func TestBuildWithoutUsableDriver(t *testing.T) {
	o := scoreOpts(t, "ledger", "")
	dir := t.TempDir()
	bin := filepath.Join(dir, "blis")
	os.WriteFile(bin, []byte("#!/bin/sh\necho 'Usage: blis run [flags]'\necho '      --model string   LLM name'\n"), 0o755)
	o.SimBin = bin
	res, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Points {
		if p.Scored || (p.Reason != simcli.ReasonUnsupportedBuild && !strings.HasPrefix(p.Reason, "speculative")) {
			t.Errorf("%s = %+v, want not scored as unsupported", p.ID, p)
		}
		if p.Reason == simcli.ReasonUnsupportedBuild && !strings.Contains(p.Detail, "--trace-header") {
			t.Errorf("%s detail %q does not name what is missing", p.ID, p.Detail)
		}
		// A closed-loop point could have been run by either command: the
		// reason names what each lacks.
		if p.Reason == simcli.ReasonUnsupportedBuild && p.Load.Concurrency > 0 && !strings.Contains(p.Detail, "run flags --concurrency") {
			t.Errorf("%s detail %q does not name what run lacks", p.ID, p.Detail)
		}
		if p.Driver != "" {
			t.Errorf("%s records driver %q, but no driver ran it", p.ID, p.Driver)
		}
	}
	s := res.Summary
	if s.Label != runresult.LabelExperimental || s.Provenance.Simulator.BuiltByHarness || !strings.Contains(strings.Join(s.LabelReasons, " "), "--sim-bin") {
		t.Errorf("prebuilt binary: label %s reasons %v", s.Label, s.LabelReasons)
	}
}

func TestScoreRefusesBranchAndDirtyHarness(t *testing.T) {
	o := scoreOpts(t, "ledger", "feature")
	if _, err := Score(context.Background(), o); !errors.Is(err, ErrNotPinned) {
		t.Errorf("Score(--sim feature) error = %v, want ErrNotPinned", err)
	}
	o = scoreOpts(t, "ledger", "v0.2.0")
	os.WriteFile(filepath.Join(o.HarnessDir, "README.md"), []byte("edited\n"), 0o644)
	if _, err := Score(context.Background(), o); !errors.Is(err, ErrDirtyHarness) || !strings.Contains(err.Error(), "README.md") {
		t.Errorf("dirty harness: error = %v, want ErrDirtyHarness naming README.md", err)
	}
}

func TestHarnessIdentity(t *testing.T) {
	ctx := context.Background()
	dir, commit := harnesstest.HarnessCheckout(t)
	h, err := HarnessIdentity(ctx, dir)
	if err != nil || h.Commit != commit || h.Source != runresult.HarnessCheckout {
		t.Fatalf("clean checkout: %+v, %v", h, err)
	}
	harnesstest.Run(t, dir, "git", "tag", "v1.2.3")
	if h, _ := HarnessIdentity(ctx, dir); h.Version != "v1.2.3" {
		t.Errorf("version = %q, want v1.2.3", h.Version)
	}
	// Untracked files do not make a checkout dirty.
	os.WriteFile(filepath.Join(dir, "scratch.txt"), []byte("x"), 0o644)
	if _, err := HarnessIdentity(ctx, dir); err != nil {
		t.Errorf("untracked file: %v", err)
	}

	// A copy without git history, stating its commit.
	cp := t.TempDir()
	os.WriteFile(filepath.Join(cp, HarnessCommitFile), []byte(commit+"\n"), 0o644)
	h, err = HarnessIdentity(ctx, cp)
	if err != nil || h.Commit != commit || h.Source != runresult.HarnessAssertion {
		t.Errorf("copy with HARNESS_COMMIT: %+v, %v", h, err)
	}
	os.WriteFile(filepath.Join(cp, HarnessCommitFile), []byte("main\n"), 0o644)
	if _, err := HarnessIdentity(ctx, cp); err == nil || !strings.Contains(err.Error(), "40-hex") {
		t.Errorf("HARNESS_COMMIT=main: err = %v", err)
	}
	// With the release that names it: the version the gate checks.
	os.WriteFile(filepath.Join(cp, HarnessCommitFile), []byte(commit+" v1.2.3\n"), 0o644)
	if h, err := HarnessIdentity(ctx, cp); err != nil || h.Commit != commit || h.Version != "v1.2.3" || h.Source != runresult.HarnessAssertion {
		t.Errorf("HARNESS_COMMIT with a release: %+v, %v", h, err)
	}
	for content, want := range map[string]string{
		commit + " main\n":         `"main" is not a release tag`,
		commit + " v1.2.3 extra\n": "want",
		"\n":                       "want",
	} {
		os.WriteFile(filepath.Join(cp, HarnessCommitFile), []byte(content), 0o644)
		if _, err := HarnessIdentity(ctx, cp); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), HarnessCommitFile) {
			t.Errorf("HARNESS_COMMIT %q: err = %v, want %q", content, err, want)
		}
		os.WriteFile(filepath.Join(cp, HarnessCommitFile), []byte(commit+"\n"), 0o644)
	}

	// A directory unpacked inside another repository is not a checkout.
	nested := filepath.Join(dir, "vendor", "harness")
	os.MkdirAll(nested, 0o755)
	if _, err := HarnessIdentity(ctx, nested); err == nil || !strings.Contains(err.Error(), "inside another repository") {
		t.Errorf("nested directory: err = %v, want refusal", err)
	}
}

func TestSelectUnits(t *testing.T) {
	t.Parallel()
	l := testLedger(t, "ledger")
	ids := func(sel ...string) string {
		us, err := SelectUnits(l.Units, sel)
		if err != nil {
			return "error: " + err.Error()
		}
		var out []string
		for _, u := range us {
			out = append(out, u.ID)
		}
		return strings.Join(out, " ")
	}
	if got := ids("test/ix/test-model-7b/h100"); got != "test/ix/test-model-7b/h100" {
		t.Errorf("exact id: %s", got)
	}
	if got := ids("test/ix/*/h*"); got != "test/ix/test-model-7b/h100 test/ix/test-model-7b/h200" {
		t.Errorf("glob: %s", got)
	}
	if got := ids("test/ip"); got != "test/ip/test-model-7b/h100" {
		t.Errorf("prefix: %s", got)
	}
	if got := ids("nope/*"); !strings.Contains(got, "matches no unit") {
		t.Errorf("no match: %s", got)
	}
}

// FuzzParseHarnessCommit: a HARNESS_COMMIT file is a commit, or a commit
// and a release tag; anything else is an error naming the file.
func FuzzParseHarnessCommit(f *testing.F) {
	f.Add([]byte(strings.Repeat("a", 40) + " v1.2.0\n"))
	f.Add([]byte("main\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		h, err := ParseHarnessCommit(raw, "HARNESS_COMMIT")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "HARNESS_COMMIT: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if !ident.IsCommit(h.Commit) || (h.Version != "" && !ident.IsStableRelease(h.Version)) || h.Source != runresult.HarnessAssertion {
			t.Fatalf("accepted %q as %+v", raw, h)
		}
	})
}

// TestNotPassed: the catalog and registry are recorded only when the build
// has a flag to take them; otherwise the provenance says they were not
// passed, and why.
func TestNotPassed(t *testing.T) {
	t.Parallel()
	cat := &runresult.DataVersion{Name: "catalog x", Version: "v1"}
	reg := &runresult.DataVersion{Name: "registry y", Version: "v2"}
	prov := runresult.Provenance{Catalog: cat, Registry: reg}
	notPassed(&prov, Capabilities{Replay: simcli.ParseFlags("  --model-config-folder string\n  --model string\n")})
	if prov.Catalog != cat || prov.Registry != nil || len(prov.NotPassed) != 1 ||
		prov.NotPassed[0] != "registry registry y v2: this build takes no --registry" {
		t.Errorf("old build: catalog %v, registry %v, not passed %q", prov.Catalog, prov.Registry, prov.NotPassed)
	}
	prov = runresult.Provenance{Catalog: cat, Registry: reg}
	notPassed(&prov, Capabilities{Run: simcli.ParseFlags("  --catalog string\n  --registry string\n")})
	if prov.Catalog != cat || prov.Registry != reg || prov.NotPassed != nil {
		t.Errorf("new build: %+v", prov)
	}
	prov = runresult.Provenance{Catalog: cat}
	notPassed(&prov, Capabilities{})
	if prov.Catalog != nil || len(prov.NotPassed) != 1 || !strings.Contains(prov.NotPassed[0], "catalog catalog x v1: this build takes no --catalog or --model-config-folder") {
		t.Errorf("no flags: %+v", prov)
	}
}

// TestNotPassedSettings: the ledger's settings no simulator flag takes are
// listed per point; block_size only when the build has no flag for it.
func TestNotPassedSettings(t *testing.T) {
	t.Parallel()
	l := testLedger(t, "ledger")
	u := &l.Units[0]
	u.Deployment.Precision.Value = "fp8"
	u.Deployment.Engines.PrefixCaching = &ledger.Setting[bool]{Value: true}
	u.Deployment.Engines.KVCacheDtype = &ledger.Setting[string]{Value: "fp8_e4m3"}
	u.Deployment.Engines.BlockSize = &ledger.Setting[int]{Value: 32}
	got := NotPassedSettings(simcli.ParseFlags("  --max-num-seqs int\n"), u, 0)
	want := []string{"precision fp8", "prefix_caching true", "kv_cache_dtype fp8_e4m3", "block_size 32"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("old build: %q, want %q", got, want)
	}
	got = NotPassedSettings(simcli.ParseFlags("  --block-size-in-tokens int\n"), u, 0)
	if strings.Join(got, "; ") != strings.Join(want[:3], "; ") {
		t.Errorf("build with a block size flag: %q, want %q", got, want[:3])
	}
}
