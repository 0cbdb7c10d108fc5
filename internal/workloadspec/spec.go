// Package workloadspec is the one writer of BLIS's v2 workload
// specification (`blis run --workload-spec FILE`): the harness's closed-loop
// driver and the leaderboard's Poisson runs both describe their clients with
// it.
//
// A specification is written as JSON, which YAML parsers (BLIS's) read as
// YAML. BLIS decodes it strictly, so only fields BLIS knows appear and empty
// optional fields are left out. The layout is fixed: keys in alphabetical
// order (the struct fields are declared in that order), two-space indent, a
// final newline. The leaderboard records the bytes in its result files, so
// a change of layout would change published results: Encode is
// golden-tested.
package workloadspec

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Version is the specification format written.
const Version = "2"

// Spec is a v2 workload specification. Fields are in alphabetical order of
// their keys; keep them so.
type Spec struct {
	// AggregateRate is the total arrival rate in requests/s of the rate
	// clients (0: none, a closed-loop specification).
	AggregateRate float64  `json:"aggregate_rate,omitempty"`
	Category      string   `json:"category"`
	Clients       []Client `json:"clients"`
	// Horizon is the simulated time limit in µs (0: BLIS's default).
	Horizon     int64  `json:"horizon,omitempty"`
	NumRequests int    `json:"num_requests"`
	Seed        int64  `json:"seed"`
	Version     string `json:"version"`
}

// Client is one client of a specification: a share of the aggregate rate
// with an arrival process, or a number of concurrent users (closed loop).
type Client struct {
	Arrival *Arrival `json:"arrival,omitempty"`
	// Concurrency is the number of users of a closed-loop client, each
	// sending its next request when the previous one completes (0: a rate
	// client).
	Concurrency int    `json:"concurrency,omitempty"`
	ID          string `json:"id"`
	InputDist   Dist   `json:"input_distribution"`
	OutputDist  Dist   `json:"output_distribution"`
	// PrefixGroup and PrefixLength give the client's requests a shared
	// prefix of PrefixLength tokens ("" and 0: none).
	PrefixGroup  string `json:"prefix_group,omitempty"`
	PrefixLength int    `json:"prefix_length,omitempty"`
	// RateFraction is the client's share of AggregateRate (0: a closed-loop
	// client, which has none).
	RateFraction float64 `json:"rate_fraction,omitempty"`
	Streaming    bool    `json:"streaming"`
}

// Arrival is a rate client's arrival process.
type Arrival struct {
	Process string `json:"process"`
}

// Arrival processes BLIS knows.
const (
	ArrivalPoisson  = "poisson"
	ArrivalConstant = "constant"
)

// CategoryLanguage is the category of text requests.
const CategoryLanguage = "language"

// Dist is a token-length distribution.
type Dist struct {
	Params map[string]float64 `json:"params"`
	Type   string             `json:"type"`
}

// Gaussian is a Gaussian of mean and stdDev clipped to [lo, hi], as BLIS's
// distribution workload (`blis run --prompt-tokens ...`) draws lengths.
func Gaussian(mean, stdDev, lo, hi int) Dist {
	return Dist{Type: "gaussian", Params: map[string]float64{
		"mean": float64(mean), "std_dev": float64(stdDev), "min": float64(lo), "max": float64(hi)}}
}

// UniformEmpirical is the uniform distribution over the integers [lo, hi]
// as an empirical PDF (token count → weight), which BLIS samples exactly.
func UniformEmpirical(lo, hi int) Dist {
	p := make(map[string]float64, hi-lo+1)
	for n := lo; n <= hi; n++ {
		p[strconv.Itoa(n)] = 1
	}
	return Dist{Type: "empirical", Params: p}
}

// Encode writes s in the fixed layout. A specification without clients,
// or with a client that is neither a rate client nor a closed-loop one, is
// an error: BLIS would refuse it later with a less clear message.
func Encode(s Spec) ([]byte, error) {
	if len(s.Clients) == 0 {
		return nil, fmt.Errorf("workload spec: no clients")
	}
	for _, c := range s.Clients {
		rate, closed := c.RateFraction > 0, c.Concurrency > 0
		if rate == closed {
			return nil, fmt.Errorf("workload spec: client %q: give either a rate fraction or a concurrency", c.ID)
		}
		if rate && (s.AggregateRate <= 0 || c.Arrival == nil) {
			return nil, fmt.Errorf("workload spec: client %q: a rate client needs an aggregate rate and an arrival process", c.ID)
		}
	}
	if s.Version == "" {
		s.Version = Version
	}
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("workload spec: %w", err)
	}
	return append(raw, '\n'), nil
}
