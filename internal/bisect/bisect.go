// Package bisect finds the simulator commits that moved its predictions.
// Given the first-parent commits from a good end to a bad end and a Scorer
// that scores one commit on a set of points, Search scores both ends, keeps
// the points whose predictions differ, and halves the commits between them,
// scoring only those points at each step, until each move is pinned to the
// commit that made it. A figure and a threshold (Config.Metric,
// Config.Threshold) restrict it to the commits that moved that figure (a
// MAPE, or one point's prediction) by at least that much; where several
// commits each moved part of it, each is found by searching both halves
// again, within Config.MaxBuilds. Commits that cannot be scored are skipped
// and named, as git bisect skip does. The package is pure: the Scorer does
// the building and simulating.
package bisect

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Commit is one commit of the simulator's history.
type Commit struct {
	Hash    string    `json:"hash"`
	Subject string    `json:"subject"`
	Date    time.Time `json:"date"`
}

// ErrSkip marks a commit the search cannot use: it does not build, or its
// build cannot run the points. A Scorer returns an error wrapping it; the
// search then tries a neighbour, as git bisect skip does.
var ErrSkip = errors.New("commit skipped")

// Scorer scores one commit on a set of points.
type Scorer interface {
	// Score returns the points of ids scored at c (a point that cannot be
	// simulated is returned not scored, with its reason, as in any run);
	// ids nil means every point of the selection. An error wrapping
	// ErrSkip skips c; any other error ends the search.
	Score(ctx context.Context, c Commit, ids []string) ([]runresult.Point, error)
}

// DefaultMaxBuilds is Config.MaxBuilds when it is zero.
const DefaultMaxBuilds = 24

// Config is one search.
type Config struct {
	// Commits are the first-parent commits from the good end (first) to
	// the bad end (last), oldest first; at least two.
	Commits []Commit
	// Metric, when set, is the key of the metric (metric.All) whose figure
	// the search follows: the headline tier's MAPE of it (the tier the good
	// end's headline is in), or, with Point, that point's prediction of it.
	// Empty: any change of any prediction counts.
	Metric string
	Point  string
	// Threshold is the least move of the figure that counts: percentage
	// points of the MAPE, or percent of the good end's prediction of Point.
	Threshold float64
	// MaxBuilds bounds the commits scored, both ends and skipped ones
	// included (0: DefaultMaxBuilds).
	MaxBuilds int
}

// Check reports what is wrong with c before anything is scored.
func (c Config) Check() error {
	if len(c.Commits) < 2 {
		return errors.New("bisect needs a good and a bad commit")
	}
	if c.Commits[0].Hash == c.Commits[len(c.Commits)-1].Hash {
		return errors.New("the good and the bad commit are the same")
	}
	return c.CheckFlags()
}

// CheckFlags is Check of everything but the commits: the figure, the
// threshold and the budget, named by the flags of action bisect.
func (c Config) CheckFlags() error {
	if c.Metric == "" {
		if c.Point != "" || c.Threshold != 0 {
			return errors.New("--point and --threshold need --metric")
		}
	} else if _, ok := metric.ByKey(c.Metric); !ok {
		return fmt.Errorf("--metric %q is not a metric (want one of %s)", c.Metric, metricKeys())
	}
	if c.Threshold < 0 || math.IsNaN(c.Threshold) || math.IsInf(c.Threshold, 0) {
		return fmt.Errorf("--threshold %v: want a finite number of percentage points, 0 or more", c.Threshold)
	}
	if c.MaxBuilds < 0 || c.MaxBuilds == 1 {
		return fmt.Errorf("--max-builds %d: want at least 2 (both ends)", c.MaxBuilds)
	}
	return nil
}

func metricKeys() string {
	var keys []string
	for _, d := range metric.All {
		keys = append(keys, d.Key)
	}
	return fmt.Sprint(keys)
}

// Result is what a search found.
type Result struct {
	Good Commit `json:"good"`
	Bad  Commit `json:"bad"`
	// Candidates is the number of commits after the good end, up to and
	// including the bad end: the commits that may have moved the figures.
	Candidates int     `json:"candidates"`
	Metric     string  `json:"metric,omitempty"`
	Point      string  `json:"point,omitempty"`
	Threshold  float64 `json:"threshold,omitempty"`
	// Tier is the tier whose MAPE is followed ("" without Metric, or with
	// Point).
	Tier string `json:"tier,omitempty"`
	// Moved are the points whose predictions differ between the two ends,
	// sorted; only they are scored between the ends.
	Moved []string `json:"moved"`
	// GoodFigure and BadFigure are the figure at the ends (nil without
	// Metric, or where it has no value: the point is not scored).
	GoodFigure *float64 `json:"good_figure,omitempty"`
	BadFigure  *float64 `json:"bad_figure,omitempty"`
	// Changes are the commits that moved the predictions (or the figure by
	// at least Threshold), oldest first.
	Changes []Change `json:"changes"`
	// Ranges are moves not pinned to one commit: every commit between was
	// skipped, the budget ran out, or (with a threshold) the move is
	// spread over commits that each moved the figure by less.
	Ranges []Range `json:"ranges"`
	// Skipped are the commits that could not be scored, with why.
	Skipped []Skip `json:"skipped"`
	// Steps are the commits scored, in the order they were.
	Steps []Step `json:"steps"`
	// Builds is the number of commits the search scored or tried to
	// (len(Steps) + len(Skipped)); Simulated the points it simulated.
	Builds    int `json:"builds"`
	Simulated int `json:"simulated"`
}

// Change is one commit that moved the predictions.
type Change struct {
	Commit Commit `json:"commit"`
	// Parent is the commit before it (its first parent), scored.
	Parent Commit `json:"parent"`
	// Figure and ParentFigure are the figure at Commit and at Parent (nil
	// without Metric or without a value).
	Figure       *float64 `json:"figure,omitempty"`
	ParentFigure *float64 `json:"parent_figure,omitempty"`
	// Moves are the points whose predictions Commit changed.
	Moves []Move `json:"moves"`
}

// Move is one point's prediction at two commits.
type Move struct {
	Point  string     `json:"point"`
	Before PointState `json:"before"`
	After  PointState `json:"after"`
}

// PointState is a point's outcome at one commit.
type PointState struct {
	Scored bool `json:"scored"`
	// Reason is why it was not scored ("" when scored).
	Reason    string        `json:"reason,omitempty"`
	Predicted metric.Values `json:"predicted,omitempty"`
}

// Range is a move not pinned to one commit: it happened after After and
// at or before Through.
type Range struct {
	After   Commit `json:"after"`
	Through Commit `json:"through"`
	// Why: RangeSkipped, RangeBudget or RangeSpread.
	Why string `json:"why"`
	// Figure and AfterFigure are the figure at Through and at After.
	Figure      *float64 `json:"figure,omitempty"`
	AfterFigure *float64 `json:"after_figure,omitempty"`
}

// Why a Range was not narrowed to one commit.
const (
	RangeSkipped = "skipped"
	RangeBudget  = "budget"
	RangeSpread  = "spread"
)

// Skip is a commit the search could not score.
type Skip struct {
	Commit Commit `json:"commit"`
	Reason string `json:"reason"`
}

// Step is one commit scored.
type Step struct {
	Commit Commit `json:"commit"`
	// Points is how many points were scored there; Simulated how many of
	// them the simulator ran (the rest reused an earlier run's prediction).
	Points    int `json:"points"`
	Simulated int `json:"simulated"`
	// Figure is the figure there (nil without Metric or value).
	Figure *float64 `json:"figure,omitempty"`
}

// search is the state of one Search.
type search struct {
	cfg    Config
	scorer Scorer
	// at holds the points of each scored commit, by index in cfg.Commits.
	at      map[int]map[string]runresult.Point
	skipped map[int]bool
	res     *Result
	// base is the good end's points: the figure of a commit is computed
	// over them with the moved points replaced by the commit's.
	base []runresult.Point
}

// Search runs the search of cfg over scorer.
func Search(ctx context.Context, cfg Config, scorer Scorer) (*Result, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if cfg.MaxBuilds == 0 {
		cfg.MaxBuilds = DefaultMaxBuilds
	}
	n := len(cfg.Commits) - 1
	s := &search{cfg: cfg, scorer: scorer, at: map[int]map[string]runresult.Point{}, skipped: map[int]bool{},
		res: &Result{Good: cfg.Commits[0], Bad: cfg.Commits[n], Candidates: n, Metric: cfg.Metric, Point: cfg.Point, Threshold: cfg.Threshold}}
	for _, i := range []int{0, n} {
		ok, err := s.score(ctx, i, nil)
		if err != nil {
			return nil, err
		}
		if !ok {
			end := "good"
			if i == n {
				end = "bad"
			}
			return nil, fmt.Errorf("the %s end %s cannot be scored: %s", end, cfg.Commits[i].Hash, s.res.Skipped[len(s.res.Skipped)-1].Reason)
		}
	}
	s.base = runresult.SortPoints(slices.Collect(maps.Values(s.at[0])))
	if err := s.setTier(); err != nil {
		return nil, err
	}
	s.res.Moved = movedPoints(s.at[0], s.at[n])
	if cfg.Point != "" {
		// The figure is one point's: only it is scored between the ends.
		if _, ok := s.at[0][cfg.Point]; !ok {
			return nil, fmt.Errorf("--point %s is not a point of the selection", cfg.Point)
		}
		if slices.Contains(s.res.Moved, cfg.Point) {
			s.res.Moved = []string{cfg.Point}
		} else {
			s.res.Moved = nil
		}
	}
	s.res.GoodFigure, s.res.BadFigure = s.figure(0), s.figure(n)
	// Recompute the ends' steps' figures now that the tier is known.
	for k := range s.res.Steps {
		s.res.Steps[k].Figure = s.figure(s.index(s.res.Steps[k].Commit))
	}
	if err := s.narrow(ctx, 0, n); err != nil {
		return nil, err
	}
	return s.res, nil
}

// index is the position of c in the commits.
func (s *search) index(c Commit) int {
	return slices.IndexFunc(s.cfg.Commits, func(x Commit) bool { return x.Hash == c.Hash })
}

// setTier fixes the tier whose MAPE the figure is: the good end's headline.
func (s *search) setTier() error {
	if s.cfg.Metric == "" || s.cfg.Point != "" {
		return nil
	}
	sum, err := runresult.Summarize(s.base, runresult.Provenance{}, nil)
	if err != nil {
		return fmt.Errorf("good end: %w", err)
	}
	s.res.Tier, _, _ = runresult.Headline(sum.Tiers)
	return nil
}

// score scores commit i (ids nil: the whole selection); ok is false when
// it was skipped.
func (s *search) score(ctx context.Context, i int, ids []string) (bool, error) {
	c := s.cfg.Commits[i]
	s.res.Builds++
	pts, err := s.scorer.Score(ctx, c, ids)
	if errors.Is(err, ErrSkip) {
		s.skipped[i] = true
		s.res.Skipped = append(s.res.Skipped, Skip{Commit: c, Reason: err.Error()})
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("score %s: %w", c.Hash, err)
	}
	byID := make(map[string]runresult.Point, len(pts))
	step := Step{Commit: c, Points: len(pts)}
	for _, p := range pts {
		byID[p.ID] = p
		if p.Driver != "" && p.ReusedFrom == "" {
			step.Simulated++
		}
	}
	for _, id := range ids {
		if _, ok := byID[id]; !ok {
			return false, fmt.Errorf("score %s: point %s was asked for and not returned", c.Hash, id)
		}
	}
	// A point both ends scored that this commit cannot run makes the
	// commit unusable, as a build that fails.
	if ids != nil {
		for _, id := range ids {
			p := byID[id]
			if !p.Scored && s.at[0][id].Scored && s.at[len(s.cfg.Commits)-1][id].Scored {
				s.skipped[i] = true
				s.res.Skipped = append(s.res.Skipped, Skip{Commit: c, Reason: fmt.Sprintf("cannot run point %s (%s), which both ends scored", id, p.Reason)})
				s.res.Simulated += step.Simulated
				return false, nil
			}
		}
	}
	s.at[i] = byID
	s.res.Simulated += step.Simulated
	if s.base != nil {
		step.Figure = s.figure(i)
	}
	s.res.Steps = append(s.res.Steps, step)
	return true, nil
}

// narrow pins the moves between the scored commits lo and hi.
func (s *search) narrow(ctx context.Context, lo, hi int) error {
	if len(s.res.Moved) == 0 || !s.moved(lo, hi) {
		return nil
	}
	if hi == lo+1 {
		s.res.Changes = append(s.res.Changes, Change{Commit: s.cfg.Commits[hi], Parent: s.cfg.Commits[lo],
			Figure: s.figure(hi), ParentFigure: s.figure(lo), Moves: s.moves(lo, hi)})
		return nil
	}
	for {
		mid, ok := s.pick(lo, hi)
		if !ok {
			s.addRange(lo, hi, RangeSkipped)
			return nil
		}
		if s.res.Builds >= s.cfg.MaxBuilds {
			s.addRange(lo, hi, RangeBudget)
			return nil
		}
		scored, err := s.score(ctx, mid, s.res.Moved)
		if err != nil {
			return err
		}
		if !scored {
			continue
		}
		left, right := s.moved(lo, mid), s.moved(mid, hi)
		if !left && !right {
			// Only with a threshold: each half moved the figure by less.
			s.addRange(lo, hi, RangeSpread)
			return nil
		}
		if err := s.narrow(ctx, lo, mid); err != nil {
			return err
		}
		return s.narrow(ctx, mid, hi)
	}
}

// pick is the commit strictly between lo and hi nearest their middle that
// is not skipped (the later one first on a tie), false when every one is.
func (s *search) pick(lo, hi int) (int, bool) {
	mid := (lo + hi) / 2
	for d := 0; d < hi-lo; d++ {
		for _, i := range []int{mid + d, mid - d} {
			if i > lo && i < hi && !s.skipped[i] {
				return i, true
			}
		}
	}
	return 0, false
}

func (s *search) addRange(lo, hi int, why string) {
	s.res.Ranges = append(s.res.Ranges, Range{After: s.cfg.Commits[lo], Through: s.cfg.Commits[hi], Why: why,
		Figure: s.figure(hi), AfterFigure: s.figure(lo)})
}

// moved reports whether the scored commits a and b differ: in any
// prediction of a moved point, or, with a metric, in the figure by at
// least the threshold.
func (s *search) moved(a, b int) bool {
	if s.cfg.Metric == "" {
		for _, id := range s.res.Moved {
			if !sameOutcome(s.at[a][id], s.at[b][id]) {
				return true
			}
		}
		return false
	}
	fa, fb := s.figure(a), s.figure(b)
	switch {
	case fa == nil && fb == nil:
		return false
	case fa == nil || fb == nil:
		return true
	}
	d := math.Abs(*fb - *fa)
	if s.cfg.Point != "" {
		g := s.figure(0)
		if g == nil || *g == 0 {
			return d > 0
		}
		d = d / math.Abs(*g) * 100
	}
	return d > 0 && d >= s.cfg.Threshold
}

// figure is the followed figure at scored commit i: nil without a metric
// or where it has no value.
func (s *search) figure(i int) *float64 {
	if s.cfg.Metric == "" || s.base == nil {
		return nil
	}
	d, _ := metric.ByKey(s.cfg.Metric)
	at := s.at[i]
	if s.cfg.Point != "" {
		p, ok := at[s.cfg.Point]
		if !ok || !p.Scored {
			return nil
		}
		v, ok := p.Predicted[d.Field()]
		if !ok {
			return nil
		}
		return &v
	}
	pts := make([]runresult.Point, len(s.base))
	for k, p := range s.base {
		if q, ok := at[p.ID]; ok {
			p = q
		}
		pts[k] = p
	}
	sum, err := runresult.Summarize(pts, runresult.Provenance{}, nil)
	if err != nil {
		return nil
	}
	m, ok := sum.Tiers.Of(s.res.Tier).Of(d)
	if !ok {
		return nil
	}
	return m.MAPE
}

// moves lists the moved points whose outcome differs between a and b.
func (s *search) moves(a, b int) []Move {
	var out []Move
	for _, id := range s.res.Moved {
		pa, pb := s.at[a][id], s.at[b][id]
		if !sameOutcome(pa, pb) {
			out = append(out, Move{Point: id, Before: state(pa), After: state(pb)})
		}
	}
	return out
}

func state(p runresult.Point) PointState {
	return PointState{Scored: p.Scored, Reason: p.Reason, Predicted: p.Predicted}
}

// sameOutcome reports whether two runs of a point gave the same outcome:
// both not scored for the same reason, or both scored with the same
// predictions.
func sameOutcome(a, b runresult.Point) bool {
	if a.Scored != b.Scored || a.Reason != b.Reason || len(a.Predicted) != len(b.Predicted) {
		return false
	}
	for k, v := range a.Predicted {
		if w, ok := b.Predicted[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// movedPoints are the points whose outcome differs between two runs (a
// point only one of them has counts), sorted.
func movedPoints(a, b map[string]runresult.Point) []string {
	var out []string
	for id, p := range a {
		if q, ok := b[id]; !ok || !sameOutcome(p, q) {
			out = append(out, id)
		}
	}
	for id := range b {
		if _, ok := a[id]; !ok {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// Hint is a headline MAPE that moved between two consecutive snapshots by
// more than a threshold, and the action bisect command that finds the
// commits that moved it.
type Hint struct {
	// Metric is the metric's key; Tier the headline tier compared.
	Metric, Tier  string
	Before, After float64
	Threshold     float64
	// Args are action bisect's arguments (after "action bisect").
	Args []string
}

// Hints compares the headline MAPE of each headline metric of cur with
// prev's in the same tier (cur's headline tier) and returns one Hint per
// metric whose MAPE moved by more than threshold percentage points, with
// the bisect from prev's simulator build to cur's. None when the two runs
// score the same simulator commit (the move is the data's or the
// harness's, not a commit's) or either lacks the figure.
func Hints(prev, cur runresult.Summary, threshold float64) []Hint {
	ps, cs := prev.Provenance.Simulator, cur.Provenance.Simulator
	if ps.Commit == "" || cs.Commit == "" || ps.Commit == cs.Commit {
		return nil
	}
	tier, scores, _ := runresult.Headline(cur.Tiers)
	before := prev.Tiers.Of(tier)
	var hints []Hint
	for _, d := range metric.Headline() {
		a, okA := before.Of(d)
		b, okB := scores.Of(d)
		if !okA || !okB || a.MAPE == nil || b.MAPE == nil || math.Abs(*b.MAPE-*a.MAPE) <= threshold {
			continue
		}
		args := []string{"--sim-repo", cs.Repo, "--good", refOf(ps), "--bad", refOf(cs), "--metric", d.Key, "--threshold", strconv.FormatFloat(threshold, 'g', -1, 64)}
		if sel := cur.Provenance.Selection; sel != nil && !sel.All && len(sel.Units) > 0 {
			args = append(args, "--units", strings.Join(sel.Units, ","))
		}
		hints = append(hints, Hint{Metric: d.Key, Tier: tier, Before: *a.MAPE, After: *b.MAPE, Threshold: threshold, Args: args})
	}
	return hints
}

// refOf is how action bisect names a build: its release tag, else its
// commit.
func refOf(s runresult.Simulator) string {
	if s.Tag != "" {
		return s.Tag
	}
	return s.Commit
}
