package importer

import "math"

// Bounds of the plausibility checks.
const (
	// maxPlausibleTPOTMs: no serving engine takes a second per output
	// token; a mean TPOT of that size is milliseconds written as seconds.
	maxPlausibleTPOTMs = 1000
	// maxPlausibleLatencyMs: an hour for a first token or a whole request
	// is beyond any client's timeout.
	maxPlausibleLatencyMs = 3600 * 1000
	// interactivityTolerance: InferenceX's mean interactivity is 1/mean
	// TPOT (to 1e-15 on all 1 532 rows of corpus/sources); more than 10 %
	// off means one of the two is wrong.
	interactivityTolerance = 0.10
)

// plausible marks every point still in whose measurement contradicts
// itself (the first failing check's reason, see plausibility), so that no
// wrong number is scored as if it were a measurement. Points marked already
// keep their reason.
func (b *builder) plausible() {
	for _, c := range b.cands {
		if c.reason == "" && c.built.Point.Excluded == "" {
			c.built.Point.Excluded = plausibility(&c.built)
		}
	}
}

// plausibility returns the reason of the first check p fails, in this
// order, or "" when it passes them all (checks needing a figure the source
// lacks are skipped):
//
//   - units: mean TPOT ≥ 1 s, or mean TTFT or E2E ≥ 1 h (ReasonSecondsUnit);
//   - mean TTFT > mean E2E (ReasonTTFTAboveE2E);
//   - mean TPOT × (fewest output tokens − 1) > mean E2E (ReasonTPOTAboveE2E);
//   - |interactivity × TPOT − 1| > 10 % (ReasonInteractivity).
func plausibility(p *Built) string {
	m := &p.Point.Measured
	e2e := m.E2ELMs
	switch {
	case m.TPOTMs >= maxPlausibleTPOTMs || m.TTFTMs >= maxPlausibleLatencyMs || (e2e != nil && *e2e >= maxPlausibleLatencyMs):
		return ReasonSecondsUnit
	case e2e != nil && m.TTFTMs > *e2e:
		return ReasonTTFTAboveE2E
	case e2e != nil && p.MinOutputTokens > 1 && m.TPOTMs*float64(p.MinOutputTokens-1) > *e2e:
		return ReasonTPOTAboveE2E
	case p.Interactivity != nil && math.Abs(*p.Interactivity*m.TPOTMs/1000-1) > interactivityTolerance:
		return ReasonInteractivity
	}
	return ""
}
