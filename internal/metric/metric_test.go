package metric

import (
	"math"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

func TestPercentileMatchesNumpy(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		xs   []float64
		q    float64
		want float64
	}{
		// numpy.percentile's documented example: [[10, 7, 4], [3, 2, 1]] at 50 is 3.5.
		{[]float64{10, 7, 4, 3, 2, 1}, 50, 3.5},
		{[]float64{1, 2, 3, 4}, 99, 3.97},
		{[]float64{4, 1, 3, 2}, 50, 2.5},
		{[]float64{5}, 99, 5},
		{[]float64{1, 2, 3}, 50, 2},
		{[]float64{1, 2, 3}, 100, 3},
		{[]float64{1, 2, 3}, 0, 1},
	} {
		got, ok := Percentile(tt.xs, tt.q)
		if !ok || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Percentile(%v, %v) = %v, %v; want %v", tt.xs, tt.q, got, ok, tt.want)
		}
	}
	for _, q := range []float64{-1, 101, math.NaN()} {
		if _, ok := Percentile([]float64{1}, q); ok {
			t.Errorf("Percentile at %v accepted", q)
		}
	}
	if _, ok := Percentile(nil, 50); ok {
		t.Error("percentile of nothing accepted")
	}
}

// The client's figures over four requests, worked by hand.
func TestPredicted(t *testing.T) {
	t.Parallel()
	rs := []Request{
		{TTFTMs: 10, E2EMs: 110, OutputTokens: 11}, // TPOT 10
		{TTFTMs: 20, E2EMs: 220, OutputTokens: 11}, // TPOT 20
		{TTFTMs: 30, E2EMs: 30, OutputTokens: 1},   // no TPOT: one output token
		{TTFTMs: 40, E2EMs: 340, OutputTokens: 11}, // TPOT 30
	}
	want := Values{
		"ttft_ms":        25,
		"tpot_ms":        20,
		"e2e_ms":         175,
		"median_ttft_ms": 25,
		"p99_ttft_ms":    30 + 10*0.97, // rank 3·0.99 = 2.97 between 30 and 40
		"p99_tpot_ms":    20 + 10*0.98, // rank 2·0.99 = 1.98 between 20 and 30
	}
	got := Predicted(rs)
	if len(got) != len(want) {
		t.Fatalf("Predicted = %v, want %v", got, want)
	}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-9 {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
	// No request with more than one output token: no TPOT figure at all.
	one := Predicted([]Request{{TTFTMs: 5, E2EMs: 5, OutputTokens: 1}})
	if _, ok := TPOT.Of(one); ok {
		t.Errorf("TPOT predicted from single-token requests: %v", one)
	}
	if _, ok := P99TPOT.Of(one); ok {
		t.Errorf("p99 TPOT predicted from single-token requests: %v", one)
	}
	if len(Predicted(nil)) != 0 {
		t.Error("figures predicted from no request")
	}
}

func TestMeasuredReadsWhatTheLedgerHas(t *testing.T) {
	t.Parallel()
	p99 := 80.0
	got := Measured(ledger.Measurement{TTFTMs: 40, TPOTMs: 4, P99TTFTMs: &p99})
	want := Values{"ttft_ms": 40, "tpot_ms": 4, "p99_ttft_ms": 80}
	if len(got) != len(want) {
		t.Fatalf("Measured = %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %v, want %v", k, got[k], w)
		}
	}
}

// The list's invariants: unique keys, headline first, every metric read
// and predicted, fields as points.json names them.
func TestList(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	secondary := false
	for _, d := range All {
		if d.Key == "" || d.Name == "" || d.Short == "" || d.Unit == "" || d.Measured == nil || d.Predicted == nil {
			t.Errorf("metric %+v is incomplete", d)
		}
		if seen[d.Key] {
			t.Errorf("key %s twice", d.Key)
		}
		seen[d.Key] = true
		if !d.Headline {
			secondary = true
		} else if secondary {
			t.Errorf("headline metric %s after a secondary one", d.Key)
		}
		if !strings.HasSuffix(d.Field(), "_ms") {
			t.Errorf("%s: field %s", d.Key, d.Field())
		}
		if got, ok := ByKey(d.Key); !ok || got.Key != d.Key {
			t.Errorf("ByKey(%s) = %v, %v", d.Key, got.Key, ok)
		}
	}
	if len(Headline()) != 2 || Headline()[0].Key != "ttft" || Headline()[1].Key != "tpot" {
		t.Errorf("headline = %v, want mean TTFT and mean TPOT", Headline())
	}
	if len(Headline())+len(Secondary()) != len(All) {
		t.Error("Headline and Secondary do not partition All")
	}
	if _, ok := ByKey("nope"); ok {
		t.Error("ByKey found an unknown key")
	}
}
