package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Size of the synthetic corpus: the upstream's first run (481 points over
// 87 sweeps).
const (
	syntheticIXSweeps = 77 // InferenceX concurrency sweeps, 5 points each
	syntheticIPSweeps = 10 // inference-perf rate sweeps: 6 of 10 stages, 4 of 9
)

// writeSyntheticCorpus writes a ledger of 481 points over 87 sweeps into
// dir, shaped like the bundled corpus: InferenceX closed-loop sweeps at
// concurrency 4 to 64 of 1k/1k, 1k/8k and 8k/1k tokens (10 × C requests and
// 2 × C warm-ups each) on TP1 to TP8, and inference-perf constant-rate
// sweeps of shared-prefix requests (150 to 2 000 system-prompt tokens, 600
// question tokens, 251 output tokens) at 1 to 10 requests/s for 60 s per
// stage. The units are the test ledger's, varied by a fixed seed, on the
// stand-in's model and GPU.
func writeSyntheticCorpus(t testing.TB, dir string) {
	t.Helper()
	read := func(name string) map[string]any {
		raw, err := os.ReadFile(filepath.Join("testdata", "ledger", "units", "test", name))
		if err != nil {
			t.Fatal(err)
		}
		var u map[string]any
		if err := json.Unmarshal(raw, &u); err != nil {
			t.Fatal(err)
		}
		return u
	}
	write := func(id string, u map[string]any) {
		u["id"] = id
		raw, err := json.MarshalIndent(u, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(dir, "units", filepath.FromSlash(id)+".json")
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(20, 481))
	ix, ip := read("ix/test-model-7b/h100.json"), read("ip/test-model-7b/h100.json")
	lengths := [][2]int{{1024, 1024}, {1024, 8192}, {8192, 1024}}
	point := func(load map[string]any, k int, measured float64) map[string]any {
		return map[string]any{"load": load, "measured": map[string]any{"ttft_ms": measured, "tpot_ms": measured / 10},
			"provenance": map[string]any{"artifact": "synthetic.json", "row": k, "run_id": "1", "engine_version": "v0.13.0"}}
	}
	for s := range syntheticIXSweeps {
		u := clone(t, ix)
		l := lengths[s%len(lengths)]
		tp := []int{1, 2, 4, 8}[(s/len(lengths))%4]
		d := u["deployment"].(map[string]any)
		d["tensor_parallel"] = map[string]any{"value": tp, "evidence": "measured"}
		d["engine_settings"].(map[string]any)["max_model_len"] = map[string]any{"value": 16384, "evidence": "resolved"}
		w := u["workload"].(map[string]any)
		w["seed"] = rng.Uint64() >> 1
		x := w["inferencex"].(map[string]any)
		x["input_len"], x["output_len"] = l[0], l[1]
		var pts []any
		for k, c := range []int{4, 8, 16, 32, 64} {
			pts = append(pts, point(map[string]any{"concurrency": c}, k, 40+rng.Float64()*100))
		}
		u["points"] = pts
		write(fmt.Sprintf("synthetic/ix/tp%d/isl%d-osl%d-%02d", tp, l[0], l[1], s), u)
	}
	for s := range syntheticIPSweeps {
		u := clone(t, ip)
		w := u["workload"].(map[string]any)
		w["seed"] = rng.Uint64() >> 1
		p := w["inference_perf"].(map[string]any)
		p["num_unique_system_prompts"], p["num_users_per_system_prompt"] = 10, 10
		p["system_prompt_len"], p["question_len"], p["output_len"] = 150+s*200, 600, 251
		stages := 10
		if s >= 6 {
			stages = 9
		}
		var pts []any
		for k := range stages {
			pts = append(pts, point(map[string]any{"rate": k + 1, "duration_s": 60}, k, 30+rng.Float64()*50))
		}
		u["points"] = pts
		write(fmt.Sprintf("synthetic/ip/sweep-%02d", s), u)
	}
	m := `{"schema_version": 1, "name": "synthetic", "version": "0.0.1", "release": true}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, ledger.ManifestFile), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
}

func clone(t testing.TB, v map[string]any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSyntheticCorpus: the generator writes a valid ledger of the
// upstream's size.
func TestSyntheticCorpus(t *testing.T) {
	dir := t.TempDir()
	writeSyntheticCorpus(t, dir)
	l, err := ledger.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	points := 0
	for _, u := range l.Units {
		points += len(u.Points)
	}
	if len(l.Units) != 87 || points != 481 {
		t.Errorf("%d sweeps, %d points; want 87 and 481", len(l.Units), points)
	}
}

// BenchmarkScale times, on the stand-in simulator over the synthetic corpus
// of 481 points in 87 sweeps (BENCH_JOBS workers, default 2): a full run;
// a run where 10 % of the points are new (their predictions missing from
// the earlier run it reuses); and 8 shards, run one after the other, plus
// their merge. A first full run (untimed) builds the stand-in and gives
// the predictions to reuse; then each kind runs twice in ABBA order. Each is reported in seconds and as a ratio to the full run:
// shards8-sum is the work of the 8 shards (the cost of sharding),
// shards8-max the longest shard plus the merge (a matrix of 8 machines'
// wall time). Run it with
//
//	go test ./internal/harness -run '^$' -bench Scale -benchtime 1x
func BenchmarkScale(b *testing.B) {
	dir := b.TempDir()
	writeSyntheticCorpus(b, dir)
	l, err := ledger.Load(os.DirFS(dir))
	if err != nil {
		b.Fatal(err)
	}
	repo := harnesstest.StandinRepo(b)
	hdir, _ := harnesstest.HarnessCheckout(b)
	jobs := 2
	if n, err := fmt.Sscan(os.Getenv("BENCH_JOBS"), &jobs); n != 1 || err != nil {
		jobs = 2
	}
	o := Options{HarnessDir: hdir, SimRepo: repo.Dir, SimRef: "v0.2.0", Ledger: l,
		LedgerVersion: runresult.DataVersion{Name: "synthetic", Version: "0.0.1", Digest: l.Digest},
		Jobs:          jobs, CacheDir: sharedCache(b), PointTimeout: 10 * time.Minute}
	score := func(o Options) (*Result, time.Duration) {
		b.Helper()
		start := time.Now()
		res, err := Score(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		return res, time.Since(start)
	}
	b.ResetTimer()
	for range b.N {
		full, _ := score(o)
		// 10 % new: every tenth point of the corpus is missing from the run
		// reused.
		var earlier []runresult.Point
		for k, p := range full.Points {
			if k%10 != 0 {
				earlier = append(earlier, p)
			}
		}
		r := o
		r.Reuse = NewReuse("earlier", earlier)
		wantReused := full.Summary.Coverage.Scored - (len(full.Points) - len(earlier))

		// Each kind of run twice, in ABBA order (full, reuse, shards,
		// shards, reuse, full), so a load that drifts during the iteration
		// weighs on each kind alike.
		var tFull, tReuse, tSum, tMax, tMerge time.Duration
		shards := func() {
			var parts []runresult.Part
			var longest time.Duration
			for k := 1; k <= 8; k++ {
				s := o
				s.Shard = &runresult.Shard{Index: k, Count: 8}
				res, t := score(s)
				tSum += t
				longest = max(longest, t)
				parts = append(parts, runresult.Part{Name: fmt.Sprint(k), Result: res.Result})
			}
			tMax += longest
			start := time.Now()
			if _, _, err := runresult.Merge(parts); err != nil {
				b.Fatal(err)
			}
			tMerge += time.Since(start)
		}
		reuse := func() {
			res, t := score(r)
			if got := res.Summary.Coverage.Reused; got < wantReused {
				b.Fatalf("reused %d predictions, want at least %d", got, wantReused)
			}
			tReuse += t
		}
		_, t := score(o)
		tFull += t
		reuse()
		shards()
		shards()
		reuse()
		_, t = score(o)
		tFull += t

		b.ReportMetric(tFull.Seconds()/2, "full-s")
		b.ReportMetric(tReuse.Seconds()/2, "reuse10-s")
		b.ReportMetric(tReuse.Seconds()/tFull.Seconds(), "reuse10-ratio")
		b.ReportMetric((tSum+tMerge).Seconds()/2, "shards8-sum-s")
		b.ReportMetric((tSum+tMerge).Seconds()/tFull.Seconds(), "shards8-sum-ratio")
		b.ReportMetric((tMax+tMerge).Seconds()/tFull.Seconds(), "shards8-max-ratio")
		b.ReportMetric(tMerge.Seconds()/2, "merge-s")
		b.ReportMetric(float64(len(full.Points)), "points")
		b.ReportMetric(float64(full.Summary.Coverage.Scored), "scored")
	}
}
