package ghaction

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/pinned"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

// scoring is what modes pr and merge (of pull-request shards) score.
type scoring struct {
	baseline bool
	shard    *report.Shard
	// merge is the shards directory of mode merge ("": mode pr).
	merge string
}

// runScoringMode runs modes pr and merge with the pinned harness.
func runScoringMode(ctx context.Context, in actionInputs, s scoring, a modeEnv) (prcheck.Outcome, error) {
	cfg := a.flow
	p, err := readPin(in)
	if err != nil {
		return prcheck.Outcome{}, err
	}
	pr, isPR, err := a.ev.pullRequest()
	if err != nil {
		return prcheck.Outcome{}, err
	}
	if !isPR {
		if s.merge != "" {
			return prcheck.Outcome{}, errors.New("mode merge needs a pull_request event")
		}
		// Not a pull request (schedule, push, workflow_dispatch): score
		// the checked-out commit alone and do not comment.
		head, err := simulatorHead(ctx, in.simulatorPath)
		if err != nil {
			return prcheck.Outcome{}, fmt.Errorf("simulator checkout: %w", err)
		}
		pr = prcheck.PR{HeadSHA: head}
		s.baseline = false
		cfg.Comments = nil
	}

	h, err := pinnedScorer(ctx, in, p, &cfg, a)
	if err != nil {
		return prcheck.Outcome{}, err
	}
	h.SimRepo = in.simulatorPath
	flow := prcheck.NewFlow(cfg)

	if s.merge != "" {
		return flow.RunMerge(ctx, pr, s.merge)
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

// readPin reads and parses the pin file.
func readPin(in actionInputs) (pin.Pin, error) {
	src, err := diskio.ReadPathMax(in.pinFile, pin.MaxFileBytes)
	if err != nil {
		return pin.Pin{}, fmt.Errorf("pin file: %w (create it, or set pin-file; see docs/ACTION.md)", err)
	}
	return pin.Parse(src, relPath(in.simulatorPath, in.pinFile))
}

// pinnedScorer prepares the pinned harness (clone, verify, build) and makes
// it cfg's scorer, with the pin's data, the cache and the jobs, and cfg's
// cache key; the caller sets which simulator repository it scores.
func pinnedScorer(ctx context.Context, in actionInputs, p pin.Pin, cfg *prcheck.FlowConfig, a modeEnv) (*pinned.Harness, error) {
	a.gha.Group(fmt.Sprintf("Prepare the pinned harness %s (%s)", p.Harness.Tag, p.Harness.Commit))
	h, err := pinned.Prepare(ctx, p, cloneURL(p.Harness, in), in.cacheDir, harness.CleanEnv(os.Environ()), a.stdout, a.stderr)
	a.gha.EndGroup()
	if err != nil {
		return nil, err
	}
	h.Args = append(pinned.DataArgs(p, in.simulatorPath), "--cache-dir", in.cacheDir)
	if in.jobs > 0 {
		h.Args = append(h.Args, "--jobs", strconv.Itoa(in.jobs))
	}
	cfg.Scorer = h
	data, err := pinned.DataKey(p, in.simulatorPath)
	if err != nil {
		return nil, err
	}
	cfg.Key = prcheck.CacheKey{HarnessCommit: p.Harness.Commit, Data: data}
	return h, nil
}

// runCommentMode posts another run's report from a workflow_run job.
func runCommentMode(ctx context.Context, in commentModeOptions, a modeEnv) (prcheck.Outcome, error) {
	ev, cfg, gh := a.ev, a.flow, a.gh
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

// cloneURL resolves a pinned repository (the harness, or the leaderboard's
// simulator): owner/name on this GitHub server, a relative local path
// against the consumer repository.
func cloneURL(h pin.Harness, in actionInputs) string {
	r := h.Repository
	if strings.HasPrefix(r, "./") || strings.HasPrefix(r, "../") {
		return filepath.Join(in.simulatorPath, r)
	}
	return h.CloneURL(in.serverURL)
}
