package lbserve

import (
	"crypto/sha256"
	"encoding/binary"
	"io/fs"
	"net/http"
	"path/filepath"
	"sync"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbview"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
)

// pageCache is the page (GET /) rendered for one state of what it is drawn
// from, the declaration and the results directory: it is rendered again
// only when that state changes, so a request costs a walk of the results
// directory's entries, not a re-plan of every result (about 20 ms of CPU
// with 35 results, for any unauthenticated client).
type pageCache struct {
	mu sync.Mutex
	// decl and results are what page was drawn from: the declaration
	// (held, so that its address is not reused) and the digest of the
	// results directory (resultsState).
	decl    *leaderboard.Declaration
	results [sha256.Size]byte
	// jobs is the jobs' state the pending rows were marked with
	// (jobsState).
	jobs    string
	page    []byte
	csp     string
	renders int // pages rendered, for the tests
}

// resultsState is a digest of the results directory: each file by path,
// size and modification time (a result is filed by a rename, so a new or
// replaced one changes them).
func (s *Server) resultsState() [sha256.Size]byte {
	h := sha256.New()
	var buf [8]byte
	filepath.WalkDir(s.cfg.Results, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil // a directory that cannot be read is board's to report
		}
		info, err := e.Info()
		if err != nil {
			return nil
		}
		h.Write([]byte(p))
		binary.LittleEndian.PutUint64(buf[:], uint64(info.Size()))
		h.Write(buf[:])
		binary.LittleEndian.PutUint64(buf[:], uint64(info.ModTime().UnixNano()))
		h.Write(buf[:])
		return nil
	})
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// cachedPage returns the page and its Content-Security-Policy, rendering
// them when what they are drawn from changed since the last render. The
// declaration is the one board draws unless it changed in between, when
// the next request renders again.
func (s *Server) cachedPage() ([]byte, string, error) {
	s.mu.Lock()
	d := s.decl
	s.mu.Unlock()
	results, jobs := s.resultsState(), s.jobsState()
	c := &s.pages
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.page != nil && c.decl == d && c.results == results && c.jobs == jobs {
		return c.page, c.csp, nil
	}
	b, err := s.board()
	if err != nil {
		return nil, "", err
	}
	page, err := lbview.ServePage(b)
	if err != nil {
		return nil, "", err
	}
	c.decl, c.results, c.jobs, c.page, c.csp = d, results, jobs, []byte(page), render.PageCSP(page)
	c.renders++
	return c.page, c.csp, nil
}

func (s *Server) page(w http.ResponseWriter, _ *http.Request) {
	page, csp, err := s.cachedPage()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", csp)
	w.Write(page)
}

// apiCSP is the Content-Security-Policy of every answer but the page's:
// JSON and errors, which load nothing and are framed by no one.
const apiCSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// withSecurityHeaders sends, on every answer of h, X-Content-Type-Options:
// nosniff (a JSON answer or an error is never sniffed as a page) and
// apiCSP, which the page replaces with its own.
func withSecurityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Security-Policy", apiCSP)
		h.ServeHTTP(w, r)
	})
}
