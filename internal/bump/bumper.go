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
	// AllowPrereleases makes prereleases bump too.
	AllowPrereleases bool
	// Repositories limits the repositories served; empty means every
	// repository the App is installed on.
	Repositories []ident.Repo
	// WebURL is the GitHub web root for links, e.g. https://github.com.
	WebURL string
	// DryRun plans without writing anything.
	DryRun bool
}

// Bumper moves consumer repositories' harness pins to a release. Bumps run
// one at a time, so two releases delivered together cannot race on a branch.
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
	switch {
	case !rel.Repo.Same(harness):
		return fmt.Sprintf("release of %s, not of the harness %s", rel.Repo, harness)
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
// it bumps): ReleaseDecision, without calling GitHub. The webhook server
// asks it before queueing a release.
func (b *Bumper) SkipRelease(rel ghmodel.Release) string {
	return ReleaseDecision(rel, b.Cfg.Harness, b.Cfg.AllowPrereleases)
}

// OwnedByBot reports whether a branch head commit is the bot's own: the
// bot authored it and its message carries BumpTrailer. Anything else means
// a human pushed to the branch.
func OwnedByBot(c ghmodel.Commit, id ghmodel.Identity) bool {
	return strings.Contains(c.Message, BumpTrailer) && id.Login != "" && strings.EqualFold(c.AuthorLogin, id.Login)
}

// Superseded returns the open pull requests the bot opened for an earlier
// bump on another branch: authored by the bot and carrying render.BumpMarker.
func Superseded(pulls []ghmodel.Pull, id ghmodel.Identity, branch string) []ghmodel.Pull {
	var out []ghmodel.Pull
	for _, p := range pulls {
		if p.Head != branch && strings.EqualFold(p.Author, id.Login) && strings.HasPrefix(p.Body, render.BumpMarker) {
			out = append(out, p)
		}
	}
	return out
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

// BumpRelease bumps every served repository that pins the harness to rel.
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
	if reason := ReleaseDecision(rel, b.Cfg.Harness, b.Cfg.AllowPrereleases); reason != "" {
		log.Info("release ignored", "reason", reason)
		return nil, nil
	}
	commit, err := b.GH.ResolveTag(ctx, b.Cfg.Harness, rel.Tag)
	if err != nil {
		return nil, fmt.Errorf("resolve tag %s of %s: %w", rel.Tag, b.Cfg.Harness, err)
	}
	t := Target{Harness: b.Cfg.Harness, Tag: rel.Tag, Commit: commit, Release: rel, WebURL: b.Cfg.WebURL}
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
		o, err := b.bumpRepoSafely(ctx, repo, t, id)
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
func (b *Bumper) bumpRepoSafely(ctx context.Context, repo ident.Repo, t Target, id ghmodel.Identity) (o RepoOutcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			o, err = RepoOutcome{Repo: repo}, fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return b.bumpRepo(ctx, repo, t, id)
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

func (b *Bumper) bumpRepo(ctx context.Context, repo ident.Repo, t Target, id ghmodel.Identity) (RepoOutcome, error) {
	out := RepoOutcome{Repo: repo}
	base, err := b.GH.DefaultBranch(ctx, repo)
	if err != nil {
		return out, fmt.Errorf("default branch: %w", err)
	}
	baseSHA, err := b.GH.BranchHead(ctx, repo, base)
	if err != nil {
		return out, fmt.Errorf("branch %s: %w", base, err)
	}
	files, err := b.readConsumer(ctx, repo, baseSHA)
	if err != nil {
		return out, err
	}
	plan, err := PlanBump(files, t)
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
	branchSHA, err := b.GH.BranchHead(ctx, repo, b.Cfg.Branch)
	exists := err == nil
	if err != nil && !errors.Is(err, ghmodel.ErrNotFound) {
		return out, fmt.Errorf("branch %s: %w", b.Cfg.Branch, err)
	}
	upToDate := false
	if exists {
		head, err := b.GH.GetCommit(ctx, repo, branchSHA)
		if err != nil {
			return out, fmt.Errorf("branch %s head: %w", b.Cfg.Branch, err)
		}
		if !OwnedByBot(head, id) {
			out.Outcome = OutcomeSkipped
			out.Reason = fmt.Sprintf("branch %s has commits not made by the bot (head %s); left alone", b.Cfg.Branch, ident.Short(branchSHA))
			return out, nil
		}
		// A release delivered late must not move the branch back.
		onBranch, err := b.readConsumer(ctx, repo, branchSHA)
		if err != nil {
			return out, fmt.Errorf("branch %s: %w", b.Cfg.Branch, err)
		}
		if _, err := PlanBump(onBranch, t); errors.Is(err, SkipNewer) {
			out.Outcome = OutcomeSkipped
			out.Reason = fmt.Sprintf("branch %s already bumps to a newer version", b.Cfg.Branch)
			return out, nil
		}
		upToDate = onBranch.Has(plan.Files)
	}
	pulls, err := b.GH.OpenPulls(ctx, repo, b.Cfg.Branch)
	if err != nil {
		return out, fmt.Errorf("list pull requests: %w", err)
	}
	var current *ghmodel.Pull
	for i := range pulls {
		if pulls[i].Head == b.Cfg.Branch {
			current = &pulls[i]
		}
	}
	if current == nil {
		closed, err := b.closedBump(ctx, repo, t, id)
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
			err = b.GH.UpdateBranch(ctx, repo, b.Cfg.Branch, sha)
		} else {
			err = b.GH.CreateBranch(ctx, repo, b.Cfg.Branch, sha)
		}
		if err != nil {
			return out, fmt.Errorf("branch %s: %w", b.Cfg.Branch, err)
		}
	}
	switch {
	case current == nil:
		pr, err := b.GH.CreatePull(ctx, repo, b.Cfg.Branch, base, plan.Title, plan.Body)
		if err != nil && !errors.Is(err, ghmodel.ErrRateLimited) {
			// GitHub may have opened it and the answer been lost: look
			// before failing, never create twice.
			if open, ok := b.openBump(ctx, repo); ok {
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
	for _, old := range Superseded(pulls, id, b.Cfg.Branch) {
		if err := b.GH.ClosePull(ctx, repo, old.Number, render.SupersededComment(out.Pull, t.Tag)); err != nil {
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
func (b *Bumper) closedBump(ctx context.Context, repo ident.Repo, t Target, id ghmodel.Identity) (int, error) {
	closed, err := b.GH.ClosedPulls(ctx, repo, b.Cfg.Branch)
	if err != nil {
		return 0, fmt.Errorf("list closed pull requests: %w", err)
	}
	for _, p := range closed {
		if p.Merged || !strings.EqualFold(p.Author, id.Login) || !strings.HasPrefix(p.Body, render.BumpMarker) || p.HeadSHA == "" {
			continue
		}
		// The newest closed bump decides: what did it propose?
		proposed, err := b.readConsumer(ctx, repo, p.HeadSHA)
		if errors.Is(err, ghmodel.ErrNotFound) {
			return 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("closed pull request #%d: %w", p.Number, err)
		}
		if _, err := PlanBump(proposed, t); errors.Is(err, SkipUpToDate) || errors.Is(err, SkipNewer) {
			return p.Number, nil
		}
		return 0, nil
	}
	return 0, nil
}

// openBump returns the open pull request on the bump branch, if any.
func (b *Bumper) openBump(ctx context.Context, repo ident.Repo) (ghmodel.Pull, bool) {
	pulls, err := b.GH.OpenPulls(ctx, repo, b.Cfg.Branch)
	if err != nil {
		return ghmodel.Pull{}, false
	}
	for _, p := range pulls {
		if p.Head == b.Cfg.Branch {
			return p, true
		}
	}
	return ghmodel.Pull{}, false
}
