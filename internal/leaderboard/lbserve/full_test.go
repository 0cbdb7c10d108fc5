package lbserve

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
)

// Issue 31, point 5: the declarations file was written whatever its size,
// so one over its 1 MiB cap (leaderboard.MaxDeclarationBytes) could not be
// read back: every declaration after answered 500, and the server could
// not start. A candidate that would take it over the cap is refused with
// 507 naming the cap, and the file stays as it was, readable.
func TestDeclareIntoAFullDeclarationsFile(t *testing.T) {
	t.Parallel()
	// runs.yaml of 64 groups (the most a declaration has), one candidate each.
	var src strings.Builder
	src.WriteString("version: 1\ngroups:\n")
	for g := range 64 {
		fmt.Fprintf(&src, `  - id: g%02d
    workload: {requests: 10, seed: 1, prompt_tokens: {mean: 64, stdev: 0, min: 64, max: 64}, output_tokens: {mean: 16, stdev: 0, min: 16, max: 16}}
    load: {arrival: poisson, rate: 4}
    candidates:
      - {id: base, model: org/test-model-7b, hardware: H100, tp: 1}
`, g)
	}
	base, err := leaderboard.Decode([]byte(src.String()), "runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := New(Config{Declaration: base, Base: base, Results: filepath.Join(dir, "results"), Declarations: filepath.Join(dir, leaderboard.DeclarationsFile),
		Token: token, Workers: 1, Queue: 4})
	if err != nil {
		t.Fatal(err)
	}
	// Declared candidates, as long as the format allows, filling the file to
	// just under its cap (the most candidates writeDeclarations takes).
	decl := func(k int) *leaderboard.Declaration {
		d := &leaderboard.Declaration{Version: leaderboard.FormatVersion}
		for gi, g := range base.Groups {
			grp := leaderboard.Group{ID: g.ID, Workload: leaderboard.OfferedAsWritten(g.Workload), Load: g.Load}
			for c := range 63 {
				if gi*63+c >= k {
					break
				}
				seqs, tokens, block, f := 65536, 16777216, 4096, 0.95
				grp.Candidates = append(grp.Candidates, leaderboard.Candidate{ID: fmt.Sprintf("c%02d-", c) + strings.Repeat("x", 60),
					Model: "org/" + strings.Repeat("m", 196), Hardware: strings.Repeat("H", 64), TP: 128, DP: 128, Replicas: 1024,
					Engine: &leaderboard.Engine{MaxNumSeqs: &seqs, MaxNumBatchedTokens: &tokens, GPUMemoryUtilization: &f, BlockSize: &block, MaxModelLen: &tokens}})
			}
			if len(grp.Candidates) > 0 {
				d.Groups = append(d.Groups, grp)
			}
		}
		return d
	}
	lo, hi := 0, 64*63 // writeDeclarations takes lo candidates, not hi
	if err := s.writeDeclarations(decl(hi)); err == nil {
		t.Fatalf("%d candidates fit the declarations file's cap: the test cannot fill it", hi)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if err := s.writeDeclarations(decl(mid)); err == nil {
			lo = mid
		} else {
			hi = mid
		}
	}
	if err := s.writeDeclarations(decl(lo)); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(s.cfg.Declarations)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) <= leaderboard.MaxDeclarationBytes-2048 || len(before) > leaderboard.MaxDeclarationBytes {
		t.Fatalf("the filled declarations file is %d bytes, want just under %d", len(before), leaderboard.MaxDeclarationBytes)
	}

	body := `{"group": "g63", "candidate": {"id": "one-more", "model": "org/test-model-7b", "hardware": "H100", "tp": 1}}`
	req := httptest.NewRequest(http.MethodPost, "/api/run", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusInsufficientStorage || !strings.Contains(rec.Body.String(), "the declarations file is full") ||
		!strings.Contains(rec.Body.String(), fmt.Sprintf("over its cap of %d", leaderboard.MaxDeclarationBytes)) {
		t.Errorf("a declaration into the full file: %d %s, want 507 naming the cap", rec.Code, rec.Body)
	}
	after, err := os.ReadFile(s.cfg.Declarations)
	if err != nil || string(after) != string(before) {
		t.Errorf("the refused declaration changed the declarations file (%v)", err)
	}
	if _, err := s.readDeclarations(); err != nil {
		t.Errorf("the declarations file no longer reads: %v", err)
	}
	if len(s.jobs) != 0 || len(s.queue) != 0 {
		t.Errorf("the refused declaration left %d jobs, %d queued", len(s.jobs), len(s.queue))
	}
}

// A body that gives a key twice is refused, naming it (the last one won).
func TestDeclareRefusesDuplicateKeys(t *testing.T) {
	t.Parallel()
	s := exampleServer(t)
	for body, want := range map[string]string{
		`{"group": "qwen3-14b-chat-8rps", "group": "llama-3.1-8b-sweep", "candidate": {"id": "x", "model": "qwen/qwen3-14b", "hardware": "H100", "tp": 1}}`: "group: the key is given twice",
		`{"group": "qwen3-14b-chat-8rps", "candidate": {"id": "x", "model": "qwen/qwen3-14b", "hardware": "H100", "tp": 1, "tp": 2}}`:                       "candidate.tp: the key is given twice",
	} {
		req := httptest.NewRequest(http.MethodPost, "/api/run", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("%s: %d %s, want 400 saying %q", body, rec.Code, rec.Body, want)
		}
	}
}
