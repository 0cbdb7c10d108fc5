package lbserve

import (
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
)

// exampleRuns is the example leaderboard: its runs.yaml and results.
const exampleRuns = "../../../docs/examples/leaderboard"

// exampleServer is a Server of the example leaderboard (no simulator
// build: it serves the page and the API's reads), over a copy of its
// results.
func exampleServer(t testing.TB) *Server {
	t.Helper()
	d, _, err := lbrun.ReadRuns(filepath.Join(exampleRuns, "runs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(t.TempDir(), "results")
	if err := os.CopyFS(results, os.DirFS(filepath.Join(exampleRuns, "results"))); err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Declaration: d, Base: d, Results: results, Declarations: filepath.Join(t.TempDir(), "declarations.yaml"),
		Token: token, Workers: 1, Queue: 1})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// get answers GET path from h.
func get(t testing.TB, h http.Handler, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	resp := rec.Result()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// Issue 31, point 5: GET / re-planned every result on each request. It is
// rendered once per change of the results and served from the cache
// otherwise; the page says what it may do (a Content-Security-Policy
// allowing its own inline scripts and style by hash, nothing framing it)
// and no answer is sniffed.
func TestServePageCachedAndConfined(t *testing.T) {
	t.Parallel()
	s := exampleServer(t)
	h := s.Handler()
	resp, first := get(t, h, "/")
	if resp.StatusCode != http.StatusOK || !strings.Contains(first, "declare-form") {
		t.Fatalf("GET /: %d", resp.StatusCode)
	}
	for range 5 {
		if _, again := get(t, h, "/"); again != first {
			t.Fatal("the cached page differs from the first")
		}
	}
	if s.pages.renders != 1 {
		t.Errorf("6 requests rendered the page %d times, want once", s.pages.renders)
	}

	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "frame-ancestors 'none'", "connect-src 'self'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("the page's Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "*") {
		t.Errorf("the page's Content-Security-Policy allows more than its own script and style: %q", csp)
	}
	inline := regexp.MustCompile(`(?s)<(script|style)>(.*?)</(?:script|style)>`).FindAllStringSubmatch(first, -1)
	if len(inline) < 2 {
		t.Fatalf("%d inline scripts and styles in the page, want its style and scripts", len(inline))
	}
	for _, m := range inline {
		sum := sha256.Sum256([]byte(m[2]))
		if !strings.Contains(csp, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") {
			t.Errorf("the policy does not allow the page's own <%s> (%d bytes)", m[1], len(m[2]))
		}
	}
	if strings.Count(first, "<script") != strings.Count(first, "<script>") {
		t.Error("the page has a script element with attributes (a src the policy would refuse)")
	}
	for _, path := range []string{"/", "/api/version", "/api/results", "/api/jobs/none"} {
		resp, _ := get(t, h, path)
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Errorf("GET %s: X-Content-Type-Options %q, Content-Security-Policy %q; want nosniff and no framing", path,
				resp.Header.Get("X-Content-Type-Options"), resp.Header.Get("Content-Security-Policy"))
		}
	}

	// A result filed (here one replaced, as a run files it: a new file
	// renamed over it) renders the page again, once.
	var one string
	filepath.WalkDir(s.cfg.Results, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, ".json") && one == "" {
			one = p
		}
		return nil
	})
	raw, err := os.ReadFile(one)
	if err != nil {
		t.Fatal(err)
	}
	tmp := one + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	os.Chtimes(tmp, later, later)
	if err := os.Rename(tmp, one); err != nil {
		t.Fatal(err)
	}
	get(t, h, "/")
	get(t, h, "/")
	if s.pages.renders != 2 {
		t.Errorf("after a result was filed the page was rendered %d times in all, want twice", s.pages.renders)
	}
}

// BenchmarkServePage measures GET / of the example leaderboard: served
// from the cache (each request after the first), and rendered (the page
// as it was before, re-planned on every request: the cache emptied each
// time). The cached cost is flat in the number of requests; the rendered
// one is paid per request.
//
//	go test ./internal/leaderboard/lbserve -run '^$' -bench ServePage
func BenchmarkServePage(b *testing.B) {
	s := exampleServer(b)
	h := s.Handler()
	b.Run("cached", func(b *testing.B) {
		get(b, h, "/")
		b.ReportAllocs()
		for b.Loop() {
			get(b, h, "/")
		}
	})
	b.Run("rendered", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.pages.mu.Lock()
			s.pages.page = nil
			s.pages.mu.Unlock()
			get(b, h, "/")
		}
	})
}
