package harness

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/git"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// SimCommit is one commit of the simulator's history.
type SimCommit struct {
	Hash    string
	Subject string
	// Date is the commit's committer date.
	Date time.Time
}

// FirstParents returns the first-parent commits of repo from good to bad,
// both included, oldest first: the commits a bisect may name. Both refs
// are pinned as Build pins them (a tag or a 40-hex commit; a branch is
// refused), and good must be a first-parent ancestor of bad.
func (b *Builder) FirstParents(ctx context.Context, repo, good, bad string) ([]SimCommit, error) {
	mirror, ends, err := b.resolve(ctx, repo, good, bad)
	if err != nil {
		return nil, err
	}
	out, err := git.Run(ctx, mirror, "log", "--first-parent", "--reverse", "--format=%H%x00%cI%x00%s", ends[0]+".."+ends[1])
	if err != nil {
		return nil, err
	}
	first, err := commitInfo(ctx, mirror, ends[0])
	if err != nil {
		return nil, err
	}
	commits := []SimCommit{first}
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			continue
		}
		c, err := parseLogLine(line)
		if err != nil {
			return nil, err
		}
		commits = append(commits, c)
	}
	// The walk from bad stops at good's ancestors: good is on bad's
	// first-parent line when it is the first parent of the oldest commit.
	if len(commits) < 2 {
		return nil, fmt.Errorf("simulator %s (%s) is not older than %s (%s) in %s", good, ends[0], bad, ends[1], repo)
	}
	parent, err := git.Run(ctx, mirror, "rev-parse", commits[1].Hash+"^1")
	if err != nil || parent != ends[0] {
		return nil, fmt.Errorf("simulator %s (%s) is not on the first-parent line of %s (%s) in %s: bisect from an older commit of that line", good, ends[0], bad, ends[1], repo)
	}
	return commits, nil
}

// SimRelease is one release tag of the simulator and the commit it names.
type SimRelease struct {
	Tag    string
	Commit SimCommit
}

// Releases returns the stable release tags of repo (vX.Y.Z, no
// pre-release) from from to to, both included, oldest first, each with its
// commit and that commit's date (the release's date). from and to must be
// such tags of repo.
func (b *Builder) Releases(ctx context.Context, repo, from, to string) ([]SimRelease, error) {
	for _, t := range []string{from, to} {
		if !ident.IsStableRelease(t) {
			return nil, fmt.Errorf("%q is not a release tag (want vMAJOR.MINOR.PATCH)", t)
		}
	}
	if ident.CompareTags(from, to) > 0 {
		return nil, fmt.Errorf("--from %s is newer than --to %s", from, to)
	}
	mirror, err := b.mirror(ctx, repo)
	if err != nil {
		return nil, err
	}
	out, err := git.Run(ctx, mirror, "tag", "--list")
	if err != nil {
		return nil, err
	}
	tags := ident.ReleaseTags(strings.Split(out, "\n"))
	var rel []SimRelease
	for i := len(tags) - 1; i >= 0; i-- {
		t := tags[i]
		if ident.CompareTags(t, from) < 0 || ident.CompareTags(t, to) > 0 {
			continue
		}
		hash, err := resolveRef(ctx, mirror, repo, t)
		if err != nil {
			return nil, err
		}
		c, err := commitInfo(ctx, mirror, hash)
		if err != nil {
			return nil, err
		}
		rel = append(rel, SimRelease{Tag: t, Commit: c})
	}
	for _, t := range []string{from, to} {
		if len(rel) == 0 || (rel[0].Tag != t && rel[len(rel)-1].Tag != t) {
			return nil, fmt.Errorf("%s is not a tag of %s", t, repo)
		}
	}
	return rel, nil
}

// resolve pins refs in repo's mirror to their commits.
func (b *Builder) resolve(ctx context.Context, repo string, refs ...string) (string, []string, error) {
	for _, r := range refs {
		if err := checkRefSyntax(r); err != nil {
			return "", nil, err
		}
	}
	mirror, err := b.mirror(ctx, repo)
	if err != nil {
		return "", nil, err
	}
	var commits []string
	for _, r := range refs {
		c, err := resolveRef(ctx, mirror, repo, r)
		if err != nil {
			return "", nil, err
		}
		commits = append(commits, c)
	}
	return mirror, commits, nil
}

func commitInfo(ctx context.Context, mirror, commit string) (SimCommit, error) {
	out, err := git.Run(ctx, mirror, "log", "-1", "--format=%H%x00%cI%x00%s", commit)
	if err != nil {
		return SimCommit{}, err
	}
	return parseLogLine(out)
}

func parseLogLine(line string) (SimCommit, error) {
	f := strings.SplitN(line, "\x00", 3)
	if len(f) != 3 || !ident.IsCommit(f[0]) {
		return SimCommit{}, fmt.Errorf("git log: unexpected line %q", line)
	}
	d, err := time.Parse(time.RFC3339, f[1])
	if err != nil {
		return SimCommit{}, fmt.Errorf("git log: commit %s: date %q: %w", f[0], f[1], err)
	}
	return SimCommit{Hash: f[0], Subject: f[2], Date: d}, nil
}
