package lbserve

// Issue 31, point 6: `leaderboard serve` killed with SIGKILL in the
// middle of a run (a candidate declared through the API running on the
// stand-in simulator, another queued behind it) and started again on the
// same results directory: nothing half-written, and every declared run
// filed, finished or failed with its reason.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

func init() { children["declared"] = declaredChild }

// Environment of the "declared" child: the stand-in simulator's
// repository and ref, the build cache, the results directory and the
// simulator's timeout.
const (
	envRepo    = "LBSERVE_TEST_REPO"
	envRef     = "LBSERVE_TEST_REF"
	envCache   = "LBSERVE_TEST_CACHE"
	envResults = "LBSERVE_TEST_RESULTS"
	envTimeout = "LBSERVE_TEST_TIMEOUT"
)

// declaredChild serves testRuns, as `leaderboard serve` does (the
// candidates declared before merged in, the declared runs without a
// result run on start, one worker), on the stand-in simulator the
// environment names, printing the address it listens on, until its
// standard input closes.
func declaredChild() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, err); return 2 }
	timeout, err := time.ParseDuration(os.Getenv(envTimeout))
	if err != nil {
		return fail(err)
	}
	results := os.Getenv(envResults)
	if err := os.MkdirAll(results, 0o755); err != nil { // as Start does
		return fail(err)
	}
	sim, err := lbrun.Prepare(context.Background(), &harness.Builder{CacheDir: os.Getenv(envCache)}, os.Getenv(envRepo), os.Getenv(envRef),
		lbrun.Setup{Harness: runresult.Harness{Commit: strings.Repeat("a", 40), Source: "checkout"}, Timeout: timeout, ResultsDir: results})
	if err != nil {
		return fail(err)
	}
	defer sim.Close()
	base, err := leaderboard.Decode([]byte(testRuns), "runs.yaml")
	if err != nil {
		return fail(err)
	}
	d, err := lbrun.MergeDeclared(base, results)
	if err != nil {
		return fail(err)
	}
	names, err := sim.Names()
	if err != nil {
		return fail(err)
	}
	s, err := New(Config{Declaration: d, Base: base, Results: results, Declarations: lbrun.DeclarationsFile(results), Sim: sim,
		Token: token, Workers: 1, Queue: 4, Names: &names, RunPending: true, Log: slog.New(slog.NewJSONHandler(os.Stderr, nil)),
		Version: Version{Simulator: SimulatorVersion{Repository: "stand-in", Tag: sim.Build.Tag, Commit: sim.Build.Commit}}})
	if err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	fmt.Println(ln.Addr().String())
	ctx, cancel := context.WithCancel(context.Background())
	go func() { io.Copy(io.Discard, os.Stdin); cancel() }()
	if err := s.serve(ctx, ln); err != nil {
		return fail(err)
	}
	return 0
}

// api sends a request to the server at addr and returns the status and
// the decoded JSON answer.
func api(t *testing.T, addr, method, path, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// simulators are the processes running an executable under dir (a
// zombie has no command line and is not one).
func simulators(dir string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		cmd, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(cmd, []byte(dir+"/")) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		pids = append(pids, pid)
	}
	return pids
}

// killOrphans kills the processes whose executable is under dir: a
// simulator a test left running.
func killOrphans(dir string) {
	for _, pid := range simulators(dir) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// TestKilledMidRunFilesEveryDeclaredRunOnRestart: a candidate whose
// simulator hangs (the stand-in's org/fault-hang) is declared and running,
// a second candidate is declared and queued behind it, when the server is
// killed with SIGKILL. Its simulator dies with it. Left behind:
// declarations.yaml whole, naming both;
// no result of either and no temporary file. Started again on the same
// results directory (the simulator's timeout 20 s), the server runs every
// declared run without a result: the queued candidate is filed with its
// figures, the hanging one filed as failed with the timeout's reason, and
// validate finds no run without a result.
func TestKilledMidRunFilesEveryDeclaredRunOnRestart(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	cache, results := t.TempDir(), filepath.Join(t.TempDir(), "results")
	env := []string{envRepo + "=" + repo.Dir, envRef + "=" + repo.V020, envCache + "=" + cache, envResults + "=" + results}
	c := runChild(t, "declared", append(env, envTimeout+"=10m")...)
	addr := c.line(t)
	status, hang := api(t, addr, "POST", "/api/run", `{"group": "chat", "candidate": {"id": "hang", "model": "org/fault-hang", "hardware": "H100", "tp": 1}}`)
	if status != http.StatusAccepted {
		t.Fatalf("declare hang: %d %v", status, hang)
	}
	status, queued := api(t, addr, "POST", "/api/run", `{"group": "chat", "candidate": {"id": "a100", "model": "org/test-model-7b", "hardware": "A100-80", "tp": 2}}`)
	if status != http.StatusAccepted {
		t.Fatalf("declare a100: %d %v", status, queued)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if _, j := api(t, addr, "GET", "/api/jobs/"+hang["job"].(string), ""); j["status"] == JobRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the hanging candidate never ran")
		}
	}
	time.Sleep(500 * time.Millisecond) // its simulator is under way
	c.cmd.Process.Kill()
	c.cmd.Wait()
	// The killed server's simulator dies with it (it runs in a process
	// group of its own, which the server can no longer kill).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		left := simulators(cache)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("simulators %v still running 10 s after their server was killed", left)
			killOrphans(cache)
			break
		}
	}

	d, err := lbrun.MergeDeclared(mustDecode(t), results)
	if err != nil {
		t.Fatalf("declarations.yaml after the kill: %v", err)
	}
	declared := map[string]bool{}
	for _, r := range d.Runs() {
		declared[r.Group+"/"+r.ID] = true
	}
	if !declared["chat/hang"] || !declared["chat/a100"] {
		t.Fatalf("declared runs after the kill: %v, want chat/hang and chat/a100", declared)
	}
	for _, p := range testkit.Paths(t, results) {
		if strings.Contains(p, ".tmp-") || p == "chat/hang.json" || p == "chat/a100.json" {
			t.Errorf("%s in the results after the kill: want no temporary file and no result of the interrupted runs", p)
		}
	}

	c = runChild(t, "declared", append(env, envTimeout+"=20s")...)
	addr = c.line(t)
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		_, probs, err := lbrun.Check(d, results, "")
		if err != nil {
			t.Fatal(err)
		}
		missing := 0
		for _, p := range probs {
			if p.Kind == leaderboard.ProblemMissing {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d declared runs still without a result 3 minutes after the restart: %v", missing, probs)
		}
	}
	if ok := leaderboardtest.ReadResult(t, results, "chat/a100.json"); ok.Failure != nil {
		t.Errorf("chat/a100 after the restart failed: %+v; want its figures", ok.Failure)
	}
	if failed := leaderboardtest.ReadResult(t, results, "chat/hang.json"); failed.Failure == nil ||
		!strings.Contains(failed.Failure.Reason+" "+failed.Failure.Message, "timeout") {
		t.Errorf("chat/hang after the restart: failure %+v; want failed for its timeout", failed.Failure)
	}
	killOrphans(cache)
}

func mustDecode(t *testing.T) *leaderboard.Declaration {
	t.Helper()
	d, err := leaderboard.Decode([]byte(testRuns), "runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return d
}
