package publish

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"path"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// PublishGitHub is what Publisher needs from GitHub.
type PublishGitHub interface {
	RepoReader
	Committer
	Releases
	Artifacts
	Refusals
}

// PublishConfig configures Publisher.
type PublishConfig struct {
	// Dashboard receives the snapshots, on its default branch.
	Dashboard ident.Repo
	// Harness is the harness repository (for asserted harness commits).
	Harness ident.Repo
	// Workflow is the publishing workflow: its repository and file path.
	WorkflowRepo ident.Repo
	WorkflowPath string
	// Artifact is the name of the run's report artifact.
	Artifact string
	// MaxAttempts, when positive, bounds the rebuild-and-retry loop on
	// ref-update conflicts; 0 retries until the deadline.
	MaxAttempts int
	// Deadline bounds one publish, retries included (DefaultPublishDeadline
	// if 0); the context's deadline wins when it is sooner.
	Deadline time.Duration
	// DryRun plans without writing anything.
	DryRun bool
	// Leaderboard, when set, publishes the leaderboard workflow's runs
	// too (internal/leaderboard/lbpublish, which cmd/bot wires in).
	Leaderboard RunPublisher
}

// RunPublisher publishes the runs of a second workflow besides the
// snapshots' (the leaderboard's: internal/leaderboard/lbpublish), through
// the Publisher that received the run.
type RunPublisher interface {
	// SkipRun says why run is not its workflow's to publish ("" when it
	// is), without calling GitHub.
	SkipRun(run WorkflowRun) string
	// Kind is what it publishes and Artifact the name of its runs'
	// artifact, as a refusal comment names them.
	Kind() PublishKind
	Artifact() string
	// PublishRun publishes run through p (its GitHub interfaces,
	// DownloadArtifact, CommitDashboard); a refused artifact is a
	// PublishRefused result (Refused) with a nil error.
	PublishRun(ctx context.Context, p *Publisher, run WorkflowRun, log *slog.Logger) (PublishResult, error)
}

// DefaultPublishDeadline is how long a publish keeps rebuilding its commit
// while the dashboard branch keeps moving: within the webhook handler's
// 10-minute limit.
const DefaultPublishDeadline = 5 * time.Minute

// Backoff between attempts after a moved head: a random wait (full jitter)
// up to a cap that doubles from RetryBase to RetryMax, so concurrent
// publishers spread out instead of colliding again in lockstep.
const (
	RetryBase = 50 * time.Millisecond
	RetryMax  = 5 * time.Second
)

// Report is what a run hands to the bot, as raw untrusted bytes:
// summary.json, points.json and, from the nightly, its plan.json (nil when
// absent).
type Report struct {
	Summary, Points, Plan []byte
	// WhatIfs are the what-if runs measured against the run, kept beside
	// it in whatif/<name>/ (whatif.ReadRunsFS: each a what-if of its
	// folder's name, read through runresult.Parse), to publish beside its
	// snapshot.
	WhatIfs []runresult.Result
	// RunID is the workflow run (0: published by hand).
	RunID int64
}

// Publisher publishes gated summaries to the dashboard repository.
type Publisher struct {
	GH  PublishGitHub
	Cfg PublishConfig
	Log *slog.Logger
	// Now is the clock, for snapshots without a run time.
	Now func() time.Time
	// Jitter returns a random duration in [0, n) (nil: math/rand/v2).
	Jitter func(n time.Duration) time.Duration
}

// Publish outcomes.
const (
	PublishPublished = "published"
	PublishUnchanged = "unchanged"
	PublishRefused   = "refused"
	PublishIgnored   = "ignored"
	PublishPlanned   = "planned"
)

// PublishResult is what a publish did (or would do).
type PublishResult struct {
	Outcome string
	// Reasons say why a summary was refused or a run ignored.
	Reasons []string
	ID      string
	// Commit is the dashboard commit made ("" unless published).
	Commit string
	// Files and Message are the planned commit.
	Files    map[string][]byte
	Message  string
	Attempts int
}

// RunDecision says whether a completed run should be published ("" when it
// should): the configured workflow of the configured repository, a success,
// not triggered by a pull request, from the repository itself (a run whose
// head repository is unknown, as GitHub reports a deleted fork's, is not
// published: it cannot be shown not to come from a fork), and run on the
// repository's default branch (a run on any other branch, or whose default
// branch is unknown, is not published: its harness checkout is not the
// harness's main line).
func RunDecision(run WorkflowRun, repo ident.Repo, workflow string) string {
	wf, _, _ := strings.Cut(run.WorkflowPath, "@")
	switch {
	case !run.Repo.Same(repo):
		return fmt.Sprintf("run of %s, not of %s", run.Repo, repo)
	case wf != workflow:
		return fmt.Sprintf("workflow %s is not the publishing workflow %s", wf, workflow)
	case run.Status != "" && run.Status != "completed":
		return fmt.Sprintf("run status %q is not completed", run.Status)
	case run.Conclusion != "success":
		return fmt.Sprintf("run concluded %q, not success", run.Conclusion)
	case strings.HasPrefix(run.Event, "pull_request"):
		return fmt.Sprintf("run triggered by %s", run.Event)
	case run.HeadRepo == (ident.Repo{}):
		return "the run's head repository is unknown (it cannot be shown not to be a fork)"
	case !run.HeadRepo.Same(run.Repo):
		return fmt.Sprintf("run of a commit from %s", run.HeadRepo)
	case run.DefaultBranch == "":
		return "the repository's default branch is unknown"
	case run.HeadBranch != run.DefaultBranch:
		return fmt.Sprintf("run on branch %q, not the default branch %q", run.HeadBranch, run.DefaultBranch)
	}
	return ""
}

// SkipRun says why run is not published under p's configuration ("" when
// it is): RunDecision, without calling GitHub. The webhook server asks it
// before queueing a run.
func (p *Publisher) SkipRun(run WorkflowRun) string {
	reason := RunDecision(run, p.Cfg.WorkflowRepo, p.Cfg.WorkflowPath)
	if reason == "" || p.Cfg.Leaderboard == nil {
		return reason
	}
	if lb := p.Cfg.Leaderboard.SkipRun(run); lb != "" {
		return reason + "; " + lb
	}
	return ""
}

// Logger is where the publisher logs (Log, or slog's default).
func (p *Publisher) Logger() *slog.Logger {
	if p.Log == nil {
		return slog.Default()
	}
	return p.Log
}

// PublishRun publishes the report artifact of a completed run. A run that
// is not the publishing workflow's success is ignored. A refused artifact
// (missing, malformed, invalid or gated) gets its reasons logged and
// reported on the run's head commit (best effort: a failure to report is
// logged); a refusal is an outcome, not an error. log (nil: Log) receives
// the outcome; a webhook handler passes its delivery's logger.
func (p *Publisher) PublishRun(ctx context.Context, run WorkflowRun, log *slog.Logger) (PublishResult, error) {
	if log == nil {
		log = p.Logger()
	}
	log = log.With("run", run.ID, "workflow", run.WorkflowPath)
	kind, artifact, publish := KindSnapshot, p.Cfg.Artifact, p.publishRun
	if reason := p.SkipRun(run); reason != "" {
		log.Info("run ignored", "reason", reason)
		return PublishResult{Outcome: PublishIgnored, Reasons: []string{reason}}, nil
	}
	if RunDecision(run, p.Cfg.WorkflowRepo, p.Cfg.WorkflowPath) != "" {
		lb := p.Cfg.Leaderboard
		kind, artifact = lb.Kind(), lb.Artifact()
		publish = func(ctx context.Context, run WorkflowRun, log *slog.Logger) (PublishResult, error) {
			return lb.PublishRun(ctx, p, run, log)
		}
	}
	res, err := publishSafely(ctx, run, log, publish)
	if err != nil {
		return res, err
	}
	if res.Outcome == PublishRefused {
		log.Warn("artifact refused", "kind", kind.Title, "reasons", res.Reasons)
		if !p.Cfg.DryRun {
			// The refusal is final and logged; failing to also show it on
			// the commit (e.g. a missing permission) must not make a
			// redelivery run it again.
			body := render.RefusalComment(render.Refusal{What: kind.Title, Kind: kind.Artifact, Artifact: artifact,
				RunID: run.ID, RunURL: run.URL, Workflow: run.WorkflowPath, Reasons: res.Reasons})
			if err := p.GH.ReportRefusal(ctx, run.Repo, run.HeadSHA, body); err != nil {
				log.Error("reporting the refusal on the commit failed", "commit", run.HeadSHA, "err", err)
			}
		}
		return res, nil
	}
	log.Info("publish", "kind", kind.Title, "outcome", res.Outcome, "snapshot", res.ID, "commit", res.Commit, "attempts", res.Attempts, "reasons", res.Reasons)
	return res, nil
}

// publishSafely runs publish with a panic turned into an error: no
// artifact may crash the bot.
func publishSafely(ctx context.Context, run WorkflowRun, log *slog.Logger, publish func(context.Context, WorkflowRun, *slog.Logger) (PublishResult, error)) (res PublishResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = PublishResult{}, fmt.Errorf("publish run %d: panic: %v\n%s", run.ID, r, debug.Stack())
		}
	}()
	return publish(ctx, run, log)
}

// DownloadArtifact downloads the run's artifact called name. An oversized
// artifact is a refusal reason, not an error; a missing or expired one is
// an error wrapping ghmodel.ErrNotFound, whose meaning each caller decides.
func (p *Publisher) DownloadArtifact(ctx context.Context, run WorkflowRun, name string) (zipped []byte, reason string, err error) {
	zipped, err = p.GH.RunArtifact(ctx, run.Repo, run.ID, name)
	switch {
	case errors.Is(err, ghmodel.ErrTooLarge):
		return nil, fmt.Sprintf("artifact %q is larger than %d bytes", name, MaxArtifactBytes), nil
	case err != nil:
		return nil, "", fmt.Errorf("download artifact %s: %w", name, err)
	}
	return zipped, "", nil
}

func (p *Publisher) publishRun(ctx context.Context, run WorkflowRun, log *slog.Logger) (PublishResult, error) {
	zipped, reason, err := p.DownloadArtifact(ctx, run, p.Cfg.Artifact)
	if errors.Is(err, ghmodel.ErrNotFound) {
		// The shipped nightly ends a run whose plan found nothing changed
		// successfully and without a report: most nights. That is nothing
		// to publish, not a refusal to comment on every night.
		return PublishResult{Outcome: PublishIgnored, Reasons: []string{fmt.Sprintf(
			"run %d uploaded no artifact named %q (or it expired): nothing to publish; a nightly whose plan found nothing changed uploads none", run.ID, p.Cfg.Artifact)}}, nil
	}
	if reason != "" || err != nil {
		return Refused(reason), err
	}
	rep, err := ReportFromArtifact(zipped)
	if err != nil {
		return Refused(fmt.Sprintf("artifact %q: %v", p.Cfg.Artifact, err)), nil
	}
	rep.RunID = run.ID
	when := run.UpdatedAt
	if when.IsZero() {
		when = p.now()
	}
	return p.publish(ctx, rep, when, run.URL, log)
}

func (p *Publisher) now() time.Time {
	if p.Now == nil {
		return time.Now()
	}
	return p.Now()
}

// Refused is the result of a refused publish, with its reasons.
func Refused(reasons ...string) PublishResult {
	return PublishResult{Outcome: PublishRefused, Reasons: reasons}
}

// ReportFromArtifact reads an artifact's zip archive (readArchive: its
// limits, and every entry a regular file under a clean path): the one file
// named summary.json (at any depth, required), and points.json and
// plan.json next to it (each optional here; at most one of each name), and
// the what-if runs in the whatif/ folder next to it (Report.WhatIfs: each
// whatif/<name>/ a what-if of that name with its summary.json and
// points.json). A what-if's file anywhere else is an error.
func ReportFromArtifact(zipped []byte) (Report, error) {
	files, err := readArchive(zipped)
	if err != nil {
		return Report{}, err
	}
	found := map[string]string{}
	var whatIfFiles []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		base := path.Base(name)
		if base != runresult.SummaryFile && base != runresult.PointsFile && base != nightly.File {
			continue
		}
		if path.Base(path.Dir(path.Dir(name))) == whatif.Dir {
			whatIfFiles = append(whatIfFiles, name)
			continue
		}
		if prev, ok := found[base]; ok {
			return Report{}, fmt.Errorf("more than one %s (%s, %s)", base, prev, name)
		}
		found[base] = name
	}
	sum, ok := found[runresult.SummaryFile]
	if !ok {
		return Report{}, fmt.Errorf("no %s in the archive", runresult.SummaryFile)
	}
	var rep Report
	for base, dst := range map[string]*[]byte{runresult.SummaryFile: &rep.Summary, runresult.PointsFile: &rep.Points, nightly.File: &rep.Plan} {
		name, ok := found[base]
		if !ok {
			continue
		}
		if path.Dir(name) != path.Dir(sum) {
			return Report{}, fmt.Errorf("%s is not next to %s", name, sum)
		}
		*dst = files[name]
	}
	dir := path.Dir(sum)
	for _, name := range whatIfFiles {
		if path.Dir(path.Dir(path.Dir(name))) != dir {
			return Report{}, fmt.Errorf("%s is not in the %s/ folder next to %s", name, whatif.Dir, sum)
		}
	}
	rep.WhatIfs, err = whatif.ReadRunsFS(files, dir, func(sub string) (runresult.Result, error) {
		s, errS := files.ReadFile(sub + "/" + runresult.SummaryFile)
		p, errP := files.ReadFile(sub + "/" + runresult.PointsFile)
		if err := errors.Join(errS, errP); err != nil {
			return runresult.Result{}, err
		}
		r, err := runresult.Parse(s, p)
		if err != nil {
			return r, fmt.Errorf("%s: %w", sub, err)
		}
		return r, nil
	})
	return rep, err
}

// Publish reads a run's report (Admit: summary.json and points.json through
// runresult.Parse, plan.json, which must name what the summary ran),
// applies the gate and writes one commit to the dashboard
// repository's default branch. When the branch
// moves meanwhile (ghmodel.ErrConflict on the fast-forward ref update) the commit is
// rebuilt on the new head and retried after a random backoff, until the
// deadline (Cfg.Deadline or the context's) or Cfg.MaxAttempts. A refused
// summary is PublishRefused with its reasons and a nil error.
func (p *Publisher) Publish(ctx context.Context, rep Report, publishedAt time.Time, source string) (PublishResult, error) {
	return p.publish(ctx, rep, publishedAt, source, p.Logger())
}

func (p *Publisher) publish(ctx context.Context, rep Report, publishedAt time.Time, source string, log *slog.Logger) (PublishResult, error) {
	snap, reasons, err := Admit(rep, AdmitRelease, publishedAt, source, func(s runresult.Summary) (HarnessCheck, error) {
		return p.checkHarness(ctx, s)
	})
	if err != nil {
		return PublishResult{}, err
	}
	if len(reasons) > 0 {
		return Refused(reasons...), nil
	}
	id := SnapshotID(snap.Summary, rep.RunID)
	res := PublishResult{ID: id, Message: snapshotMessage(snap.Summary, id, source)}
	err = p.CommitDashboard(ctx, &res, log, func(head string) (map[string][]byte, error) {
		dash, err := LoadDashboard(func(path string) ([]byte, error) {
			return p.GH.ReadFile(ctx, p.Cfg.Dashboard, head, path)
		}, func(dir string) ([]string, error) {
			return p.GH.ListFiles(ctx, p.Cfg.Dashboard, head, dir)
		}, snap, id)
		if err != nil {
			return nil, err
		}
		return PlanSnapshot(snap, dash)
	})
	return res, err
}

// CommitDashboard writes one commit to the dashboard repository's default
// branch, with the files plan returns for the branch's head (a nil content
// deletes the path). plan's ErrUnchanged, ErrStale and ErrPruned make it a
// no-op (PublishUnchanged, the last two with the reason), its ErrImmutable a refusal. When the branch moves
// meanwhile (ghmodel.ErrConflict on the fast-forward ref update) the commit is
// rebuilt on the new head and retried after a random backoff, until the
// deadline (Cfg.Deadline or the context's) or Cfg.MaxAttempts. res gets
// the outcome, the files, the commit and the attempts.
func (p *Publisher) CommitDashboard(ctx context.Context, res *PublishResult, log *slog.Logger, plan func(head string) (map[string][]byte, error)) error {
	branch, err := p.GH.DefaultBranch(ctx, p.Cfg.Dashboard)
	if err != nil {
		return fmt.Errorf("dashboard %s: %w", p.Cfg.Dashboard, err)
	}
	deadline := time.Now().Add(p.deadline())
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	for res.Attempts = 1; ; res.Attempts++ {
		head, err := p.GH.BranchHead(ctx, p.Cfg.Dashboard, branch)
		if err != nil {
			return fmt.Errorf("dashboard %s branch %s: %w", p.Cfg.Dashboard, branch, err)
		}
		files, err := plan(head)
		switch {
		case errors.Is(err, ErrUnchanged):
			res.Outcome = PublishUnchanged
			return nil
		case errors.Is(err, ErrStale), errors.Is(err, ErrPruned):
			res.Outcome, res.Reasons = PublishUnchanged, []string{err.Error()}
			return nil
		case errors.Is(err, ErrImmutable):
			res.Outcome, res.Reasons = PublishRefused, []string{err.Error()}
			return nil
		case err != nil:
			return fmt.Errorf("dashboard %s: %w", p.Cfg.Dashboard, err)
		}
		res.Files = files
		if p.Cfg.DryRun {
			res.Outcome = PublishPlanned
			return nil
		}
		sha, err := p.GH.CreateCommit(ctx, p.Cfg.Dashboard, head, []string{head}, files, res.Message)
		if err != nil {
			return fmt.Errorf("create commit: %w", err)
		}
		err = p.GH.UpdateBranch(ctx, p.Cfg.Dashboard, branch, sha)
		if err == nil {
			res.Outcome, res.Commit = PublishPublished, sha
			return nil
		}
		if !errors.Is(err, ghmodel.ErrConflict) {
			return fmt.Errorf("update branch %s: %w", branch, err)
		}
		if p.Cfg.MaxAttempts > 0 && res.Attempts >= p.Cfg.MaxAttempts {
			return fmt.Errorf("dashboard branch %s kept moving: gave up after %d attempts", branch, res.Attempts)
		}
		wait := p.backoff(res.Attempts)
		if time.Now().Add(wait).After(deadline) {
			return fmt.Errorf("dashboard branch %s kept moving: gave up after %d attempts at the %s deadline", branch, res.Attempts, p.deadline())
		}
		log.Info("dashboard moved; rebuilding the commit", "attempt", res.Attempts, "publish", res.ID, "wait", wait)
		select {
		case <-ctx.Done():
			return fmt.Errorf("dashboard branch %s kept moving: stopped after %d attempts: %w", branch, res.Attempts, ctx.Err())
		case <-time.After(wait):
		}
	}
}

func (p *Publisher) deadline() time.Duration {
	if p.Cfg.Deadline > 0 {
		return p.Cfg.Deadline
	}
	return DefaultPublishDeadline
}

// backoff is the wait after the attempt-th conflict: uniform in [0, cap),
// cap = RetryBase·2^(attempt−1) up to RetryMax.
func (p *Publisher) backoff(attempt int) time.Duration {
	ceiling := RetryMax
	if attempt < 20 {
		ceiling = min(RetryBase<<(attempt-1), RetryMax)
	}
	if p.Jitter != nil {
		return p.Jitter(ceiling)
	}
	return rand.N(ceiling)
}

// checkHarness asks GitHub about an asserted harness commit; a checked one
// needs nothing.
func (p *Publisher) checkHarness(ctx context.Context, s runresult.Summary) (HarnessCheck, error) {
	h := s.Provenance.Harness
	var check HarnessCheck
	if h.Source != runresult.HarnessAssertion || h.Commit == "" {
		return check, nil
	}
	main, err := p.GH.DefaultBranch(ctx, p.Cfg.Harness)
	if err != nil {
		return check, fmt.Errorf("harness %s: %w", p.Cfg.Harness, err)
	}
	check.ReachableFromMain, err = p.GH.IsAncestor(ctx, p.Cfg.Harness, h.Commit, main)
	if errors.Is(err, ghmodel.ErrNotFound) {
		check.ReachableFromMain, err = false, nil
	}
	if err != nil {
		return check, fmt.Errorf("harness commit %s on %s: %w", ident.Short(h.Commit), main, err)
	}
	if h.Version == "" {
		return check, nil
	}
	if _, err := p.GH.GetRelease(ctx, p.Cfg.Harness, h.Version); errors.Is(err, ghmodel.ErrNotFound) {
		return check, nil
	} else if err != nil {
		return check, fmt.Errorf("harness release %s: %w", h.Version, err)
	}
	commit, err := p.GH.ResolveTag(ctx, p.Cfg.Harness, h.Version)
	if errors.Is(err, ghmodel.ErrNotFound) {
		return check, nil
	}
	if err != nil {
		return check, fmt.Errorf("harness tag %s: %w", h.Version, err)
	}
	if commit == h.Commit {
		check.ReleaseTag = h.Version
	}
	return check, nil
}

// PlanReasons lists where a run's plan disagrees with what its summary
// says ran: the simulator release and commit, the harness commit and
// release.
func PlanReasons(plan nightly.Plan, s runresult.Summary) []string {
	var reasons []string
	sim, h := s.Provenance.Simulator, s.Provenance.Harness
	if plan.Simulator.Release != sim.Tag || plan.Simulator.Commit != sim.Commit {
		reasons = append(reasons, fmt.Sprintf("%s names simulator %s (%s) but the summary scored %s (%s)",
			nightly.File, plan.Simulator.Release, ident.Short(plan.Simulator.Commit), sim.Tag, ident.Short(sim.Commit)))
	}
	if plan.Harness.Commit != h.Commit || (h.Version != "" && plan.Harness.Release != h.Version) {
		reasons = append(reasons, fmt.Sprintf("%s names harness %s (%s) but the summary was scored by %s (%s)",
			nightly.File, plan.Harness.Release, ident.Short(plan.Harness.Commit), h.Version, ident.Short(h.Commit)))
	}
	// A plan naming an InferenceX dump scores the ledger imported from it,
	// whose version names the dump (db-dump/YYYY-MM-DD+<digest>).
	if dump := plan.DataVersion(nightly.DataInferenceXDump); dump != "" && !strings.HasPrefix(s.Provenance.Ledger.Version, dump+"+") {
		reasons = append(reasons, fmt.Sprintf("%s names InferenceX dump %s but the summary scored ledger %s %s",
			nightly.File, dump, s.Provenance.Ledger.Name, s.Provenance.Ledger.Version))
	}
	return reasons
}

func snapshotMessage(s runresult.Summary, id, source string) string {
	harness := s.Provenance.Harness.Version
	if harness == "" {
		harness = s.Provenance.Harness.Commit
	}
	msg := fmt.Sprintf("Publish accuracy snapshot %s\n\nSimulator %s (%s), %s, harness %s.\n",
		id, s.Provenance.Simulator.Tag, ident.Short(s.Provenance.Simulator.Commit), dataText(DataRefs(s)), harness)
	if source != "" {
		msg += "Source: " + source + "\n"
	}
	return msg
}

// PublishKind is what a publish publishes, as its refusal comment names
// it: "<Title> not published. The <Artifact> artifact … was refused".
type PublishKind struct{ Title, Artifact string }

// KindSnapshot is the snapshots' kind of publish (a RunPublisher has its
// own).
var KindSnapshot = PublishKind{Title: "Accuracy snapshot", Artifact: "report"}

// MarshalPlan renders a planned commit for --dry-run output: message, then
// each file path with its size, sorted (FileList).
func MarshalPlan(files map[string][]byte, message string) string {
	return message + "\n" + FileList(files)
}

// FileList lists files one a line, sorted, each path with its size or
// "(removed)" for a nil content, which a commit removes.
func FileList(files map[string][]byte) string {
	var b strings.Builder
	for _, p := range slices.Sorted(maps.Keys(files)) {
		if files[p] == nil {
			fmt.Fprintf(&b, "  %s (removed)\n", p)
			continue
		}
		fmt.Fprintf(&b, "  %s (%d bytes)\n", p, len(files[p]))
	}
	return b.String()
}
