package publish

import (
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

func TestGate(t *testing.T) {
	t.Parallel()
	ok := HarnessCheck{ReachableFromMain: true, ReleaseTag: "v1.1.0"}
	for _, tc := range []struct {
		name  string
		edit  func(*runresult.Summary)
		check HarnessCheck
		want  []string // substrings, one per reason; nil = publishable
	}{
		{name: "release from a checkout", edit: func(*runresult.Summary) {}},
		// A reused prediction is the figure: a run whose every scored point
		// was reused by replay digest publishes like a simulated one.
		{name: "every prediction reused", edit: func(s *runresult.Summary) {
			s.Coverage.Reused = s.Coverage.Scored
			s.Label, s.LabelReasons = runresult.Label(s.Provenance)
		}},
		{name: "asserted, reachable and released", edit: func(s *runresult.Summary) { s.Provenance.Harness.Source = runresult.HarnessAssertion }, check: ok},
		{name: "experimental", edit: func(s *runresult.Summary) {
			s.Provenance.Simulator.Release, s.Provenance.Simulator.Tag = false, ""
			s.Label, s.LabelReasons = runresult.Label(s.Provenance)
		}, want: []string{`label is "experimental"`, "simulator build is not named by a release tag"}},
		{name: "label lies", edit: func(s *runresult.Summary) { s.Provenance.Ledger.Release = false },
			want: []string{`label says "release" but the provenance does not`}},
		{name: "asserted, not reachable", edit: func(s *runresult.Summary) { s.Provenance.Harness.Source = runresult.HarnessAssertion },
			check: HarnessCheck{ReleaseTag: "v1.1.0"}, want: []string{"not reachable from the harness's main"}},
		{name: "asserted, no release", edit: func(s *runresult.Summary) { s.Provenance.Harness.Source = runresult.HarnessAssertion },
			check: HarnessCheck{ReachableFromMain: true}, want: []string{"no release names it"}},
		{name: "unknown source", edit: func(s *runresult.Summary) { s.Provenance.Harness.Source = "copy" }, want: []string{`source "copy"`}},
		{name: "shard", edit: func(s *runresult.Summary) { s.Shard = &runresult.Shard{Index: 1, Count: 2} }, want: []string{"shard 1/2"}},
		{name: "units", edit: func(s *runresult.Summary) {
			s.Provenance.Selection = &runresult.Selection{Units: []string{"inferencex/gpt-oss-120b/h100", "inference-perf"}}
		}, want: []string{"summary covers units inferencex/gpt-oss-120b/h100, inference-perf, not the whole corpus"}},
		{name: "units matching every unit", edit: func(s *runresult.Summary) {
			s.Provenance.Selection = &runresult.Selection{All: true, Units: []string{"inferencex", "inference-perf"}}
		}},
		{name: "selection not recorded", edit: func(s *runresult.Summary) { s.Provenance.Selection = nil },
			want: []string{"does not record which units it scored"}},
		{name: "what-if", edit: func(s *runresult.Summary) {
			s.Provenance.WhatIf = &runresult.WhatIf{Name: "gpt-oss-120b-mxfp4", Version: 1, Change: "c", Limitation: "l"}
			s.Label, s.LabelReasons = runresult.Label(s.Provenance)
		}, want: []string{"a what-if run (gpt-oss-120b-mxfp4) is a diagnosis of the run it was measured against, never a snapshot"}},
		{name: "what-if label without its provenance", edit: func(s *runresult.Summary) { s.Label = "what-if: x" },
			want: []string{"a what-if run (x)"}},
		{name: "unbalanced", edit: func(s *runresult.Summary) { s.Coverage.CorpusPoints++ }, want: []string{"coverage does not balance"}},
		{name: "nothing scored", edit: func(s *runresult.Summary) {
			s.Coverage = runresult.Coverage{CorpusPoints: 1, NotScored: 1, NotScoredByReason: map[string]int{"timeout": 1}}
		}, want: []string{"no point was scored"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := releaseSummary(t, "v0.7.15", "v1.0.0")
			tc.edit(&s)
			got := Gate(s, tc.check)
			if len(got) != len(tc.want) {
				t.Fatalf("Gate = %q, want %d reasons like %q", got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tc.want[i]) {
					t.Errorf("reason %d = %q, want it to contain %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// GateExperimental waives the release requirement and nothing else: an
// experimental run passes, a release label its provenance does not bear
// out and a shard are still refused.
func TestGateExperimental(t *testing.T) {
	t.Parallel()
	exp := releaseSummary(t, "v0.7.15", "v1.0.0")
	exp.Provenance.Simulator.Release, exp.Provenance.Simulator.Tag = false, ""
	exp.Label, exp.LabelReasons = runresult.Label(exp.Provenance)
	if got := GateExperimental(exp, HarnessCheck{}); got != nil {
		t.Errorf("GateExperimental(experimental run) = %q, want none", got)
	}
	lies := releaseSummary(t, "v0.7.15", "v1.0.0")
	lies.Provenance.Ledger.Release = false
	shard := exp
	shard.Shard = &runresult.Shard{Index: 1, Count: 2}
	whatIf := exp
	whatIf.Provenance.WhatIf = &runresult.WhatIf{Name: "w", Version: 1}
	whatIf.Label, whatIf.LabelReasons = runresult.Label(whatIf.Provenance)
	for name, s := range map[string]runresult.Summary{"label lies": lies, "shard": shard, "what-if": whatIf} {
		if got := GateExperimental(s, HarnessCheck{}); len(got) != 1 {
			t.Errorf("%s: GateExperimental = %q, want one reason", name, got)
		}
	}
}
