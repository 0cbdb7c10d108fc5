package ghaction

import (
	"context"
	"errors"
	"fmt"
	"github.com/inference-sim/accuracy-dashboard/internal/git"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// scoring is what modes pr and merge (of pull-request shards) score.
type scoring struct {
	baseline bool
	shard    *runresult.Shard
	// shardsDir is the shards directory of mode merge ("": mode pr).
	shardsDir string
}

// runScoringMode runs modes pr and merge with the pinned harness.
func runScoringMode(ctx context.Context, in actionInputs, s scoring, env modeEnv) (prcheck.Outcome, error) {
	cfg := env.flow
	p, err := readPin(in)
	if err != nil {
		return prcheck.Outcome{}, err
	}
	pr, isPR, err := env.ev.pullRequest()
	if err != nil {
		return prcheck.Outcome{}, err
	}
	if !isPR {
		if s.shardsDir != "" {
			return prcheck.Outcome{}, errors.New("mode merge needs a pull_request event")
		}
		// Not a pull request (schedule, push, workflow_dispatch): score
		// the checked-out commit alone and do not comment.
		head, err := git.Head(ctx, in.simulatorPath)
		if err != nil {
			return prcheck.Outcome{}, fmt.Errorf("simulator checkout: %w", err)
		}
		pr = prcheck.PR{HeadSHA: head}
		s.baseline = false
		cfg.Comments = nil
	}

	h, err := pinnedScorer(ctx, in, p, &cfg, env)
	if err != nil {
		return prcheck.Outcome{}, err
	}
	h.SimRepo = in.simulatorPath
	flow := prcheck.NewFlow(cfg)

	if s.shardsDir != "" {
		return flow.RunMerge(ctx, pr, s.shardsDir)
	}
	commits := []string{pr.HeadSHA}
	if s.baseline {
		commits = append(commits, pr.BaseSHA)
	}
	if err := prepareSimulator(ctx, in.simulatorPath, commits...); err != nil {
		return prcheck.Outcome{}, err
	}
	return flow.RunPR(ctx, pr, s.baseline, s.shard)
}

// runCommentMode posts another run's report from a workflow_run job.
func runCommentMode(ctx context.Context, in commentModeOptions, env modeEnv) (prcheck.Outcome, error) {
	ev, cfg, gh := env.ev, env.flow, env.gh
	if ev.WorkflowRun == nil {
		return prcheck.Outcome{}, errors.New("mode comment runs on a workflow_run event")
	}
	if gh == nil {
		return prcheck.Outcome{}, errors.New("mode comment needs comment: true and a token")
	}
	if ev.WorkflowRun.HTMLURL != "" {
		cfg.DetailsURL = ev.WorkflowRun.HTMLURL
	}
	if err := ident.CheckCommit(ev.WorkflowRun.HeadSHA); err != nil {
		return prcheck.Outcome{}, fmt.Errorf("event: workflow_run.head_sha: %w", err)
	}
	return prcheck.NewFlow(cfg).RunComment(ctx, in.reportDir, ev.WorkflowRun.HeadSHA, gh)
}
