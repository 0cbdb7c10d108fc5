package nightly

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/pin"
)

// mapTags is the tags of a few repositories: repo → tag → commit. A
// repository it does not hold fails the test.
type mapTags struct {
	t    *testing.T
	tags map[string]map[string]string
}

var errNoRepo = errors.New("no such repository")

func (m mapTags) TagNames(_ context.Context, repo, prefix string) ([]string, error) {
	tags, ok := m.tags[repo]
	if !ok {
		m.t.Errorf("unexpected TagNames(%s)", repo)
		return nil, errNoRepo
	}
	var out []string
	for tag := range tags {
		if strings.HasPrefix(tag, prefix) {
			out = append(out, tag)
		}
	}
	return out, nil
}

func (m mapTags) ResolveTag(_ context.Context, repo, tag string) (string, error) {
	c, ok := m.tags[repo][tag]
	if !ok {
		return "", errNoRepo
	}
	return c, nil
}

func resolvePin(ledger string) pin.Pin {
	return pin.Pin{Harness: pin.Harness{Repository: "inference-sim/accuracy-dashboard", Tag: "v1.2.0", Commit: harnV1},
		Data: pin.Data{Ledger: ledger, Catalog: pin.Bundled, Registry: pin.None}}
}

// TestResolve: the newest stable release and its commit, the pinned
// harness, the pin's data, the newest dump in place of the ledger; the
// comparison with the last plan; errors naming what is wrong.
func TestResolve(t *testing.T) {
	t.Parallel()
	tags := mapTags{t: t, tags: map[string]map[string]string{
		"inference-sim/inference-sim": {"v0.7.9": simV2, "v0.7.15": simV1, "v0.8.0-rc1": simV2},
		"SemiAnalysisAI/InferenceX":   {"db-dump/2026-11-22": simV2, "db-dump/2026-11-29": simV2, "db-dump/2026-13-01": simV2},
	}}
	data := map[string]string{"ledger": pin.Bundled, "catalog": pin.Bundled, "registry": pin.None}
	req := Request{Pin: resolvePin(pin.Bundled), Data: data, SimulatorRepo: "inference-sim/inference-sim"}
	res, err := Resolve(context.Background(), tags, req)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(plan().Normalize(), res.Plan); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"no previous run is recorded"}, res.Changes); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}

	last := res.Plan
	req.Last, req.LastID = &last, "snap-1"
	if res, err := Resolve(context.Background(), tags, req); err != nil || len(res.Changes) != 0 || res.LastID != "snap-1" {
		t.Errorf("same inputs: %v, %q, %v", res.Changes, res.LastID, err)
	}

	// The dump replaces the ledger.
	req.InferenceXRepo = "SemiAnalysisAI/InferenceX"
	res, err = Resolve(context.Background(), tags, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan.DataVersion("ledger") != "" || res.Plan.DataVersion(DataInferenceXDump) != "db-dump/2026-11-29" {
		t.Errorf("data with a dump: %+v", res.Plan.Data)
	}
	if d := cmp.Diff([]string{"data inferencex-dump db-dump/2026-11-29 (new)", "data ledger dropped (was bundled)"}, res.Changes); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}

	req.Last = nil
	if res, _ := Resolve(context.Background(), tags, req); len(res.Changes) != 1 || !strings.Contains(res.Changes[0], "snap-1 recorded no inputs") {
		t.Errorf("a snapshot without inputs: %v", res.Changes)
	}

	for name, c := range map[string]struct {
		req  func(Request) Request
		want string
	}{
		"ledger not bundled with a dump": {func(r Request) Request { r.Pin = resolvePin("accuracy/ledger"); return r }, `the pin names ledger "accuracy/ledger"`},
		"no dump tag":                    {func(r Request) Request { r.InferenceXRepo = "inference-sim/inference-sim"; return r }, "has no weekly dump tag db-dump/YYYY-MM-DD"},
		"bad simulator repository":       {func(r Request) Request { r.SimulatorRepo = "inference-sim"; return r }, "simulator repository:"},
		"bad InferenceX repository":      {func(r Request) Request { r.InferenceXRepo = "a/b/c"; return r }, "InferenceX repository:"},
		"bad harness release":            {func(r Request) Request { r.Pin.Harness.Tag = "main"; return r }, `harness.release "main"`},
	} {
		if _, err := Resolve(context.Background(), tags, c.req(req)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}

	tags.tags["inference-sim/inference-sim"] = map[string]string{"v0.9.0-rc1": simV2}
	if _, err := Resolve(context.Background(), tags, req); !errors.Is(err, ErrNoRelease) || !strings.Contains(err.Error(), "inference-sim/inference-sim") {
		t.Errorf("no release: %v", err)
	}
}
