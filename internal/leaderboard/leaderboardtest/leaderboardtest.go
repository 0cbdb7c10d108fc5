// Package leaderboardtest holds the leaderboard fixtures several packages'
// tests share: the results of a results directory (the repository's
// example, docs/examples/leaderboard/results) re-sealed as a given
// simulator build produced them, the declarations of runs against the
// stand-in simulator (StandinRuns), and a result re-sealed with a figure the
// stand-in does not give (PlantTTFT). Only tests import it.
package leaderboardtest

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// Results reads every result file under dir (keyed by its slash path
// there, e.g. "chat/h100-tp1.json"), gives each the simulator sim, passes
// it to edit (with its group/run key, the path without ".json"; nil edits
// nothing), recomputes its computed values from its BLIS metrics as a run
// would, and seals and encodes it again.
func Results(t testing.TB, dir string, sim leaderboard.Simulator, edit func(key string, r *leaderboard.Result)) map[string][]byte {
	t.Helper()
	files := testkit.ReadTree(t, dir)
	out := make(map[string][]byte, len(files))
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		r, err := leaderboard.ParseResult(files[rel], rel)
		if err != nil {
			t.Fatal(err)
		}
		r.Provenance.Simulator = sim
		if edit != nil {
			edit(strings.TrimSuffix(rel, ".json"), r)
		}
		if r.BLIS != nil {
			c := leaderboard.Compute(r.Declaration, *r.BLIS)
			r.Computed = &c
		}
		if err := r.Seal(); err != nil {
			t.Fatal(err)
		}
		if out[rel], err = r.Encode(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// StandinRuns declares runs against the stand-in simulator: a group at one
// Poisson rate with a qualified, a disqualified (half its requests time
// out), a crashing, an unknown-GPU and an unknown-model candidate; and a
// constant-rate sweep.
const StandinRuns = `version: 1
groups:
  - id: chat
    workload:
      requests: 40
      seed: 3
      prompt_tokens: {mean: 256, stdev: 64, min: 16, max: 1024}
      output_tokens: {mean: 64, stdev: 16, min: 8, max: 256}
    load: {arrival: poisson, rate: 4}
    candidates:
      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1}
      - {id: a100-tp2, model: org/test-model-7b, hardware: A100-80, tp: 2, engine: {max_num_seqs: 128}}
      - {id: flaky, model: org/fault-incomplete, hardware: H100, tp: 1}
      - {id: crash, model: org/fault-crash, hardware: H100, tp: 1}
      - {id: h200, model: org/test-model-7b, hardware: H200, tp: 1}
      - {id: nomodel, model: org/no-such-model, hardware: H100, tp: 1}
  - id: sweep
    workload:
      requests: 30
      seed: 1
      prompt_tokens: {mean: 128, stdev: 0, min: 128, max: 128}
      output_tokens: {mean: 32, stdev: 0, min: 32, max: 32}
    load: {arrival: constant, rates: [2, 8]}
    candidates:
      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1, replicas: 2}
    keep_up: {ttft_p99_ms: 10000}
`

// PlantTTFT re-seals the result at path with a mean TTFT of 12345 ms, a
// figure the stand-in simulator does not give: a result reused keeps it, a
// result run again loses it. It returns the new file.
func PlantTTFT(t testing.TB, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := leaderboard.ParseResult(raw, path)
	if err != nil {
		t.Fatal(err)
	}
	r.BLIS.TTFTMeanMs = 12345
	if err := r.Seal(); err != nil {
		t.Fatal(err)
	}
	if raw, err = r.Encode(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return raw
}
