// Package metric is the list of latency metrics the harness scores, in one
// place: each metric's name, unit, where its measurement is read in a ledger
// point, how the benchmark client's own figure is computed from the
// simulator's per-request rows, and whether it is a headline metric. The
// summary (internal/runresult), the Markdown (internal/render), the pull-request
// comparison (internal/prcheck), the bot's index and the Action's outputs
// loop over All; adding a metric is an entry here, its field in the schemas
// (schemas/summary.v*.json, points.v*.json) and the golden files. The
// definitions of each figure on both sides are in docs/SCORING.md.
package metric

import (
	"math"
	"slices"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// Def is one metric.
type Def struct {
	// Key names the metric in summary.json ("ttft"); Field() names its value
	// in points.json ("ttft_ms").
	Key string
	// Name is how tables title the metric ("Mean TTFT"); Short is its name
	// in narrow places (the PR comparison, alerts): "TTFT".
	Name  string
	Short string
	// Unit of the values: "ms".
	Unit string
	// Headline metrics make the headline table, the alert and fail
	// thresholds, the Action's outputs and the bot's README table; the
	// others are shown below the headline, never in it.
	Headline bool
	// Measured reads the benchmark client's figure from a ledger point;
	// false when the ledger does not have it.
	Measured func(ledger.Measurement) (float64, bool)
	// Predicted computes the same figure from the simulator's per-request
	// rows (warm-up requests already removed) the way the client computes
	// it from its own; false when the rows do not allow it.
	Predicted func([]Request) (float64, bool)
}

// Field is the metric's key in points.json's measured and predicted objects.
func (d Def) Field() string { return d.Key + "_" + d.Unit }

// Of returns the metric's value in v, false when v lacks it.
func (d Def) Of(v Values) (float64, bool) {
	x, ok := v[d.Field()]
	return x, ok
}

// Values holds one point's latencies by Field(): the measured or the
// predicted side of points.json. A nil Values is no prediction (null).
type Values map[string]float64

// Request is one measured (not warm-up) request as the simulator served it.
type Request struct {
	TTFTMs float64
	E2EMs  float64
	// OutputTokens is how many tokens the request generated.
	OutputTokens int
}

// The metrics, headline first.
var (
	TTFT = Def{Key: "ttft", Name: "Mean TTFT", Short: "TTFT", Unit: "ms", Headline: true,
		Measured:  func(m ledger.Measurement) (float64, bool) { return m.TTFTMs, true },
		Predicted: func(rs []Request) (float64, bool) { return mean(ttfts(rs)) }}
	TPOT = Def{Key: "tpot", Name: "Mean TPOT", Short: "TPOT", Unit: "ms", Headline: true,
		Measured:  func(m ledger.Measurement) (float64, bool) { return m.TPOTMs, true },
		Predicted: func(rs []Request) (float64, bool) { return mean(tpots(rs)) }}
	E2E = Def{Key: "e2e", Name: "Mean E2E latency", Short: "Mean E2E", Unit: "ms",
		Measured:  func(m ledger.Measurement) (float64, bool) { return opt(m.E2ELMs) },
		Predicted: func(rs []Request) (float64, bool) { return mean(e2es(rs)) }}
	MedianTTFT = Def{Key: "median_ttft", Name: "Median TTFT", Short: "Median TTFT", Unit: "ms",
		Measured:  func(m ledger.Measurement) (float64, bool) { return opt(m.MedianTTFTMs) },
		Predicted: func(rs []Request) (float64, bool) { return Percentile(ttfts(rs), 50) }}
	P99TTFT = Def{Key: "p99_ttft", Name: "p99 TTFT", Short: "p99 TTFT", Unit: "ms",
		Measured:  func(m ledger.Measurement) (float64, bool) { return opt(m.P99TTFTMs) },
		Predicted: func(rs []Request) (float64, bool) { return Percentile(ttfts(rs), 99) }}
	P99TPOT = Def{Key: "p99_tpot", Name: "p99 TPOT", Short: "p99 TPOT", Unit: "ms",
		Measured:  func(m ledger.Measurement) (float64, bool) { return opt(m.P99TPOTMs) },
		Predicted: func(rs []Request) (float64, bool) { return Percentile(tpots(rs), 99) }}
)

// All is every metric in display order: the headline metrics, then the
// secondary ones.
var All = []Def{TTFT, TPOT, E2E, MedianTTFT, P99TTFT, P99TPOT}

// Headline returns the headline metrics, in display order.
func Headline() []Def { return filter(true) }

// Secondary returns the metrics shown below the headline, in display order.
func Secondary() []Def { return filter(false) }

func filter(headline bool) []Def {
	var out []Def
	for _, d := range All {
		if d.Headline == headline {
			out = append(out, d)
		}
	}
	return out
}

// ByKey returns the metric named key, false when there is none.
func ByKey(key string) (Def, bool) {
	for _, d := range All {
		if d.Key == key {
			return d, true
		}
	}
	return Def{}, false
}

// Measured reads every metric the ledger point has.
func Measured(m ledger.Measurement) Values {
	v := Values{}
	for _, d := range All {
		if x, ok := d.Measured(m); ok {
			v[d.Field()] = x
		}
	}
	return v
}

// Predicted computes every metric the rows allow.
func Predicted(rs []Request) Values {
	v := Values{}
	for _, d := range All {
		if x, ok := d.Predicted(rs); ok {
			v[d.Field()] = x
		}
	}
	return v
}

// ttfts is every request's TTFT.
func ttfts(rs []Request) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.TTFTMs
	}
	return out
}

// e2es is every request's end-to-end latency.
func e2es(rs []Request) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.E2EMs
	}
	return out
}

// tpots is (e2e − ttft) / (output tokens − 1) of every request with more
// than one output token, as benchmark_serving.py computes TPOT.
func tpots(rs []Request) []float64 {
	var out []float64
	for _, r := range rs {
		if r.OutputTokens > 1 {
			out = append(out, (r.E2EMs-r.TTFTMs)/float64(r.OutputTokens-1))
		}
	}
	return out
}

func mean(xs []float64) (float64, bool) {
	if len(xs) == 0 {
		return 0, false
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs)), true
}

// Percentile is the q-th percentile (0 ≤ q ≤ 100) of xs with linear
// interpolation between the closest ranks, numpy.percentile's default,
// which both benchmark clients use (benchmark_serving.py and
// inference-perf): rank (n − 1)·q/100. The 50th percentile is the median.
// False when xs is empty.
func Percentile(xs []float64, q float64) (float64, bool) {
	if len(xs) == 0 || q < 0 || q > 100 || math.IsNaN(q) {
		return 0, false
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := float64(len(s)-1) * q / 100
	lo := int(math.Floor(rank))
	hi := int(math.Ceil(rank))
	if lo == hi {
		return s[lo], true
	}
	return s[lo] + (s[hi]-s[lo])*(rank-float64(lo)), true
}

func opt(x *float64) (float64, bool) {
	if x == nil {
		return 0, false
	}
	return *x, true
}
