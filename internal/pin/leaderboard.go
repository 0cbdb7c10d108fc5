package pin

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// LeaderboardPair is the leaderboard's pin: the simulator build every
// published result runs on and the model catalog handed to it. A result's
// numbers depend on both, so they are pinned, and moved, as one pair:
//
//	leaderboard:
//	  simulator:
//	    repository: inference-sim/inference-sim
//	    tag: v0.7.15                # optional: omitted for a commit no release names
//	    commit: <40 hex>
//	  catalog:
//	    source: leaderboard/catalog # "none" (the simulator's own model_configs/),
//	                                # "bundled" (the harness's) or a path in the repository
//	    digest: sha256:<64 hex>     # the catalog's content digest; required unless source is none
//
// A section with one member and not the other is an error, and SetLeaderboard
// refuses to move one member without the other (CheckPairMove).
type LeaderboardPair struct {
	Simulator Harness
	Catalog   LeaderboardCatalog
}

// LeaderboardCatalog is the catalog member of the pair.
type LeaderboardCatalog struct {
	// Source is None, Bundled or a clean relative path in the repository.
	Source string
	// Digest is "sha256:<64 lowercase hex>" of the catalog's content (as
	// results record it); "" when Source is None.
	Digest string
}

// ResultsCatalogDigest is the catalog digest results run on the pair
// record: the pinned digest, or "" for source none (the simulator's own
// model configs; results then record no catalog).
func (p LeaderboardPair) ResultsCatalogDigest() string {
	if p.Catalog.Source == None {
		return ""
	}
	return p.Catalog.Digest
}

// Equal reports whether two pairs pin the same simulator and catalog.
func (p *LeaderboardPair) Equal(q *LeaderboardPair) bool {
	if p == nil || q == nil {
		return p == q
	}
	return p.Simulator == q.Simulator && p.Catalog == q.Catalog
}

var digestRe = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// CheckDigest reports whether d is a content digest as results record it,
// "sha256:" and 64 lowercase hex digits, with an error saying why not.
func CheckDigest(d string) error {
	if d == "" {
		return errors.New("digest is empty")
	}
	if !digestRe.MatchString(d) {
		return fmt.Errorf("%q is not a content digest (want sha256: and 64 lowercase hex digits, as results record the catalog)", d)
	}
	return nil
}

func (p *LeaderboardPair) set(path, v string) error {
	switch path {
	case "leaderboard.simulator.repository":
		if err := CheckRepository(v); err != nil {
			return err
		}
		p.Simulator.Repository = v
	case "leaderboard.simulator.tag":
		if err := ident.CheckTag(v); err != nil {
			return err
		}
		p.Simulator.Tag = v
	case "leaderboard.simulator.commit":
		if err := ident.CheckCommit(v); err != nil {
			return err
		}
		p.Simulator.Commit = v
	case "leaderboard.catalog.source":
		if err := checkDataValue(v, true); err != nil {
			return err
		}
		p.Catalog.Source = v
	case "leaderboard.catalog.digest":
		if err := CheckDigest(v); err != nil {
			return err
		}
		p.Catalog.Digest = v
	}
	return nil
}

// complete checks that both members of the pair are there.
func (p *LeaderboardPair) complete() error {
	const pair = "the leaderboard pins its simulator and catalog as a pair"
	switch {
	case p.Simulator == (Harness{}) && p.Catalog == (LeaderboardCatalog{}):
		return errors.New("leaderboard: empty; " + pair + " (leaderboard.simulator and leaderboard.catalog)")
	case p.Simulator == (Harness{}):
		return errors.New("leaderboard: missing leaderboard.simulator; " + pair)
	case p.Catalog == (LeaderboardCatalog{}):
		return errors.New("leaderboard: missing leaderboard.catalog; " + pair + " (source: none for the simulator's own model configs)")
	case p.Simulator.Repository == "":
		return errors.New("missing leaderboard.simulator.repository")
	case p.Simulator.Commit == "":
		return errors.New("missing leaderboard.simulator.commit")
	case p.Catalog.Source == "":
		return errors.New("missing leaderboard.catalog.source")
	case p.Catalog.Source == None && p.Catalog.Digest != "":
		return errors.New("leaderboard.catalog: source none hands the simulator no catalog, so there is no digest to pin; remove leaderboard.catalog.digest")
	case p.Catalog.Source != None && p.Catalog.Digest == "":
		return fmt.Errorf("missing leaderboard.catalog.digest: catalog %q is pinned by its content digest (sha256:…), as results record it", p.Catalog.Source)
	}
	return nil
}

// CheckPairMove reports whether moving the leaderboard pin from old to next
// moves the pair together: the simulator commit changes exactly when the
// catalog (source or digest) changes. A catalog of source none has no version
// of its own (the simulator's model configs move with it), so with none on
// both sides the simulator moves alone. The error names the member that
// moved and the one that did not.
func CheckPairMove(old, next LeaderboardPair) error {
	simMoved := old.Simulator.Commit != next.Simulator.Commit
	catMoved := old.Catalog != next.Catalog
	if old.Catalog.Source == None && next.Catalog.Source == None {
		return nil
	}
	switch {
	case simMoved && !catMoved:
		return fmt.Errorf("half-moved leaderboard pin: the simulator moves from %s to %s but the catalog stays at %s; the pair moves together (re-pin the catalog the new simulator is run with)",
			ident.Short(old.Simulator.Commit), ident.Short(next.Simulator.Commit), catalogName(old.Catalog))
	case catMoved && !simMoved:
		return fmt.Errorf("half-moved leaderboard pin: the catalog moves from %s to %s but the simulator stays at %s; the pair moves together (re-pin the simulator with it)",
			catalogName(old.Catalog), catalogName(next.Catalog), ident.Short(old.Simulator.Commit))
	}
	return nil
}

func catalogName(c LeaderboardCatalog) string {
	if c.Source == None {
		return "none"
	}
	return c.Source + " (" + ident.DigestPrefix + ident.ShortDigest(c.Digest) + ")"
}

// SetLeaderboard returns src with the leaderboard pair moved to next: the
// simulator's tag and commit and the catalog's digest, edited in place like
// SetHarness (comments, order, quoting and layout kept byte for byte). The
// repository and catalog source are the file's; changing them is a hand edit.
// The move must move the pair together (CheckPairMove); a tag can be
// changed but not added or removed (edit the file for that). When the pair
// is already next, src is returned unchanged.
func SetLeaderboard(src []byte, next LeaderboardPair) ([]byte, error) {
	old, fields, err := parse(src, "")
	if err != nil {
		return nil, err
	}
	if old.Leaderboard == nil {
		return nil, errors.New("set leaderboard: the file pins no leaderboard pair (add a leaderboard: section)")
	}
	cur := *old.Leaderboard
	if next.Simulator.Repository == "" {
		next.Simulator.Repository = cur.Simulator.Repository
	}
	if next.Catalog.Source == "" {
		next.Catalog.Source = cur.Catalog.Source
	}
	switch {
	case !SameRepository(next.Simulator.Repository, cur.Simulator.Repository):
		return nil, fmt.Errorf("set leaderboard: the pin names simulator repository %s, not %s; change the repository by hand", cur.Simulator.Repository, next.Simulator.Repository)
	case next.Catalog.Source != cur.Catalog.Source:
		return nil, fmt.Errorf("set leaderboard: the pin's catalog source is %q, not %q; change the source by hand", cur.Catalog.Source, next.Catalog.Source)
	case (cur.Simulator.Tag == "") != (next.Simulator.Tag == ""):
		have := "has a simulator tag"
		if cur.Simulator.Tag == "" {
			have = "has no simulator tag"
		}
		return nil, fmt.Errorf("set leaderboard: the pin %s; add or remove leaderboard.simulator.tag by hand", have)
	}
	next.Simulator.Repository = cur.Simulator.Repository
	if err := ident.CheckCommit(next.Simulator.Commit); err != nil {
		return nil, fmt.Errorf("set leaderboard: simulator: %w", err)
	}
	if next.Simulator.Tag != "" {
		if err := ident.CheckTag(next.Simulator.Tag); err != nil {
			return nil, fmt.Errorf("set leaderboard: simulator: %w", err)
		}
	}
	if err := next.complete(); err != nil {
		return nil, fmt.Errorf("set leaderboard: %w", err)
	}
	if next.Catalog.Digest != "" {
		if err := CheckDigest(next.Catalog.Digest); err != nil {
			return nil, fmt.Errorf("set leaderboard: catalog: %w", err)
		}
	}
	if cur.Equal(&next) {
		return src, nil
	}
	if err := CheckPairMove(cur, next); err != nil {
		return nil, fmt.Errorf("set leaderboard: %w", err)
	}
	want := old
	want.Leaderboard = &next
	return setFields("set leaderboard", src, fields, map[string]string{
		"leaderboard.simulator.tag":    next.Simulator.Tag,
		"leaderboard.simulator.commit": next.Simulator.Commit,
		"leaderboard.catalog.digest":   next.Catalog.Digest,
	}, want)
}

// Equal reports whether two pins pin the same things.
func (p Pin) Equal(q Pin) bool {
	return p.Harness == q.Harness && p.Data == q.Data && p.Leaderboard.Equal(q.Leaderboard)
}
