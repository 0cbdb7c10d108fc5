package lbserve

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// Prepare reads runs.yaml and builds the pinned simulator; Serve listens,
// answers, and on its context's end logs the shutdown with its cause, stops
// and returns nil. A pin file without a leaderboard pair and a missing
// runs.yaml are refused before anything is built.
func TestPrepareServeShutsDown(t *testing.T) {
	t.Parallel()
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs.yaml")
	if err := os.WriteFile(runs, []byte(testRuns), 0o644); err != nil {
		t.Fatal(err)
	}
	pinFile := filepath.Join(dir, "pin.yaml")
	os.WriteFile(pinFile, []byte("harness:\n  repository: inference-sim/accuracy-dashboard\n  tag: v1.0.0\n  commit: "+strings.Repeat("0", 40)+
		"\nleaderboard:\n  simulator:\n    repository: inference-sim/inference-sim\n    commit: "+repo.V020+"\n  catalog:\n    source: none\n"), 0o644)
	var log testkit.SyncBuffer
	o := Options{Runs: runs, Results: filepath.Join(dir, "results"), PinFile: pinFile, HarnessDir: hdir, Addr: "127.0.0.1:0", Token: token, Workers: 1, Queue: 1,
		Builds: lbrun.Builds{Repo: repo.Dir, CacheDir: t.TempDir(), Timeout: time.Minute, Log: slog.New(slog.NewTextHandler(&log, nil))}}

	noPair := filepath.Join(dir, "no-pair.yaml")
	os.WriteFile(noPair, []byte("harness:\n  repository: inference-sim/accuracy-dashboard\n  tag: v1.0.0\n  commit: "+strings.Repeat("0", 40)+"\n"), 0o644)
	bad := o
	bad.PinFile = noPair
	if _, err := Prepare(context.Background(), bad); err == nil || !strings.Contains(err.Error(), "pins no leaderboard pair") {
		t.Errorf("a pin file without a pair: %v", err)
	}
	bad = o
	bad.Runs = filepath.Join(dir, "no-runs.yaml")
	var de *lbrun.DeclarationError
	if _, err := Prepare(context.Background(), bad); !errors.As(err, &de) || !strings.HasPrefix(err.Error(), "--runs: ") {
		t.Errorf("a missing runs.yaml: %v, want a DeclarationError naming --runs", err)
	}

	// Results of another build (the example's, produced at f90a1e3a) are
	// refused: a table ranks one build's results only.
	example := filepath.Join("..", "..", "..", "docs", "examples", "leaderboard", "results", "qwen3-14b-chat-8rps", "h100-tp1.json")
	foreign := filepath.Join(o.Results, "qwen3-14b-chat-8rps", "h100-tp1.json")
	raw, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, foreign, string(raw))
	if _, err := Prepare(context.Background(), o); !errors.Is(err, ErrOtherBuild) || !strings.Contains(err.Error(),
		"f90a1e3a6787da17c2cd463dab6fb2660b1b1760, catalog none: qwen3-14b-chat-8rps/h100-tp1.json; this server runs "+repo.V020+" (v0.2.0), catalog none.") {
		t.Errorf("results of another build: %v", err)
	}
	if err := os.RemoveAll(filepath.Dir(foreign)); err != nil {
		t.Fatal(err)
	}

	p, err := Prepare(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Version.Simulator.Commit != repo.V020 || p.Version.Simulator.Repository != repo.Dir || p.Version.Harness.Commit == "" {
		t.Errorf("version %+v: want the pin's simulator commit %s from %s and this tool's commit", p.Version, repo.V020, repo.Dir)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	addr := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, func(a net.Addr) { addr <- a }) }()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a.String()
	case err := <-done:
		t.Fatalf("Serve ended before listening: %v", err)
	}
	resp, err := http.Get(base + "/api/version")
	if err != nil {
		t.Fatal(err)
	}
	var v Version
	json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || v.Simulator.Commit != repo.V020 {
		t.Errorf("GET /api/version: %d %+v", resp.StatusCode, v)
	}
	if strings.Contains(log.String(), "shutting down") {
		t.Fatalf("logged a shutdown before one:\n%s", log.String())
	}
	cancel(errors.New("terminated signal received"))
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after its context ended: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Serve did not stop")
	}
	logged := log.String()
	stopping := strings.Index(logged, `level=INFO msg="shutting down: no new requests or jobs; the jobs under way are stopped" cause="terminated signal received" addr=`+strings.TrimPrefix(base, "http://"))
	stopped := strings.Index(logged, `level=INFO msg="shut down"`)
	if stopping < 0 || stopped < stopping {
		t.Errorf("the shutdown is not logged with its cause, then its end:\n%s", logged)
	}
	if _, err := http.Get(base + "/api/version"); err == nil {
		t.Error("the server still answers after Serve returned")
	}
}

// A listener that fails ends serve with its error, and the jobs stop with
// it: serve does not return while Run still takes jobs (the caller then
// closes the build they run on).
func TestServeListenerFailureStopsTheJobs(t *testing.T) {
	t.Parallel()
	s, err := New(Config{Token: strings.Repeat("t", MinTokenLength), Workers: 1, Queue: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.serve(context.Background(), failingListener{}); err == nil || !strings.Contains(err.Error(), "accept failed") {
		t.Fatalf("serve on a failing listener: %v, want its error", err)
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if !closed {
		t.Error("serve returned while its jobs still run")
	}
}

// failingListener fails every Accept.
type failingListener struct{}

func (failingListener) Accept() (net.Conn, error) { return nil, errors.New("accept failed") }
func (failingListener) Close() error              { return nil }
func (failingListener) Addr() net.Addr            { return &net.TCPAddr{} }
