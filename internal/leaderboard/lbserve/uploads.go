package lbserve

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
)

// Traces and models from the browser: POST /api/workload uploads a trace
// (a TraceV2 pair, an OpenTelemetry JSON or a Weka JSONL), stores it by
// content hash in the results' traces/ as declared traces are, and saves
// it as a workload (a group of its own, in the workloads file beside the
// results) a candidate may then be declared for; POST /api/model uploads
// the config.json of a model the build and catalog lack into the
// user-model store. Both need the bearer token. A trace is refused at
// upload when its source spanned more than one node, and when the build
// cannot replay it as asked (no converter for its format, no pool of
// concurrent sessions), naming the build.

// MaxTraceUploadBytes caps a POST /api/workload body (the trace's files,
// JSON-escaped); MaxModelUploadBytes a POST /api/model body.
const (
	MaxTraceUploadBytes = 32 << 20
	MaxModelUploadBytes = 2*leaderboard.MaxModelConfigBytes + 4<<10
)

// workloadRequest is POST /api/workload's body: the workload's id (a group
// id) and title, the trace (format and its files' text) and the load.
type workloadRequest struct {
	ID     string              `json:"id"`
	Title  string              `json:"title"`
	Format string              `json:"format"`
	Header string              `json:"header"`
	Data   string              `json:"data"`
	File   string              `json:"file"`
	Load   *leaderboard.Load   `json:"load"`
	KeepUp *leaderboard.KeepUp `json:"keep_up"`
}

// modelRequest is POST /api/model's body: the model's name as candidates
// give it (org/name) and its config.json's text.
type modelRequest struct {
	Model  string `json:"model"`
	Config string `json:"config"`
}

// readUpload checks the token and reads a body of at most max bytes into
// v (strict JSON, no key twice), answering the refusal itself (false).
func (s *Server) readUpload(w http.ResponseWriter, r *http.Request, max int64, v any, want string) bool {
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="leaderboard"`)
		writeError(w, http.StatusUnauthorized, r.Method+" "+r.URL.Path+" needs Authorization: Bearer <the server's LEADERBOARD_TOKEN>")
		return false
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", max))
		return false
	}
	if err := jsoncodec.DecodeUnique(raw, v); err != nil {
		writeError(w, http.StatusBadRequest, "body: "+err.Error()+" (want "+want+")")
		return false
	}
	return true
}

// traceFiles are the uploaded trace's files, checked: the format's files
// given (and no other), a TraceV2 pair as leaderboard.CheckTraceV2 reads
// it, an otel or weka source from one node (leaderboard.CheckSingleNode).
func (req workloadRequest) traceFiles() (leaderboard.TraceFiles, error) {
	tf := leaderboard.TraceFiles{Format: req.Format}
	switch req.Format {
	case leaderboard.TraceFormatV2:
		if req.Header == "" || req.Data == "" || req.File != "" {
			return tf, errors.New("format tracev2 takes header and data (and no file)")
		}
		if err := leaderboard.CheckTraceV2([]byte(req.Header), []byte(req.Data)); err != nil {
			return tf, err
		}
		tf.Header, tf.Data = []byte(req.Header), []byte(req.Data)
	case leaderboard.TraceFormatOTel, leaderboard.TraceFormatWeka:
		if req.File == "" || req.Header != "" || req.Data != "" {
			return tf, fmt.Errorf("format %s takes file (and no header or data)", req.Format)
		}
		if err := leaderboard.CheckSingleNode(req.Format, []byte(req.File)); err != nil {
			return tf, fmt.Errorf("file: %w", err)
		}
		tf.Source = []byte(req.File)
	default:
		return tf, fmt.Errorf("format: %q; want tracev2, otel or weka", req.Format)
	}
	return tf, nil
}

// addWorkload answers POST /api/workload (bearer token): 201 with the
// workload's id and the trace's content hash, 400 naming what is wrong
// with the trace or the load, 409 for an id a group has, 422 when the
// build cannot replay it so (naming the build).
func (s *Server) addWorkload(w http.ResponseWriter, r *http.Request) {
	var req workloadRequest
	if !s.readUpload(w, r, MaxTraceUploadBytes, &req, `{"id", "format", "header" and "data" or "file", "load"}`) {
		return
	}
	if s.cfg.Workloads == "" {
		writeError(w, http.StatusNotFound, "this server saves no workloads (no workloads file)")
		return
	}
	tf, err := req.traceFiles()
	if err != nil {
		writeError(w, http.StatusBadRequest, "trace: "+err.Error())
		return
	}
	sum := tf.Hash()
	trace := leaderboard.SavedTracePaths(filepath.Base(filepath.Clean(s.cfg.Results)), req.Format, sum)
	g := leaderboard.Group{ID: req.ID, Title: req.Title, Workload: &leaderboard.Workload{Trace: &trace}, Load: req.Load, KeepUp: req.KeepUp}
	if err := leaderboard.CheckWorkloadGroup(g); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	resolved := trace
	resolved.SHA256 = sum
	g.Workload = &leaderboard.Workload{Trace: &resolved}
	for _, p := range g.Load.Points() {
		run := leaderboard.DeclaredRun{Group: g.ID, ID: "upload", Workload: *g.Workload, Load: p}
		if err := s.cfg.Sim.Replays(run); err != nil {
			var pe *leaderboard.PlanError
			if errors.As(err, &pe) {
				err = errors.New(pe.Msg)
			}
			writeError(w, http.StatusUnprocessableEntity, fmt.Sprintf("%s cannot run this workload (%s): %v", s.buildName(), p, err))
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.decl.Group(g.ID) != nil {
		writeError(w, http.StatusConflict, fmt.Sprintf("id: %s is a group already (runs.yaml's, or a workload saved before)", g.ID))
		return
	}
	if err := lbrun.StoreTraces(s.cfg.Sim.TracesDir, map[string]leaderboard.TraceFiles{sum: tf}); err != nil {
		writeError(w, http.StatusInternalServerError, "storing the trace: "+err.Error())
		return
	}
	saved := append(slices.Clone(s.saved), g)
	raw, err := leaderboard.EncodeSavedWorkloads(saved)
	if err == nil && len(raw) > leaderboard.MaxWorkloadsBytes {
		err = fmt.Errorf("%w: it would be %d bytes, over its cap of %d", errDeclarationsFull, len(raw), leaderboard.MaxWorkloadsBytes)
	}
	if err == nil {
		err = diskio.WriteAtomic(s.cfg.Workloads, raw)
	}
	if errors.Is(err, errDeclarationsFull) {
		writeError(w, http.StatusInsufficientStorage, "the workload is not saved: the workloads file is full")
		return
	} else if err != nil {
		writeError(w, http.StatusInternalServerError, "saving the workload: "+err.Error())
		return
	}
	s.saved = saved
	d := *s.decl
	d.Groups = append(slices.Clone(d.Groups), g)
	s.decl = &d
	s.cfg.Log.Info("workload saved", "workload", g.ID, "format", req.Format, "sha256", sum)
	writeJSON(w, http.StatusCreated, map[string]string{"workload": g.ID, "sha256": sum})
}

// addModel answers POST /api/model (bearer token): 201 when the config is
// stored, 200 when the store holds these bytes already, 400 naming what
// the config lacks, 409 for a model the build or catalog has or one the
// store holds with another config, 404 without a store.
func (s *Server) addModel(w http.ResponseWriter, r *http.Request) {
	var req modelRequest
	if !s.readUpload(w, r, MaxModelUploadBytes, &req, `{"model": "org/name", "config": "<config.json's text>"}`) {
		return
	}
	if s.cfg.Sim.UserModels == "" {
		writeError(w, http.StatusNotFound, "this server has no user-model store (--user-models, LEADERBOARD_USER_MODELS)")
		return
	}
	if k := strings.LastIndex(req.Model, "/"); k <= 0 || k == len(req.Model)-1 || len(req.Model) > 200 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("model: %q; give it as candidates do, org-prefixed (acme/tiny-7b)", req.Model))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, err := s.cfg.Sim.StoreUserModel(req.Model, []byte(req.Config))
	switch {
	case errors.Is(err, lbrun.ErrModelKnown), errors.Is(err, lbrun.ErrModelStored):
		writeError(w, http.StatusConflict, "model: "+err.Error())
		return
	case err != nil && strings.HasPrefix(err.Error(), "config.json"):
		writeError(w, http.StatusBadRequest, err.Error())
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	names, err := s.cfg.Sim.Names()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.cfg.Names = &names
	status := http.StatusOK
	if stored {
		status = http.StatusCreated
		s.cfg.Log.Info("user model stored", "model", req.Model)
	}
	writeJSON(w, status, map[string]string{"model": req.Model, "folder": simcli.ModelShortName(req.Model)})
}

// readSaved reads the workloads file (none: no saved workload).
func readSaved(file string) ([]leaderboard.Group, error) {
	raw, err := diskio.ReadPathMax(file, leaderboard.MaxWorkloadsBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return leaderboard.DecodeSavedWorkloads(raw)
}

// offered is the group id a candidate may be declared for: runs.yaml's,
// or a saved workload (nil: neither). s.mu is held.
func (s *Server) offered(id string) *leaderboard.Group {
	if g := s.cfg.Base.Group(id); g != nil {
		return g
	}
	for i := range s.saved {
		if s.saved[i].ID == id {
			return &s.saved[i]
		}
	}
	return nil
}

// withSaved adds to d, as groups without candidates, the saved workloads
// it lacks (those no candidate was declared for yet), their traces
// resolved from the directory holding the results directory results.
func withSaved(d *leaderboard.Declaration, saved []leaderboard.Group, results string) (*leaderboard.Declaration, error) {
	if len(saved) == 0 {
		return d, nil
	}
	if _, err := lbrun.ResolveTraces(&leaderboard.Declaration{Groups: saved}, filepath.Dir(filepath.Clean(results))); err != nil {
		return nil, fmt.Errorf("%s: %w", leaderboard.WorkloadsFile, err)
	}
	out := *d
	out.Groups = slices.Clone(d.Groups)
	for _, g := range saved {
		if out.Group(g.ID) == nil {
			out.Groups = append(out.Groups, g)
		}
	}
	return &out, nil
}
