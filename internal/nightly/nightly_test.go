package nightly

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	simV1  = "1111111111111111111111111111111111111111"
	simV2  = "2222222222222222222222222222222222222222"
	harnV1 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
)

func plan() Plan {
	return Plan{Version: Version,
		Simulator: Source{Repository: "inference-sim/inference-sim", Release: "v0.7.15", Commit: simV1},
		Harness:   Source{Repository: "inference-sim/accuracy-dashboard", Release: "v1.2.0", Commit: harnV1},
		Data:      []Data{{"ledger", "bundled"}, {"catalog", "bundled"}, {"registry", "none"}}}
}

func TestChanges(t *testing.T) {
	t.Parallel()
	base := plan()
	if got := Changes(&base, plan()); len(got) != 0 {
		t.Errorf("same plan: %v", got)
	}
	if got := Changes(nil, plan()); len(got) != 1 || !strings.Contains(got[0], "no previous run") {
		t.Errorf("no last run: %v", got)
	}
	next := plan()
	next.Simulator.Release, next.Simulator.Commit = "v0.8.0", simV2
	next.Harness.Commit = simV2
	next.Data = []Data{{"registry", "none"}, {"ledger", "sha256:ab"}, {DataInferenceXDump, "db-dump/2026-11-29"}}
	want := []string{
		"simulator release v0.7.15 → v0.8.0",
		"harness v1.2.0 now names commit 222222222222 (was aaaaaaaaaaaa)",
		"data inferencex-dump db-dump/2026-11-29 (new)",
		"data ledger bundled → sha256:ab",
		"data catalog dropped (was bundled)",
	}
	if d := cmp.Diff(want, Changes(&base, next)); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}
	// Data order does not matter.
	shuffled := plan()
	shuffled.Data = []Data{{"registry", "none"}, {"catalog", "bundled"}, {"ledger", "bundled"}}
	if !Equal(base, shuffled) || len(Changes(&base, shuffled)) != 0 {
		t.Error("a reordered data list counts as a change")
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	p, err := Parse(plan().Encode())
	if err != nil || !Equal(p, plan()) {
		t.Fatalf("round trip: %+v, %v", p, err)
	}
	for name, tc := range map[string]struct{ raw, want string }{
		"unknown field":    {`{"version":1,"extra":1}`, `unknown field "extra"`},
		"trailing":         {string(plan().Encode()) + "{}", "trailing data"},
		"version":          {strings.Replace(string(plan().Encode()), `"version":1`, `"version":2`, 1), "version 2, want 1"},
		"branch release":   {strings.Replace(string(plan().Encode()), "v0.7.15", "main", 1), `simulator.release "main" is not a release tag`},
		"short commit":     {strings.Replace(string(plan().Encode()), harnV1, "abc", 1), `harness.commit "abc" is not a 40-hex commit`},
		"data twice":       {strings.Replace(string(plan().Encode()), `"catalog"`, `"ledger"`, 1), `data: "ledger" twice`},
		"empty data field": {strings.Replace(string(plan().Encode()), `"none"`, `""`, 1), "name and version are required"},
	} {
		if _, err := Parse([]byte(tc.raw)); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), File) {
			t.Errorf("%s: %v, want an error naming %s and %q", name, err, File, tc.want)
		}
	}
}

func TestNewestDump(t *testing.T) {
	t.Parallel()
	tags := []string{"db-dump/2026-11-22", "db-dump/2026-11-29", "db-dump/2026-13-01", "db-dump/latest", "v1.0.0", "db-dump/2026-11-29-fix"}
	if got := NewestDump(tags); got != "db-dump/2026-11-29" {
		t.Errorf("NewestDump = %q", got)
	}
	if got := NewestDump(nil); got != "" {
		t.Errorf("NewestDump(nil) = %q", got)
	}
}

// FuzzParse: plan.json comes from a workflow artifact; any input gives a
// plan that validates and round-trips, or an error, never a panic.
func FuzzParse(f *testing.F) {
	f.Add(plan().Encode())
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := Parse(raw)
		if err != nil {
			return
		}
		again, err := Parse(p.Encode())
		if err != nil || !Equal(p, again) {
			t.Fatalf("round trip: %+v, %v", again, err)
		}
		// Equal compares encodings; the decoded plan itself must survive too
		// (a field its encoding dropped would pass Equal).
		if !reflect.DeepEqual(p, again) {
			t.Fatalf("decoded plan changed by a round trip:\n%+v\n%+v", p, again)
		}
	})
}
