package lbview

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
)

// Files of a published leaderboard directory besides the rendered ones
// (MarkdownFile, HTMLFile).
const (
	ResultsDir = "results"
	RunsFile   = "runs.yaml"
)

// CheckInput is what one leaderboard publish reads, all untrusted:
// the declaration and the pin file (bytes with their names for messages),
// the declaration's directory (for the traces it names) and the results.
type CheckInput struct {
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

// Checked is a leaderboard that passed Check: the files of its directory
// (path relative to it → content) and what the commit message says about
// it.
type Checked struct {
	Files   map[string][]byte
	Results int
	Groups  int
	// Simulator is the pinned simulator (tag and commit) every result ran on.
	Simulator pin.Harness
}

// Check validates a leaderboard run for publishing, exactly as
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
func Check(in CheckInput) (Checked, []string) {
	d, err := leaderboard.Decode(in.Runs, in.RunsName)
	if err != nil {
		return Checked{}, []string{err.Error()}
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
	pair, why := pinPair(in.Pin, in.PinName)
	if why != "" {
		reasons = append(reasons, why)
	}
	results, probs, err := leaderboard.Check(d, in.Results, "")
	if err != nil {
		return Checked{}, append(reasons, fmt.Sprintf("results: %v", err))
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
		return Checked{}, reasons
	}
	out := Checked{Files: map[string][]byte{}, Results: len(results), Simulator: pair.Simulator}
	groups := map[string]bool{}
	for _, k := range keys {
		r := results[k]
		groups[r.Group] = true
		raw, err := r.Encode()
		if err != nil {
			return Checked{}, []string{err.Error()}
		}
		out.Files[ResultsDir+"/"+k+".json"] = raw
		if t := r.Declaration.Workload.Trace; t != nil && t.SHA256 != "" {
			for name, raw := range traces[t.SHA256].Files() {
				out.Files[path.Join(ResultsDir, leaderboard.TracesDir, t.SHA256, name)] = raw
			}
		}
	}
	out.Groups = len(groups)
	rendered, err := Files(leaderboard.BuildBoard(d, results))
	if err != nil {
		return Checked{}, []string{fmt.Sprintf("render: %v", err)}
	}
	maps.Copy(out.Files, rendered)
	return out, nil
}

// pinPair reads the pin file's leaderboard pair, or says why it
// cannot.
func pinPair(raw []byte, name string) (*pin.LeaderboardPair, string) {
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
