package nightly

import (
	"context"
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
)

// Tags is what Resolve reads from the repositories it resolves (GitHub's
// API in the Action and `action nightly plan`, a map in tests).
type Tags interface {
	// TagNames lists the names of repo's tags (repo is owner/name) that
	// start with prefix ("v", "db-dump/"), without "refs/tags/", in any
	// order.
	TagNames(ctx context.Context, repo, prefix string) ([]string, error)
	// ResolveTag is the commit tag names in repo (through an annotated tag
	// object too).
	ResolveTag(ctx context.Context, repo, tag string) (string, error)
}

// Request is what Resolve resolves a plan from.
type Request struct {
	// Pin is the dashboard's parsed pin: the harness release that runs and
	// the data it names.
	Pin pin.Pin
	// Data is the pin's data by name ("ledger", "catalog", "registry"):
	// "bundled" (fixed by the harness commit), "none", or the content
	// digest of the directory the pin names.
	Data map[string]string
	// SimulatorRepo is the simulator's owner/name; InferenceXRepo the
	// InferenceX repository whose newest weekly dump replaces the pin's
	// ledger ("" leaves the dump out).
	SimulatorRepo, InferenceXRepo string
	// Last is the newest snapshot's plan (nil: none recorded) and LastID
	// that snapshot's id ("" when no snapshot is recorded).
	Last   *Plan
	LastID string
}

// Resolution is the current plan and what changed since the last one.
type Resolution struct {
	Plan Plan
	// Last and LastID are the request's.
	Last   *Plan
	LastID string
	// Changes lists what differs from Last (Changes); empty when nothing
	// changed.
	Changes []string
}

// Resolve resolves the current plan, never from a hard-coded list: the
// newest stable release tag of the simulator and the commit it names, the
// harness release the pin names, the pin's data, and the newest InferenceX
// weekly dump tag (which replaces the pin's ledger, so the pin must name
// the bundled one); and compares it with the last snapshot's plan. A
// snapshot recorded without a plan (published before plans existed) is a
// change. A repository without a release (ErrNoRelease) or dump tag is an
// error naming it.
func Resolve(ctx context.Context, tags Tags, req Request) (Resolution, error) {
	res := Resolution{Last: req.Last, LastID: req.LastID}
	if _, err := ident.ParseRepo(req.SimulatorRepo); err != nil {
		return res, fmt.Errorf("simulator repository: %w", err)
	}
	names, err := tags.TagNames(ctx, req.SimulatorRepo, "v")
	if err != nil {
		return res, err
	}
	release := ident.NewestRelease(names)
	if release == "" {
		return res, fmt.Errorf("simulator repository %s: %w", req.SimulatorRepo, ErrNoRelease)
	}
	commit, err := tags.ResolveTag(ctx, req.SimulatorRepo, release)
	if err != nil {
		return res, err
	}
	h := req.Pin.Harness
	plan := Plan{Version: Version,
		Simulator: Source{Repository: req.SimulatorRepo, Release: release, Commit: commit},
		Harness:   Source{Repository: h.Repository, Release: h.Tag, Commit: h.Commit},
	}
	for name, v := range req.Data {
		if name == "ledger" && req.InferenceXRepo != "" {
			continue // replaced by the dump below
		}
		plan.Data = append(plan.Data, Data{Name: name, Version: v})
	}
	if req.InferenceXRepo != "" {
		dump, err := newestDump(ctx, tags, req.InferenceXRepo)
		if err != nil {
			return res, err
		}
		// The ledger is the one imported from the dump: the dump's tag
		// (with the harness release that imports it) is its key.
		if req.Pin.Data.Ledger != pin.Bundled {
			return res, fmt.Errorf("the pin names ledger %q and an InferenceX repository is set: a nightly scores one ledger; set data.ledger to bundled or leave inferencex-repository empty", req.Pin.Data.Ledger)
		}
		plan.Data = append(plan.Data, Data{Name: DataInferenceXDump, Version: dump})
	}
	res.Plan = plan.Normalize()
	if err := res.Plan.Validate(); err != nil {
		return res, fmt.Errorf("plan: %w", err)
	}
	res.Changes = Changes(req.Last, res.Plan)
	if req.Last == nil && req.LastID != "" {
		res.Changes = []string{fmt.Sprintf("the last snapshot %s recorded no inputs (published before plans existed)", req.LastID)}
	}
	return res, nil
}

// newestDump is the newest weekly dump tag of the InferenceX repository.
func newestDump(ctx context.Context, tags Tags, repo string) (string, error) {
	if _, err := ident.ParseRepo(repo); err != nil {
		return "", fmt.Errorf("InferenceX repository: %w", err)
	}
	names, err := tags.TagNames(ctx, repo, ident.DumpTagPrefix)
	if err != nil {
		return "", err
	}
	dump := NewestDump(names)
	if dump == "" {
		return "", fmt.Errorf("InferenceX repository %s has no weekly dump tag %sYYYY-MM-DD", repo, ident.DumpTagPrefix)
	}
	return dump, nil
}
