// Package lbserve is the leaderboard's web server (`action leaderboard
// serve`): the page of the results directory, live, with a form to declare
// a candidate; an API to read the versions and results and to declare a
// candidate (bearer token), whose runs go through lbrun in a bounded queue
// and are filed as each ends; the candidates declared this way are kept in
// the declarations file beside the results (leaderboard.DeclarationsFile).
// Prepare reads and builds what the command serves; Serve serves it until
// its context ends and logs the shutdown.
package lbserve

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// MaxBodyBytes caps a POST /api/run body: a candidate is a few hundred bytes.
const MaxBodyBytes = 64 << 10

// MinTokenLength is the shortest bearer token the server accepts.
const MinTokenLength = 16

// Version is what GET /api/version answers: the versions the server runs.
type Version struct {
	Harness   runresult.Harness      `json:"harness"`
	Simulator SimulatorVersion       `json:"simulator"`
	Catalog   *runresult.DataVersion `json:"catalog"`
}

// SimulatorVersion names the simulator build.
type SimulatorVersion struct {
	Repository string `json:"repository"`
	Tag        string `json:"tag"`
	Commit     string `json:"commit"`
}

// Config is what a Server serves and runs with.
type Config struct {
	// Declaration is runs.yaml's, its traces resolved, with the declarations
	// file merged in (leaderboard.Merge).
	Declaration *leaderboard.Declaration
	// Base is runs.yaml's alone (the groups a candidate may join).
	Base *leaderboard.Declaration
	// Results is the results directory; Declarations the declarations file
	// beside it.
	Results, Declarations string
	Sim                   *lbrun.Sim
	Version               Version
	// Token is the bearer token POST /api/run needs (at least
	// MinTokenLength bytes).
	Token string
	// Workers simulate at once; Queue jobs wait at most (a full queue
	// answers 503).
	Workers, Queue int
	Log            *slog.Logger
	// Names are the models and GPUs the build and catalog run (nil: a
	// candidate's names are not checked when it is declared).
	Names *lbrun.Names
	// MaxConns and MaxConnsPerAddr bound the connections Serve holds, in
	// total and per client address (connlimit.DefaultMax and
	// connlimit.DefaultPerAddr if 0).
	MaxConns, MaxConnsPerAddr int
	// Workloads is the saved workloads' file beside the results ("": none
	// saved, POST /api/workload refused); Saved the workloads it holds,
	// their traces resolved (uploads.go).
	Workloads string
	Saved     []leaderboard.Group
	// RunPending makes Run start by running every declared run without a
	// result (a fresh volume: runs.yaml's candidates), one job per
	// candidate, after the jobs declared through the API (pending.go).
	RunPending bool
}

// Job states.
const (
	JobQueued  = "queued"
	JobRunning = "running"
	JobDone    = "done"
	JobFailed  = "failed"
)

// Job is one declared candidate's runs (one per load of its group).
type Job struct {
	ID     string `json:"job"`
	Status string `json:"status"`
	// Result is the first (for a group at one load, the only) result
	// file, "<group>/<run>.json"; Results all of them.
	Result  string   `json:"result,omitempty"`
	Results []string `json:"results,omitempty"`
	Reason  string   `json:"reason,omitempty"`

	runs []leaderboard.DeclaredRun
}

// Server is the leaderboard server. Handler serves it; Run runs its jobs.
type Server struct {
	cfg   Config
	queue chan *Job

	mu      sync.Mutex
	decl    *leaderboard.Declaration
	jobs    map[string]*Job
	pending map[string]bool // group/candidate ids of queued or running jobs
	closed  bool

	pages pageCache // GET /, rendered once per change (page.go)
	// saved are the workloads saved through POST /api/workload.
	saved []leaderboard.Group
	// backlog are the jobs of the runs found pending at start (RunPending),
	// taken when the queue is empty.
	backlog []*Job
}

// New checks cfg and returns its server.
func New(cfg Config) (*Server, error) {
	if len(cfg.Token) < MinTokenLength {
		return nil, fmt.Errorf("the bearer token must be at least %d bytes (set LEADERBOARD_TOKEN)", MinTokenLength)
	}
	if cfg.Workers < 1 || cfg.Queue < 1 {
		return nil, fmt.Errorf("workers %d and queue %d: each must be at least 1", cfg.Workers, cfg.Queue)
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Server{cfg: cfg, queue: make(chan *Job, cfg.Queue), decl: cfg.Declaration, jobs: map[string]*Job{}, pending: map[string]bool{}, saved: cfg.Saved}, nil
}

// Run runs the queued jobs on cfg.Workers workers until ctx ends. Then it
// takes no more jobs, stops the simulations under way (a run cut short is
// not filed: lbrun.SimulateAll), fails every job not done, and returns once the
// workers have stopped. Every result is filed atomically, so nothing is
// left half-written.
func (s *Server) Run(ctx context.Context) {
	if s.cfg.RunPending {
		s.queuePending()
	}
	var wg sync.WaitGroup
	for range s.cfg.Workers {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case j := <-s.queue:
					s.runJob(ctx, j)
					continue
				default:
				}
				if j := s.takeBacklog(); j != nil {
					s.runJob(ctx, j)
					continue
				}
				select {
				case <-ctx.Done():
					return
				case j := <-s.queue:
					s.runJob(ctx, j)
				}
			}
		})
	}
	<-ctx.Done()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	wg.Wait()
	for j := s.takeBacklog(); j != nil; j = s.takeBacklog() {
		s.finish(j, JobFailed, "the server shut down before the job ran", nil)
	}
	for {
		select {
		case j := <-s.queue:
			s.finish(j, JobFailed, "the server shut down before the job ran", nil)
		default:
			return
		}
	}
}

func (s *Server) runJob(ctx context.Context, j *Job) {
	if ctx.Err() != nil { // taken from the queue as the server shut down
		s.finish(j, JobFailed, "the server shut down before the job ran", nil)
		return
	}
	s.setStatus(j, JobRunning)
	sum, err := lbrun.SimulateAll(ctx, s.cfg.Sim, j.runs, lbrun.Options{Out: s.cfg.Results, Jobs: 1, Log: s.cfg.Log})
	var files []string
	for _, r := range sum.Results {
		if r != nil {
			files = append(files, r.Group+"/"+r.Run+".json")
		}
	}
	switch {
	case ctx.Err() != nil:
		s.finish(j, JobFailed, "the server shut down while it ran; the runs it finished are filed", files)
	case err != nil:
		s.finish(j, JobFailed, err.Error(), files)
	default:
		var why []string
		for _, r := range sum.Results {
			if r.Status == leaderboard.StatusFailed {
				why = append(why, r.Run+": "+r.Failure.Reason+": "+r.Failure.Message)
			}
		}
		status := JobDone
		if len(why) > 0 {
			status = JobFailed
		}
		s.finish(j, status, strings.Join(why, "; "), files)
	}
	s.cfg.Log.Info("job ended", "job", j.ID, "status", j.Status, "results", len(files))
}

func (s *Server) setStatus(j *Job, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j.Status = status
}

func (s *Server) finish(j *Job, status, reason string, files []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j.Status, j.Reason, j.Results = status, reason, files
	if len(files) > 0 {
		j.Result = files[0]
	}
	delete(s.pending, j.runs[0].Group+"/"+j.runs[0].Candidate.ID)
}

// Handler serves the page and the API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, s.cfg.Version) })
	mux.HandleFunc("GET /api/results", s.results)
	mux.HandleFunc("POST /api/run", s.declare)
	mux.HandleFunc("DELETE /api/run/{group}/{id}", s.remove)
	mux.HandleFunc("GET /api/jobs/{id}", s.job)
	mux.HandleFunc("POST /api/workload", s.addWorkload)
	mux.HandleFunc("POST /api/model", s.addModel)
	return withSecurityHeaders(mux)
}

// board reads the results directory and arranges it by the declaration. A
// result that does not check (lbrun.Check) is left out and logged: the
// page never shows a figure that validate would refuse.
func (s *Server) board() (leaderboard.Board, error) {
	s.mu.Lock()
	d := s.decl
	s.mu.Unlock()
	var res map[string]*leaderboard.Result
	if _, err := os.Stat(s.cfg.Results); err != nil && !errors.Is(err, os.ErrNotExist) {
		return leaderboard.Board{}, err
	} else if err == nil {
		var probs []leaderboard.Problem
		if res, probs, err = lbrun.Check(d, s.cfg.Results, ""); err != nil {
			return leaderboard.Board{}, err
		}
		for _, p := range probs {
			if p.Kind == leaderboard.ProblemMissing {
				continue
			}
			s.cfg.Log.Warn("result left off the page", "problem", p.String())
			delete(res, strings.TrimSuffix(p.File, ".json"))
		}
	}
	b := leaderboard.BuildBoard(d, res)
	s.markPending(b)
	return b, nil
}

// results answers every result file of the results directory that reads
// as a result, by "<group>/<run>", as the file holds it.
func (s *Server) results(w http.ResponseWriter, _ *http.Request) {
	out := map[string]json.RawMessage{}
	if _, err := os.Stat(s.cfg.Results); err == nil {
		res, _, err := lbrun.ReadResults(s.cfg.Results)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		for key, r := range res {
			raw, err := r.Encode()
			if err != nil {
				writeError(w, http.StatusInternalServerError, err.Error())
				return
			}
			out[key] = raw
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"results": out})
}

func (s *Server) job(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	j, ok := s.jobs[r.PathValue("id")]
	var c Job
	if ok {
		c = *j
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "no job "+r.PathValue("id"))
		return
	}
	writeJSON(w, http.StatusOK, c)
}

// declareRequest is POST /api/run's body.
type declareRequest struct {
	Group     string          `json:"group"`
	Candidate json.RawMessage `json:"candidate"`
}

func (s *Server) declare(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="leaderboard"`)
		writeError(w, http.StatusUnauthorized, "POST /api/run needs Authorization: Bearer <the server's LEADERBOARD_TOKEN>")
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", MaxBodyBytes))
		return
	}
	var req declareRequest
	if err := jsoncodec.DecodeUnique(raw, &req); err != nil {
		writeError(w, http.StatusBadRequest, "body: "+err.Error()+` (want {"group": ID, "candidate": {...}})`)
		return
	}
	if len(req.Candidate) == 0 || string(req.Candidate) == "null" {
		writeError(w, http.StatusBadRequest, "candidate: missing")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		w.Header().Set("Retry-After", "60")
		writeError(w, http.StatusServiceUnavailable, "the server is shutting down")
		return
	}
	cand, merged, runs, status, msg := s.plan(req)
	if status != 0 {
		writeError(w, status, msg)
		return
	}
	// Only this handler sends to the queue, with s.mu held: a queue with
	// room now has it still once the declaration is filed, and a job whose
	// declaration could not be filed is never queued.
	if len(s.queue) == cap(s.queue) {
		w.Header().Set("Retry-After", "30")
		writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("the queue is full (%d jobs waiting); retry later", s.cfg.Queue))
		return
	}
	j := &Job{ID: newID(), Status: JobQueued, runs: runs}
	if err := s.file(req.Group, cand); errors.Is(err, errDeclarationsFull) {
		writeError(w, http.StatusInsufficientStorage, "the candidate is not declared: "+err.Error()+
			"; a maintainer promotes declared candidates into runs.yaml, or removes failed ones (DELETE /api/run/GROUP/ID)")
		return
	} else if err != nil {
		j.Status, j.Reason = JobFailed, "the declaration could not be filed: "+err.Error()
		s.jobs[j.ID] = j
		writeError(w, http.StatusInternalServerError, j.Reason)
		return
	}
	if s.declared(req.Group, cand.ID) { // declared again: its failed results go
		if _, err := s.removeResults(s.decl, req.Group, cand.ID); err != nil {
			s.cfg.Log.Warn("a failed result of the candidate declared again was not removed", "group", req.Group, "candidate", cand.ID, "error", err.Error())
		}
	}
	s.queue <- j
	s.decl = merged
	s.jobs[j.ID] = j
	s.pending[req.Group+"/"+cand.ID] = true
	s.cfg.Log.Info("candidate declared", "group", req.Group, "candidate", cand.ID, "job", j.ID, "runs", len(runs))
	writeJSON(w, http.StatusAccepted, map[string]string{"job": j.ID})
}

// plan checks a declared candidate as runs.yaml decoding does (the group's
// offered work with this one candidate, through leaderboard.Decode, so
// the checks and messages are the same) and returns it with its runs, or
// the HTTP status and message refusing it, with the declaration it makes.
// s.mu is held.
func (s *Server) plan(req declareRequest) (cand leaderboard.Candidate, merged *leaderboard.Declaration, runs []leaderboard.DeclaredRun, status int, msg string) {
	gp := s.offered(req.Group)
	if gp == nil {
		return leaderboard.Candidate{}, nil, nil, http.StatusBadRequest, fmt.Sprintf("group: %q is not a group of runs.yaml or a saved workload", req.Group)
	}
	g := *gp
	group := map[string]any{"id": g.ID, "workload": leaderboard.OfferedAsWritten(g.Workload), "load": g.Load, "candidates": []json.RawMessage{req.Candidate}}
	if g.KeepUp != nil {
		group["keep_up"] = g.KeepUp
	}
	doc, err := json.Marshal(map[string]any{"version": leaderboard.FormatVersion, "groups": []any{group}})
	if err != nil {
		return leaderboard.Candidate{}, nil, nil, http.StatusInternalServerError, err.Error()
	}
	one, err := leaderboard.Decode(doc, "candidate")
	var es leaderboard.Errors
	if errors.As(err, &es) {
		var msgs []string
		for _, e := range es {
			field := strings.Replace(e.Field, "groups[0].candidates[0]", "candidate", 1)
			if field == "" || strings.HasPrefix(field, "groups[0]") && !strings.HasPrefix(e.Field, "groups[0].candidates[0]") {
				field = "candidate"
			}
			msgs = append(msgs, field+": "+e.Msg)
		}
		return leaderboard.Candidate{}, nil, nil, http.StatusBadRequest, strings.Join(msgs, "; ")
	}
	if err != nil {
		return leaderboard.Candidate{}, nil, nil, http.StatusBadRequest, "candidate: " + err.Error()
	}
	cand = one.Groups[0].Candidates[0]
	if s.cfg.Names != nil {
		if msgs := checkNames(cand, *s.cfg.Names, s.buildName()); len(msgs) > 0 {
			return leaderboard.Candidate{}, nil, nil, http.StatusBadRequest, strings.Join(msgs, "; ")
		}
	}
	// A candidate declared here whose runs failed is declared again in its
	// place; any other id the group has is a conflict.
	prev := s.decl
	if status, msg := s.redeclarable(g.ID, cand.ID); status != 0 {
		return leaderboard.Candidate{}, nil, nil, status, msg
	} else if s.declared(g.ID, cand.ID) {
		prev = withoutCandidate(s.decl, g.ID, cand.ID)
	}
	merged, err = leaderboard.Merge(prev, &leaderboard.Declaration{Version: leaderboard.FormatVersion, Groups: []leaderboard.Group{{
		ID: g.ID, Workload: leaderboard.OfferedAsWritten(g.Workload), Load: g.Load, KeepUp: g.KeepUp, Candidates: []leaderboard.Candidate{cand}}}})
	if err != nil {
		return leaderboard.Candidate{}, nil, nil, http.StatusBadRequest, err.Error()
	}
	for _, r := range merged.Runs() {
		if r.Group == g.ID && r.Candidate.ID == cand.ID {
			runs = append(runs, r)
		}
	}
	return cand, merged, runs, 0, ""
}

// file appends cand to the declarations file, atomically: its group (the
// offered work restated from runs.yaml) gets it as its last candidate.
// s.mu is held.
func (s *Server) file(group string, cand leaderboard.Candidate) error {
	d, err := s.readDeclarations()
	if err != nil {
		return err
	}
	gi := slices.IndexFunc(d.Groups, func(g leaderboard.Group) bool { return g.ID == group })
	if gi < 0 {
		g := s.offered(group)
		d.Groups = append(d.Groups, leaderboard.Group{ID: g.ID, Title: g.Title, Workload: leaderboard.OfferedAsWritten(g.Workload), Load: g.Load, KeepUp: g.KeepUp})
		gi = len(d.Groups) - 1
	}
	cands := d.Groups[gi].Candidates
	if ci := slices.IndexFunc(cands, func(c leaderboard.Candidate) bool { return c.ID == cand.ID }); ci >= 0 {
		cands[ci] = cand // declared again after its runs failed
	} else {
		d.Groups[gi].Candidates = append(cands, cand)
	}
	return s.writeDeclarations(d)
}

// readDeclarations reads the declarations file (none: an empty
// declaration). s.mu is held.
func (s *Server) readDeclarations() (*leaderboard.Declaration, error) {
	src, err := diskio.ReadPathMax(s.cfg.Declarations, leaderboard.MaxDeclarationBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &leaderboard.Declaration{Version: leaderboard.FormatVersion}, nil
	case err != nil:
		return nil, err
	}
	return leaderboard.Decode(src, s.cfg.Declarations)
}

// errDeclarationsFull is writeDeclarations' refusal of a declarations
// file over its cap: written, it could not be read back (the next
// declaration, and the server's next start, would fail).
var errDeclarationsFull = errors.New("the declarations file is full")

// writeDeclarations writes d as the declarations file, atomically, unless
// it would be over leaderboard.MaxDeclarationBytes (errDeclarationsFull).
// s.mu is held.
func (s *Server) writeDeclarations(d *leaderboard.Declaration) error {
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(d); err != nil {
		return err
	}
	if out.Len() > leaderboard.MaxDeclarationBytes {
		return fmt.Errorf("%w: it would be %d bytes, over its cap of %d (leaderboard.MaxDeclarationBytes)", errDeclarationsFull, out.Len(), leaderboard.MaxDeclarationBytes)
	}
	if err := os.MkdirAll(filepath.Dir(s.cfg.Declarations), 0o755); err != nil {
		return err
	}
	return diskio.WriteAtomic(s.cfg.Declarations, out.Bytes())
}

func (s *Server) authorized(r *http.Request) bool {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(token), []byte(s.cfg.Token)) == 1
}

func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	raw, err := jsoncodec.Encode(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(raw)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
