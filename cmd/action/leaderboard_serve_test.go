package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe to write from the command's
// goroutine and read from the test's.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

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
	var out lockedBuffer
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
