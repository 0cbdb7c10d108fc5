package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/bot"
)

// Bumper moves pins to a release (bot.Bumper implements it) and logs each
// repository's outcome to log.
type Bumper interface {
	BumpRelease(ctx context.Context, rel bot.Release, log *slog.Logger) ([]bot.RepoOutcome, error)
}

// Publisher publishes a completed run's report (bot.Publisher implements
// it) and logs the outcome to log.
type Publisher interface {
	PublishRun(ctx context.Context, run bot.Run, log *slog.Logger) (bot.PublishResult, error)
}

// Events returns one handler per event the bot subscribes to: release,
// workflow_run, installation and ping. Each maps the event's action to a
// decision and calls the core; a nil publisher makes workflow_run log and
// ignore.
func Events(bumper Bumper, publisher Publisher) map[string]Handler {
	return map[string]Handler{
		"release":      releaseHandler{bumper},
		"workflow_run": workflowRunHandler{publisher},
		"installation": installationHandler{},
		"ping":         pingHandler{},
	}
}

type repository struct {
	FullName      string `json:"full_name"`
	DefaultBranch string `json:"default_branch"`
}

func (r *repository) repo() (bot.Repo, error) {
	if r == nil {
		return bot.Repo{}, fmt.Errorf("payload has no repository")
	}
	return bot.ParseRepo(r.FullName)
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

// Handle bumps pins on "published"; other actions are ignored.
func (h releaseHandler) Handle(ctx context.Context, d Delivery) error {
	var p releasePayload
	if err := decode(d, &p); err != nil {
		return err
	}
	if p.Action != "published" {
		d.Log.Info("release ignored", "reason", "action "+p.Action)
		return nil
	}
	if p.Release == nil {
		return fmt.Errorf("release payload has no release")
	}
	repo, err := p.Repository.repo()
	if err != nil {
		return err
	}
	r := p.Release
	_, err = h.bumper.BumpRelease(ctx, bot.Release{Repo: repo, Tag: r.TagName, Notes: r.Body,
		Draft: r.Draft, Prerelease: r.Prerelease}, d.Log)
	return err
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

// Handle publishes on "completed"; other actions are ignored.
func (h workflowRunHandler) Handle(ctx context.Context, d Delivery) error {
	var p workflowRunPayload
	if err := decode(d, &p); err != nil {
		return err
	}
	if p.Action != "completed" {
		d.Log.Info("workflow_run ignored", "reason", "action "+p.Action)
		return nil
	}
	if h.publisher == nil {
		d.Log.Info("workflow_run ignored", "reason", "publishing is not configured")
		return nil
	}
	if p.WorkflowRun == nil {
		return fmt.Errorf("workflow_run payload has no workflow_run")
	}
	repo, err := p.Repository.repo()
	if err != nil {
		return err
	}
	r := p.WorkflowRun
	run := bot.Run{Repo: repo, ID: r.ID, WorkflowPath: r.Path, Event: r.Event, Status: r.Status, HeadSHA: r.HeadSHA,
		HeadBranch: r.HeadBranch, DefaultBranch: p.Repository.DefaultBranch, URL: r.HTMLURL, UpdatedAt: r.UpdatedAt}
	if r.Conclusion != nil {
		run.Conclusion = *r.Conclusion
	}
	if r.HeadRepository != nil {
		if run.HeadRepo, err = r.HeadRepository.repo(); err != nil {
			return err
		}
	}
	_, err = h.publisher.PublishRun(ctx, run, d.Log)
	return err
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

// Handle logs installation changes. Nothing else needs doing: the set of
// served repositories is listed afresh on every release, and the GitHub
// adapter drops a cached repository client by itself when GitHub refuses
// its installation's token (after an uninstall or a reinstall).
func (installationHandler) Handle(_ context.Context, d Delivery) error {
	var p installationPayload
	if err := decode(d, &p); err != nil {
		return err
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
	return nil
}

type pingHandler struct{}

type pingPayload struct {
	Zen    string `json:"zen"`
	HookID int64  `json:"hook_id"`
}

// Handle logs the ping.
func (pingHandler) Handle(_ context.Context, d Delivery) error {
	var p pingPayload
	if err := decode(d, &p); err != nil {
		return err
	}
	d.Log.Info("ping", "hook_id", p.HookID, "zen", p.Zen)
	return nil
}
