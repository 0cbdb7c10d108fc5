package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// history is a fake simulator history: commit i predicts, for each point,
// its measured TTFT times the product of the factors of every change at or
// before i that touches it. It records what it was asked.
type history struct {
	n       int
	points  []string
	changes []change
	broken  map[int]bool
	// cannotRun: at these commits every point is not scored.
	cannotRun map[int]bool
	calls     []call
}

type change struct {
	at     int
	point  string // "" = every point
	factor float64
}

type call struct {
	commit int
	ids    []string
}

func commits(n int) []Commit {
	out := make([]Commit, n)
	for i := range out {
		out[i] = Commit{Hash: fmt.Sprintf("%040x", i+1), Subject: fmt.Sprintf("commit %d", i), Date: time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC)}
	}
	return out
}

func (h *history) Score(_ context.Context, c Commit, ids []string) ([]runresult.Point, error) {
	var i int
	fmt.Sscanf(c.Hash, "%x", &i)
	i--
	h.calls = append(h.calls, call{i, ids})
	if h.broken[i] {
		return nil, fmt.Errorf("build simulator %s: go build failed: %w", c.Hash, ErrSkip)
	}
	if ids == nil {
		ids = h.points
	}
	var out []runresult.Point
	for _, id := range ids {
		p := runresult.Point{ID: id, Unit: strings.Split(id, "@")[0], Tier: "measured", Driver: "replay-metrics",
			Measured: metric.Values{"ttft_ms": 100, "tpot_ms": 10}}
		if h.cannotRun[i] {
			p.Reason, p.Driver = "simulator-run-error", "replay-metrics"
			out = append(out, p)
			continue
		}
		f := 1.0
		for _, ch := range h.changes {
			if ch.at <= i && (ch.point == "" || ch.point == id) {
				f *= ch.factor
			}
		}
		p.Scored, p.Predicted = true, metric.Values{"ttft_ms": 100 * f, "tpot_ms": 10}
		out = append(out, p)
	}
	return out, nil
}

func fourPoints() []string {
	return []string{"u/a@c=1", "u/a@c=2", "u/b@c=1", "u/b@c=2"}
}

func TestOneCommitFoundWithinTheBound(t *testing.T) {
	h := &history{n: 64, points: fourPoints(), changes: []change{{at: 37, point: "u/b@c=2", factor: 1.5}}}
	res, err := Search(context.Background(), Config{Commits: commits(64)}, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || res.Changes[0].Commit.Subject != "commit 37" || res.Changes[0].Parent.Subject != "commit 36" {
		t.Fatalf("changes %+v, want commit 37 alone", res.Changes)
	}
	// 63 candidates: both ends and ⌈log2 63⌉ = 6 steps.
	if res.Builds > 8 || res.Builds != len(h.calls) {
		t.Errorf("%d builds (%d calls), want at most 8", res.Builds, len(h.calls))
	}
	if !slices.Equal(res.Moved, []string{"u/b@c=2"}) {
		t.Errorf("moved %v", res.Moved)
	}
	// Only the moved point is scored between the ends.
	for _, c := range h.calls[2:] {
		if !slices.Equal(c.ids, []string{"u/b@c=2"}) {
			t.Errorf("commit %d scored %v, want only the moved point", c.commit, c.ids)
		}
	}
	if res.Simulated != 4+4+len(h.calls)-2 {
		t.Errorf("simulated %d points", res.Simulated)
	}
	m := res.Changes[0].Moves
	if len(m) != 1 || m[0].Before.Predicted["ttft_ms"] != 100 || m[0].After.Predicted["ttft_ms"] != 150 {
		t.Errorf("moves %+v", m)
	}
}

func TestUnbuildableCommitIsSkipped(t *testing.T) {
	// 32 is the first middle the search picks, 33 its neighbour.
	h := &history{n: 64, points: fourPoints(), changes: []change{{at: 37, factor: 1.1}}, broken: map[int]bool{32: true, 31: true}}
	res, err := Search(context.Background(), Config{Commits: commits(64)}, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || res.Changes[0].Commit.Subject != "commit 37" {
		t.Fatalf("changes %+v", res.Changes)
	}
	var skipped []string
	for _, s := range res.Skipped {
		skipped = append(skipped, s.Commit.Subject)
		if !strings.Contains(s.Reason, "go build failed") {
			t.Errorf("skip reason %q", s.Reason)
		}
	}
	if !slices.Equal(skipped, []string{"commit 31", "commit 32"}) && !slices.Equal(skipped, []string{"commit 32"}) {
		t.Errorf("skipped %v", skipped)
	}
	if res.Builds != len(res.Steps)+len(res.Skipped) {
		t.Errorf("builds %d, steps %d, skipped %d", res.Builds, len(res.Steps), len(res.Skipped))
	}
}

func TestCommitThatCannotRunThePointsIsSkipped(t *testing.T) {
	h := &history{n: 16, points: fourPoints(), changes: []change{{at: 9, factor: 1.1}}, cannotRun: map[int]bool{8: true}}
	res, err := Search(context.Background(), Config{Commits: commits(16)}, h)
	if err != nil {
		t.Fatal(err)
	}
	// 8 cannot run the points: the move is after 7 and at or before 9,
	// as git bisect says "8 or 9" when 8 is skipped.
	if len(res.Skipped) != 1 || res.Skipped[0].Commit.Subject != "commit 8" || !strings.Contains(res.Skipped[0].Reason, "simulator-run-error") {
		t.Fatalf("skipped %+v", res.Skipped)
	}
	if len(res.Changes) != 0 || len(res.Ranges) != 1 || res.Ranges[0].After.Subject != "commit 7" || res.Ranges[0].Through.Subject != "commit 9" {
		t.Errorf("changes %+v, ranges %+v", res.Changes, res.Ranges)
	}
}

func TestEverythingBetweenSkippedGivesARange(t *testing.T) {
	h := &history{n: 8, points: fourPoints(), changes: []change{{at: 5, factor: 2}}, broken: map[int]bool{4: true, 5: true}}
	res, err := Search(context.Background(), Config{Commits: commits(8)}, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 0 || len(res.Ranges) != 1 {
		t.Fatalf("changes %+v ranges %+v", res.Changes, res.Ranges)
	}
	r := res.Ranges[0]
	if r.Why != RangeSkipped || r.After.Subject != "commit 3" || r.Through.Subject != "commit 6" {
		t.Errorf("range %+v, want skipped after 3 through 6", r)
	}
}

func TestSeveralCommitsEachFound(t *testing.T) {
	h := &history{n: 40, points: fourPoints(), changes: []change{
		{at: 5, point: "u/a@c=1", factor: 1.2}, {at: 22, point: "u/b@c=1", factor: 0.9}, {at: 23, point: "u/a@c=1", factor: 1.1}}}
	res, err := Search(context.Background(), Config{Commits: commits(40)}, h)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range res.Changes {
		got = append(got, c.Commit.Subject)
	}
	if !slices.Equal(got, []string{"commit 5", "commit 22", "commit 23"}) {
		t.Errorf("changes %v", got)
	}
	if len(res.Changes[1].Moves) != 1 || res.Changes[1].Moves[0].Point != "u/b@c=1" {
		t.Errorf("commit 22's moves %+v", res.Changes[1].Moves)
	}
}

func TestThresholdKeepsTheCommitsThatMovedTheMAPE(t *testing.T) {
	// Each point's APE is 0 at the good end. Commit 10 moves one of four
	// points by 40 % (MAPE +10 pp); commit 30 another by 4 % (+1 pp).
	h := &history{n: 48, points: fourPoints(), changes: []change{{at: 10, point: "u/a@c=2", factor: 1.4}, {at: 30, point: "u/b@c=1", factor: 1.04}}}
	res, err := Search(context.Background(), Config{Commits: commits(48), Metric: "ttft", Threshold: 5}, h)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tier != runresult.TierMeasuredResolved {
		t.Errorf("tier %q", res.Tier)
	}
	if len(res.Changes) != 1 || res.Changes[0].Commit.Subject != "commit 10" {
		t.Fatalf("changes %+v ranges %+v", res.Changes, res.Ranges)
	}
	c := res.Changes[0]
	if !near(c.ParentFigure, 0) || !near(c.Figure, 10) || !near(res.BadFigure, 11) {
		t.Errorf("figures %v → %v, bad end %v", *c.ParentFigure, *c.Figure, *res.BadFigure)
	}
	// A threshold no commit reaches alone, but the two together do: the
	// move is spread.
	h.calls = nil
	h.changes = []change{{at: 10, point: "u/a@c=2", factor: 1.12}, {at: 30, point: "u/b@c=1", factor: 1.12}}
	res, err = Search(context.Background(), Config{Commits: commits(48), Metric: "ttft", Threshold: 5}, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 0 || len(res.Ranges) != 1 || res.Ranges[0].Why != RangeSpread {
		t.Errorf("changes %+v ranges %+v, want one spread range", res.Changes, res.Ranges)
	}
}

func TestPointFigure(t *testing.T) {
	h := &history{n: 20, points: fourPoints(), changes: []change{{at: 3, point: "u/a@c=1", factor: 1.01}, {at: 12, point: "u/a@c=1", factor: 1.5}, {at: 15, point: "u/b@c=1", factor: 3}}}
	res, err := Search(context.Background(), Config{Commits: commits(20), Metric: "ttft", Point: "u/a@c=1", Threshold: 10}, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || res.Changes[0].Commit.Subject != "commit 12" {
		t.Fatalf("changes %+v", res.Changes)
	}
	for _, c := range h.calls[2:] {
		if !slices.Equal(c.ids, []string{"u/a@c=1"}) {
			t.Errorf("commit %d scored %v, want only the point followed", c.commit, c.ids)
		}
	}
}

func TestBudget(t *testing.T) {
	h := &history{n: 64, points: fourPoints(), changes: []change{{at: 37, factor: 2}}}
	res, err := Search(context.Background(), Config{Commits: commits(64), MaxBuilds: 4}, h)
	if err != nil {
		t.Fatal(err)
	}
	if res.Builds != 4 || len(res.Changes) != 0 || len(res.Ranges) != 1 || res.Ranges[0].Why != RangeBudget {
		t.Fatalf("builds %d changes %+v ranges %+v", res.Builds, res.Changes, res.Ranges)
	}
	if r := res.Ranges[0]; r.After.Subject != "commit 31" || r.Through.Subject != "commit 47" {
		t.Errorf("range %+v", r)
	}
}

func TestNothingMoved(t *testing.T) {
	h := &history{n: 10, points: fourPoints()}
	res, err := Search(context.Background(), Config{Commits: commits(10)}, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Moved) != 0 || len(res.Changes) != 0 || res.Builds != 2 {
		t.Errorf("%+v", res)
	}
}

func TestEndsMustScore(t *testing.T) {
	h := &history{n: 10, points: fourPoints(), broken: map[int]bool{9: true}}
	_, err := Search(context.Background(), Config{Commits: commits(10)}, h)
	if err == nil || !strings.Contains(err.Error(), "bad end") || !strings.Contains(err.Error(), "go build failed") {
		t.Errorf("err %v", err)
	}
}

func TestOtherScorerErrorsEndTheSearch(t *testing.T) {
	boom := errors.New("disk full")
	_, err := Search(context.Background(), Config{Commits: commits(4)}, scorerFunc(func(context.Context, Commit, []string) ([]runresult.Point, error) { return nil, boom }))
	if !errors.Is(err, boom) {
		t.Errorf("err %v", err)
	}
}

type scorerFunc func(context.Context, Commit, []string) ([]runresult.Point, error)

func (f scorerFunc) Score(ctx context.Context, c Commit, ids []string) ([]runresult.Point, error) {
	return f(ctx, c, ids)
}

func TestConfigCheck(t *testing.T) {
	cs := commits(3)
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Commits: cs[:1]}, "good and a bad"},
		{Config{Commits: []Commit{cs[0], cs[0]}}, "the same"},
		{Config{Commits: cs, Threshold: 2}, "need --metric"},
		{Config{Commits: cs, Point: "x"}, "need --metric"},
		{Config{Commits: cs, Metric: "latency"}, `"latency" is not a metric`},
		{Config{Commits: cs, Metric: "ttft", Threshold: -1}, "--threshold -1"},
		{Config{Commits: cs, Metric: "ttft", Threshold: math.NaN()}, "--threshold NaN"},
		{Config{Commits: cs, MaxBuilds: 1}, "--max-builds 1"},
	} {
		err := tc.cfg.Check()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want %q", tc.cfg, err, tc.want)
		}
	}
	if err := (Config{Commits: cs, Metric: "tpot", Threshold: 1}).Check(); err != nil {
		t.Error(err)
	}
}

func near(got *float64, want float64) bool {
	return got != nil && math.Abs(*got-want) < 1e-9
}
