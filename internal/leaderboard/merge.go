package leaderboard

import (
	"encoding/json"
	"fmt"
	"slices"
)

// DeclarationsFile is the name of the file, beside a results directory,
// that holds the candidates declared through `leaderboard serve`'s API: a
// runs.yaml (format v1) whose groups restate the offered work of runs.yaml's
// groups of the same id and list only the candidates declared there.
// Commands that read runs.yaml merge it in (Merge), so validate and verify
// cover those runs; a maintainer promotes a candidate by moving it into
// runs.yaml.
const DeclarationsFile = "declarations.yaml"

// Merge returns base with the candidates of extra appended to the groups
// of the same id. A group of extra that is one of base's must have the
// same offered work and keep_up (a trace compared by its files as
// written), and each of its candidate ids must be new to the group; a group
// base does not have is appended as it is when its workload is a trace (a
// workload saved through the server), refused otherwise. base is not changed.
func Merge(base, extra *Declaration) (*Declaration, error) {
	out := *base
	out.Groups = slices.Clone(base.Groups)
	for i := range out.Groups {
		out.Groups[i].Candidates = slices.Clone(out.Groups[i].Candidates)
	}
	for gi, eg := range extra.Groups {
		i := slices.IndexFunc(out.Groups, func(g Group) bool { return g.ID == eg.ID })
		if i < 0 && (eg.Workload == nil || eg.Workload.Trace == nil) {
			return nil, extra.errorAt(fmt.Sprintf("groups[%d].id", gi), "group %s is not declared in runs.yaml (only a trace workload saved through the server is a group of its own)", eg.ID)
		}
		if i < 0 {
			eg.Candidates = slices.Clone(eg.Candidates)
			out.Groups = append(out.Groups, eg)
			continue
		}
		g := &out.Groups[i]
		for _, part := range []struct {
			field string
			a, b  any
		}{{"workload", OfferedAsWritten(g.Workload), OfferedAsWritten(eg.Workload)}, {"load", g.Load, eg.Load}, {"keep_up", g.KeepUp, eg.KeepUp}} {
			a, _ := json.Marshal(part.a)
			b, _ := json.Marshal(part.b)
			if string(a) != string(b) {
				return nil, extra.errorAt(fmt.Sprintf("groups[%d].%s", gi, part.field), "differs from group %s's in runs.yaml (%s here, %s there)", eg.ID, b, a)
			}
		}
		for ci, c := range eg.Candidates {
			if slices.ContainsFunc(g.Candidates, func(o Candidate) bool { return o.ID == c.ID }) {
				return nil, extra.errorAt(fmt.Sprintf("groups[%d].candidates[%d].id", gi, ci), "candidate %s is declared in group %s already", c.ID, eg.ID)
			}
			g.Candidates = append(g.Candidates, c)
		}
	}
	return &out, nil
}

// OfferedAsWritten is a workload without the content hash ResolveTraces
// sets, as runs.yaml and a declarations file write it.
func OfferedAsWritten(w *Workload) *Workload {
	if w == nil || w.Trace == nil {
		return w
	}
	c, t := *w, *w.Trace
	t.SHA256 = ""
	c.Trace = &t
	return &c
}
