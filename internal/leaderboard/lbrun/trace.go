package lbrun

import (
	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
)

// checkNodes refuses a stored trace whose source spanned more than one
// node (leaderboard.CheckSingleNode), reading it once per content hash.
func (s *Sim) checkNodes(t *leaderboard.Trace) error {
	if v, ok := s.nodeChecks.Load(t.SHA256); ok {
		if v == nil {
			return nil
		}
		return v.(error)
	}
	var refusal error
	if s.TracesDir == "" {
		refusal = &leaderboard.PlanError{Reason: leaderboard.ReasonTraceRefused, Msg: "no traces directory is set to read the trace from"}
	} else if raw, err := readStored(s.TracesDir, t.SHA256+"/"+leaderboard.TraceSourceFile(t.Format)); err != nil {
		refusal = &leaderboard.PlanError{Reason: leaderboard.ReasonTraceRefused, Msg: "the stored trace cannot be read: " + err.Error()}
	} else if err := leaderboard.CheckSingleNode(t.Format, raw); err != nil {
		refusal = &leaderboard.PlanError{Reason: leaderboard.ReasonTraceRefused, Msg: err.Error()}
	}
	if refusal == nil {
		s.nodeChecks.Store(t.SHA256, nil)
	} else {
		s.nodeChecks.Store(t.SHA256, refusal)
	}
	return refusal
}

// readStored reads a stored trace file (name, slash-separated, below the
// traces directory dir) through OpenDir: a regular file inside it of at
// most leaderboard.MaxTraceBytes.
func readStored(dir, name string) ([]byte, error) {
	fsys, done, err := OpenDir(dir)
	if err != nil {
		return nil, err
	}
	defer done()
	return diskio.ReadFileMax(fsys, name, leaderboard.MaxTraceBytes)
}
