package lbrun

import (
	"context"
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/pool"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Recorded is a declared run with the result filed for it.
type Recorded struct {
	Run    leaderboard.DeclaredRun
	Result *leaderboard.Result
}

// Verdict is what Verify found for one recorded result: a problem that
// kept it from running (Problem.Kind set), or the fields in which the
// re-run differs from the record (none: it reproduced exactly).
type Verdict struct {
	Group, Run string
	Problem    leaderboard.Problem
	Diffs      []runresult.FieldDiff
}

// Verify runs every recorded result again and compares the re-run with the
// record, field by field (leaderboard.Diff). Nothing runs that was not
// planned: each result's run is planned again from runs.yaml's declaration
// on the build the result records (sim gives the probed build of a
// simulator commit; harness is the tool the result records), and a result
// whose recorded declaration is not runs.yaml's (declaration-changed), or
// whose recorded command, conversion or input files are not that plan
// (unplanned-command), is a Problem and is not run. A run whose planning
// fails is not simulated either: the re-run is the failed result the plan
// gives, which the record must equal. The verdicts are in the order of
// recs. An error is what stops verifying: a build that cannot be
// prepared, a catalog other than the one a result ran with, ctx ending.
func Verify(ctx context.Context, recs []Recorded, sim func(commit string, harness runresult.Harness) (*Sim, error), workers int) ([]Verdict, error) {
	out := make([]Verdict, len(recs))
	type job struct {
		i   int
		s   *Sim
		inv leaderboard.Invocation
	}
	var queued []job
	for i, rc := range recs {
		rec, decl := rc.Result, rc.Run
		file := rec.Group + "/" + rec.Run + ".json"
		out[i] = Verdict{Group: rec.Group, Run: rec.Run}
		if d := runresult.DiffJSON(decl, rec.Declaration); len(d) > 0 {
			out[i].Problem = leaderboard.Problem{Kind: leaderboard.ProblemChanged, File: file,
				Msg: "ran another declaration than runs.yaml's; re-run it, nothing was verified (" + d[0].String() + ")"}
			continue
		}
		s, err := sim(rec.Provenance.Simulator.Commit, rec.Provenance.Harness)
		if err != nil {
			return nil, err
		}
		if !sameCatalog(rec.Provenance.Catalog, s.CatalogVersion) {
			return nil, fmt.Errorf("%s ran with catalog %s; give that catalog with --catalog (now: %s)", file, catalogName(rec.Provenance.Catalog), catalogName(s.CatalogVersion))
		}
		inv, err := s.Plan(decl)
		if why := leaderboard.Unplanned(rec, inv, err); why != "" {
			out[i].Problem = leaderboard.Problem{Kind: leaderboard.ProblemUnplanned, File: file, Msg: why + "; it was not run"}
			continue
		}
		if err != nil {
			// Planning fails on this build as it did: nothing to run.
			out[i].Diffs = diffRerun(rec, s.failed(decl, leaderboard.Bare(decl), err))
			continue
		}
		queued = append(queued, job{i, s, inv})
	}
	costs := make([]float64, len(queued))
	runs := make([]leaderboard.DeclaredRun, len(queued))
	for k, j := range queued {
		runs[k] = recs[j.i].Run
	}
	copy(costs, Costs(runs))
	pool.Run(ctx, max(workers, 1), costs, func(ctx context.Context, k int) {
		j := queued[k]
		rerun := j.s.Execute(ctx, recs[j.i].Run, j.inv)
		out[j.i].Diffs = diffRerun(recs[j.i].Result, rerun)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// diffRerun compares a record with its re-run, which records the
// recorded tool (verify compares everything else).
func diffRerun(rec, rerun *leaderboard.Result) []runresult.FieldDiff {
	rerun.Provenance.Harness = rec.Provenance.Harness
	return leaderboard.Diff(rec, rerun)
}

func sameCatalog(a, b *runresult.DataVersion) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Digest == b.Digest
}

func catalogName(v *runresult.DataVersion) string {
	if v == nil {
		return "none"
	}
	return v.Name + " " + v.Version + " (" + v.Digest + ")"
}
