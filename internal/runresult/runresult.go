// Package runresult defines the harness's published outputs: summary.json (the
// accuracy figures with their provenance, label and coverage) and points.json
// (one entry per corpus point). Both are plain data: the harness produces
// them, internal/render turns them into Markdown, the Action compares two of
// them and the bot publishes them. The JSON shape is fixed by
// schemas/summary.v2.json and schemas/points.v2.json; ParseSummary and
// ParsePoints check a document against them (version 1 is still read). The
// metrics are the list of internal/metric.
package runresult

import (
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/metric"
)

// SchemaVersion is the version of summary.json and points.json written here.
// Version 2 added the secondary metrics (internal/metric); version 1
// documents, with mean TTFT and mean TPOT only, are still read.
const SchemaVersion = 2

// ReadableVersions are the schema versions ParseSummary and ParsePoints read.
var ReadableVersions = []int{1, 2}

// Labels.
const (
	// LabelExperimental marks figures that cannot be regenerated from
	// releases alone: the simulator or some data is not a release.
	LabelExperimental = "experimental"
	// LabelRelease marks figures from a released simulator on released data.
	LabelRelease = "release"
)

// Tier names.
const (
	TierAll              = "all"
	TierMeasuredResolved = "measured_resolved"
)

// ShapeDefinition names the shape metric used (accuracy-metrics.md).
const ShapeDefinition = "anchored at each sweep's lowest load, anchor excluded, sweeps of at least 3 points (cmd/metricscore)"

// Summary is summary.json: everything a reader needs to trust one run's figures.
type Summary struct {
	SchemaVersion int `json:"schema_version"`
	// Label is LabelExperimental, LabelRelease or, for a what-if run,
	// LabelWhatIfPrefix and the what-if's name.
	Label string `json:"label"`
	// LabelReasons say why the run is experimental (empty for a release).
	LabelReasons []string   `json:"label_reasons"`
	Provenance   Provenance `json:"provenance"`
	Coverage     Coverage   `json:"coverage"`
	// Tiers holds the headline figures over the whole corpus.
	Tiers Tiers `json:"tiers"`
	// Groups holds the same figures by model × hardware, sorted by model then hardware.
	Groups []Group `json:"groups"`
	// Sources holds the same figures by data source (Point.Source), sorted
	// by source; absent in summaries written before sources were recorded.
	Sources []SourceGroup `json:"sources,omitempty"`
	// ShapeDefinition states which shape definition the figures use.
	ShapeDefinition string `json:"shape_definition"`
	// Shard is set when this summary covers one slice of the corpus.
	Shard *Shard `json:"shard,omitempty"`
	// SaturatedPoints lists the saturated points (Point.Saturated), in
	// points.json order, so that every table of the summary can mark them.
	SaturatedPoints []SaturatedPoint `json:"saturated_points,omitempty"`
	// Warnings are the simulator's warnings over the run's points
	// (Point.Warnings); nil in summaries written before warnings were kept.
	Warnings *Warnings `json:"warnings,omitempty"`
}

// SaturatedPoint is one saturated point: its offered and predicted
// completion rates (req/s) and its absolute percentage error per metric key
// where it has one.
type SaturatedPoint struct {
	Point          string             `json:"point"`
	Offered        float64            `json:"offered"`
	CompletionRate float64            `json:"completion_rate"`
	APE            map[string]float64 `json:"ape"`
}

// IsSaturated reports whether the point with this id is listed saturated.
func (s Summary) IsSaturated(id string) bool {
	for _, p := range s.SaturatedPoints {
		if p.Point == id {
			return true
		}
	}
	return false
}

// Shard is slice Index (1-based) of Count.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Provenance is where every figure came from.
type Provenance struct {
	Harness   Harness      `json:"harness"`
	Simulator Simulator    `json:"simulator"`
	Ledger    DataVersion  `json:"ledger"`
	Catalog   *DataVersion `json:"catalog"`
	Registry  *DataVersion `json:"registry"`
	// Hardware is the hardware registry whose GPUs were handed to the
	// simulator with the build's own hardware configuration
	// (--hardware-config); nil when none was (no registry, or the build
	// takes no --hardware-config: then NotPassed says so).
	Hardware *DataVersion `json:"hardware,omitempty"`
	// HardwareSupplied lists the GPUs the registry supplied because the
	// build's own configuration lacks them (sorted); points on them take
	// the entry's evidence as their tier.
	HardwareSupplied []string `json:"hardware_supplied,omitempty"`
	// NotPassed says which data the harness was given but the simulator
	// build could not take (no flag for it), each with why; such data is
	// not recorded as Catalog or Registry.
	NotPassed []string `json:"not_passed,omitempty"`
	// Selection is which part of the ledger the run scored; nil in
	// summaries written before selections were recorded.
	Selection *Selection `json:"selection,omitempty"`
	// WhatIf is the what-if experiment the run measured (nil on a plain
	// run): its points ran with one input changed, so its figures are a
	// diagnosis of the plain run's, never a headline or a release figure
	// (Label).
	WhatIf *WhatIf `json:"what_if,omitempty"`
}

// WhatIf records the what-if experiment a run measured (internal/whatif
// declares and applies it).
type WhatIf struct {
	Name    string `json:"name"`
	Version int    `json:"version"`
	// Title says the change in a few words ("gpt-oss-120b at 4-bit weights").
	Title string `json:"title"`
	// Limitation is the simulator limitation the change stands in for.
	Limitation string `json:"limitation"`
	// Units are the unit selectors the change applies to.
	Units []string `json:"units"`
	// Kind is which input changed: model_config, hardware or
	// simulator_flag.
	Kind string `json:"kind"`
	// Change says the change in one line.
	Change string `json:"change"`
	// Patch is the change as applied: the JSON merge patch (on the model's
	// config.json, or on the hardware configuration), or the flag and its
	// value.
	Patch string `json:"patch"`
	// Digest is the declaration's content digest; it is part of every
	// point's replay digest, so a reuse never mixes two patches.
	Digest string `json:"digest"`
}

// LabelWhatIfPrefix starts the label of a what-if run: "what-if: NAME".
const LabelWhatIfPrefix = "what-if: "

// IsWhatIfLabel reports whether label is a what-if run's.
func IsWhatIfLabel(label string) bool { return strings.HasPrefix(label, LabelWhatIfPrefix) }

// Selection is the part of the ledger a run scored: every unit (All), or
// the units the --units patterns matched. Shards of one run share it.
type Selection struct {
	// All is true when the run scored every unit of the ledger (no
	// --units, or patterns that matched every unit).
	All bool `json:"all"`
	// Units are the --units patterns as given (empty when none were).
	Units []string `json:"units"`
}

// Whole reports whether a selection is known to cover the whole ledger (a
// nil selection is not: the summary does not say).
func (s *Selection) Whole() bool { return s != nil && s.All }

// String says what the selection is: "the whole corpus", "units a, b
// (the whole corpus)" or "units a, b".
func (s *Selection) String() string {
	switch {
	case s == nil:
		return "an unrecorded selection"
	case len(s.Units) == 0 && s.All:
		return "the whole corpus"
	case s.All:
		return "units " + strings.Join(s.Units, ", ") + " (the whole corpus)"
	case len(s.Units) == 0:
		return "a part of the corpus"
	}
	return "units " + strings.Join(s.Units, ", ")
}

// How the harness commit is known.
const (
	// HarnessCheckout: read from the HEAD of a clean git checkout that is the
	// harness's own top level.
	HarnessCheckout = "checkout"
	// HarnessAssertion: stated by a HARNESS_COMMIT file in a copy without git history.
	HarnessAssertion = "assertion"
)

// Harness identifies the harness that produced the figures.
type Harness struct {
	Commit string `json:"commit"`
	// Source is HarnessCheckout or HarnessAssertion.
	Source string `json:"source"`
	// Version is the release tag naming Commit, when one does ("" otherwise).
	Version string `json:"version"`
}

// Simulator identifies the simulator build that was scored.
type Simulator struct {
	// Repo is the repository it was built from ("" for --sim-bin).
	Repo string `json:"repo"`
	// Ref is what the user asked for: a tag or a 40-hex commit ("" for --sim-bin).
	Ref string `json:"ref"`
	// Commit is the exact commit built ("" when unknown, for --sim-bin).
	Commit string `json:"commit"`
	// Tag is the release tag naming Commit, "" when none does.
	Tag string `json:"tag"`
	// Release is true when Tag names Commit.
	Release bool `json:"release"`
	// BuiltByHarness is false when a prebuilt binary was handed in.
	BuiltByHarness bool `json:"built_by_harness"`
	// Driver is how the harness drove this build (see internal/harness).
	Driver string `json:"driver"`
}

// DataVersion identifies one data set handed to the harness or the simulator.
type DataVersion struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Digest is "sha256:<hex>" of the content.
	Digest  string `json:"digest"`
	Release bool   `json:"release"`
}

// Coverage accounts for every corpus point: Scored + NotScored == CorpusPoints.
type Coverage struct {
	CorpusPoints      int            `json:"corpus_points"`
	Scored            int            `json:"scored"`
	NotScored         int            `json:"not_scored"`
	NotScoredByReason map[string]int `json:"not_scored_by_reason"`
	// ScoredByDriver counts the scored points by the driver that ran them
	// (points of outputs written before drivers were recorded count under
	// none).
	ScoredByDriver map[string]int `json:"scored_by_driver,omitempty"`
	// Reused counts the scored points whose prediction was taken from an
	// earlier run by replay digest (reused_from); the other scored points
	// were simulated in this run.
	Reused int `json:"reused,omitempty"`
	// Saturated counts the scored points whose prediction is saturated
	// (Point.Saturated).
	Saturated int `json:"saturated,omitempty"`
}

// Balanced reports whether every point is scored or not scored, once.
func (c Coverage) Balanced() bool {
	sum := 0
	for _, n := range c.NotScoredByReason {
		sum += n
	}
	return c.Scored+c.NotScored == c.CorpusPoints && sum == c.NotScored && c.Scored >= 0 && c.NotScored >= 0
}

// Tiers holds the figures of the two tiers.
type Tiers struct {
	All              TierScores `json:"all"`
	MeasuredResolved TierScores `json:"measured_resolved"`
}

// TierScores holds one tier's figures by metric key (metric.Def.Key). A
// summary written by this version holds every metric of metric.All; one of
// version 1 holds only the headline metrics.
type TierScores map[string]Metric

// Of returns the figures of metric d, and false when the tier does not hold
// the metric at all (a version 1 summary has no secondary metric).
func (t TierScores) Of(d metric.Def) (Metric, bool) {
	m, ok := t[d.Key]
	return m, ok
}

// Scored reports whether any headline metric of the tier has a scored point.
func (t TierScores) Scored() bool {
	for _, d := range metric.Headline() {
		if t[d.Key].N > 0 {
			return true
		}
	}
	return false
}

// Headline picks the tier the headline shows, a domain rule
// (docs/SCORING.md#tiers): measured_resolved, or all when measured_resolved
// has no point scored in a headline metric (fellBack).
func Headline(t Tiers) (name string, scores TierScores, fellBack bool) {
	if t.MeasuredResolved.Scored() {
		return TierMeasuredResolved, t.MeasuredResolved, false
	}
	return TierAll, t.All, true
}

// Of returns the figures of tier name (TierAll or TierMeasuredResolved).
func (t Tiers) Of(name string) TierScores {
	if name == TierMeasuredResolved {
		return t.MeasuredResolved
	}
	return t.All
}

// Metric is one metric's accuracy over a population, in percent. Nil values
// mean "no data" (N or ShapeN is zero) and are written as null.
type Metric struct {
	// MAPE is the mean absolute percentage error over N scored points.
	MAPE *float64 `json:"mape"`
	// Bias is the signed mean error, 100·mean(p/m − 1): positive = over-prediction.
	Bias *float64 `json:"bias"`
	// MedianAPE is the median absolute percentage error.
	MedianAPE *float64 `json:"median_ape"`
	// Worst is the point with the largest absolute percentage error.
	Worst *Worst `json:"worst"`
	N     int    `json:"n"`
	// Shape is the mean normalized-curve error over ShapeN non-anchor points.
	Shape  *float64 `json:"shape"`
	ShapeN int      `json:"shape_n"`
	// SaturatedN is how many of the N points are saturated (Point.Saturated)
	// and SaturatedPP how many percentage points of MAPE they contribute:
	// the sum of their APEs over N (nil when SaturatedN is 0).
	SaturatedN  int      `json:"saturated_n,omitempty"`
	SaturatedPP *float64 `json:"saturated_pp,omitempty"`
	// OverPredicted is how many of the N points are over-predicted (the
	// prediction exceeds the measurement): what the bias's sign means
	// point by point. Nil in summaries written before it was recorded.
	OverPredicted *int `json:"over_predicted,omitempty"`
	// Unsaturated is MAPE, bias and over-predicted points over the N −
	// SaturatedN points that are not saturated; nil when none is (the
	// figures above are then those) or the summary predates it. The
	// headline stays over every scored point.
	Unsaturated *Unsaturated `json:"unsaturated,omitempty"`
}

// Unsaturated is one metric's figures over the scored points that are not
// saturated.
type Unsaturated struct {
	MAPE          *float64 `json:"mape"`
	Bias          *float64 `json:"bias"`
	N             int      `json:"n"`
	OverPredicted int      `json:"over_predicted"`
}

// UnsaturatedOf is m's figures over its points that are not saturated: its
// Unsaturated, or m's own figures when none of its points is saturated;
// false when m has saturated points but its summary predates Unsaturated
// (or OverPredicted).
func (m Metric) UnsaturatedOf() (Unsaturated, bool) {
	switch {
	case m.Unsaturated != nil:
		return *m.Unsaturated, true
	case m.SaturatedN == 0 && m.OverPredicted != nil:
		return Unsaturated{MAPE: m.MAPE, Bias: m.Bias, N: m.N, OverPredicted: *m.OverPredicted}, true
	}
	return Unsaturated{}, false
}

// Worst names the worst point of a population.
type Worst struct {
	Point string  `json:"point"`
	APE   float64 `json:"ape"`
}

// Group is the figures of one model on one hardware.
type Group struct {
	Model    string `json:"model"`
	Hardware string `json:"hardware"`
	Tiers    Tiers  `json:"tiers"`
	// MaxSweepLoads is the most loads any sweep (unit) of the group has in
	// the corpus, scored or not: below ShapeMinLoads, shape cannot exist.
	MaxSweepLoads int `json:"max_sweep_loads,omitempty"`
}

// SourceGroup is the figures of the points of one data source.
type SourceGroup struct {
	Source        string `json:"source"`
	Tiers         Tiers  `json:"tiers"`
	MaxSweepLoads int    `json:"max_sweep_loads,omitempty"`
}

// ShapeMinLoads is how many scored loads a sweep needs for shape: its
// anchor and two more (docs/SCORING.md#shape).
const ShapeMinLoads = 3

// Data sources of the corpus (Point.Source), named as their projects name
// themselves.
const (
	SourceInferenceX    = "InferenceX"
	SourceInferencePerf = "inference-perf"
)

// SaturationShortfall is how far a rate point's predicted completion rate
// may fall short of its offered rate before the prediction is saturated:
// 5 %.
const SaturationShortfall = 0.05

// IsSaturated reports whether a rate point whose simulated requests
// completed at completionRate (req/s) while offered at offered (req/s) is
// saturated: the simulator's server fell behind its arrivals by more than
// SaturationShortfall, so its queue grew for the whole stage. Closed-loop
// points (offered 0) never are.
func IsSaturated(offered, completionRate float64) bool {
	return offered > 0 && completionRate < (1-SaturationShortfall)*offered
}

// Point is one entry of points.json.
type Point struct {
	// ID is "<unit>@<load key>", unique in the corpus.
	ID       string `json:"id"`
	Unit     string `json:"unit"`
	Model    string `json:"model"`
	Hardware string `json:"hardware"`
	Load     Load   `json:"load"`
	// Tier is the weakest evidence behind the point's settings:
	// "measured", "resolved" or "assumed".
	Tier   string `json:"tier"`
	Scored bool   `json:"scored"`
	// Reason is the not-scored reason code ("" when scored); Detail says more,
	// including the simulator's own message where it gave one.
	Reason string `json:"reason"`
	Detail string `json:"detail"`
	// Driver is how the harness ran the point through the simulator
	// (replay-metrics, replay-results, run-closed-loop; see
	// internal/harness), "" when it did not run it.
	Driver string `json:"driver,omitempty"`
	// NotPassed lists the ledger's settings of the point the simulator was
	// not given (its build has no flag for them), as "name value".
	NotPassed []string `json:"not_passed,omitempty"`
	// ReplayDigest is "sha256:<hex>" over everything that decided the
	// point's simulation (harness and simulator commits, toolchain, data
	// digests, driver, command line, the regenerated requests; see
	// docs/HARNESS.md), absent when it did not run or the build has no
	// commit. Equal digests give equal predictions.
	ReplayDigest string `json:"replay_digest,omitempty"`
	// ReusedFrom names the earlier run (a snapshot id or a result
	// directory's name) whose prediction for this digest was taken instead
	// of simulating again; absent when the point was simulated in this run.
	ReusedFrom string `json:"reused_from,omitempty"`
	// Source is the data source of the point's unit (SourceInferenceX,
	// SourceInferencePerf); "" in outputs written before it was recorded.
	Source string `json:"source,omitempty"`
	// CompletionRate is, for a scored rate point, the rate at which the
	// simulated requests completed (req/s: completions after the first over
	// the time from the first completion to the last); 0 otherwise.
	CompletionRate float64 `json:"completion_rate,omitempty"`
	// Saturated marks a scored rate point whose CompletionRate fell short of
	// the offered rate (IsSaturated): the simulator could not keep up.
	Saturated bool `json:"saturated,omitempty"`
	// Measured holds every metric the ledger has for the point; Predicted
	// every metric the simulator's rows allow, nil (null) when not scored.
	Measured  metric.Values `json:"measured"`
	Predicted metric.Values `json:"predicted"`
	// Warnings are what the simulator warned about on stderr while it ran
	// the point, scored or not, one per cause (WarningCause) in the order
	// first printed, at most MaxPointWarnings; WarningsOmitted counts the
	// warning lines of further causes. Absent when it warned about nothing,
	// did not run, or the output predates them.
	Warnings        []Warning `json:"warnings,omitempty"`
	WarningsOmitted int       `json:"warnings_omitted,omitempty"`
}

// Load is a point's offered load: concurrency (closed loop) or rate (req/s).
type Load struct {
	Concurrency int     `json:"concurrency,omitempty"`
	Rate        float64 `json:"rate,omitempty"`
}

// Value is the load as one number.
func (l Load) Value() float64 {
	if l.Concurrency > 0 {
		return float64(l.Concurrency)
	}
	return l.Rate
}

// InMeasuredResolved reports whether a point tier belongs to tier measured_resolved.
func InMeasuredResolved(tier string) bool { return tier == "measured" || tier == "resolved" }
