package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/bump"
	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/publish"
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

// Bumper moves pins to a release (bump.Bumper implements it: the harness
// pins to a harness release, the leaderboard pairs to a simulator release)
// and logs each repository's outcome to log. SkipRelease says why a release bumps nothing
// ("" when it bumps), from the release alone, without calling GitHub.
//
// SkipTag says the same of a tag pushed without a release ("" when it
// bumps): the simulator pushes its release tags and may publish no GitHub
// release for them, so its tags move the leaderboard pairs (the harness's
// releases alone move its pins).
type Bumper interface {
	SkipRelease(rel ghmodel.Release) string
	SkipTag(repo ident.Repo, tag string) string
	BumpRelease(ctx context.Context, rel ghmodel.Release, log *slog.Logger) ([]bump.RepoOutcome, error)
}

// Publisher publishes a completed run's report (publish.Publisher implements
// it) and logs the outcome to log. SkipRun says why a run is not published
// ("" when it is), from the run alone, without calling GitHub.
type Publisher interface {
	SkipRun(run publish.WorkflowRun) string
	PublishRun(ctx context.Context, run publish.WorkflowRun, log *slog.Logger) (publish.PublishResult, error)
}

// BumpSerial is the Serial key of bump jobs: releases are bumped one at a
// time, in the order they were received, and one waiting for another holds
// no worker.
const BumpSerial = "bump"

// Events returns one handler per event the bot subscribes to: release,
// create, workflow_run, installation and ping. Each decides on the request
// which deliveries are work (a published release of the harness or of the
// simulator, as Bumper.SkipRelease decides; a release tag the simulator
// pushed, as Bumper.SkipTag decides; a completed
// success of the publishing workflow) and acknowledges the others without
// queueing them; installation and ping deliveries are logged. A nil
// publisher ignores every workflow_run.
func Events(bumper Bumper, publisher Publisher) map[string]Handler {
	return map[string]Handler{
		"release":      releaseHandler{bumper},
		"create":       createHandler{bumper},
		"workflow_run": workflowRunHandler{publisher},
		"installation": installationHandler{},
		"ping":         pingHandler{},
	}
}

type repository struct {
	FullName      string `json:"full_name"`
	DefaultBranch string `json:"default_branch"`
}

func (r *repository) repo() (ident.Repo, error) {
	if r == nil {
		return ident.Repo{}, fmt.Errorf("payload has no repository")
	}
	return ident.ParseRepo(r.FullName)
}

// decode parses a payload; a malformed one is an error naming the event.
func decode(d Delivery, v any) error {
	if err := json.Unmarshal(d.Body, v); err != nil {
		return fmt.Errorf("%s payload: %w", d.Event, err)
	}
	return nil
}

type releaseHandler struct{ bumper Bumper }

type releasePayload struct {
	Action  string `json:"action"`
	Release *struct {
		TagName    string `json:"tag_name"`
		Body       string `json:"body"`
		Draft      bool   `json:"draft"`
		Prerelease bool   `json:"prerelease"`
	} `json:"release"`
	Repository *repository `json:"repository"`
}

// Accept queues a bump for a published release the bumper takes (of the
// harness, or of the simulator).
func (h releaseHandler) Accept(d Delivery) (*Job, string, error) {
	var p releasePayload
	if err := decode(d, &p); err != nil {
		return nil, "", err
	}
	if p.Action != "published" {
		return nil, "release action " + p.Action, nil
	}
	if p.Release == nil {
		return nil, "", fmt.Errorf("release payload has no release")
	}
	repo, err := p.Repository.repo()
	if err != nil {
		return nil, "", fmt.Errorf("release payload: %w", err)
	}
	r := p.Release
	rel := ghmodel.Release{Repo: repo, Tag: r.TagName, Notes: r.Body, Draft: r.Draft, Prerelease: r.Prerelease}
	if reason := h.bumper.SkipRelease(rel); reason != "" {
		return nil, reason, nil
	}
	// A tag that is not a release tag (a branch, a moving v1) cannot be
	// pinned: nothing to bump.
	if err := ident.CheckTag(r.TagName); err != nil {
		return nil, fmt.Sprintf("tag %q is not a release tag", textcut.Prefix(r.TagName, 64)), nil
	}
	return bumpJob(h.bumper, rel, d), "", nil
}

// bumpJob is the job bumping to rel, serialized with the other bumps.
func bumpJob(b Bumper, rel ghmodel.Release, d Delivery) *Job {
	return &Job{Serial: BumpSerial, Run: func(ctx context.Context) error {
		_, err := b.BumpRelease(ctx, rel, d.Log)
		return err
	}}
}

type createHandler struct{ bumper Bumper }

type createPayload struct {
	Ref        string      `json:"ref"`
	RefType    string      `json:"ref_type"`
	Repository *repository `json:"repository"`
}

// Accept queues a bump for a tag the bumper takes (a release tag of the
// simulator, which the simulator may push without a GitHub release); a
// branch, and any other tag, is ignored. A tag that also gets a release
// is bumped twice, the second time changing nothing.
func (h createHandler) Accept(d Delivery) (*Job, string, error) {
	var p createPayload
	if err := decode(d, &p); err != nil {
		return nil, "", err
	}
	if p.RefType != "tag" {
		return nil, "create of a " + textcut.Prefix(p.RefType, 32), nil
	}
	repo, err := p.Repository.repo()
	if err != nil {
		return nil, "", fmt.Errorf("create payload: %w", err)
	}
	if reason := h.bumper.SkipTag(repo, p.Ref); reason != "" {
		return nil, reason, nil
	}
	rel := ghmodel.Release{Repo: repo, Tag: p.Ref}
	return bumpJob(h.bumper, rel, d), "", nil
}

type workflowRunHandler struct{ publisher Publisher }

type workflowRunPayload struct {
	Action      string `json:"action"`
	WorkflowRun *struct {
		ID             int64       `json:"id"`
		Path           string      `json:"path"`
		Event          string      `json:"event"`
		Status         string      `json:"status"`
		Conclusion     *string     `json:"conclusion"`
		HeadSHA        string      `json:"head_sha"`
		HeadBranch     string      `json:"head_branch"`
		HTMLURL        string      `json:"html_url"`
		UpdatedAt      time.Time   `json:"updated_at"`
		HeadRepository *repository `json:"head_repository"`
	} `json:"workflow_run"`
	Repository *repository `json:"repository"`
}

// Accept queues a publish for a completed success of the publishing
// workflow.
func (h workflowRunHandler) Accept(d Delivery) (*Job, string, error) {
	var p workflowRunPayload
	if err := decode(d, &p); err != nil {
		return nil, "", err
	}
	if p.Action != "completed" {
		return nil, "workflow_run action " + p.Action, nil
	}
	if h.publisher == nil {
		return nil, "publishing is not configured", nil
	}
	if p.WorkflowRun == nil {
		return nil, "", fmt.Errorf("workflow_run payload has no workflow_run")
	}
	repo, err := p.Repository.repo()
	if err != nil {
		return nil, "", fmt.Errorf("workflow_run payload: %w", err)
	}
	r := p.WorkflowRun
	run := publish.WorkflowRun{Repo: repo, ID: r.ID, WorkflowPath: r.Path, Event: r.Event, Status: r.Status, HeadSHA: r.HeadSHA,
		HeadBranch: r.HeadBranch, DefaultBranch: p.Repository.DefaultBranch, URL: r.HTMLURL, UpdatedAt: r.UpdatedAt}
	if r.Conclusion != nil {
		run.Conclusion = *r.Conclusion
	}
	if r.HeadRepository != nil {
		if run.HeadRepo, err = r.HeadRepository.repo(); err != nil {
			return nil, "", fmt.Errorf("workflow_run payload: head %w", err)
		}
	}
	if reason := h.publisher.SkipRun(run); reason != "" {
		return nil, reason, nil
	}
	return &Job{Run: func(ctx context.Context) error {
		_, err := h.publisher.PublishRun(ctx, run, d.Log)
		return err
	}}, "", nil
}

type installationHandler struct{}

type installationPayload struct {
	Action       string `json:"action"`
	Installation *struct {
		ID      int64 `json:"id"`
		Account *struct {
			Login string `json:"login"`
		} `json:"account"`
	} `json:"installation"`
	Repositories []struct {
		FullName string `json:"full_name"`
	} `json:"repositories"`
}

// Accept logs installation changes; nothing is queued. Nothing else needs
// doing: the set of served repositories is listed afresh on every release,
// and the GitHub adapter drops a cached repository client by itself when
// GitHub refuses its installation's token (after an uninstall or a
// reinstall).
func (installationHandler) Accept(d Delivery) (*Job, string, error) {
	var p installationPayload
	if err := decode(d, &p); err != nil {
		return nil, "", err
	}
	var account string
	var id int64
	if p.Installation != nil {
		id = p.Installation.ID
		if p.Installation.Account != nil {
			account = p.Installation.Account.Login
		}
	}
	repos := make([]string, 0, len(p.Repositories))
	for _, r := range p.Repositories {
		repos = append(repos, r.FullName)
	}
	d.Log.Info("installation", "installation_action", p.Action, "installation_id", id, "account", account, "repositories", repos)
	return nil, "installation logged", nil
}

type pingHandler struct{}

type pingPayload struct {
	Zen    string `json:"zen"`
	HookID int64  `json:"hook_id"`
}

// Accept logs the ping; nothing is queued.
func (pingHandler) Accept(d Delivery) (*Job, string, error) {
	var p pingPayload
	if err := decode(d, &p); err != nil {
		return nil, "", err
	}
	d.Log.Info("ping", "hook_id", p.HookID, "zen", p.Zen)
	return nil, "ping logged", nil
}
