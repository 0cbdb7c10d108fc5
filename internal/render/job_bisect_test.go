package render

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/bisect"
	"github.com/inference-sim/accuracy-dashboard/internal/golden"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
)

func bisectCommitN(n int, subject string) bisect.Commit {
	return bisect.Commit{Hash: strings.Repeat(string(rune('a'+n%6)), 40), Subject: subject, Date: time.Date(2026, 6, n, 12, 0, 0, 0, time.UTC)}
}

func sampleBisect() *bisect.Result {
	good, bad := bisectCommitN(1, "release v0.7.13"), bisectCommitN(5, "release v0.7.14")
	found, parent := bisectCommitN(3, "feat(latency): StepTime refactor (#1419)"), bisectCommitN(2, "feat(config): DP/EP plumbing")
	skipped := bisectCommitN(4, "wip")
	ptA, ptB := "inferencex/gpt-oss-120b/h100/tp4/isl1024-osl1024@c=4", "inferencex/gpt-oss-120b/h100/tp8/isl1024-osl1024@c=64"
	return &bisect.Result{
		Good: good, Bad: bad, Candidates: 13, Moved: []string{ptA, ptB},
		Changes: []bisect.Change{{Commit: found, Parent: parent, Moves: []bisect.Move{
			{Point: ptA, Before: bisect.PointState{Scored: true, Predicted: metric.Values{"ttft_ms": 40, "tpot_ms": 5}},
				After: bisect.PointState{Scored: true, Predicted: metric.Values{"ttft_ms": 42, "tpot_ms": 4.5}}},
			{Point: ptB, Before: bisect.PointState{Scored: true, Predicted: metric.Values{"ttft_ms": 80, "tpot_ms": 9}},
				After: bisect.PointState{Reason: "simulator-run-error"}},
		}}},
		Ranges:  []bisect.Range{{After: found, Through: bad, Why: bisect.RangeSkipped}},
		Skipped: []bisect.Skip{{Commit: skipped, Reason: "build simulator wip: go build failed: exit status 1\n./main.go:3: syntax error"}},
		Steps: []bisect.Step{{Commit: good, Points: 43, Simulated: 43}, {Commit: bad, Points: 43, Simulated: 43},
			{Commit: found, Points: 2, Simulated: 2}, {Commit: parent, Points: 2, Simulated: 2}},
		Builds: 5, Simulated: 90,
	}
}

func TestBisectGolden(t *testing.T) {
	t.Parallel()
	golden.Assert(t, filepath.Join("testdata", "bisect.golden"), []byte(Bisect(sampleBisect())))
	r := sampleBisect()
	r.Metric, r.Tier, r.Threshold = "ttft", "measured_resolved", 2
	r.GoodFigure, r.BadFigure = ptr(30), ptr(35.5)
	r.Changes[0].ParentFigure, r.Changes[0].Figure = ptr(30), ptr(34)
	r.Ranges = []bisect.Range{{After: r.Changes[0].Commit, Through: r.Bad, Why: bisect.RangeSpread, AfterFigure: ptr(34), Figure: ptr(35.5)}}
	for i := range r.Steps {
		r.Steps[i].Figure = ptr(30 + float64(i))
	}
	golden.Assert(t, filepath.Join("testdata", "bisect-metric.golden"), []byte(Bisect(r)))
	r.Moved, r.Changes, r.Ranges, r.Skipped = nil, nil, nil, nil
	r.Metric = ""
	if md := Bisect(r); !strings.Contains(md, "No commit moved a prediction") {
		t.Errorf("equal ends:\n%s", md)
	}
}

// Subjects, reasons and point ids come from the simulator's repository and
// the ledger.
func TestBisectRendersUntrustedTextInert(t *testing.T) {
	t.Parallel()
	r := sampleBisect()
	r.Good.Subject, r.Changes[0].Commit.Subject, r.Skipped[0].Reason, r.Steps[2].Commit.Subject = evilText, evilText, evilText, evilText
	r.Changes[0].Moves[0].Point, r.Changes[0].Moves[1].After.Reason = evilText, evilText
	md := Bisect(r)
	if found := activeIn(md); len(found) > 0 {
		t.Errorf("bisect Markdown holds active text: %q\n%s", found, md)
	}
}

func TestBisectHintsGolden(t *testing.T) {
	t.Parallel()
	hints := []bisect.Hint{{Metric: "ttft", Tier: "measured_resolved", Before: 30, After: 35.25, Threshold: 2,
		Args: []string{"--sim-repo", "https://github.com/inference-sim/inference-sim", "--good", "v0.7.14", "--bad", "v0.7.15", "--metric", "ttft", "--threshold", "2"}},
		{Metric: "tpot", Tier: "measured_resolved", Before: 20, After: 12, Threshold: 2,
			Args: []string{"--sim-repo", "/src/my sim's repo", "--good", "v0.7.14", "--bad", "v0.7.15", "--metric", "tpot", "--threshold", "2"}}}
	golden.Assert(t, filepath.Join("testdata", "bisect-hints.golden"), []byte(BisectHints(hints)))
	if BisectHints(nil) != "" {
		t.Error("no hint, yet some text")
	}
	// A repository from a summary cannot end the code block or run a command.
	hints[0].Args[1] = "x\n```\n$(rm -rf /) `id`"
	md := BisectHints(hints[:1])
	if strings.Count(md, "```") != 2 || !strings.Contains(md, "'x     $(rm -rf /)  id '") {
		t.Errorf("hostile repository:\n%s", md)
	}
}
