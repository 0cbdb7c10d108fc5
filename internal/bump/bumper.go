package bump

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

// BumpGitHub is what Bumper needs from GitHub.
type BumpGitHub interface {
	RepoReader
	Committer
	Pulls
	Installations
	// GetRelease returns the published release of a tag;
	// ghmodel.ErrNotFound for none (drafts are not releases).
	GetRelease(ctx context.Context, repo ident.Repo, tag string) (ghmodel.Release, error)
	// ResolveTag returns the commit a tag points at, peeling annotated
	// tags.
	ResolveTag(ctx context.Context, repo ident.Repo, tag string) (string, error)
}

// BumpConfig configures Bumper.
type BumpConfig struct {
	// Harness is the harness repository whose releases are pinned.
	Harness ident.Repo
	// PinFile is the pin file's path in consumer repositories.
	PinFile string
	// Branch is the stable bump branch, one per consumer repository.
	Branch string
	// AllowPrereleases makes prereleases of the harness bump too (never the
	// simulator's: the leaderboard publishes release builds only).
	AllowPrereleases bool
	// Simulator is the simulator repository whose releases move the
	// leaderboard pair of every pin file with a leaderboard: section naming
	// it (the zero Repo: the bot moves no leaderboard pair).
	Simulator ident.Repo
	// LeaderboardBranch is the stable branch of the leaderboard-pair bump,
	// one per consumer repository.
	LeaderboardBranch string
	// Repositories limits the repositories served; empty means every
	// repository the App is installed on.
	Repositories []ident.Repo
	// WebURL is the GitHub web root for links, e.g. https://github.com.
	WebURL string
	// DryRun plans without writing anything.
	DryRun bool
}

// Bumper moves consumer repositories' harness pins to a harness release,
// and their leaderboard pairs to a simulator release. Bumps run one at a
// time, so two releases delivered together cannot race on a branch.
type Bumper struct {
	GH  BumpGitHub
	Cfg BumpConfig
	Log *slog.Logger

	mu sync.Mutex
}

// What happened to one repository.
const (
	OutcomeCreated   = "created"    // new branch and pull request
	OutcomeUpdated   = "updated"    // existing bump pull request moved to this version
	OutcomeUnchanged = "unchanged"  // the bump pull request already says exactly this
	OutcomeSkipped   = "skipped"    // see Reason
	OutcomePlanned   = "planned"    // dry run
	OutcomeNotBumped = "not bumped" // GitHub rate-limited the bump before this repository was done
)

// RepoOutcome is what a bump did (or, in a dry run, would do) in one repository.
type RepoOutcome struct {
	Repo    ident.Repo
	Outcome string
	Reason  string
	// Pull is the bump pull request's number (0 when none, or in a dry run).
	Pull int
	// Closed are the superseded pull requests closed.
	Closed []int
	Plan   *BumpPlan
}

// ReleaseDecision says whether a release should bump pins ("" when it should).
func ReleaseDecision(rel ghmodel.Release, harness ident.Repo, allowPrereleases bool) string {
	if !rel.Repo.Same(harness) {
		return fmt.Sprintf("release of %s, not of the harness %s", rel.Repo, harness)
	}
	return releaseDecision(rel, allowPrereleases)
}

// SimulatorReleaseDecision says whether a release of the simulator should
// move leaderboard pairs ("" when it should): a published release of
// simulator whose tag is a stable release, vMAJOR.MINOR.PATCH (the bot
// publishes leaderboard results of release builds only, so a pre-release
// is never pinned).
func SimulatorReleaseDecision(rel ghmodel.Release, simulator ident.Repo) string {
	if !rel.Repo.Same(simulator) {
		return fmt.Sprintf("release of %s, not of the simulator %s", rel.Repo, simulator)
	}
	if reason := releaseDecision(rel, false); reason != "" {
		return reason + " of the simulator"
	}
	if !ident.IsStableRelease(rel.Tag) {
		return fmt.Sprintf("tag %q is a pre-release; the leaderboard pins release builds only", textcut.Prefix(rel.Tag, 64))
	}
	return ""
}

func releaseDecision(rel ghmodel.Release, allowPrereleases bool) string {
	switch {
	case rel.Draft:
		return "draft release"
	case rel.Prerelease && !allowPrereleases:
		return "prerelease (allow_prereleases is off)"
	case rel.Tag == "":
		return "release without a tag"
	case ident.CheckTag(rel.Tag) != nil:
		// A branch or a moving v1 cannot be pinned: nothing to bump.
		return fmt.Sprintf("tag %q is not a release tag", textcut.Prefix(rel.Tag, 64))
	}
	return ""
}

// SkipRelease says why rel bumps nothing under b's configuration ("" when
// it bumps): a release of the harness by ReleaseDecision, one of the
// simulator (when configured) by SimulatorReleaseDecision, without calling
// GitHub. The webhook server asks it before queueing a release.
func (b *Bumper) SkipRelease(rel ghmodel.Release) string {
	if b.simulatorRelease(rel) {
		return SimulatorReleaseDecision(rel, b.Cfg.Simulator)
	}
	return ReleaseDecision(rel, b.Cfg.Harness, b.Cfg.AllowPrereleases)
}

// SkipTag says why a tag pushed to repo, without a release, bumps nothing
// ("" when it bumps): only a release tag of the simulator does, as a
// published release of it would (SimulatorReleaseDecision); the harness's
// pins move with its releases only.
func (b *Bumper) SkipTag(repo ident.Repo, tag string) string {
	rel := ghmodel.Release{Repo: repo, Tag: tag}
	if !b.simulatorRelease(rel) {
		return fmt.Sprintf("tag of %s: only the simulator's tags move pins (the harness's releases do)", repo)
	}
	return SimulatorReleaseDecision(rel, b.Cfg.Simulator)
}

// simulatorRelease reports whether rel is the simulator's (and not the
// harness's) under b's configuration.
func (b *Bumper) simulatorRelease(rel ghmodel.Release) bool {
	return b.Cfg.Simulator != (ident.Repo{}) && rel.Repo.Same(b.Cfg.Simulator) && !rel.Repo.Same(b.Cfg.Harness)
}

// OwnedByBot reports whether a branch head commit is the bot's own: the
// bot authored it and its message carries trailer (BumpTrailer or
// LeaderboardTrailer, the branch's). Anything else means a human pushed to
// the branch.
func OwnedByBot(c ghmodel.Commit, id ghmodel.Identity, trailer string) bool {
	return strings.Contains(c.Message, trailer) && id.Login != "" && strings.EqualFold(c.AuthorLogin, id.Login)
}

// Superseded returns the open pull requests the bot opened for an earlier
// bump of the same kind on another branch: authored by the bot and
// starting with marker (render.BumpMarker or render.LeaderboardBumpMarker).
func Superseded(pulls []ghmodel.Pull, id ghmodel.Identity, branch, marker string) []ghmodel.Pull {
	var out []ghmodel.Pull
	for _, p := range pulls {
		if p.Head != branch && strings.EqualFold(p.Author, id.Login) && strings.HasPrefix(p.Body, marker) {
			out = append(out, p)
		}
	}
	return out
}

// kind is one sort of bump: what it reads of a consumer repository at a
// commit, what it plans from that, the branch it keeps and the marks by
// which the bot knows its commits and pull requests.
type kind struct {
	branch  string
	trailer string // ends every commit message (OwnedByBot)
	marker  string // starts every pull request body (Superseded)
	read    func(ctx context.Context, repo ident.Repo, ref string) (ConsumerFiles, error)
	plan    func(ConsumerFiles) (BumpPlan, error)
	// superseded is the comment closing an older pull request of the kind.
	superseded func(pull int) string
}

// harnessKind is the harness bump to t.
func (b *Bumper) harnessKind(t Target) kind {
	return kind{branch: b.Cfg.Branch, trailer: BumpTrailer, marker: render.BumpMarker, read: b.readConsumer,
		plan:       func(f ConsumerFiles) (BumpPlan, error) { return PlanBump(f, t) },
		superseded: func(pull int) string { return render.SupersededComment(pull, t.Tag) }}
}

// BumpTag bumps to the published release of tag (the one-shot CLI's path).
func (b *Bumper) BumpTag(ctx context.Context, tag string) ([]RepoOutcome, error) {
	rel, err := b.GH.GetRelease(ctx, b.Cfg.Harness, tag)
	if err != nil {
		return nil, fmt.Errorf("release %s of %s: %w", tag, b.Cfg.Harness, err)
	}
	rel.Repo = b.Cfg.Harness
	if reason := ReleaseDecision(rel, b.Cfg.Harness, b.Cfg.AllowPrereleases); reason != "" {
		return nil, fmt.Errorf("release %s: %s", tag, reason)
	}
	return b.BumpRelease(ctx, rel, nil)
}

// BumpSimulatorTag moves the leaderboard pairs to the simulator's release
// tag (the one-shot CLI's path). The simulator may push release tags
// without a GitHub release: a tag with none is taken as a release without
// notes. A pre-release, or a tag that is not a release tag, is refused.
func (b *Bumper) BumpSimulatorTag(ctx context.Context, tag string) ([]RepoOutcome, error) {
	sim := b.Cfg.Simulator
	rel, err := b.GH.GetRelease(ctx, sim, tag)
	switch {
	case errors.Is(err, ghmodel.ErrNotFound):
		rel = ghmodel.Release{Tag: tag}
	case err != nil:
		return nil, fmt.Errorf("release %s of %s: %w", tag, sim, err)
	}
	rel.Repo = sim
	if reason := SimulatorReleaseDecision(rel, sim); reason != "" {
		return nil, fmt.Errorf("release %s: %s", tag, reason)
	}
	return b.BumpRelease(ctx, rel, nil)
}

// BumpRelease bumps every served repository that pins the harness to rel,
// or, for a release of the simulator, every one whose leaderboard pair
// names it.
// A release that should not bump (ReleaseDecision) does nothing. Every
// repository is tried; the errors of those that failed are joined.
// Running it again for the same release changes nothing. log (nil: Log)
// receives the outcome of each repository; a webhook handler passes its
// delivery's logger.
func (b *Bumper) BumpRelease(ctx context.Context, rel ghmodel.Release, log *slog.Logger) ([]RepoOutcome, error) {
	if log == nil {
		log = b.logger()
	}
	log = log.With("release", rel.Tag)
	b.mu.Lock()
	defer b.mu.Unlock()
	if reason := b.SkipRelease(rel); reason != "" {
		log.Info("release ignored", "reason", reason)
		return nil, nil
	}
	from := b.Cfg.Harness
	if b.simulatorRelease(rel) {
		from = b.Cfg.Simulator
	}
	commit, err := b.GH.ResolveTag(ctx, from, rel.Tag)
	if err != nil {
		return nil, fmt.Errorf("resolve tag %s of %s: %w", rel.Tag, from, err)
	}
	k := b.harnessKind(Target{Harness: b.Cfg.Harness, Tag: rel.Tag, Commit: commit, Release: rel, WebURL: b.Cfg.WebURL})
	if b.simulatorRelease(rel) {
		k = b.leaderboardKind(SimulatorTarget{Simulator: b.Cfg.Simulator, Tag: rel.Tag, Commit: commit, Release: rel, WebURL: b.Cfg.WebURL, PinFile: b.Cfg.PinFile})
	}
	id, err := b.GH.Identity(ctx)
	if err != nil {
		return nil, fmt.Errorf("app identity: %w", err)
	}
	repos := b.Cfg.Repositories
	if len(repos) == 0 {
		if repos, err = b.GH.InstalledRepos(ctx); err != nil {
			return nil, fmt.Errorf("installed repositories: %w", err)
		}
	}
	var outcomes []RepoOutcome
	var errs []error
	for i, repo := range repos {
		o, err := b.bumpRepoSafely(ctx, repo, k, id)
		rlog := log.With("consumer", repo.String())
		if errors.Is(err, ghmodel.ErrRateLimited) || ctx.Err() != nil {
			// Every further call would be refused too (or is out of
			// time): stop, and say which repositories were not bumped.
			// A redelivery of the release bumps them (it is idempotent).
			var names []string
			for _, r := range repos[i:] {
				names = append(names, r.String())
				outcomes = append(outcomes, RepoOutcome{Repo: r, Outcome: OutcomeNotBumped, Reason: "stopped: " + stopReason(ctx, err)})
			}
			log.Error("bump stopped", "reason", stopReason(ctx, err), "not_bumped", names, "err", err)
			errs = append(errs, fmt.Errorf("bump stopped at %s (%w); not bumped: %s; redeliver the release later",
				repo, errOr(err, ctx.Err()), strings.Join(names, ", ")))
			break
		}
		if err != nil {
			rlog.Error("bump failed", "err", err)
			errs = append(errs, fmt.Errorf("%s: %w", repo, err))
			continue
		}
		attrs := []any{"outcome", o.Outcome, "reason", o.Reason, "pull", o.Pull, "closed", o.Closed}
		if o.Plan != nil && len(o.Plan.Notes) > 0 {
			attrs = append(attrs, "left_alone", o.Plan.Notes)
		}
		rlog.Info("bump", attrs...)
		outcomes = append(outcomes, o)
	}
	return outcomes, errors.Join(errs...)
}

func stopReason(ctx context.Context, err error) string {
	if errors.Is(err, ghmodel.ErrRateLimited) {
		return "GitHub rate limit"
	}
	return "out of time (" + ctx.Err().Error() + ")"
}

func errOr(err, other error) error {
	if err != nil {
		return err
	}
	return other
}

// bumpRepoSafely is bumpRepo with a panic turned into that repository's
// error, so that no input stops the bumps of the other repositories.
func (b *Bumper) bumpRepoSafely(ctx context.Context, repo ident.Repo, k kind, id ghmodel.Identity) (o RepoOutcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			o, err = RepoOutcome{Repo: repo}, fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return b.bumpRepo(ctx, repo, k, id)
}

func (b *Bumper) logger() *slog.Logger {
	if b.Log == nil {
		return slog.Default()
	}
	return b.Log
}

func (b *Bumper) readConsumer(ctx context.Context, repo ident.Repo, ref string) (ConsumerFiles, error) {
	files := ConsumerFiles{PinPath: b.Cfg.PinFile, Workflows: map[string][]byte{}}
	src, err := b.GH.ReadFile(ctx, repo, ref, b.Cfg.PinFile)
	switch {
	case err == nil:
		files.Pin = src
	case !errors.Is(err, ghmodel.ErrNotFound):
		return files, fmt.Errorf("read %s: %w", b.Cfg.PinFile, err)
	}
	names, err := b.GH.ListDir(ctx, repo, ref, WorkflowDir)
	if err != nil && !errors.Is(err, ghmodel.ErrNotFound) {
		return files, fmt.Errorf("list %s: %w", WorkflowDir, err)
	}
	for _, name := range names {
		if !isWorkflowFile(name) {
			continue
		}
		p := path.Join(WorkflowDir, name)
		src, err := b.GH.ReadFile(ctx, repo, ref, p)
		if err != nil {
			return files, fmt.Errorf("read %s: %w", p, err)
		}
		files.Workflows[p] = src
	}
	return files, nil
}

func (b *Bumper) bumpRepo(ctx context.Context, repo ident.Repo, k kind, id ghmodel.Identity) (RepoOutcome, error) {
	out := RepoOutcome{Repo: repo}
	base, err := b.GH.DefaultBranch(ctx, repo)
	if err != nil {
		return out, fmt.Errorf("default branch: %w", err)
	}
	baseSHA, err := b.GH.BranchHead(ctx, repo, base)
	if err != nil {
		return out, fmt.Errorf("branch %s: %w", base, err)
	}
	files, err := k.read(ctx, repo, baseSHA)
	if err != nil {
		return out, err
	}
	plan, err := k.plan(files)
	var skip SkipReason
	if errors.As(err, &skip) {
		out.Outcome, out.Reason = OutcomeSkipped, string(skip)
		return out, nil
	}
	if err != nil {
		// A broken pin file is the repository owner's to fix: report, skip.
		out.Outcome, out.Reason = OutcomeSkipped, err.Error()
		return out, nil
	}
	out.Plan = &plan
	branchSHA, err := b.GH.BranchHead(ctx, repo, k.branch)
	exists := err == nil
	if err != nil && !errors.Is(err, ghmodel.ErrNotFound) {
		return out, fmt.Errorf("branch %s: %w", k.branch, err)
	}
	upToDate := false
	if exists {
		head, err := b.GH.GetCommit(ctx, repo, branchSHA)
		if err != nil {
			return out, fmt.Errorf("branch %s head: %w", k.branch, err)
		}
		if !OwnedByBot(head, id, k.trailer) {
			out.Outcome = OutcomeSkipped
			out.Reason = fmt.Sprintf("branch %s has commits not made by the bot (head %s); left alone", k.branch, ident.Short(branchSHA))
			return out, nil
		}
		// A release delivered late must not move the branch back.
		onBranch, err := k.read(ctx, repo, branchSHA)
		if err != nil {
			return out, fmt.Errorf("branch %s: %w", k.branch, err)
		}
		if _, err := k.plan(onBranch); errors.Is(err, SkipNewer) {
			out.Outcome = OutcomeSkipped
			out.Reason = fmt.Sprintf("branch %s already bumps to a newer version", k.branch)
			return out, nil
		}
		upToDate = onBranch.Has(plan.Files)
	}
	pulls, err := b.GH.OpenPulls(ctx, repo, k.branch)
	if err != nil {
		return out, fmt.Errorf("list pull requests: %w", err)
	}
	var current *ghmodel.Pull
	for i := range pulls {
		if pulls[i].Head == k.branch {
			current = &pulls[i]
		}
	}
	if current == nil {
		closed, err := b.closedBump(ctx, repo, k, id)
		if err != nil {
			return out, err
		}
		if closed != 0 {
			out.Outcome = OutcomeSkipped
			out.Reason = fmt.Sprintf("bump pull request #%d to this version (or a newer one) was closed without merging; left alone until a newer release", closed)
			return out, nil
		}
	}
	if b.Cfg.DryRun {
		out.Outcome = OutcomePlanned
		return out, nil
	}
	if !upToDate {
		// The tree is always the default branch's plus the plan. On an
		// existing branch the commit also has the branch head as a parent,
		// so the branch moves forward (never forced) and the pull request
		// shows only the plan.
		parents := []string{baseSHA}
		if exists && branchSHA != baseSHA {
			parents = []string{branchSHA, baseSHA}
		}
		sha, err := b.GH.CreateCommit(ctx, repo, baseSHA, parents, plan.Files, plan.Message)
		if err != nil {
			return out, fmt.Errorf("create commit: %w", err)
		}
		if exists {
			err = b.GH.UpdateBranch(ctx, repo, k.branch, sha)
		} else {
			err = b.GH.CreateBranch(ctx, repo, k.branch, sha)
		}
		if err != nil {
			return out, fmt.Errorf("branch %s: %w", k.branch, err)
		}
	}
	switch {
	case current == nil:
		pr, err := b.GH.CreatePull(ctx, repo, k.branch, base, plan.Title, plan.Body)
		if err != nil && !errors.Is(err, ghmodel.ErrRateLimited) {
			// GitHub may have opened it and the answer been lost: look
			// before failing, never create twice.
			if open, ok := b.openBump(ctx, repo, k.branch); ok {
				pr, err = open, nil
			}
		}
		if err != nil {
			return out, fmt.Errorf("create pull request: %w", err)
		}
		out.Outcome, out.Pull = OutcomeCreated, pr.Number
	case current.Title != plan.Title || current.Body != plan.Body:
		if err := b.GH.EditPull(ctx, repo, current.Number, plan.Title, plan.Body); err != nil {
			return out, fmt.Errorf("edit pull request #%d: %w", current.Number, err)
		}
		out.Outcome, out.Pull = OutcomeUpdated, current.Number
	case !upToDate:
		out.Outcome, out.Pull = OutcomeUpdated, current.Number
	default:
		out.Outcome, out.Pull = OutcomeUnchanged, current.Number
	}
	for _, old := range Superseded(pulls, id, k.branch, k.marker) {
		if err := b.GH.ClosePull(ctx, repo, old.Number, k.superseded(out.Pull)); err != nil {
			return out, fmt.Errorf("close superseded pull request #%d: %w", old.Number, err)
		}
		out.Closed = append(out.Closed, old.Number)
	}
	return out, nil
}

// closedBump returns the number of the newest bump pull request of the bot
// on the branch that was closed without merging and moved the pin to t's
// version or a newer one (0 when there is none): a maintainer declined it,
// and only a newer release may propose a bump again.
func (b *Bumper) closedBump(ctx context.Context, repo ident.Repo, k kind, id ghmodel.Identity) (int, error) {
	closed, err := b.GH.ClosedPulls(ctx, repo, k.branch)
	if err != nil {
		return 0, fmt.Errorf("list closed pull requests: %w", err)
	}
	for _, p := range closed {
		if p.Merged || !strings.EqualFold(p.Author, id.Login) || !strings.HasPrefix(p.Body, k.marker) || p.HeadSHA == "" {
			continue
		}
		// The newest closed bump decides: what did it propose?
		proposed, err := k.read(ctx, repo, p.HeadSHA)
		if errors.Is(err, ghmodel.ErrNotFound) {
			return 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("closed pull request #%d: %w", p.Number, err)
		}
		if _, err := k.plan(proposed); errors.Is(err, SkipUpToDate) || errors.Is(err, SkipNewer) {
			return p.Number, nil
		}
		return 0, nil
	}
	return 0, nil
}

// openBump returns the open pull request on the bump branch, if any.
func (b *Bumper) openBump(ctx context.Context, repo ident.Repo, branch string) (ghmodel.Pull, bool) {
	pulls, err := b.GH.OpenPulls(ctx, repo, branch)
	if err != nil {
		return ghmodel.Pull{}, false
	}
	for _, p := range pulls {
		if p.Head == branch {
			return p, true
		}
	}
	return ghmodel.Pull{}, false
}
