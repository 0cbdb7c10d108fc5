package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

// runNightlyMerge is the Action's mode merge with a plan: it combines the
// outputs of a matrix of mode nightly shards into the one report the bot
// publishes. Every shard 1..n of one n must be there once (prcheck.PlanMerge),
// each must carry the plan this merge is for (plan.json), and the harness's
// merge refuses shards whose provenance differs (simulator build, harness,
// data versions). The merged head/ gets plan.json like an unsharded run.
func runNightlyMerge(ctx context.Context, in mergeModeOptions, cfg prcheck.FlowConfig, gha runner, stdout, stderr io.Writer) (prcheck.Outcome, error) {
	plan, err := nightly.Parse([]byte(in.plan))
	if err != nil {
		return prcheck.Outcome{}, fmt.Errorf("input plan: %w", err)
	}
	set, err := prcheck.PlanMerge(in.shardsDir)
	if err != nil {
		return prcheck.Outcome{}, err
	}
	if err := checkShardPlans(set.Head, plan); err != nil {
		return prcheck.Outcome{}, err
	}
	if len(set.Base) > 0 {
		return prcheck.Outcome{}, fmt.Errorf("merge: the nightly shards under %s have base results; nightly shards score the release alone", in.shardsDir)
	}
	if _, err := prepareNightly(ctx, nightlyModeOptions{actionInputs: in.actionInputs, plan: in.plan, merging: true}, &cfg, gha, stdout, stderr); err != nil {
		return prcheck.Outcome{}, err
	}
	out, err := prcheck.NewFlow(cfg).RunMerge(ctx, prcheck.PR{HeadSHA: plan.Simulator.Commit}, in.shardsDir)
	if err != nil {
		return out, err
	}
	return out, finishNightly(plan, out)
}

// checkShardPlans checks that every shard's result directory holds the
// plan.json of plan: shards of another nightly (another simulator release,
// harness or data) are refused, naming the shard and what differs.
func checkShardPlans(heads []string, plan nightly.Plan) error {
	for _, dir := range heads {
		name := filepath.Join(dir, nightly.File)
		raw, err := diskio.ReadPathMax(name, report.MaxSummaryBytes)
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("merge: %s is missing: %s is not the output of a nightly shard", name, dir)
		}
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		got, err := nightly.Parse(raw)
		if err != nil {
			return fmt.Errorf("merge: %s: %w", name, err)
		}
		if !nightly.Equal(got, plan) {
			diff := nightly.Changes(&plan, got)
			return fmt.Errorf("merge: %s was evaluated for another plan than this merge's (%v): shards of different nightlies cannot be merged", name, diff)
		}
	}
	return nil
}
