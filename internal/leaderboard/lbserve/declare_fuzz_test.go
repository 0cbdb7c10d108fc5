package lbserve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
)

// FuzzDeclare sends any body to POST /api/run (the server's untrusted
// input besides the token). It is refused with 400, 409 or 413 and an error
// naming the body, the group or the candidate, or accepted (202, queued,
// never run here) with the candidate filed in a declarations file that
// decodes and merges into runs.yaml; never a 500 or a panic.
func FuzzDeclare(f *testing.F) {
	good := `{"id": "a100-tp2", "model": "org/test-model-7b", "hardware": "A100-80", "tp": 2, "engine": {"max_num_seqs": 64}}`
	for _, body := range []string{
		`{"group": "chat", "candidate": ` + good + `}`,
		`{"group": "sweep", "candidate": ` + good + `}`,
		`{"group": "chat", "candidate": {"id": "h100", "model": "org/test-model-7b", "hardware": "H100", "tp": 1}}`,
		`{"group": "chat", "candidate": {"id": "x", "model": "m", "hardware": "H100", "tp": 1, "load": {"rate": 8}}}`,
		`{"group": "chat", "candidate": {"id": "x", "model": "m", "hardware": "H100", "tp": 1, "workload": {"requests": 1}}}`,
		`{"group": "chat", "candidate": {"id": "x", "model": "qwen/test-model-8b", "hardware": "h100", "tp": 1}}`,
		`{"group": "chat", "candidate": null}`,
		`{"group": "chat", "candidate": []} {}`,
		`{"group": `,
	} {
		f.Add([]byte(body))
	}
	base, err := leaderboard.Decode([]byte(testRuns), "runs.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		decls := filepath.Join(t.TempDir(), leaderboard.DeclarationsFile)
		s, err := New(Config{Declaration: base, Base: base, Results: filepath.Join(t.TempDir(), "results"), Declarations: decls,
			Token: token, Workers: 1, Queue: 1, Names: &lbrun.Names{Models: []string{"test-model-7b"}, Hardware: []string{"A100-80", "H100"}}})
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("POST", "/api/run", strings.NewReader(string(body)))
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		var out map[string]string
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("%d: the answer is not JSON: %v: %s", rec.Code, err, rec.Body)
		}
		src, ferr := os.ReadFile(decls)
		switch rec.Code {
		case http.StatusAccepted:
			if out["job"] == "" {
				t.Fatalf("202 without a job: %v", out)
			}
			extra, err := leaderboard.Decode(src, decls)
			if err != nil {
				t.Fatalf("accepted, but the declarations file does not decode: %v\n%s", err, src)
			}
			if _, err := leaderboard.Merge(base, extra); err != nil {
				t.Fatalf("accepted, but the declarations file does not merge into runs.yaml: %v\n%s", err, src)
			}
		case http.StatusBadRequest, http.StatusConflict, http.StatusRequestEntityTooLarge:
			msg := out["error"]
			if !strings.HasPrefix(msg, "body") && !strings.HasPrefix(msg, "group") && !strings.HasPrefix(msg, "candidate") {
				t.Errorf("%d %q names neither the body, the group nor the candidate", rec.Code, msg)
			}
			if ferr == nil {
				t.Errorf("refused (%d %q) yet filed:\n%s", rec.Code, msg, src)
			}
		default:
			t.Fatalf("%d %v for body %q", rec.Code, out, body)
		}
	})
}
