package prcheck

import (
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Thresholds are increases of a MAPE, in percentage points, past which a
// run annotates (Alert) or fails (Fail). Nil means off; both are off by
// default.
type Thresholds struct {
	Alert *float64
	Fail  *float64
}

// Verdict is the threshold the comment's verdict line reads
// (render.Comparison.Threshold): Alert, else Fail, else 0 (any move).
func (th Thresholds) Verdict() float64 {
	switch {
	case th.Alert != nil:
		return *th.Alert
	case th.Fail != nil:
		return *th.Fail
	}
	return 0
}

// Verdict is what the thresholds say about a comparison.
type Verdict struct {
	// Alerts are the metrics whose Δ exceeds Alert, as sentences.
	Alerts []string
	// Failures are the metrics whose Δ exceeds Fail, as sentences.
	Failures []string
}

// Evaluate applies th to the headline metrics of the tier c.HeadlineTier
// picks; the secondary metrics are shown, never gated. A metric past a
// threshold has Δ strictly greater than it. Without a baseline nothing is
// evaluated.
func Evaluate(c runresult.Comparison, th Thresholds) Verdict {
	var v Verdict
	if c.Base == nil {
		return v
	}
	tier := c.HeadlineTier()
	for _, r := range c.Rows {
		if r.Tier != tier || !headline(r) || r.Delta == nil {
			continue
		}
		d, _ := metric.ByKey(r.Metric)
		msg := func(limit float64) string {
			return fmt.Sprintf("%s MAPE (%s tier) rose by %.2f pp, from %s to %s over %s (threshold %.2f pp).",
				d.Short, tier, *r.Delta, render.Pct(r.BaseMAPE), render.Pct(r.HeadMAPE), render.Count(r.Common, "common point"), limit)
		}
		if th.Alert != nil && *r.Delta > *th.Alert {
			v.Alerts = append(v.Alerts, msg(*th.Alert))
		}
		if th.Fail != nil && *r.Delta > *th.Fail {
			v.Failures = append(v.Failures, msg(*th.Fail))
		}
	}
	return v
}

// headline reports whether r is a row of a headline metric.
func headline(r runresult.DeltaRow) bool {
	d, ok := metric.ByKey(r.Metric)
	return ok && d.Headline
}
