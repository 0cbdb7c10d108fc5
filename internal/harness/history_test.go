package harness

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
)

func TestFirstParents(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	b := &Builder{CacheDir: sharedCache(t)}
	ctx := context.Background()
	cs, err := b.FirstParents(ctx, repo.Dir, "v0.1.0", repo.V020)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Hash != repo.V010 || cs[1].Hash != repo.V020 || cs[1].Subject != "stand-in, metrics variant" || cs[1].Date.IsZero() {
		t.Fatalf("first parents %+v", cs)
	}
	for _, tc := range []struct{ good, bad, want string }{
		{"v0.2.0", "v0.1.0", "is not older than"},
		{"v0.2.0", "v0.2.0", "is not older than"},
		{"v0.1.0", "feature", "is a branch"},
		{repo.Feature, repo.Agentic, "not on the first-parent line"},
		{"v0.1.0", "v9.9.9", "neither a tag"},
	} {
		_, err := b.FirstParents(ctx, repo.Dir, tc.good, tc.bad)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FirstParents(%s, %s): err %v, want %q", tc.good, tc.bad, err, tc.want)
		}
	}
	if _, err := b.FirstParents(ctx, repo.Dir, "v0.1.0", "main"); !errors.Is(err, ErrNotPinned) {
		t.Errorf("a branch as an end: err %v, want ErrNotPinned", err)
	}
}

func TestReleases(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	b := &Builder{CacheDir: sharedCache(t)}
	ctx := context.Background()
	rel, err := b.Releases(ctx, repo.Dir, "v0.1.0", "v0.2.0")
	if err != nil {
		t.Fatal(err)
	}
	if len(rel) != 2 || rel[0].Tag != "v0.1.0" || rel[0].Commit.Hash != repo.V010 || rel[1].Tag != "v0.2.0" || rel[1].Commit.Hash != repo.V020 {
		t.Fatalf("releases %+v", rel)
	}
	for _, tc := range []struct{ from, to, want string }{
		{"v0.2.0", "v0.1.0", "newer than"},
		{"v0.1.0", "v0.3.0-rc1", "not a release tag"},
		{"main", "v0.2.0", "not a release tag"},
		{"v0.0.1", "v0.2.0", "v0.0.1 is not a tag"},
	} {
		_, err := b.Releases(ctx, repo.Dir, tc.from, tc.to)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Releases(%s, %s): err %v, want %q", tc.from, tc.to, err, tc.want)
		}
	}
}

func TestScoreOnlyThePointsAskedFor(t *testing.T) {
	o := scoreOpts(t, "ledger", "v0.2.0")
	all, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	want := all.Points[3].ID
	o.Points = []string{want}
	res, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 1 || res.Points[0].ID != want || res.Summary.Provenance.Selection.Whole() {
		t.Fatalf("points %v, selection %+v; want only %s, not the whole ledger", res.Points, res.Summary.Provenance.Selection, want)
	}
	if got, exp := res.Points[0].Predicted, all.Points[3].Predicted; got["ttft_ms"] != exp["ttft_ms"] {
		t.Errorf("prediction %v, in the whole run %v", got, exp)
	}
	o.Points = []string{want, "test/none@c=1"}
	if _, err := Score(context.Background(), o); err == nil || !strings.Contains(err.Error(), "test/none@c=1 are not points") {
		t.Errorf("an unknown point: err %v", err)
	}
}
