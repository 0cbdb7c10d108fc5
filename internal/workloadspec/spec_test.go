package workloadspec

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/golden"
)

// The layout is fixed: the leaderboard records these bytes in its results.
func TestEncodeLayout(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		spec Spec
	}{
		{"poisson-prefix", Spec{Seed: 42, Category: CategoryLanguage, AggregateRate: 2.5, NumRequests: 300, Clients: []Client{{
			ID: "distribution", RateFraction: 1, Arrival: &Arrival{Process: ArrivalPoisson},
			InputDist: Gaussian(512, 256, 16, 4096), OutputDist: Gaussian(256, 128, 16, 1024),
			PrefixGroup: "shared", PrefixLength: 64,
		}}}},
		{"closed-loop", Spec{Seed: 7, Category: CategoryLanguage, NumRequests: 48, Horizon: 600000000, Clients: []Client{{
			ID: "client", Concurrency: 4, InputDist: UniformEmpirical(8, 10), OutputDist: UniformEmpirical(3, 4), Streaming: true,
		}}}},
	} {
		raw, err := Encode(tt.spec)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		golden.Assert(t, "testdata/"+tt.name+".json", raw)
		// Keys in alphabetical order at every level: the struct order.
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		again, _ := json.MarshalIndent(v, "", "  ")
		if string(again)+"\n" != string(raw) {
			t.Errorf("%s: keys are not in alphabetical order (a map re-encoding differs):\n%s", tt.name, raw)
		}
	}
}

func TestEncodeRefusesAmbiguousClients(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		spec Spec
		want string
	}{
		{Spec{}, "no clients"},
		{Spec{Clients: []Client{{ID: "a"}}}, `client "a": give either`},
		{Spec{AggregateRate: 1, Clients: []Client{{ID: "b", RateFraction: 1, Concurrency: 2, Arrival: &Arrival{ArrivalPoisson}}}}, `client "b": give either`},
		{Spec{Clients: []Client{{ID: "c", RateFraction: 1, Arrival: &Arrival{ArrivalPoisson}}}}, `client "c": a rate client needs`},
		{Spec{AggregateRate: 1, Clients: []Client{{ID: "d", RateFraction: 1}}}, `client "d": a rate client needs`},
	} {
		if _, err := Encode(tt.spec); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Encode(%+v) = %v, want an error containing %q", tt.spec, err, tt.want)
		}
	}
}
