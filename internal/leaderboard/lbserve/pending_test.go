package lbserve

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
)

// On a fresh volume the page lists runs.yaml's runs as pending, not
// failed, each with its queued job; with RunPending the server runs them
// when it starts, one job per candidate, and files their results.
func TestServeRunsPendingOnStart(t *testing.T) {
	ts := newTestServerWith(t, 1, 4, func(c *Config) { c.RunPending = true })
	_, page, _ := ts.do("GET", "/", "", "")
	body := page["body"].(string)
	if strings.Contains(body, "Failed</strong>") || !strings.Contains(body, `<strong>Pending</strong> (no result yet):`) ||
		!strings.Contains(body, `<td class="wrap" data-v="not run yet">not run yet</td>`) {
		t.Fatalf("the page of a fresh volume before start does not list the runs as pending, not run yet:\n%s", body)
	}
	ts.srv.queuePending() // what Run does first, observed before a worker takes a job
	_, page, _ = ts.do("GET", "/", "", "")
	if n := strings.Count(page["body"].(string), `data-v="queued (job `); n != 3 {
		t.Errorf("the page lists %d pending runs as queued; want 3 (chat/h100, sweep/h100 at two rates)", n)
	}
	ts.srv.mu.Lock()
	jobs := len(ts.srv.backlog)
	ts.srv.backlog = nil // start queues them again
	for k := range ts.srv.pending {
		delete(ts.srv.pending, k)
	}
	ts.srv.mu.Unlock()
	if jobs != 2 {
		t.Errorf("%d jobs queued at start; want 2 (one per candidate)", jobs)
	}
	ts.start()
	for _, f := range []string{"chat/h100.json", "sweep/h100--rate-2.json", "sweep/h100--rate-4.json"} {
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(ts.results, filepath.FromSlash(f))); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s was not filed", f)
			}
		}
		if res := leaderboardtest.ReadResult(t, ts.results, f); res.Status != leaderboard.StatusOK {
			t.Errorf("%s: %+v", f, res)
		}
	}
	// Once every run has a result, nothing is pending on the page.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		_, page, _ = ts.do("GET", "/", "", "")
		if !strings.Contains(page["body"].(string), "Pending</strong>") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the page still lists pending runs")
		}
	}
	if status, _, _ := ts.declare("chat", `{"id": "h100", "model": "org/test-model-7b", "hardware": "H100", "tp": 1}`); status != http.StatusConflict {
		t.Errorf("declaring a runs.yaml candidate: %d, want 409", status)
	}
}
