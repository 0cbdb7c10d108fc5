package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

const serveToken = "serve-test-token-0123456789"

// `leaderboard serve` end to end: it refuses to start without a token; a
// candidate declared through its API runs on the stand-in, is filed and
// declared beside the results, and `validate` covers it; cancelling its
// context (what SIGTERM does through main's signal.NotifyContext) stops it
// cleanly.
func TestLeaderboardServe(t *testing.T) {
	e := newLBEnv(t)
	os.WriteFile(e.runs, []byte(strings.Split(standinRuns, "      - {id: a100-tp2")[0]), 0o644)
	if out, err := e.cmd(append([]string{"run", "--sim", "v0.2.0", "--harness-dir", e.harnessDir}, e.simArgs()...)...); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	serveArgs := append([]string{"leaderboard", "serve", "--addr", "127.0.0.1:0", "--sim", "v0.2.0", "--harness-dir", e.harnessDir}, e.simArgs()...)
	if err := run(context.Background(), serveArgs, fakeEnv(map[string]string{"HOME": t.TempDir()}), io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "set LEADERBOARD_TOKEN") {
		t.Errorf("serve without a token: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out testkit.SyncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, serveArgs, fakeEnv(map[string]string{"HOME": t.TempDir(), "LEADERBOARD_TOKEN": serveToken}), &out, io.Discard)
	}()
	addrRe := regexp.MustCompile(`on http://([0-9.:]+)/`)
	var base string
	for deadline := time.Now().Add(2 * time.Minute); base == ""; time.Sleep(50 * time.Millisecond) {
		if m := addrRe.FindStringSubmatch(out.String()); m != nil {
			base = "http://" + m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("serve ended: %v\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", out.String())
		}
	}
	req, _ := http.NewRequest("POST", base+"/api/run", strings.NewReader(`{"group": "chat", "candidate": {"id": "a100", "model": "org/test-model-7b", "hardware": "A100-80", "tp": 1}}`))
	req.Header.Set("Authorization", "Bearer "+serveToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var accepted struct{ Job string }
	json.NewDecoder(resp.Body).Decode(&accepted)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /api/run: %d", resp.StatusCode)
	}
	var job struct{ Status, Result, Reason string }
	for deadline := time.Now().Add(2 * time.Minute); job.Status != "done" && job.Status != "failed"; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(base + "/api/jobs/" + accepted.Job)
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(resp.Body).Decode(&job)
		resp.Body.Close()
		if time.Now().After(deadline) {
			t.Fatalf("job %s: %+v", accepted.Job, job)
		}
	}
	if job.Status != "done" || job.Result != "chat/a100.json" {
		t.Fatalf("job: %+v", job)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve after cancel: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("serve did not stop")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.results), "declarations.yaml")); err != nil {
		t.Errorf("no declarations file beside the results: %v", err)
	}
	// validate reads runs.yaml with the declarations file merged in: the
	// declared run is neither missing nor undeclared.
	if o, err := e.cmd("validate", "--runs", e.runs); err != nil || !strings.Contains(o, "ok: 2 results in 1 groups") {
		t.Errorf("validate with the declared run: %v\n%s", err, o)
	}
}

// The leaderboard image's entry script (deploy/leaderboard-entry.sh), run
// outside a container with the image's layout in a temporary directory:
// it refuses to start without a token, --prepare-only builds the pinned
// simulator and prints the versions, and the server it starts answers and
// stops cleanly on SIGTERM, with the results directory on the data volume.
func TestLeaderboardImageEntryScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/action")
	}
	e := newLBEnv(t)
	app := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(app, "action"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	repo := filepath.Join(app, "repo")
	os.MkdirAll(filepath.Join(repo, "leaderboard"), 0o755)
	os.MkdirAll(filepath.Join(repo, ".github"), 0o755)
	os.MkdirAll(filepath.Join(app, "harness"), 0o755)
	os.WriteFile(filepath.Join(repo, "leaderboard", "runs.yaml"), []byte(strings.Split(standinRuns, "      - {id: a100-tp2")[0]), 0o644)
	os.WriteFile(filepath.Join(repo, ".github", "accuracy-harness.yaml"), []byte("harness:\n  repository: inference-sim/accuracy-dashboard\n  tag: v1.0.0\n  commit: "+strings.Repeat("0", 40)+
		"\nleaderboard:\n  simulator:\n    repository: inference-sim/inference-sim\n    commit: "+e.repo.V020+"\n  catalog:\n    source: none\n"), 0o644)
	os.WriteFile(filepath.Join(app, "harness", "HARNESS_COMMIT"), []byte(strings.Repeat("a", 40)+"\n"), 0o644)
	data := filepath.Join(t.TempDir(), "data")
	script, _ := filepath.Abs("../../deploy/leaderboard-entry.sh")
	entry := func(env []string, args ...string) *exec.Cmd {
		cmd := exec.Command(script, args...)
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LEADERBOARD_APP=" + app, "LEADERBOARD_DATA=" + data,
			"LEADERBOARD_SIM_REPO=" + e.repo.Dir, "LEADERBOARD_CACHE=" + e.cache}, env...)
		return cmd
	}
	out, err := entry([]string{"LEADERBOARD_TOKEN=short"}).CombinedOutput()
	if code := exitCodeOf(err); code != 2 || !strings.Contains(string(out), "set LEADERBOARD_TOKEN to a secret of at least 16 bytes") {
		t.Errorf("without a token: exit %d\n%s", code, out)
	}
	out, err = entry(nil, "--prepare-only", "--quiet").Output()
	var v struct{ Simulator struct{ Commit string } }
	if err != nil || json.Unmarshal(out, &v) != nil || v.Simulator.Commit != e.repo.V020 {
		t.Fatalf("--prepare-only: %v\n%s", err, out)
	}

	cmd := entry([]string{"LEADERBOARD_TOKEN=" + serveToken, "LEADERBOARD_ADDR=127.0.0.1:0"}, "--quiet")
	var stdout testkit.SyncBuffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	addrRe := regexp.MustCompile(`on http://([0-9.:]+)/`)
	var base string
	for deadline := time.Now().Add(time.Minute); base == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m := addrRe.FindStringSubmatch(stdout.String()); m != nil {
			base = "http://" + m[1]
		}
	}
	if base == "" {
		cmd.Process.Kill()
		t.Fatalf("the server did not start: %s", stdout.String())
	}
	resp, err := http.Get(base + "/api/version")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("GET /api/version: %v", err)
	} else {
		resp.Body.Close()
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after SIGTERM: %v", err)
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("the server did not stop on SIGTERM")
	}
	if st, err := os.Stat(filepath.Join(data, "results")); err != nil || !st.IsDir() {
		t.Errorf("no results directory on the data volume: %v", err)
	}
}

func exitCodeOf(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
