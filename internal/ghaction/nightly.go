package ghaction

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/bisect"
	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/github"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/pinned"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/sticky"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// runNightlyPlanMode is the Action's mode nightly-plan: it resolves the plan
// of the dashboard checkout (dashboard.ResolvePlan), notices its first
// line, writes the job summary and the outputs changed (true/false), plan
// (one line of JSON), inferencex-dump (the dump tag it names, "" for none)
// and last-snapshot (the last run's snapshot id, "" for none).
func runNightlyPlanMode(ctx context.Context, in nightlyPlanModeOptions, env modeEnv) error {
	gha := env.gha
	gh, err := github.New(github.Options{Token: in.token, BaseURL: in.apiURL, Login: sticky.DefaultBotLogin})
	if err != nil {
		return err
	}
	res, err := dashboard.ResolvePlan(ctx, gh.Tags(), dashboard.Checkout{Dir: in.simulatorPath, PinFile: in.pinFile,
		SimulatorRepo: in.simulatorRepo, InferenceXRepo: in.inferencexRepo, DataKey: pinned.DataKey})
	if err != nil {
		return err
	}
	md := render.NightlyPlan(res.Plan, res.Changes, res.LastID)
	gha.Notice(strings.TrimSpace(strings.SplitN(md, "\n", 2)[0]))
	if in.summaryPath != "" {
		if err := gha.addStepSummary(md); err != nil {
			return err
		}
	}
	return gha.setOutputs([][2]string{
		{"changed", strconv.FormatBool(len(res.Changes) > 0)},
		{"plan", string(res.Plan.Encode())},
		{"inferencex-dump", res.Plan.DataVersion(nightly.DataInferenceXDump)},
		{"last-snapshot", res.LastID},
	})
}

// runNightlyMode is the Action's mode nightly: score the plan's simulator
// release with the pinned harness (which must be the plan's) over the whole
// corpus (or one shard), no baseline and no comment, and put plan.json next
// to the head's summary.json for the bot (or the merge of the shards).
func runNightlyMode(ctx context.Context, in nightlyModeOptions, env modeEnv) (prcheck.Outcome, error) {
	cfg := env.flow
	plan, _, err := prepareNightly(ctx, in, &cfg, env)
	if err != nil {
		return prcheck.Outcome{}, err
	}
	out, err := prcheck.NewFlow(cfg).RunPR(ctx, prcheck.PR{HeadSHA: plan.Simulator.Commit}, false, in.shard)
	if err != nil {
		return out, err
	}
	return out, finishNightly(plan, out)
}

// prepareNightly parses the plan, checks that the pin still names its
// harness, and makes the pinned harness (returned) cfg's scorer of the
// plan's simulator repository, with the ledger imported from the plan's
// InferenceX dump (in.ledgerDir) when the plan names one.
func prepareNightly(ctx context.Context, in nightlyModeOptions, cfg *prcheck.FlowConfig, env modeEnv) (nightly.Plan, *pinned.Harness, error) {
	plan, err := nightly.Parse([]byte(in.plan))
	if err != nil {
		return plan, nil, fmt.Errorf("input plan: %w", err)
	}
	p, err := readPin(in.actionInputs)
	if err != nil {
		return plan, nil, err
	}
	if p.Harness.Commit != plan.Harness.Commit || p.Harness.Tag != plan.Harness.Release {
		return plan, nil, fmt.Errorf("the pin names harness %s (%s) but the plan %s (%s): the pin moved since the plan; the next nightly evaluates it",
			p.Harness.Tag, p.Harness.Commit, plan.Harness.Release, plan.Harness.Commit)
	}
	dump := plan.DataVersion(nightly.DataInferenceXDump)
	switch {
	case in.merging:
	case dump != "" && in.ledgerDir == "":
		return plan, nil, fmt.Errorf("the plan names InferenceX dump %s but no ledger-dir was given: import it first (inferencex-db-ledger.yml) and pass its directory", dump)
	case dump == "" && in.ledgerDir != "":
		return plan, nil, fmt.Errorf("input ledger-dir %s given but the plan names no InferenceX dump: the nightly scores the pin's ledger", in.ledgerDir)
	case dump != "" && p.Data.Ledger != pin.Bundled:
		return plan, nil, fmt.Errorf("the pin names ledger %q and the plan InferenceX dump %s: a nightly scores one ledger; set data.ledger to bundled or leave the dump out", p.Data.Ledger, dump)
	}
	cfg.Comments = nil
	// No result cache: it is keyed by the simulator commit, not the
	// release tag the nightly checks (a release re-tagging a scored commit
	// would get the old tag's result). The nightly reuses the last
	// snapshot's predictions by replay digest instead (reuse).
	cfg.Cache = nil
	h, err := pinnedScorer(ctx, in.actionInputs, p, cfg, env)
	if err != nil {
		return plan, nil, err
	}
	// The plan names the simulator as owner/name (on this GitHub server)
	// or as a clone URL or path, taken as written.
	h.SimRepo = pin.Harness{Repository: plan.Simulator.Repository}.CloneURL(in.serverURL)
	if in.ledgerDir != "" {
		digest, err := harness.DigestFS(os.DirFS(in.ledgerDir))
		if err != nil {
			return plan, nil, fmt.Errorf("input ledger-dir %s: %w", in.ledgerDir, err)
		}
		h.Args = append(h.Args, "--ledger", in.ledgerDir)
		cfg.Key.Data["ledger"] = digest
	}
	if in.reuseDir != "" {
		// The last snapshot: its predictions whose replay digest is
		// unchanged are taken, the rest simulated. A snapshot without
		// points (or none at that path) reuses nothing.
		if _, err := os.Stat(filepath.Join(in.reuseDir, runresult.PointsFile)); err != nil {
			env.gha.Notice(fmt.Sprintf("reuse: %s has no %s: every point is simulated", in.reuseDir, runresult.PointsFile))
		} else {
			h.Args = append(h.Args, "--reuse", in.reuseDir)
		}
	}
	return plan, h, nil
}

// finishNightly checks that the build scored is the plan's release and
// writes plan.json next to the head's summary.json.
func finishNightly(plan nightly.Plan, out prcheck.Outcome) error {
	if tag := out.Head.Provenance.Simulator.Tag; tag != plan.Simulator.Release {
		return fmt.Errorf("the plan's simulator release %s names commit %s, but the harness found that commit tagged %q", plan.Simulator.Release, plan.Simulator.Commit, tag)
	}
	if err := diskio.WriteAtomic(filepath.Join(out.HeadDir, nightly.File), append(plan.Encode(), '\n')); err != nil {
		return fmt.Errorf("write %s: %w", nightly.File, err)
	}
	return nil
}

// runNightlyMerge is the Action's mode merge with a plan: it combines the
// outputs of a matrix of mode nightly shards into the one report the bot
// publishes. Every shard 1..n of one n must be there once (prcheck.PlanMerge),
// each must carry the plan this merge is for (plan.json), and the harness's
// merge refuses shards whose provenance differs (simulator build, harness,
// data versions). The merged head/ gets plan.json like an unsharded run.
func runNightlyMerge(ctx context.Context, in mergeModeOptions, env modeEnv) (prcheck.Outcome, error) {
	cfg := env.flow
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
	if dump := plan.DataVersion(nightly.DataInferenceXDump); in.whatIf != "" && dump != "" && in.ledgerDir == "" {
		return prcheck.Outcome{}, inputError(inWhatIf, "the plan names InferenceX dump %s, whose ledger the what-ifs score: give its directory as ledger-dir", dump)
	}
	h, err := prepareNightlyMerge(ctx, in, &cfg, env)
	if err != nil {
		return prcheck.Outcome{}, err
	}
	out, err := prcheck.NewFlow(cfg).RunMergeSet(ctx, prcheck.PR{HeadSHA: plan.Simulator.Commit}, set)
	if err != nil {
		return out, err
	}
	if err := finishNightly(plan, out); err != nil {
		return out, err
	}
	if err := scoreWhatIfs(ctx, h, in, plan, out, env.gha); err != nil {
		return out, err
	}
	return out, bisectHint(in, out.Head, env.gha)
}

// prepareNightlyMerge prepares the pinned harness of a nightly's merge
// (prepareNightly: its shards were scored already), with the plan's ledger
// when given (the what-ifs score it).
func prepareNightlyMerge(ctx context.Context, in mergeModeOptions, cfg *prcheck.FlowConfig, env modeEnv) (*pinned.Harness, error) {
	_, h, err := prepareNightly(ctx, nightlyModeOptions{actionInputs: in.actionInputs, plan: in.plan, ledgerDir: in.ledgerDir, merging: true}, cfg, env)
	return h, err
}

// scoreWhatIfs measures the merged run with the what-ifs in.whatIf names
// (none when ""): the pinned harness's score --what-if of the plan's
// simulator commit, reusing every prediction of the merged run (its replay
// digests are the same), so that only the what-ifs' points are simulated;
// their runs go into the merged run's whatif/ (the report artifact, which
// the bot publishes beside the snapshot), and the job summary gets their
// Why section. A pinned harness without --what-if fails here, naming it.
func scoreWhatIfs(ctx context.Context, h *pinned.Harness, in mergeModeOptions, plan nightly.Plan, out prcheck.Outcome, gha runner) error {
	if in.whatIf == "" {
		return nil
	}
	tmp := out.HeadDir + ".whatif"
	defer os.RemoveAll(tmp)
	gha.Group(fmt.Sprintf("What-ifs %s, measured against the merged run", in.whatIf))
	err := h.RunCommand(ctx, append([]string{"score", "--sim-repo", h.SimRepo, "--sim", plan.Simulator.Commit, "--what-if", in.whatIf,
		"--reuse", out.HeadDir, "--out", tmp}, h.Args...))
	gha.EndGroup()
	if err != nil {
		return fmt.Errorf("what-ifs (input %s %q) with the pinned harness %s: %w", inWhatIf, in.whatIf, plan.Harness.Release, err)
	}
	if err := os.Rename(filepath.Join(tmp, whatif.Dir), filepath.Join(out.HeadDir, whatif.Dir)); errors.Is(err, os.ErrNotExist) {
		gha.Notice(fmt.Sprintf("what-ifs %s: none applies to the corpus's units", in.whatIf))
		return nil
	} else if err != nil {
		return fmt.Errorf("what-ifs: %w", err)
	}
	merged, err := runresult.Read(out.HeadDir)
	if err != nil {
		return fmt.Errorf("what-ifs: %w", err)
	}
	runs, err := whatif.ReadRuns(out.HeadDir)
	if err != nil {
		return fmt.Errorf("what-ifs: %w", err)
	}
	var attrs []whatif.Attribution
	for _, r := range runs {
		a, err := whatif.Attribute(merged.Points, r)
		if err != nil {
			return fmt.Errorf("what-ifs: %w", err)
		}
		gha.Notice(render.WhySentence(a))
		attrs = append(attrs, a)
	}
	if in.summaryPath == "" {
		return nil
	}
	return gha.addStepSummary(render.Why(out.Head, attrs))
}

// bisectHint compares the merged run's headline MAPE with the last
// snapshot's (input reuse) and, where one moved by more than the
// alert-threshold, says so in a notice and the job summary with the exact
// action bisect command (bisect.Hints, render.BisectHints). Nothing
// without both inputs; a last snapshot that cannot be read is a notice.
func bisectHint(in mergeModeOptions, head runresult.Summary, gha runner) error {
	if in.reuseDir == "" || in.thresholds.Alert == nil {
		return nil
	}
	prev, err := runresult.Read(in.reuseDir)
	if err != nil {
		gha.Notice(fmt.Sprintf("bisect hint: the last snapshot cannot be read, no comparison: %v", err))
		return nil
	}
	hints := bisect.Hints(prev.Summary, head, *in.thresholds.Alert)
	for _, h := range hints {
		gha.Notice(fmt.Sprintf("headline %s MAPE %.2f%% → %.2f%% since the last snapshot: action bisect %s", h.Metric, h.Before, h.After, strings.Join(h.Args, " ")))
	}
	if len(hints) == 0 || in.summaryPath == "" {
		return nil
	}
	return gha.addStepSummary(render.BisectHints(hints))
}

// checkShardPlans checks that every shard's result directory holds the
// plan.json of plan: shards of another nightly (another simulator release,
// harness or data) are refused, naming the shard and what differs.
func checkShardPlans(heads []string, plan nightly.Plan) error {
	for _, dir := range heads {
		name := filepath.Join(dir, nightly.File)
		raw, err := diskio.ReadPathMax(name, runresult.MaxSummaryBytes)
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
