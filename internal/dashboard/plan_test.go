package dashboard_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/pinned"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// fakeRefs is GitHub's tags of two repositories; it fails the test on any
// other repository.
type fakeRefs struct {
	t    *testing.T
	tags map[string]map[string]string // repo → tag → commit
}

func (f fakeRefs) TagNames(_ context.Context, repo, prefix string) ([]string, error) {
	tags, ok := f.tags[repo]
	if !ok {
		f.t.Errorf("unexpected TagNames(%s)", repo)
		return nil, ghmodel.ErrNotFound
	}
	var names []string
	for tag := range tags {
		if strings.HasPrefix(tag, prefix) {
			names = append(names, tag)
		}
	}
	return names, nil
}

func (f fakeRefs) ResolveTag(_ context.Context, repo, tag string) (string, error) {
	sha, ok := f.tags[repo][tag]
	if !ok {
		return "", ghmodel.ErrNotFound
	}
	return sha, nil
}

const (
	simA = "1111111111111111111111111111111111111111"
	simB = "2222222222222222222222222222222222222222"
	hA   = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	hB   = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// TestResolvePlan: the plan resolves the newest stable simulator
// release and its commit, the pinned harness, the pin's data and the newest
// InferenceX dump; it compares them with state/last-run.json: the same
// inputs are "nothing changed", a new harness release or a new dump is a
// change.
func TestResolvePlan(t *testing.T) {
	dash := t.TempDir()
	pinAt := func(tag, commit string) {
		testkit.WriteFile(t, filepath.Join(dash, ".github", "accuracy-harness.yaml"),
			"harness:\n  repository: inference-sim/accuracy-dashboard\n  tag: "+tag+"\n  commit: "+commit+"\ndata:\n  registry: none\n")
	}
	pinAt("v1.2.0", hA)
	gh := fakeRefs{t: t, tags: map[string]map[string]string{
		"inference-sim/inference-sim": {"v0.7.9": simB, "v0.7.15": simA, "v0.8.0-rc1": simB, "nightly": simB},
		"SemiAnalysisAI/InferenceX":   {"db-dump/2026-11-22": simB, "db-dump/2026-11-29": simB, "v1.0.0": simB},
	}}
	c := dashboard.Checkout{Dir: dash, PinFile: filepath.Join(dash, ".github", "accuracy-harness.yaml"),
		SimulatorRepo: "inference-sim/inference-sim", InferenceXRepo: "SemiAnalysisAI/InferenceX", DataKey: pinned.DataKey}
	res, err := dashboard.ResolvePlan(context.Background(), gh, c)
	if err != nil {
		t.Fatal(err)
	}
	want := nightly.Plan{Version: nightly.Version,
		Simulator: nightly.Source{Repository: "inference-sim/inference-sim", Release: "v0.7.15", Commit: simA},
		Harness:   nightly.Source{Repository: "inference-sim/accuracy-dashboard", Release: "v1.2.0", Commit: hA},
		Data: []nightly.Data{{Name: "catalog", Version: "bundled"}, {Name: nightly.DataInferenceXDump, Version: "db-dump/2026-11-29"},
			{Name: "registry", Version: "none"}}}
	if d := cmp.Diff(want, res.Plan); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"no previous run is recorded"}, res.Changes); d != "" {
		t.Errorf("changes without a last run (-want +got):\n%s", d)
	}

	// The bot recorded this plan: nothing changed.
	plan := res.Plan
	raw, err := jsoncodec.Encode(dashboard.LastRun{Version: 1, Snapshot: "snap-1", Inputs: &plan})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Join(dash, "state", "last-run.json"), string(raw))
	res, err = dashboard.ResolvePlan(context.Background(), gh, c)
	if err != nil || len(res.Changes) != 0 || res.LastID != "snap-1" {
		t.Fatalf("same inputs: %v, %v", res.Changes, err)
	}
	if md := render.NightlyPlan(res.Plan, res.Changes, res.LastID); !strings.HasPrefix(md, "**Accuracy nightly: nothing changed** since snapshot snap-1 (simulator v0.7.15") {
		t.Errorf("plan summary:\n%s", md)
	}

	// A new harness release (the bot moved the pin) and a new dump.
	pinAt("v1.3.0", hB)
	gh.tags["SemiAnalysisAI/InferenceX"]["db-dump/2026-12-06"] = simB
	res, err = dashboard.ResolvePlan(context.Background(), gh, c)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"harness release v1.2.0 → v1.3.0", "data inferencex-dump db-dump/2026-11-29 → db-dump/2026-12-06"}, res.Changes); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}

	// Errors name what is wrong.
	gh.tags["inference-sim/inference-sim"] = map[string]string{"v0.9.0-rc1": simB}
	if _, err := dashboard.ResolvePlan(context.Background(), gh, c); !errors.Is(err, nightly.ErrNoRelease) || !strings.Contains(err.Error(), "inference-sim/inference-sim") {
		t.Errorf("no release: %v", err)
	}
	testkit.WriteFile(t, filepath.Join(dash, "state", "last-run.json"), "{")
	gh.tags["inference-sim/inference-sim"] = map[string]string{"v0.9.0": simB}
	if _, err := dashboard.ResolvePlan(context.Background(), gh, c); err == nil || !strings.Contains(err.Error(), "state/last-run.json") {
		t.Errorf("malformed last run: %v", err)
	}

	// The checkout's last run is read as untrusted: no link followed, capped.
	last := filepath.Join(dash, "state", "last-run.json")
	if err := os.Remove(last); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dash, ".github", "accuracy-harness.yaml"), last); err != nil {
		t.Fatal(err)
	}
	if _, err := dashboard.ResolvePlan(context.Background(), gh, c); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("last run a symbolic link: %v, want it refused", err)
	}
	if err := os.Remove(last); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, last, strings.Repeat(" ", dashboard.MaxLastRunBytes+1))
	if _, err := dashboard.ResolvePlan(context.Background(), gh, c); err == nil || !strings.Contains(err.Error(), "last run") {
		t.Errorf("last run over its cap: %v, want it refused", err)
	}
}
