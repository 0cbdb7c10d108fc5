package publish

import (
	"fmt"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// HarnessCheck is what GitHub says about the harness commit a summary names;
// the gate needs it only for a commit known by assertion.
type HarnessCheck struct {
	// ReachableFromMain: the commit is an ancestor of the harness's default branch.
	ReachableFromMain bool
	// ReleaseTag is the tag of a published release that points at the
	// commit ("" when none does).
	ReleaseTag string
}

// Gate returns the reasons a summary may not be published, or nil when it
// may. Published figures must be regenerable from releases: the label is
// not experimental (and the provenance agrees), the harness commit was read
// from a checkout — or, by assertion, is reachable from the harness's main
// and named by a release — the summary covers the whole corpus (not a
// shard, and a selection of every unit: a --units run is refused, naming
// its patterns), its coverage balances, and it is no what-if run (a
// what-if is published only beside the run it was measured against).
func Gate(s runresult.Summary, h HarnessCheck) []string { return gate(s, h, true) }

// GateExperimental is Gate without its release requirement (a release
// label and a simulator release tag; a release label the provenance does
// not bear out is still refused): every other reason stands. `action publish --experimental` gates with it, for
// examples and previews of builds no release names; the bot never does.
func GateExperimental(s runresult.Summary, h HarnessCheck) []string { return gate(s, h, false) }

func gate(s runresult.Summary, h HarnessCheck, release bool) []string {
	var reasons []string
	if !slices.Contains(runresult.ReadableVersions, s.SchemaVersion) {
		reasons = append(reasons, fmt.Sprintf("schema_version %d, want one of %v", s.SchemaVersion, runresult.ReadableVersions))
	}
	switch w := s.Provenance.WhatIf; {
	case w != nil || runresult.IsWhatIfLabel(s.Label):
		name := strings.TrimPrefix(s.Label, runresult.LabelWhatIfPrefix)
		if w != nil {
			name = w.Name
		}
		reasons = append(reasons, fmt.Sprintf("a what-if run (%s) is a diagnosis of the run it was measured against, never a snapshot: publish that run, with the what-if in its %s/ directory", name, whatif.Dir))
	case s.Label != runresult.LabelRelease && release:
		r := fmt.Sprintf("label is %q, not %q", s.Label, runresult.LabelRelease)
		if len(s.LabelReasons) > 0 {
			r += ": " + strings.Join(s.LabelReasons, "; ")
		}
		reasons = append(reasons, r)
	case s.Label == runresult.LabelRelease:
		// A release label must be the provenance's, experimental or not.
		if label, why := runresult.Label(s.Provenance); label != runresult.LabelRelease {
			reasons = append(reasons, fmt.Sprintf("label says %q but the provenance does not: %s", s.Label, strings.Join(why, "; ")))
		}
	}
	if release && s.Provenance.Simulator.Tag == "" {
		reasons = append(reasons, "simulator build is not named by a release tag")
	}
	hc := s.Provenance.Harness
	if err := ident.CheckCommit(hc.Commit); err != nil {
		reasons = append(reasons, fmt.Sprintf("harness commit: %v", err))
	}
	switch hc.Source {
	case runresult.HarnessCheckout:
	case runresult.HarnessAssertion:
		if !h.ReachableFromMain {
			reasons = append(reasons, fmt.Sprintf("harness commit %s is asserted but not reachable from the harness's main branch", ident.Short(hc.Commit)))
		}
		if h.ReleaseTag == "" {
			reasons = append(reasons, fmt.Sprintf("harness commit %s is asserted but no release names it", ident.Short(hc.Commit)))
		}
	default:
		reasons = append(reasons, fmt.Sprintf("harness commit source %q is neither %q nor %q", hc.Source, runresult.HarnessCheckout, runresult.HarnessAssertion))
	}
	if s.Shard != nil {
		reasons = append(reasons, fmt.Sprintf("summary covers shard %d/%d only", s.Shard.Index, s.Shard.Count))
	}
	if sel := s.Provenance.Selection; !sel.Whole() {
		if sel == nil {
			reasons = append(reasons, "summary does not record which units it scored (written before selections were recorded), so it is not known to cover the whole corpus")
		} else {
			reasons = append(reasons, fmt.Sprintf("summary covers %s, not the whole corpus", sel))
		}
	}
	c := s.Coverage
	if !c.Balanced() {
		reasons = append(reasons, fmt.Sprintf("coverage does not balance: scored %d + not scored %d (by reason: %d) != corpus points %d",
			c.Scored, c.NotScored, sumReasons(c.NotScoredByReason), c.CorpusPoints))
	}
	if c.Scored == 0 {
		reasons = append(reasons, "no point was scored")
	}
	return reasons
}

func sumReasons(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
