package publish

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
	"slices"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbview"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
)

// LeaderboardConfig configures publishing the leaderboard: the runs of the
// leaderboard workflow on its repository's default branch, whose artifact
// holds the results directory, are validated against the declaration and
// the pin file of the run's head commit and committed, with the rendered
// tables, under Dir in the dashboard repository.
type LeaderboardConfig struct {
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

// Files of a published leaderboard directory besides the rendered ones
// (lbview.MarkdownFile, lbview.HTMLFile).
const (
	LeaderboardResultsDir = "results"
	LeaderboardRunsFile   = "runs.yaml"
	// LeaderboardManifestFile lists every file the bot published in the
	// directory with its sha256, and the run it came from: a publish whose
	// files are those is a no-op, and a file a publish no longer has (a
	// removed candidate's result) is deleted.
	LeaderboardManifestFile = "published.json"
	// LeaderboardManifestVersion is the manifest's format.
	LeaderboardManifestVersion = 1
)

// LeaderboardInput is what one leaderboard publish reads, all untrusted:
// the declaration and the pin file (bytes with their names for messages),
// the declaration's directory (for the traces it names) and the results.
type LeaderboardInput struct {
	Runs     []byte
	RunsName string
	// Pin is the pin file (nil: the repository has none).
	Pin     []byte
	PinName string
	// Traces is the directory of runs.yaml.
	Traces fs.FS
	// Results is the results directory.
	Results fs.FS
}

// CheckedLeaderboard is a leaderboard that passed CheckLeaderboard: the
// files of its directory (path relative to it → content) and what the
// commit message says about it.
type CheckedLeaderboard struct {
	Files   map[string][]byte
	Results int
	Groups  int
	// Simulator is the pinned simulator (tag and commit) every result ran on.
	Simulator pin.Harness
}

// CheckLeaderboard validates a leaderboard run for publishing, exactly as
// `action leaderboard validate --pin` does plus the release rule: the
// declaration decodes strictly and its traces resolve; every result
// validates against its schema and digest, is filed under its ids, ran the
// declaration as it is now, was offered its group's work, and records the
// command its declaration plans (leaderboard.CheckPlans); every declared run has a
// result and every result a declaration; every stored trace hashes to its
// name; every result ran on the pin file's
// simulator/catalog pair (drift, half-moved pin), and that simulator is a
// release: a stable tag vMAJOR.MINOR.PATCH. It returns the reasons the
// leaderboard may not be published (nil when it may) and, when it may, the
// files: results/ (canonical JSON, and the traces the results replayed),
// README.md and index.html rendered here.
func CheckLeaderboard(in LeaderboardInput) (CheckedLeaderboard, []string) {
	d, err := leaderboard.Decode(in.Runs, in.RunsName)
	if err != nil {
		return CheckedLeaderboard{}, []string{err.Error()}
	}
	var reasons []string
	traces, err := leaderboard.ResolveTraces(d, in.Traces)
	var es leaderboard.Errors
	switch {
	case errors.As(err, &es): // each names runs.yaml's line already
		for _, e := range es {
			reasons = append(reasons, e.Error())
		}
	case err != nil:
		reasons = append(reasons, fmt.Sprintf("%s: %v", in.RunsName, err))
	}
	pair, why := leaderboardPair(in.Pin, in.PinName)
	if why != "" {
		reasons = append(reasons, why)
	}
	results, probs, err := leaderboard.Check(d, in.Results, "")
	if err != nil {
		return CheckedLeaderboard{}, append(reasons, fmt.Sprintf("results: %v", err))
	}
	probs = append(probs, leaderboard.CheckPlans(results)...)
	slices.SortStableFunc(probs, func(a, b leaderboard.Problem) int { return strings.Compare(a.File, b.File) })
	for _, p := range probs {
		reasons = append(reasons, p.String())
	}
	if pair != nil {
		for _, p := range leaderboard.CheckPair(results, leaderboard.PinnedPair{SimulatorCommit: pair.Simulator.Commit, CatalogDigest: pair.ResultsCatalogDigest()}) {
			reasons = append(reasons, p.String())
		}
		if !ident.IsStableRelease(pair.Simulator.Tag) {
			reasons = append(reasons, fmt.Sprintf("%s: the leaderboard's simulator %s is pinned at %q, not a release (vMAJOR.MINOR.PATCH): published figures must be regenerable from a release",
				in.PinName, ident.Short(pair.Simulator.Commit), pair.Simulator.Tag))
		}
	}
	keys := slices.Sorted(maps.Keys(results))
	unreleased := map[leaderboard.Simulator][]string{} // build → files
	for _, k := range keys {
		if sim := results[k].Provenance.Simulator; !ident.IsStableRelease(sim.Tag) {
			unreleased[sim] = append(unreleased[sim], k+".json")
		}
	}
	for _, sim := range slices.SortedFunc(maps.Keys(unreleased), func(a, b leaderboard.Simulator) int { return strings.Compare(a.Commit+a.Tag, b.Commit+b.Tag) }) {
		files := unreleased[sim]
		reasons = append(reasons, fmt.Sprintf("%d result(s) ran on simulator build %s, which is not a release (tag %q; want vMAJOR.MINOR.PATCH): %s",
			len(files), ident.Short(sim.Commit), sim.Tag, strings.Join(files, ", ")))
	}
	if len(results) == 0 && len(probs) == 0 {
		reasons = append(reasons, "the results directory holds no result")
	}
	if len(reasons) > 0 {
		return CheckedLeaderboard{}, reasons
	}
	out := CheckedLeaderboard{Files: map[string][]byte{}, Results: len(results), Simulator: pair.Simulator}
	groups := map[string]bool{}
	for _, k := range keys {
		r := results[k]
		groups[r.Group] = true
		raw, err := r.Encode()
		if err != nil {
			return CheckedLeaderboard{}, []string{err.Error()}
		}
		out.Files[LeaderboardResultsDir+"/"+k+".json"] = raw
		if t := r.Declaration.Workload.Trace; t != nil && t.SHA256 != "" {
			for name, raw := range traces[t.SHA256].Files() {
				out.Files[path.Join(LeaderboardResultsDir, leaderboard.TracesDir, t.SHA256, name)] = raw
			}
		}
	}
	out.Groups = len(groups)
	rendered, err := lbview.Files(leaderboard.BuildBoard(d, results))
	if err != nil {
		return CheckedLeaderboard{}, []string{fmt.Sprintf("render: %v", err)}
	}
	maps.Copy(out.Files, rendered)
	return out, nil
}

// leaderboardPair reads the pin file's leaderboard pair, or says why it
// cannot.
func leaderboardPair(raw []byte, name string) (*pin.LeaderboardPair, string) {
	if raw == nil {
		return nil, fmt.Sprintf("%s: no pin file: the leaderboard's simulator/catalog pair must be pinned (see docs/LEADERBOARD.md)", name)
	}
	p, err := pin.Parse(raw, name)
	if err != nil {
		return nil, err.Error()
	}
	if p.Leaderboard == nil {
		return nil, fmt.Sprintf("%s: pins no leaderboard pair: add a leaderboard: section with simulator and catalog (see docs/LEADERBOARD.md)", name)
	}
	return p.Leaderboard, ""
}

// ResultsFromArtifact reads an artifact's zip archive as a results
// directory, in memory, within the limits of every artifact (readArchive).
func ResultsFromArtifact(zipped []byte) (fs.FS, error) {
	return readArchive(zipped)
}

// LeaderboardManifest is published.json of a published leaderboard
// directory.
type LeaderboardManifest struct {
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

// ErrStale is returned by PlanLeaderboard when a newer run's results are
// already published: an older run delivered late never moves them back.
var ErrStale = errors.New("a newer run's leaderboard is already published")

// PlanLeaderboard returns the files one leaderboard publish writes in the
// dashboard repository (path → content; a nil content deletes the path):
// the checked files under dir, and dir/published.json. A file the previous
// publish wrote (per the manifest at the dashboard's head, nil when none)
// that this one does not have is deleted. It returns ErrUnchanged when the
// files are those already published, ErrStale when the published ones came
// from a newer run, and an error naming the file when the manifest is
// malformed.
func PlanLeaderboard(dir string, files map[string][]byte, run WorkflowRun, manifest []byte) (map[string][]byte, error) {
	next := LeaderboardManifest{Version: LeaderboardManifestVersion, Run: run.ID, RunURL: run.URL, Commit: run.HeadSHA, Files: map[string]string{}}
	if !run.UpdatedAt.IsZero() {
		next.UpdatedAt = run.UpdatedAt.UTC().Format(time.RFC3339)
	}
	for p, raw := range files {
		sum := sha256.Sum256(raw)
		next.Files[p] = ident.Digest(sum[:])
	}
	var prev LeaderboardManifest
	if manifest != nil {
		if err := jsoncodec.Decode(manifest, &prev); err != nil {
			return nil, fmt.Errorf("%s: %w", path.Join(dir, LeaderboardManifestFile), err)
		}
		if prev.Version != LeaderboardManifestVersion {
			return nil, fmt.Errorf("%s: version %d is not supported (want %d)", path.Join(dir, LeaderboardManifestFile), prev.Version, LeaderboardManifestVersion)
		}
		if maps.Equal(prev.Files, next.Files) {
			return nil, ErrUnchanged
		}
		if prev.UpdatedAt != "" && next.UpdatedAt != "" && prev.UpdatedAt > next.UpdatedAt {
			return nil, fmt.Errorf("%w (run %d, updated %s; this run %d, updated %s)", ErrStale, prev.Run, prev.UpdatedAt, run.ID, next.UpdatedAt)
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
	out[path.Join(dir, LeaderboardManifestFile)] = raw
	return out, nil
}

// repoFS is a directory of a repository at a commit, read through the
// GitHub interface: the traces runs.yaml names. A read GitHub could not
// answer for now (rate limited, or the delivery's deadline passed) is kept
// in stopped: the publish then fails (a redelivery retries it) instead of
// refusing the run for it.
type repoFS struct {
	ctx      context.Context
	gh       RepoReader
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
	return memFS{name: raw}.Open(name)
}

// SkipLeaderboardRun says why a run is not the leaderboard workflow's to
// publish ("" when it is): RunDecision against the leaderboard workflow.
func (p *Publisher) skipLeaderboardRun(run WorkflowRun) string {
	lb := p.Cfg.Leaderboard
	if lb == nil {
		return "leaderboard publishing is not configured"
	}
	return RunDecision(run, lb.WorkflowRepo, lb.WorkflowPath)
}

// publishLeaderboard publishes the results artifact of a leaderboard run:
// CheckLeaderboard over the artifact and the declaration and pin file of
// the run's head commit, then one commit through commitDashboard.
func (p *Publisher) publishLeaderboard(ctx context.Context, run WorkflowRun, log *slog.Logger) (PublishResult, error) {
	lb := p.Cfg.Leaderboard
	zipped, reason, err := p.downloadArtifact(ctx, run, lb.Artifact)
	if errors.Is(err, ghmodel.ErrNotFound) {
		reason, err = fmt.Sprintf("run %d has no artifact named %q (or it expired)", run.ID, lb.Artifact), nil
	}
	if reason != "" || err != nil {
		return refused(reason), err
	}
	results, err := ResultsFromArtifact(zipped)
	if err != nil {
		return refused(fmt.Sprintf("artifact %q: %v", lb.Artifact, err)), nil
	}
	traces := &repoFS{ctx: ctx, gh: p.GH, repo: run.Repo, ref: run.HeadSHA, dir: path.Dir(lb.Runs)}
	in := LeaderboardInput{RunsName: lb.Runs, PinName: lb.PinFile, Results: results, Traces: traces}
	for _, f := range []struct {
		path string
		dst  *[]byte
	}{{lb.Runs, &in.Runs}, {lb.PinFile, &in.Pin}} {
		raw, err := p.GH.ReadFile(ctx, run.Repo, run.HeadSHA, f.path)
		switch {
		case errors.Is(err, ghmodel.ErrNotFound) && f.path == lb.Runs:
			return refused(fmt.Sprintf("%s has no %s at the run's commit %s", run.Repo, lb.Runs, ident.Short(run.HeadSHA))), nil
		case errors.Is(err, ghmodel.ErrNotFound):
		case err != nil:
			return PublishResult{}, fmt.Errorf("read %s of %s at %s: %w", f.path, run.Repo, ident.Short(run.HeadSHA), err)
		default:
			*f.dst = raw
		}
	}
	checked, reasons := CheckLeaderboard(in)
	if traces.stopped != nil {
		return PublishResult{}, traces.stopped
	}
	return p.commitLeaderboard(ctx, checked, reasons, in.Runs, run, log)
}

// PublishLeaderboard publishes a leaderboard from local files (`bot
// publish-leaderboard`): CheckLeaderboard, then the same commit as a
// workflow run's, made at publishedAt. A refusal is PublishRefused with its
// reasons and a nil error.
//
// When the declaration's home is the dashboard's leaderboard directory (the
// default), the declaration given must be the one on the dashboard's
// default branch: results of another are refused.
func (p *Publisher) PublishLeaderboard(ctx context.Context, in LeaderboardInput, publishedAt time.Time) (PublishResult, error) {
	checked, reasons := CheckLeaderboard(in)
	if lb := p.Cfg.Leaderboard; p.ownsRuns() {
		branch, err := p.GH.DefaultBranch(ctx, lb.WorkflowRepo)
		if err != nil {
			return PublishResult{}, fmt.Errorf("%s: %w", lb.WorkflowRepo, err)
		}
		head, err := p.GH.BranchHead(ctx, lb.WorkflowRepo, branch)
		if err != nil {
			return PublishResult{}, fmt.Errorf("%s branch %s: %w", lb.WorkflowRepo, branch, err)
		}
		home, err := p.GH.ReadFile(ctx, lb.WorkflowRepo, head, lb.Runs)
		switch {
		case errors.Is(err, ghmodel.ErrNotFound):
			reasons = append(reasons, fmt.Sprintf("%s has no %s on its default branch", lb.WorkflowRepo, lb.Runs))
		case err != nil:
			return PublishResult{}, fmt.Errorf("read %s of %s: %w", lb.Runs, lb.WorkflowRepo, err)
		case !bytes.Equal(home, in.Runs):
			reasons = append(reasons, fmt.Sprintf("%s differs from %s on the default branch of %s: publish the results of the declaration there", in.RunsName, lb.Runs, lb.WorkflowRepo))
		}
	}
	return p.commitLeaderboard(ctx, checked, reasons, in.Runs, WorkflowRun{UpdatedAt: publishedAt}, p.logger())
}

// ownsRuns reports whether the dashboard's leaderboard directory is the
// declaration's own (same repository, runs.yaml in it): the bot then never
// writes runs.yaml.
func (p *Publisher) ownsRuns() bool {
	lb := p.Cfg.Leaderboard
	return lb.WorkflowRepo.Same(p.Cfg.Dashboard) && path.Join(lb.Dir, LeaderboardRunsFile) == path.Clean(lb.Runs)
}

// commitLeaderboard commits a checked leaderboard (or refuses it with its
// reasons) to the dashboard through commitDashboard.
func (p *Publisher) commitLeaderboard(ctx context.Context, checked CheckedLeaderboard, reasons []string, runs []byte, run WorkflowRun, log *slog.Logger) (PublishResult, error) {
	lb := p.Cfg.Leaderboard
	if len(reasons) > 0 {
		return refused(reasons...), nil
	}
	files := checked.Files
	if !p.ownsRuns() {
		// The dashboard's directory is then a whole leaderboard directory
		// (validate and verify run on it); in the declaration's own
		// directory the declaration stays the maintainers'.
		files[LeaderboardRunsFile] = runs
	}
	res := PublishResult{ID: "leaderboard", Message: leaderboardMessage(checked, run)}
	if run.ID != 0 {
		res.ID = fmt.Sprintf("leaderboard-run-%d", run.ID)
	}
	err := p.commitDashboard(ctx, &res, log, func(head string) (map[string][]byte, error) {
		manifest, err := p.GH.ReadFile(ctx, p.Cfg.Dashboard, head, path.Join(lb.Dir, LeaderboardManifestFile))
		if errors.Is(err, ghmodel.ErrNotFound) {
			manifest, err = nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s of %s: %w", path.Join(lb.Dir, LeaderboardManifestFile), p.Cfg.Dashboard, err)
		}
		plan, err := PlanLeaderboard(lb.Dir, files, run, manifest)
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

func leaderboardMessage(c CheckedLeaderboard, run WorkflowRun) string {
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
