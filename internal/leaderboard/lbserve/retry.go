package lbserve

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"slices"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
)

// A mistake costs nothing: a candidate declared through the API whose runs
// failed (a result failed, or a run has none and no job is running it) is
// the token holder's to declare again under the same id, which replaces
// it and runs it again, or to remove (DELETE /api/run/{group}/{id}). A
// candidate of runs.yaml is the reviewed declaration's, and one with
// figures for every run stands: each is a conflict.

// buildName names the simulator build (and catalog) the server runs, for
// messages.
func (s *Server) buildName() string {
	v := s.cfg.Version
	name := "the simulator build " + v.Simulator.Tag
	if v.Simulator.Tag == "" {
		name = "the simulator build"
	}
	if v.Simulator.Commit != "" {
		name += " (" + ident.Short(v.Simulator.Commit) + ")"
	}
	return name
}

// declared says whether id is a candidate of group declared through the
// API (the declarations file), not one of runs.yaml. s.mu is held.
func (s *Server) declared(group, id string) bool {
	return !hasCandidate(s.cfg.Base, group, id) && hasCandidate(s.decl, group, id)
}

func hasCandidate(d *leaderboard.Declaration, group, id string) bool {
	g := d.Group(group)
	return g != nil && slices.ContainsFunc(g.Candidates, func(c leaderboard.Candidate) bool { return c.ID == id })
}

// redeclarable answers 0 when id may be declared in group now: it is new,
// or a candidate declared through the API whose runs failed; otherwise the
// conflict's status and message. s.mu is held.
func (s *Server) redeclarable(group, id string) (int, string) {
	switch {
	case s.pending[group+"/"+id]:
		return http.StatusConflict, fmt.Sprintf("candidate.id: %s of group %s is queued or running", id, group)
	case hasCandidate(s.cfg.Base, group, id):
		return http.StatusConflict, fmt.Sprintf("candidate.id: %s is declared in group %s already (in runs.yaml: change it by pull request)", id, group)
	case !hasCandidate(s.decl, group, id):
		return 0, ""
	}
	failed, err := s.failed(group, id)
	if err != nil {
		return http.StatusInternalServerError, err.Error()
	}
	if !failed {
		return http.StatusConflict, fmt.Sprintf("candidate.id: %s is declared in group %s already, with figures for every run (only a failed candidate is declared again)", id, group)
	}
	return 0, ""
}

// runsOf lists the runs of candidate id of group in d.
func runsOf(d *leaderboard.Declaration, group, id string) []leaderboard.DeclaredRun {
	var out []leaderboard.DeclaredRun
	for _, r := range d.Runs() {
		if r.Group == group && r.Candidate.ID == id {
			out = append(out, r)
		}
	}
	return out
}

// failed says whether a run of candidate id of group has a failed result or
// none (it is not pending: s.mu is held and the caller checked).
func (s *Server) failed(group, id string) (bool, error) {
	for _, r := range runsOf(s.decl, group, id) {
		raw, err := diskio.ReadPathMax(lbrun.ResultFile(s.cfg.Results, group, r.ID), leaderboard.MaxResultBytes)
		if errors.Is(err, fs.ErrNotExist) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		res, err := leaderboard.ParseResult(raw, group+"/"+r.ID+".json")
		if err != nil || res.Status != leaderboard.StatusOK {
			return true, nil
		}
	}
	return false, nil
}

// withoutCandidate is d without candidate id of group (d is not changed).
func withoutCandidate(d *leaderboard.Declaration, group, id string) *leaderboard.Declaration {
	out := *d
	out.Groups = slices.Clone(d.Groups)
	for i := range out.Groups {
		if out.Groups[i].ID == group {
			out.Groups[i].Candidates = slices.DeleteFunc(slices.Clone(out.Groups[i].Candidates), func(c leaderboard.Candidate) bool { return c.ID == id })
		}
	}
	return &out
}

// removeResults removes the result files of candidate id's runs in group
// (as d declares them), returning those it removed.
func (s *Server) removeResults(d *leaderboard.Declaration, group, id string) ([]string, error) {
	var removed []string
	for _, r := range runsOf(d, group, id) {
		err := os.Remove(lbrun.ResultFile(s.cfg.Results, group, r.ID))
		switch {
		case err == nil:
			removed = append(removed, group+"/"+r.ID+".json")
		case !errors.Is(err, fs.ErrNotExist):
			return removed, err
		}
	}
	return removed, nil
}

// remove answers DELETE /api/run/{group}/{id}: a failed candidate declared
// through the API leaves the declarations file, and its results are
// removed, so that nothing of it is left on the page (bearer token).
func (s *Server) remove(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="leaderboard"`)
		writeError(w, http.StatusUnauthorized, "DELETE /api/run needs Authorization: Bearer <the server's LEADERBOARD_TOKEN>")
		return
	}
	group, id := r.PathValue("group"), r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	if !hasCandidate(s.decl, group, id) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("candidate: group %q has no candidate %q", group, id))
		return
	}
	if status, msg := s.redeclarable(group, id); status != 0 {
		writeError(w, status, msg)
		return
	}
	d, err := s.readDeclarations()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "the declarations file: "+err.Error())
		return
	}
	d = withoutCandidate(d, group, id)
	d.Groups = slices.DeleteFunc(d.Groups, func(g leaderboard.Group) bool { return len(g.Candidates) == 0 })
	if len(d.Groups) == 0 {
		err = os.Remove(s.cfg.Declarations)
	} else {
		err = s.writeDeclarations(d)
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "the declarations file: "+err.Error())
		return
	}
	removed, err := s.removeResults(s.decl, group, id)
	s.decl = withoutCandidate(s.decl, group, id)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "removing its results: "+err.Error())
		return
	}
	s.cfg.Log.Info("candidate removed", "group", group, "candidate", id, "results", len(removed))
	writeJSON(w, http.StatusOK, map[string]any{"removed": group + "/" + id, "results": removed})
}
