package bump

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
)

// LeaderboardTrailer ends every leaderboard-pair bump commit message.
const LeaderboardTrailer = "Accuracy-Bot: leaderboard-bump"

// MaxCatalogFiles bounds the files of a catalog directory the bot reads to
// hash it (a catalog holds a config.json per model; more is refused).
const MaxCatalogFiles = 2000

// SimulatorTarget is the simulator release a leaderboard-pair bump moves to.
type SimulatorTarget struct {
	Simulator ident.Repo
	Tag       string
	// Commit is the commit Tag points at, resolved through the git refs.
	Commit  string
	Release ghmodel.Release
	// WebURL is the GitHub web root, e.g. https://github.com.
	WebURL string
	// PinFile is the pin file's path, named in the pull request.
	PinFile string
}

// Why a repository gets no leaderboard-pair bump (besides SkipUpToDate and
// SkipNewer, which mean the same as for the harness).
const (
	SkipNoLeaderboard  SkipReason = "pins no leaderboard pair (no leaderboard: section in its pin file)"
	SkipBundledCatalog SkipReason = "the leaderboard's catalog is bundled: it is the pinned harness's own, which moves with " +
		"the harness, not with the simulator; the bot moves a pair whose catalog is none or a path in the repository"
)

// PlanLeaderboardBump decides what a simulator release changes in one
// consumer repository: its pin file's leaderboard: pair moved to the
// release, simulator and catalog together in one edit (pin.SetLeaderboard,
// which pin.CheckPairMove accepts):
//
//   - catalog none (the simulator's own model_configs/): the simulator
//     moves and the catalog moves with it, having no version of its own;
//   - a catalog path in the repository: the simulator moves and the
//     catalog is pinned at files.CatalogDigest, the content the directory
//     has now; when that is still the pinned digest the catalog has not
//     moved for the new simulator, and moving the simulator alone would
//     half-move the pair, so the repository is skipped saying so;
//   - catalog bundled: skipped (SkipBundledCatalog).
//
// A pin file without a leaderboard: section, or whose simulator is another
// repository, or pinned by commit without a tag, is skipped; so is one that
// pins this release or a newer one. A broken pin file is an error naming it.
func PlanLeaderboardBump(files ConsumerFiles, t SimulatorTarget) (BumpPlan, error) {
	if files.Pin == nil {
		return BumpPlan{}, SkipNoLeaderboard
	}
	p, err := pin.Parse(files.Pin, files.PinPath)
	if err != nil {
		return BumpPlan{}, fmt.Errorf("pin file: %w", err)
	}
	if p.Leaderboard == nil {
		return BumpPlan{}, SkipNoLeaderboard
	}
	cur := *p.Leaderboard
	switch {
	case !pin.SameRepository(cur.Simulator.Repository, t.Simulator.String()):
		return BumpPlan{}, SkipReason(fmt.Sprintf("its leaderboard pins the simulator %s, not %s", cur.Simulator.Repository, t.Simulator))
	case cur.Simulator.Commit == t.Commit && cur.Simulator.Tag == t.Tag:
		return BumpPlan{}, SkipUpToDate
	case cur.Simulator.Tag == "":
		return BumpPlan{}, SkipReason(fmt.Sprintf("its leaderboard pins the simulator at commit %s without a tag; add leaderboard.simulator.tag by hand for the bot to move it", ident.Short(cur.Simulator.Commit)))
	case ident.CompareTags(cur.Simulator.Tag, t.Tag) > 0:
		return BumpPlan{}, SkipNewer
	case cur.Simulator.Tag == t.Tag:
		return BumpPlan{}, SkipUpToDate
	}
	next := cur
	next.Simulator.Tag, next.Simulator.Commit = t.Tag, t.Commit
	switch src := cur.Catalog.Source; src {
	case pin.None:
	case pin.Bundled:
		return BumpPlan{}, SkipBundledCatalog
	default:
		switch files.CatalogDigest {
		case "":
			return BumpPlan{}, SkipReason(fmt.Sprintf("its leaderboard catalog %s is not a directory on the default branch; fix leaderboard.catalog.source", src))
		case cur.Catalog.Digest:
			return BumpPlan{}, SkipReason(fmt.Sprintf("its leaderboard catalog %s still has the pinned content (%s): the pair moves together, and moving the simulator to %s alone would half-move it; commit the catalog for %s to %s, then redeliver the release",
				src, ident.DigestPrefix+ident.ShortDigest(cur.Catalog.Digest), t.Tag, t.Tag, src))
		}
		next.Catalog.Digest = files.CatalogDigest
	}
	out, err := pin.SetLeaderboard(files.Pin, next)
	if err != nil {
		return BumpPlan{}, fmt.Errorf("pin file %s: %w", files.PinPath, err)
	}
	plan := BumpPlan{Files: map[string][]byte{files.PinPath: out}, FromTag: cur.Simulator.Tag}
	plan.Title = "Bump leaderboard simulator to " + t.Tag
	catalog := "catalog none (the simulator's own model configs)"
	if cur.Catalog.Source != pin.None {
		plan.Title += " with its catalog"
		catalog = fmt.Sprintf("catalog %s at %s", cur.Catalog.Source, next.Catalog.Digest)
	}
	plan.Message = fmt.Sprintf("%s\n\nPins the leaderboard pair at %s %s (%s) with %s.\n\n%s\n",
		plan.Title, t.Simulator, t.Commit, t.Tag, catalog, LeaderboardTrailer)
	plan.Body = render.LeaderboardBumpBody(render.LeaderboardBump{Simulator: t.Simulator.String(), WebURL: t.WebURL, PinFile: files.PinPath,
		FromTag: cur.Simulator.Tag, FromCommit: cur.Simulator.Commit, Tag: t.Tag, Commit: t.Commit,
		CatalogSource: cur.Catalog.Source, CatalogFrom: cur.Catalog.Digest, CatalogTo: next.Catalog.Digest, ReleaseNotes: t.Release.Notes})
	return plan, nil
}

// leaderboardKind is the leaderboard-pair bump to t.
func (b *Bumper) leaderboardKind(t SimulatorTarget) kind {
	return kind{branch: b.Cfg.LeaderboardBranch, trailer: LeaderboardTrailer, marker: render.LeaderboardBumpMarker, read: b.readLeaderboard,
		plan:       func(f ConsumerFiles) (BumpPlan, error) { return PlanLeaderboardBump(f, t) },
		superseded: func(pull int) string { return render.LeaderboardSupersededComment(pull, t.Tag) }}
}

// readLeaderboard reads what a leaderboard-pair bump needs of a repository
// at ref: its pin file and, when the pin's leaderboard catalog is a path,
// that directory's content digest as results record it (ident.DirHash; ""
// when the path is not a directory there). Workflows are not read.
func (b *Bumper) readLeaderboard(ctx context.Context, repo ident.Repo, ref string) (ConsumerFiles, error) {
	files := ConsumerFiles{PinPath: b.Cfg.PinFile}
	src, err := b.GH.ReadFile(ctx, repo, ref, b.Cfg.PinFile)
	switch {
	case errors.Is(err, ghmodel.ErrNotFound):
		return files, nil
	case err != nil:
		return files, fmt.Errorf("read %s: %w", b.Cfg.PinFile, err)
	}
	files.Pin = src
	p, err := pin.Parse(src, b.Cfg.PinFile)
	if err != nil || p.Leaderboard == nil {
		return files, nil // the plan says why
	}
	dir := p.Leaderboard.Catalog.Source
	if dir == pin.None || dir == pin.Bundled {
		return files, nil
	}
	paths, err := b.GH.ListFiles(ctx, repo, ref, dir)
	switch {
	case errors.Is(err, ghmodel.ErrNotFound):
		return files, nil
	case err != nil:
		return files, fmt.Errorf("catalog %s: %w", dir, err)
	case len(paths) > MaxCatalogFiles:
		return files, fmt.Errorf("catalog %s: %d files, more than the %d the bot reads", dir, len(paths), MaxCatalogFiles)
	}
	content := make(map[string][]byte, len(paths))
	for _, p := range paths {
		data, err := b.GH.ReadFile(ctx, repo, ref, p)
		if err != nil {
			return files, fmt.Errorf("catalog %s: read %s: %w", dir, p, err)
		}
		content[strings.TrimPrefix(p, dir+"/")] = data
	}
	files.CatalogDigest = ident.FilesDigest(content)
	return files, nil
}
