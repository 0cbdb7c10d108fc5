package githubfake

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB that records Errorf instead of failing, so the
// fake's own failure reports can be asserted.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.errs
	r.errs = nil
	return out
}

func do(t *testing.T, s *Server, method, path, auth, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, strings.TrimSuffix(s.URL(), "/")+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func newRecorded(t *testing.T, opts Options) (*Server, *recorder) {
	rec := &recorder{TB: t}
	s := New(rec, opts)
	s.AddRepo("o/r", "main")
	s.Commit("o/r", "main", "alice", "init", map[string]string{"dir/a b.txt": "hello", "README.md": "x"})
	s.AddPullRequest("o/r", PullRequest{Title: "t", Head: "main", Base: "main"})
	return s, rec
}

const tok = "token test-token"

func TestInvalidRequestsFailTheTest(t *testing.T) {
	s, rec := newRecorded(t, Options{})
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		mention                  string
	}{
		{"no such operation", "GET", "/repos/o/r/no-such-thing", "", 404, "matches no operation"},
		{"operation not implemented", "GET", "/repos/o/r/issues", "", 404, `"issues/list-for-repo"`},
		{"body misses a required field", "POST", "/repos/o/r/issues/1/comments", `{"text":"hi"}`, 400, "does not validate"},
		{"bad query parameter", "GET", "/repos/o/r/pulls?state=merged", "", 400, "does not validate"},
		{"body of the wrong type", "POST", "/repos/o/r/git/refs", `{"ref":"refs/heads/x","sha":7}`, 400, "does not validate"},
	} {
		status, _, _ := do(t, s, tc.method, tc.path, tok, tc.body)
		errs := rec.take()
		if status != tc.status || len(errs) != 1 || !strings.Contains(errs[0], tc.mention) {
			t.Errorf("%s: status %d, recorded %q; want %d and one failure mentioning %s", tc.name, status, errs, tc.status, tc.mention)
		}
	}
	if s.Calls("issues/create-comment") != 0 {
		t.Error("an invalid request reached the handler")
	}
}

func TestValidRequestsPass(t *testing.T) {
	s, rec := newRecorded(t, Options{})
	status, _, body := do(t, s, "GET", "/repos/o/r/contents/dir/a%20b.txt?ref=main", tok, "")
	if status != 200 || !strings.Contains(body, `"path":"dir/a b.txt"`) {
		t.Errorf("contents with a slash and a space: %d %s", status, body)
	}
	status, _, _ = do(t, s, "POST", "/repos/o/r/issues/1/comments", tok, `{"body":"hi"}`)
	if status != 201 {
		t.Errorf("create comment: %d", status)
	}
	if errs := rec.take(); len(errs) != 0 {
		t.Errorf("valid traffic recorded failures: %q", errs)
	}
	if n := s.Calls("issues/create-comment"); n != 1 {
		t.Errorf("calls = %d", n)
	}
}

func TestAuthenticationAndReadOnly(t *testing.T) {
	s, rec := newRecorded(t, Options{ReadOnly: true})
	if status, _, _ := do(t, s, "GET", "/repos/o/r/pulls/1", "", ""); status != 401 {
		t.Errorf("no token: %d, want 401", status)
	}
	if status, _, _ := do(t, s, "GET", "/repos/o/r/pulls/1", "token nope", ""); status != 401 {
		t.Errorf("bad token: %d, want 401", status)
	}
	if status, _, _ := do(t, s, "GET", "/repos/o/r/pulls/1", "Bearer test-token", ""); status != 200 {
		t.Errorf("read with a read-only token: %d, want 200", status)
	}
	status, _, body := do(t, s, "POST", "/repos/o/r/issues/1/comments", tok, `{"body":"hi"}`)
	if status != 403 || !strings.Contains(body, "Resource not accessible by integration") {
		t.Errorf("write with a read-only token: %d %s", status, body)
	}
	s.SetReadOnly(false)
	if status, _, _ := do(t, s, "POST", "/repos/o/r/issues/1/comments", tok, `{"body":"hi"}`); status != 201 {
		t.Errorf("write after SetReadOnly(false): %d", status)
	}
	if errs := rec.take(); len(errs) != 0 {
		t.Errorf("recorded failures: %q", errs)
	}
}

func TestCommitComments(t *testing.T) {
	s, rec := newRecorded(t, Options{Login: "accuracy-bot[bot]"})
	head, _ := s.Ref("o/r", "refs/heads/main")
	path := "/repos/o/r/commits/" + head + "/comments"
	status, h, body := do(t, s, "POST", path, tok, `{"body":"refused <!-- m -->"}`)
	if status != 201 || !strings.Contains(body, `"commit_id":"`+head+`"`) || !strings.Contains(body, "#commitcomment-") ||
		!strings.Contains(h.Get("Location"), "/repos/o/r/comments/") {
		t.Errorf("create: %d %s (Location %q)", status, body, h.Get("Location"))
	}
	got := s.CommitComments("o/r", head)
	if len(got) != 1 || got[0].Body != "refused <!-- m -->" || got[0].User != "accuracy-bot[bot]" {
		t.Errorf("CommitComments = %+v", got)
	}
	if other := s.CommitComments("o/r", strings.Repeat("0", 40)); len(other) != 0 {
		t.Errorf("comments on another sha: %+v", other)
	}
	if errs := rec.take(); len(errs) != 0 {
		t.Errorf("valid traffic recorded failures: %q", errs)
	}

	missing := "/repos/o/r/commits/" + strings.Repeat("0", 40) + "/comments"
	for _, tc := range []struct {
		name, path, body string
		status           int
		failures         int // test failures the fake records
	}{
		{"unknown commit", missing, `{"body":"x"}`, 422, 0},
		{"blank body", path, `{"body":"  "}`, 422, 0},
		{"no body", path, `{"text":"x"}`, 400, 1},
		{"a line of a file", path, `{"body":"x","path":"README.md","position":1}`, 422, 1},
	} {
		status, _, _ := do(t, s, "POST", tc.path, tok, tc.body)
		if errs := rec.take(); status != tc.status || len(errs) != tc.failures {
			t.Errorf("%s: status %d, recorded %q; want %d and %d failures", tc.name, status, errs, tc.status, tc.failures)
		}
	}

	s.SetReadOnly(true)
	status, _, body = do(t, s, "POST", path, tok, `{"body":"again"}`)
	if status != 403 || !strings.Contains(body, "Resource not accessible by integration") {
		t.Errorf("read-only token: %d %s", status, body)
	}
	if n := len(s.CommitComments("o/r", head)); n != 1 {
		t.Errorf("%d comments after the refused writes, want 1", n)
	}
	if n := s.Calls("repos/create-commit-comment"); n != 5 {
		t.Errorf("calls = %d, want 5 (the invalid request never reaches the handler)", n)
	}
	if errs := rec.take(); len(errs) != 0 {
		t.Errorf("recorded %q", errs)
	}
}

func TestFaults(t *testing.T) {
	s, rec := newRecorded(t, Options{})
	s.FailNext("pulls/get", 1, SecondaryRateLimit(3))
	s.FailNext("pulls/get", 1, ServerError(502))
	status, h, _ := do(t, s, "GET", "/repos/o/r/pulls/1", tok, "")
	if status != 403 || h.Get("Retry-After") != "3" {
		t.Errorf("first fault: %d Retry-After %q", status, h.Get("Retry-After"))
	}
	if status, _, _ := do(t, s, "GET", "/repos/o/r/pulls/1", tok, ""); status != 502 {
		t.Errorf("second fault: %d", status)
	}
	if status, _, _ := do(t, s, "GET", "/repos/o/r/pulls/1", tok, ""); status != 200 {
		t.Errorf("after the faults: %d", status)
	}
	if n := s.Calls("pulls/get"); n != 3 {
		t.Errorf("calls = %d, want 3", n)
	}
	s.FailNext("no/such-op", 1, ServerError(500))
	if errs := rec.take(); len(errs) != 1 || !strings.Contains(errs[0], "does not implement") {
		t.Errorf("FailNext on an unknown operation recorded %q", errs)
	}
}

func TestArtifactRedirectRefusesCredentials(t *testing.T) {
	s, rec := newRecorded(t, Options{})
	run := s.AddWorkflowRun("o/r", WorkflowRun{})
	id := s.AddArtifact("o/r", run, "report", []byte("zipbytes"), false)
	status, h, _ := do(t, s, "GET", fmt.Sprintf("/repos/o/r/actions/artifacts/%d/zip", id), tok, "")
	loc := h.Get("Location")
	if status != 302 || loc == "" {
		t.Fatalf("download: %d Location %q", status, loc)
	}
	path := strings.TrimPrefix(loc, strings.TrimSuffix(s.URL(), "/"))
	if status, _, body := do(t, s, "GET", path, "", ""); status != 200 || body != "zipbytes" {
		t.Errorf("blob without credentials: %d %q", status, body)
	}
	if errs := rec.take(); len(errs) != 0 {
		t.Errorf("recorded %q", errs)
	}
	if status, _, _ := do(t, s, "GET", path, tok, ""); status != 400 {
		t.Errorf("blob with credentials: %d, want 400", status)
	}
	if errs := rec.take(); len(errs) != 1 || !strings.Contains(errs[0], "Authorization") {
		t.Errorf("blob with credentials recorded %q", errs)
	}
}

func TestRewriteGreedy(t *testing.T) {
	templates := []string{"/a/{x}/commits/{ref}", "/a/{x}/commits/{ref}/status", "/a/{x}/contents/{path}", "/a/{x}/pulls/{n}"} // sorted, as loadSpec has them
	for in, want := range map[string]string{
		"/a/{x}/contents/{path}": "/a/{x}/contents/{path:.*}",
		"/a/{x}/commits/{ref}":   "/a/{x}/commits/{ref}", // an operation lives below it
		"/a/{x}/pulls/{n}":       "/a/{x}/pulls/{n}",
	} {
		if got := rewriteGreedy(in, templates); got != want {
			t.Errorf("rewriteGreedy(%s) = %s, want %s", in, got, want)
		}
	}
}

// BenchmarkLoadSpec measures loading and pruning the description (done once
// per test binary by New).
func BenchmarkLoadSpec(b *testing.B) {
	wd, _ := os.Getwd()
	path, err := findDescription(wd)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		b.Skip("description not installed (npm ci)")
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := loadSpec(path); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWebhookExamples(t *testing.T) {
	all := WebhookExamples(t, "workflow_run", "completed")
	if len(all) < 2 {
		t.Fatalf("%d workflow_run completed examples, want several", len(all))
	}
	for _, ex := range all {
		if ex["action"] != "completed" || ex["workflow_run"] == nil {
			t.Errorf("example %v is not a completed workflow_run", ex["action"])
		}
	}
	// Each call decodes afresh: editing one payload leaves the next intact.
	WebhookExample(t, "ping", "")["zen"] = "edited"
	if WebhookExample(t, "ping", "")["zen"] == "edited" {
		t.Error("an edit to a returned payload leaked into the next call")
	}
}
