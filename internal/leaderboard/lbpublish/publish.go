// Package lbpublish is the bot's publishing of the leaderboard: a
// leaderboard workflow run's results artifact (or local files, `bot
// publish-leaderboard`) checked by lbview.Check against the declaration and
// pin file of its commit, and committed with the rendered tables and a
// manifest (published.json) under the leaderboard's directory of the
// dashboard repository. It publishes through internal/publish's Publisher
// (its GitHub interfaces, its one-commit retry loop, its refusal comment):
// Publisher is the publish.RunPublisher cmd/bot wires into it.
package lbpublish

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"path"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbview"
	"github.com/inference-sim/accuracy-dashboard/internal/publish"
)

// Publisher publishes the leaderboard workflow's runs (a
// publish.RunPublisher) and local leaderboards (PublishLocal).
type Publisher struct {
	Cfg Config
}

// Config configures publishing the leaderboard: the runs of the
// leaderboard workflow on its repository's default branch, whose artifact
// holds the results directory, are validated against the declaration and
// the pin file of the run's head commit and committed, with the rendered
// tables, under Dir in the dashboard repository.
type Config struct {
	// WorkflowRepo and WorkflowPath name the leaderboard workflow; the
	// declaration and the pin file are read from WorkflowRepo.
	WorkflowRepo ident.Repo
	WorkflowPath string
	// Artifact is the run's artifact holding the results directory
	// (<group>/<run>.json and traces/ at its root).
	Artifact string
	// Runs is the path of runs.yaml in WorkflowRepo.
	Runs string
	// PinFile is the path of the pin file (its leaderboard: pair) in WorkflowRepo.
	PinFile string
	// Dir is the leaderboard directory in the dashboard repository.
	Dir string
}

// The manifest of a published leaderboard directory.
const (
	// ManifestFile lists every file the bot published in the
	// directory with its sha256, and the run it came from: a publish whose
	// files are those is a no-op, and a file a publish no longer has (a
	// removed candidate's result) is deleted.
	ManifestFile = "published.json"
	// ManifestVersion is the manifest's format.
	ManifestVersion = 1
)

// Manifest is published.json of a published leaderboard
// directory.
type Manifest struct {
	Version int `json:"version"`
	// Run is the workflow run the files came from (0: by hand).
	Run       int64  `json:"run,omitempty"`
	RunURL    string `json:"run_url,omitempty"`
	Commit    string `json:"commit,omitempty"`
	UpdatedAt string `json:"updated_at,omitempty"`
	// Files maps each published file (relative to the directory) to
	// "sha256:<hex>" of its content.
	Files map[string]string `json:"files"`
}

// Plan returns the files one leaderboard publish writes in the
// dashboard repository (path → content; a nil content deletes the path):
// the checked files under dir, and dir/published.json. A file the previous
// publish wrote (per the manifest at the dashboard's head, nil when none)
// that this one does not have is deleted. It returns publish.ErrUnchanged when the
// files are those already published, publish.ErrStale when the published ones came
// from a newer run, and an error naming the file when the manifest is
// malformed.
func Plan(dir string, files map[string][]byte, run publish.WorkflowRun, manifest []byte) (map[string][]byte, error) {
	next := Manifest{Version: ManifestVersion, Run: run.ID, RunURL: run.URL, Commit: run.HeadSHA, Files: map[string]string{}}
	if !run.UpdatedAt.IsZero() {
		next.UpdatedAt = run.UpdatedAt.UTC().Format(time.RFC3339)
	}
	for p, raw := range files {
		sum := sha256.Sum256(raw)
		next.Files[p] = ident.Digest(sum[:])
	}
	var prev Manifest
	if manifest != nil {
		if err := jsoncodec.Decode(manifest, &prev); err != nil {
			return nil, fmt.Errorf("%s: %w", path.Join(dir, ManifestFile), err)
		}
		if prev.Version != ManifestVersion {
			return nil, fmt.Errorf("%s: version %d is not supported (want %d)", path.Join(dir, ManifestFile), prev.Version, ManifestVersion)
		}
		if maps.Equal(prev.Files, next.Files) {
			return nil, publish.ErrUnchanged
		}
		if prev.UpdatedAt != "" && next.UpdatedAt != "" && prev.UpdatedAt > next.UpdatedAt {
			return nil, fmt.Errorf("%w (run %d, updated %s; this run %d, updated %s)", publish.ErrStale, prev.Run, prev.UpdatedAt, run.ID, next.UpdatedAt)
		}
	}
	out := map[string][]byte{}
	for p, raw := range files {
		if prev.Files[p] != next.Files[p] {
			out[path.Join(dir, p)] = raw
		}
	}
	for p := range prev.Files {
		if _, kept := next.Files[p]; !kept {
			out[path.Join(dir, p)] = nil
		}
	}
	raw, err := jsoncodec.Encode(next)
	if err != nil {
		return nil, err
	}
	out[path.Join(dir, ManifestFile)] = raw
	return out, nil
}

// repoFS is a directory of a repository at a commit, read through the
// GitHub interface: the traces runs.yaml names. A read GitHub could not
// answer for now (rate limited, or the delivery's deadline passed) is kept
// in stopped: the publish then fails (a redelivery retries it) instead of
// refusing the run for it.
type repoFS struct {
	ctx      context.Context
	gh       publish.RepoReader
	repo     ident.Repo
	ref, dir string
	stopped  error
}

func (f *repoFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	raw, err := f.gh.ReadFile(f.ctx, f.repo, f.ref, path.Join(f.dir, name))
	if errors.Is(err, ghmodel.ErrNotFound) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	if err != nil {
		if (errors.Is(err, ghmodel.ErrRateLimited) || f.ctx.Err() != nil) && f.stopped == nil {
			f.stopped = fmt.Errorf("read %s of %s at %s: %w", path.Join(f.dir, name), f.repo, ident.Short(f.ref), err)
		}
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return raw, nil
}

func (f *repoFS) Open(name string) (fs.File, error) {
	raw, err := f.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return publish.MemFS{name: raw}.Open(name)
}

// SkipRun says why a run is not the leaderboard workflow's to publish
// ("" when it is): publish.RunDecision against the leaderboard workflow.
func (l *Publisher) SkipRun(run publish.WorkflowRun) string {
	return publish.RunDecision(run, l.Cfg.WorkflowRepo, l.Cfg.WorkflowPath)
}

// Kind is what a leaderboard publish publishes, as its refusal comment
// names it.
func (l *Publisher) Kind() publish.PublishKind { return Kind }

// Artifact is the name of a leaderboard run's results artifact.
func (l *Publisher) Artifact() string { return l.Cfg.Artifact }

// Kind is the leaderboard's kind of publish.
var Kind = publish.PublishKind{Title: "Leaderboard", Artifact: "results"}

// PublishRun publishes the results artifact of a leaderboard run through
// p: lbview.Check over the artifact and the declaration and pin file of the
// run's head commit, then one commit through p.CommitDashboard. A refusal
// is a PublishRefused result with its reasons and a nil error.
func (l *Publisher) PublishRun(ctx context.Context, p *publish.Publisher, run publish.WorkflowRun, log *slog.Logger) (publish.PublishResult, error) {
	lb := l.Cfg
	zipped, reason, err := p.DownloadArtifact(ctx, run, lb.Artifact)
	if errors.Is(err, ghmodel.ErrNotFound) {
		reason, err = fmt.Sprintf("run %d has no artifact named %q (or it expired)", run.ID, lb.Artifact), nil
	}
	if reason != "" || err != nil {
		return publish.Refused(reason), err
	}
	results, err := publish.ResultsFromArtifact(zipped)
	if err != nil {
		return publish.Refused(fmt.Sprintf("artifact %q: %v", lb.Artifact, err)), nil
	}
	traces := &repoFS{ctx: ctx, gh: p.GH, repo: run.Repo, ref: run.HeadSHA, dir: path.Dir(lb.Runs)}
	in := lbview.CheckInput{RunsName: lb.Runs, PinName: lb.PinFile, Results: results, Traces: traces}
	for _, f := range []struct {
		path string
		dst  *[]byte
	}{{lb.Runs, &in.Runs}, {lb.PinFile, &in.Pin}} {
		raw, err := p.GH.ReadFile(ctx, run.Repo, run.HeadSHA, f.path)
		switch {
		case errors.Is(err, ghmodel.ErrNotFound) && f.path == lb.Runs:
			return publish.Refused(fmt.Sprintf("%s has no %s at the run's commit %s", run.Repo, lb.Runs, ident.Short(run.HeadSHA))), nil
		case errors.Is(err, ghmodel.ErrNotFound):
		case err != nil:
			return publish.PublishResult{}, fmt.Errorf("read %s of %s at %s: %w", f.path, run.Repo, ident.Short(run.HeadSHA), err)
		default:
			*f.dst = raw
		}
	}
	checked, reasons := lbview.Check(in)
	if traces.stopped != nil {
		return publish.PublishResult{}, traces.stopped
	}
	return l.commit(ctx, p, checked, reasons, in.Runs, run, log)
}

// PublishLocal publishes a leaderboard from local files (`bot
// publish-leaderboard`) through p: lbview.Check, then the same commit as a
// workflow run's, made at publishedAt. A refusal is PublishRefused with its
// reasons and a nil error.
//
// When the declaration's home is the dashboard's leaderboard directory (the
// default), the declaration given must be the one on the dashboard's
// default branch: results of another are refused.
func (l *Publisher) PublishLocal(ctx context.Context, p *publish.Publisher, in lbview.CheckInput, publishedAt time.Time) (publish.PublishResult, error) {
	checked, reasons := lbview.Check(in)
	if lb := l.Cfg; l.ownsRuns(p) {
		branch, err := p.GH.DefaultBranch(ctx, lb.WorkflowRepo)
		if err != nil {
			return publish.PublishResult{}, fmt.Errorf("%s: %w", lb.WorkflowRepo, err)
		}
		head, err := p.GH.BranchHead(ctx, lb.WorkflowRepo, branch)
		if err != nil {
			return publish.PublishResult{}, fmt.Errorf("%s branch %s: %w", lb.WorkflowRepo, branch, err)
		}
		home, err := p.GH.ReadFile(ctx, lb.WorkflowRepo, head, lb.Runs)
		switch {
		case errors.Is(err, ghmodel.ErrNotFound):
			reasons = append(reasons, fmt.Sprintf("%s has no %s on its default branch", lb.WorkflowRepo, lb.Runs))
		case err != nil:
			return publish.PublishResult{}, fmt.Errorf("read %s of %s: %w", lb.Runs, lb.WorkflowRepo, err)
		case !bytes.Equal(home, in.Runs):
			reasons = append(reasons, fmt.Sprintf("%s differs from %s on the default branch of %s: publish the results of the declaration there", in.RunsName, lb.Runs, lb.WorkflowRepo))
		}
	}
	return l.commit(ctx, p, checked, reasons, in.Runs, publish.WorkflowRun{UpdatedAt: publishedAt}, p.Logger())
}

// ownsRuns reports whether the dashboard's leaderboard directory is the
// declaration's own (same repository, runs.yaml in it): the bot then never
// writes runs.yaml.
func (l *Publisher) ownsRuns(p *publish.Publisher) bool {
	lb := l.Cfg
	return lb.WorkflowRepo.Same(p.Cfg.Dashboard) && path.Join(lb.Dir, lbview.RunsFile) == path.Clean(lb.Runs)
}

// commit commits a checked leaderboard (or refuses it with its reasons) to
// the dashboard through p.CommitDashboard.
func (l *Publisher) commit(ctx context.Context, p *publish.Publisher, checked lbview.Checked, reasons []string, runs []byte, run publish.WorkflowRun, log *slog.Logger) (publish.PublishResult, error) {
	lb := l.Cfg
	if len(reasons) > 0 {
		return publish.Refused(reasons...), nil
	}
	files := checked.Files
	if !l.ownsRuns(p) {
		// The dashboard's directory is then a whole leaderboard directory
		// (validate and verify run on it); in the declaration's own
		// directory the declaration stays the maintainers'.
		files[lbview.RunsFile] = runs
	}
	res := publish.PublishResult{ID: "leaderboard", Message: leaderboardMessage(checked, run)}
	if run.ID != 0 {
		res.ID = fmt.Sprintf("leaderboard-run-%d", run.ID)
	}
	err := p.CommitDashboard(ctx, &res, log, func(head string) (map[string][]byte, error) {
		manifest, err := p.GH.ReadFile(ctx, p.Cfg.Dashboard, head, path.Join(lb.Dir, ManifestFile))
		if errors.Is(err, ghmodel.ErrNotFound) {
			manifest, err = nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s of %s: %w", path.Join(lb.Dir, ManifestFile), p.Cfg.Dashboard, err)
		}
		plan, err := Plan(lb.Dir, files, run, manifest)
		if err != nil {
			return nil, err
		}
		// A file the manifest lists but someone removed is not deleted
		// again: a deletion names only paths the head has.
		for file, raw := range plan {
			if raw != nil {
				continue
			}
			if _, err := p.GH.ReadFile(ctx, p.Cfg.Dashboard, head, file); errors.Is(err, ghmodel.ErrNotFound) {
				delete(plan, file)
			} else if err != nil {
				return nil, fmt.Errorf("read %s of %s: %w", file, p.Cfg.Dashboard, err)
			}
		}
		return plan, nil
	})
	return res, err
}

func leaderboardMessage(c lbview.Checked, run publish.WorkflowRun) string {
	msg := fmt.Sprintf("Publish leaderboard: %d results in %d groups\n\nSimulator %s (%s)", c.Results, c.Groups, c.Simulator.Tag, ident.Short(c.Simulator.Commit))
	if run.ID != 0 {
		msg += fmt.Sprintf(", run %d of %s at %s", run.ID, run.Repo, ident.Short(run.HeadSHA))
	}
	msg += ".\n"
	if run.URL != "" {
		msg += "Source: " + run.URL + "\n"
	}
	return msg
}
