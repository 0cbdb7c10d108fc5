package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// standinRuns declares runs against the stand-in simulator
// (leaderboardtest.StandinRuns).
const standinRuns = leaderboardtest.StandinRuns

type lbEnv struct {
	t                       *testing.T
	repo                    harnesstest.Standin
	harnessDir, cache, runs string
	results                 string
}

func newLBEnv(t *testing.T) *lbEnv {
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs.yaml")
	if err := os.WriteFile(runs, []byte(standinRuns), 0o644); err != nil {
		t.Fatal(err)
	}
	return &lbEnv{t: t, repo: repo, harnessDir: hdir, cache: t.TempDir(), runs: runs, results: filepath.Join(dir, "results")}
}

func (e *lbEnv) cmd(args ...string) (string, error) {
	e.t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"leaderboard"}, args...), fakeEnv(map[string]string{"HOME": e.t.TempDir()}), &out, &errb)
	return out.String() + errb.String(), err
}

func (e *lbEnv) simArgs(extra ...string) []string {
	return append([]string{"--runs", e.runs, "--sim-repo", e.repo.Dir, "--cache-dir", e.cache, "--quiet", "--jobs", "2", "--timeout", "20s"}, extra...)
}

func TestLeaderboardRunRenderValidateVerify(t *testing.T) {
	e := newLBEnv(t)
	out, err := e.cmd(append([]string{"run", "--sim", "v0.2.0", "--harness-dir", e.harnessDir}, e.simArgs()...)...)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	if !strings.Contains(out, "wrote 8 results") || !strings.Contains(out, "(3 failed)") {
		t.Errorf("run output:\n%s", out)
	}
	read := func(name string) *leaderboard.Result { return leaderboardtest.ReadResult(t, e.results, name) }
	ok := read("chat/h100.json")
	if ok.Status != leaderboard.StatusOK || ok.BLIS.Completed != 40 || ok.Provenance.Simulator.Commit != e.repo.V020 || ok.Provenance.Simulator.Tag != "v0.2.0" {
		t.Errorf("chat/h100: %+v", ok)
	}
	if got := strings.Join(ok.Command, " "); !strings.Contains(got, "--workload-spec {run}/workload-spec.yaml") || !strings.Contains(ok.Inputs[leaderboard.WorkloadSpecFile], `"process": "poisson"`) {
		t.Errorf("Poisson run command %q, inputs %v", got, ok.Inputs)
	}
	if c := strings.Join(read("chat/a100-tp2.json").Command, " "); !strings.Contains(c, "--tp 2") || !strings.Contains(c, "--max-num-seqs 128") {
		t.Errorf("engine settings not passed: %s", c)
	}
	if c := strings.Join(read("sweep/h100--rate-8.json").Command, " "); !strings.Contains(c, "--rate 8") || !strings.Contains(c, "--num-instances 2") {
		t.Errorf("constant-rate sweep command: %s", c)
	}
	for name, reason := range map[string]string{
		"chat/crash.json": "simulator-run-error", "chat/h200.json": "hardware-unknown-to-simulator", "chat/nomodel.json": "model-unknown-to-simulator",
	} {
		r := read(name)
		if r.Status != leaderboard.StatusFailed || r.Failure.Reason != reason || r.BLIS != nil || r.Failure.Message == "" {
			t.Errorf("%s: status %s, failure %+v, figures %v; want failed with %s and a message", name, r.Status, r.Failure, r.BLIS, reason)
		}
	}
	if m := read("chat/crash.json").Failure.Message; m != "exit status 2: panic: simulated crash in the stand-in (at main.(*sim).load, standin-blis/main.go:163)" {
		t.Errorf("crash message %q, want the panic line and its first frame", m)
	}
	if d := read("chat/flaky.json").Disqualification(); d != "completed 20 of 40 offered requests; 20 still running at the horizon" {
		t.Errorf("flaky disqualification = %q", d)
	}

	// Same declaration, same build: byte-identical files.
	again := filepath.Join(t.TempDir(), "again")
	if out, err := e.cmd(append([]string{"run", "--sim", e.repo.V020, "--harness-dir", e.harnessDir, "--out", again}, e.simArgs("--jobs", "1")...)...); err != nil {
		t.Fatalf("second run: %v\n%s", err, out)
	}
	second := testkit.ReadTree(t, again)
	for rel, a := range testkit.ReadTree(t, e.results) {
		if !bytes.Equal(a, second[rel]) {
			t.Errorf("%s differs between two runs of the same declaration and build", rel)
		}
	}

	out, err = e.cmd("render", "--runs", e.runs, "--out", filepath.Dir(e.runs))
	if err != nil {
		t.Fatalf("render: %v\n%s", err, out)
	}
	for _, want := range []string{"## chat (`chat`)", "[#", "**Disqualified**", "hardware-unknown-to-simulator", "### Capacity", "GPUs†"} {
		if !strings.Contains(out, want) {
			t.Errorf("render lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.runs), "index.html")); err != nil {
		t.Error(err)
	}

	if out, err := e.cmd("validate", "--runs", e.runs, "--sim", e.repo.V020); err != nil || !strings.Contains(out, "ok: 8 results in 2 groups") {
		t.Fatalf("validate: %v\n%s", err, out)
	}
	if out, err := e.cmd(append([]string{"verify", "--only", "chat/h100,sweep"}, e.simArgs()...)...); err != nil || !strings.Contains(out, "verified: 3 results reproduce exactly") {
		t.Fatalf("verify: %v\n%s", err, out)
	}

	// Drift: the pinned simulator is another commit.
	if out, err := e.cmd("validate", "--runs", e.runs, "--sim", e.repo.V010); err == nil || !strings.Contains(err.Error(), "simulator-drift: chat/h100.json: ran on simulator commit "+e.repo.V020) {
		t.Errorf("drift: %v\n%s", err, out)
	}
	// Tampered: a figure edited by hand fails validate (digest) ...
	path := filepath.Join(e.results, "chat", "h100.json")
	orig, _ := os.ReadFile(path)
	tampered := strings.Replace(string(orig), `"completed_requests": 40`, `"completed_requests": 41`, 1)
	os.WriteFile(path, []byte(tampered), 0o644)
	if _, err := e.cmd("validate", "--runs", e.runs); err == nil || !strings.Contains(err.Error(), "tampered: chat/h100.json: digest") {
		t.Errorf("tampered: %v", err)
	}
	// ... re-sealed, fails validate as inconsistent (its computed values
	// no longer follow from its figures) ...
	var r leaderboard.Result
	if err := json.Unmarshal([]byte(tampered), &r); err != nil {
		t.Fatal(err)
	}
	if err := r.Seal(); err != nil {
		t.Fatal(err)
	}
	raw, _ := r.Encode()
	os.WriteFile(path, raw, 0o644)
	if _, err := e.cmd("validate", "--runs", e.runs); err == nil || !strings.Contains(err.Error(), "invalid: chat/h100.json: computed.output_tokens_per_served_request.value: recorded") {
		t.Errorf("re-sealed with stale computed values: %v", err)
	}
	// ... and with its computed values made to follow, fails verify,
	// naming the field with its old and new value.
	leaderboardtest.Reseal(t, path, &r, func(*leaderboard.Result) {})
	out, err = e.cmd(append([]string{"verify", "--only", "chat/h100"}, e.simArgs()...)...)
	if err == nil || cli.ExitCode(err) != 1 || !strings.Contains(out, "DIFF: "+path+": blis.completed_requests: 41 → 40") {
		t.Errorf("verify of a re-sealed tampered result: %v\n%s", err, out)
	}
	os.WriteFile(path, orig, 0o644)
	// Misfiled.
	os.Rename(path, filepath.Join(e.results, "sweep", "h100.json"))
	if _, err := e.cmd("validate", "--runs", e.runs); err == nil || !strings.Contains(err.Error(), "misfiled: sweep/h100.json: holds the result of chat/h100") {
		t.Errorf("misfiled: %v", err)
	}
	os.Rename(filepath.Join(e.results, "sweep", "h100.json"), path)
	// A group mixing offered loads: the declaration now offers 5 req/s to
	// one candidate only; decoding refuses it.
	mixed := strings.Replace(standinRuns, "{id: h100, model: org/test-model-7b, hardware: H100, tp: 1}", "{id: h100, model: org/test-model-7b, hardware: H100, tp: 1, load: {arrival: poisson, rate: 5}}", 1)
	os.WriteFile(e.runs, []byte(mixed), 0o644)
	if _, err := e.cmd("validate", "--runs", e.runs); err == nil || !strings.Contains(err.Error(), "groups[0].candidates[0].load: offers 5 req/s, the group 4 req/s") {
		t.Errorf("mixed loads: %v", err)
	}
}

// Results whose runs left runs.yaml are listed by run and removed by
// run --prune (render and validate refuse them as undeclared).
func TestLeaderboardRunPrune(t *testing.T) {
	e := newLBEnv(t)
	runArgs := func(extra ...string) []string {
		return append([]string{"run", "--sim", "v0.2.0", "--harness-dir", e.harnessDir, "--only", "chat/h100", "--reuse", e.results}, e.simArgs(extra...)...)
	}
	if out, err := e.cmd(append(runArgs(), "--only", "chat/h100,sweep")...); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	os.WriteFile(e.runs, []byte(strings.Split(standinRuns, "  - id: sweep")[0]), 0o644)
	out, err := e.cmd(runArgs()...)
	want := "2 results in " + e.results + " that no run of the declaration asks for (removed or renamed; --prune removes them):\n  sweep/h100--rate-2.json\n  sweep/h100--rate-8.json\n"
	if err != nil || !strings.Contains(out, want) {
		t.Fatalf("run listing undeclared results: %v\n%s\nwant %q", err, out, want)
	}
	if _, err := os.Stat(filepath.Join(e.results, "sweep", "h100--rate-2.json")); err != nil {
		t.Errorf("listed results were removed without --prune: %v", err)
	}
	out, err = e.cmd(runArgs("--prune")...)
	if err != nil || !strings.Contains(out, "pruned 2 results that no run of the declaration asks for:\n  sweep/h100--rate-2.json\n  sweep/h100--rate-8.json\n") {
		t.Fatalf("run --prune: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(e.results, "sweep")); err == nil {
		t.Error("run --prune left sweep/")
	}
	if _, err := os.Stat(filepath.Join(e.results, "chat", "h100.json")); err != nil {
		t.Errorf("run --prune removed a declared result: %v", err)
	}
}
