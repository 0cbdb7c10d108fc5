package lbserve

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
)

// A model or GPU the build and catalog do not run is refused when it is
// declared (400), naming the field and the nearest valid names; nothing is
// filed or run.
func TestServeRefusesUnknownNames(t *testing.T) {
	ts := newTestServer(t, 1, 4)
	for _, tt := range []struct{ name, candidate, want string }{
		{"GPU typo", `{"id": "x", "model": "org/test-model-7b", "hardware": "H300", "tp": 1}`,
			"candidate.hardware: H300 is not a GPU of the simulator build v0.2.0 (" + ident.Short(ts.commit) + ") (names are case-sensitive); nearest: H100"},
		{"GPU in lower case", `{"id": "x", "model": "org/test-model-7b", "hardware": "h100", "tp": 1}`, "candidate.hardware: h100 is not a GPU of the simulator build v0.2.0 (" + ident.Short(ts.commit) + ") (names are case-sensitive); nearest: H100"},
		{"model typo", `{"id": "x", "model": "org/test-model-8b", "hardware": "H100", "tp": 1}`,
			"candidate.model: org/test-model-8b has no model config (test-model-8b) in the simulator build v0.2.0 (" + ident.Short(ts.commit) + ") or its catalog; nearest: org/test-model-7b, org/flat-model-7b"},
		{"far from everything", `{"id": "x", "model": "qwen/qwen3-15b", "hardware": "TPUv5", "tp": 1}`, "candidate.model: qwen/qwen3-15b has no model config (qwen3-15b) in the simulator build v0.2.0 (" + ident.Short(ts.commit) + ") or its catalog; nothing is near it; candidate.hardware: TPUv5 is not a GPU of"},
	} {
		status, body, _ := ts.declare("chat", tt.candidate)
		if msg, _ := body["error"].(string); status != http.StatusBadRequest || !strings.Contains(msg, tt.want) {
			t.Errorf("%s: %d %q; want 400 %q", tt.name, status, msg, tt.want)
		}
	}
	if _, err := os.Stat(ts.declarations); err == nil {
		t.Error("a refused candidate was filed")
	}
}

// A candidate declared through the API whose run failed is declared again
// under the same id (it replaces the failed one and runs), or removed with
// DELETE /api/run/{group}/{id}; one with figures, one of runs.yaml and one
// that does not exist are not.
func TestServeRetryAndRemoveFailed(t *testing.T) {
	ts := newTestServer(t, 1, 4)
	crash := `{"id": "retry", "model": "org/fault-crash", "hardware": "H100", "tp": 1}`
	status, body, _ := ts.declare("chat", crash)
	if status != http.StatusAccepted {
		t.Fatalf("declaring: %d %v", status, body)
	}
	if j := ts.wait(body["job"].(string)); j["status"] != JobFailed {
		t.Fatalf("the crashing candidate's job: %v", j)
	}
	if res := leaderboardtest.ReadResult(t, ts.results, "chat/retry.json"); res.Status != leaderboard.StatusFailed {
		t.Fatalf("the crashing candidate's result: %+v", res)
	}
	// Declared again, fixed: it replaces the failed one and runs.
	ts.runDone("chat", `{"id": "retry", "model": "org/test-model-7b", "hardware": "H100", "tp": 1}`)
	if res := leaderboardtest.ReadResult(t, ts.results, "chat/retry.json"); res.Status != leaderboard.StatusOK || res.Declaration.Candidate.Model != "org/test-model-7b" {
		t.Fatalf("the result of the candidate declared again: %+v", res)
	}
	src, err := os.ReadFile(ts.declarations)
	if err != nil || strings.Count(string(src), "id: retry") != 1 || strings.Contains(string(src), "fault-crash") {
		t.Fatalf("declarations file: %v\n%s", err, src)
	}
	if _, page, _ := ts.do("GET", "/", "", ""); !strings.Contains(page["body"].(string), `<tr data-run="retry">`) || strings.Contains(page["body"].(string), "fault-crash") {
		t.Errorf("the page does not show the candidate declared again in place of the failed one")
	}

	// Now it has figures: neither declared again nor removed.
	if status, body, _ := ts.declare("chat", crash); status != http.StatusConflict || !strings.Contains(body["error"].(string), "with figures for every run") {
		t.Errorf("declaring a candidate with figures again: %d %v", status, body)
	}
	for _, tt := range []struct {
		name, path, auth string
		status           int
		want             string
	}{
		{"no token", "/api/run/chat/retry", "", http.StatusUnauthorized, "needs Authorization: Bearer"},
		{"with figures", "/api/run/chat/retry", "Bearer " + token, http.StatusConflict, "with figures for every run"},
		{"of runs.yaml", "/api/run/chat/h100", "Bearer " + token, http.StatusConflict, "in runs.yaml: change it by pull request"},
		{"unknown", "/api/run/chat/nope", "Bearer " + token, http.StatusNotFound, `group "chat" has no candidate "nope"`},
	} {
		status, body, _ := ts.do("DELETE", tt.path, tt.auth, "")
		if msg, _ := body["error"].(string); status != tt.status || !strings.Contains(msg, tt.want) {
			t.Errorf("DELETE %s: %d %q; want %d %q", tt.name, status, msg, tt.status, tt.want)
		}
	}

	// A failed candidate of a sweep is removed: its results and its
	// declaration go, and the declarations file still merges.
	status, body, _ = ts.declare("sweep", `{"id": "gone", "model": "org/fault-crash", "hardware": "A100-80", "tp": 1}`)
	if status != http.StatusAccepted {
		t.Fatalf("declaring: %d %v", status, body)
	}
	if j := ts.wait(body["job"].(string)); j["status"] != JobFailed {
		t.Fatalf("job: %v", j)
	}
	status, body, _ = ts.do("DELETE", "/api/run/sweep/gone", "Bearer "+token, "")
	if status != http.StatusOK || body["removed"] != "sweep/gone" || len(body["results"].([]any)) != 2 {
		t.Fatalf("DELETE a failed sweep candidate: %d %v", status, body)
	}
	for _, f := range []string{"gone--rate-2.json", "gone--rate-4.json"} {
		if _, err := os.Stat(filepath.Join(ts.results, "sweep", f)); err == nil {
			t.Errorf("%s is still filed", f)
		}
	}
	src, err = os.ReadFile(ts.declarations)
	if err != nil || strings.Contains(string(src), "gone") || !strings.Contains(string(src), "id: retry") {
		t.Fatalf("declarations file after the removal: %v\n%s", err, src)
	}
	extra, err := leaderboard.Decode(src, ts.declarations)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaderboard.Merge(ts.base, extra); err != nil {
		t.Errorf("the declarations file does not merge after the removal: %v", err)
	}
	if status, _, _ := ts.do("DELETE", "/api/run/sweep/gone", "Bearer "+token, ""); status != http.StatusNotFound {
		t.Errorf("DELETE the removed candidate again: %d", status)
	}
	// Its id is free again.
	if status, body, _ := ts.declare("sweep", `{"id": "gone", "model": "org/test-model-7b", "hardware": "A100-80", "tp": 1}`); status != http.StatusAccepted {
		t.Errorf("declaring the removed id: %d %v", status, body)
	}
}
