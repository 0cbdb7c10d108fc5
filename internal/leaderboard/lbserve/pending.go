package lbserve

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
)

// A server started on a fresh volume (or after runs.yaml gained a
// candidate or changed one) has declared runs without a result: the page
// lists them as pending, and with Config.RunPending the server runs them,
// one job per candidate, in declaration order, whenever no job declared
// through the API is waiting.

// unrun lists the runs of the declaration that need running: those without
// a result, and those whose result ran another declaration (runs.yaml
// changed since: validate's declaration-changed). s.mu is held.
func (s *Server) unrun() ([]leaderboard.DeclaredRun, error) {
	all := s.decl.Runs()
	if _, err := os.Stat(s.cfg.Results); errors.Is(err, fs.ErrNotExist) {
		return all, nil
	}
	_, probs, err := lbrun.Check(s.decl, s.cfg.Results, "")
	if err != nil {
		return nil, err
	}
	need := map[string]bool{}
	for _, p := range probs {
		if p.Kind == leaderboard.ProblemMissing || p.Kind == leaderboard.ProblemChanged {
			need[p.File] = true
		}
	}
	var out []leaderboard.DeclaredRun
	for _, r := range all {
		if need[r.Group+"/"+r.ID+".json"] {
			out = append(out, r)
		}
	}
	return out, nil
}

// queuePending makes a job of each candidate's runs that need running
// (unrun) and puts it in the backlog. A results directory that cannot be
// read is logged and nothing is queued (the page then says why).
func (s *Server) queuePending() {
	s.mu.Lock()
	defer s.mu.Unlock()
	runs, err := s.unrun()
	if err != nil {
		s.cfg.Log.Warn("the runs without a result were not queued", "error", err.Error())
		return
	}
	byCand := map[string]*Job{}
	for _, r := range runs {
		key := r.Group + "/" + r.Candidate.ID
		j := byCand[key]
		if j == nil {
			j = &Job{ID: newID(), Status: JobQueued}
			byCand[key] = j
			s.jobs[j.ID] = j
			s.pending[key] = true
			s.backlog = append(s.backlog, j)
		}
		j.runs = append(j.runs, r)
	}
	if len(runs) > 0 {
		s.cfg.Log.Info("queued the declared runs without a result", "runs", len(runs), "jobs", len(s.backlog))
	}
}

// takeBacklog takes the next job of the backlog (nil: none).
func (s *Server) takeBacklog() *Job {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.backlog) == 0 {
		return nil
	}
	j := s.backlog[0]
	s.backlog = s.backlog[1:]
	return j
}

// markPending says, for each pending row of b whose run a job holds,
// whether it is queued or running and in which job.
func (s *Server) markPending(b leaderboard.Board) {
	s.mu.Lock()
	state := map[string]string{}
	for _, j := range s.jobs {
		if j.Status != JobQueued && j.Status != JobRunning {
			continue
		}
		for _, r := range j.runs {
			state[r.Group+"/"+r.ID] = j.Status + " (job " + j.ID + ")"
		}
	}
	s.mu.Unlock()
	for gi := range b.Groups {
		g := &b.Groups[gi]
		for ti := range g.Tables {
			for ri := range g.Tables[ti].Pending {
				row := &g.Tables[ti].Pending[ri]
				if st, ok := state[g.ID+"/"+row.Run]; ok {
					row.Reason = st
				}
			}
		}
	}
}

// jobsState names the queued and running jobs with their states, sorted:
// what markPending draws, so the cached page is drawn again when it
// changes.
func (s *Server) jobsState() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var st []string
	for id, j := range s.jobs {
		if j.Status == JobQueued || j.Status == JobRunning {
			st = append(st, id+" "+j.Status)
		}
	}
	slices.Sort(st)
	return strings.Join(st, ",")
}
