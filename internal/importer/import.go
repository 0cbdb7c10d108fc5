package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// Reasons a row is excluded (the keys of Report.Excluded) or a point marked
// (Report.Marked and ledger.Point.Excluded). Stable short texts. A row gets
// the first reason that applies, in the order listed.
const (
	ReasonNotVLLM      = "not vllm"
	ReasonUnnumbered   = "unnumbered or custom vllm build"
	ReasonOldVersion   = "vllm version outside the latest N"
	ReasonMultiNode    = "multi-node or disaggregated"
	ReasonMissingMean  = "missing or non-positive mean"
	ReasonUnknownModel = "unknown model name"
	ReasonRunDate      = "run date unknown"
	ReasonDuplicate    = "duplicate of a newer measurement"
	// ReasonSpeculative marks a kept point: speculative decoding cannot be
	// simulated without the acceptance rate, which no source records.
	ReasonSpeculative = "speculative decoding without acceptance rate"
)

// Reasons a kept point is marked not simulable because its measurement
// cannot be compared as it stands (ledger.Point.Excluded). A point gets the
// first that applies, in the order listed.
const (
	// ReasonOverloaded: requests failed (more than
	// Options.MaxFailedFraction); the means describe the survivors only, an
	// easier job than the one offered. The counts are in the measurement.
	ReasonOverloaded = "overloaded: requests failed"
	// ReasonTPOTInconsistent: an inference-perf stage's mean TPOT agrees
	// neither with (E2E − TTFT)/(output − 1) nor with the chunk-timing
	// defect's half of it.
	ReasonTPOTInconsistent = "implausible: inference-perf TPOT fits neither per-token nor per-chunk timing"
	// The plausibility checks of rule_plausible.go.
	ReasonSecondsUnit   = "implausible: latency in milliseconds where seconds belong"
	ReasonTTFTAboveE2E  = "implausible: mean TTFT above mean E2E latency"
	ReasonTPOTAboveE2E  = "implausible: TPOT × (output − 1) above mean E2E latency"
	ReasonInteractivity = "implausible: interactivity far from 1/TPOT"
)

// MaxSourceBytes caps each file an import reads (an agg_bmk artifact, a file
// of API rows, an inference-perf run's YAML and stage results): the real
// ones are under 200 KB. Sources are read with diskio.ReadFileMax: regular
// files only (a symbolic link, a named pipe or a device is refused), the size
// checked while reading.
const MaxSourceBytes = 16 << 20

// readSource reads one file of an import's sources.
func readSource(fsys fs.FS, p string) ([]byte, error) {
	return diskio.ReadFileMax(fsys, p, MaxSourceBytes)
}

// DefaultVersions is how many of the latest numbered vLLM versions are kept.
const DefaultVersions = 5

// Result is a finished import: the ledger to write and its report.
type Result struct {
	Manifest ledger.Manifest
	// Units sorted by ID, points by load.
	Units  []ledger.Unit
	Report importreport.Report
}

// Import reads the artifacts named by opts.Sources from fsys (InferenceX
// agg_bmk and API files, inference-perf run folders), applies the corpus
// rules and returns the ledger and its report. Every input problem found (a
// file that cannot be parsed, a run folder missing a file) is returned
// together (errors.Join), each naming its file and row, and nothing is
// returned then. The result is deterministic: the same files and options
// give the same units and report.
func Import(fsys fs.FS, opts importreport.Options) (*Result, error) {
	if len(opts.Sources) == 0 {
		return nil, errors.Join(errors.New("no sources to import"), validateOptions(&opts))
	}
	if err := validateOptions(&opts); err != nil {
		return nil, err
	}
	found, err := discover(fsys, opts.Sources)
	if err != nil {
		return nil, err
	}
	res, err := ImportFrom(opts,
		inferenceXFiles{fsys: fsys, files: found.xFiles, runDates: opts.RunDates},
		inferencePerfRuns{fsys: fsys, dirs: found.ipRuns, hardware: opts.InferencePerfHardware,
			engineVersion: opts.InferencePerfEngineVersion, maxFailed: opts.MaxFailedFraction},
	)
	if err != nil {
		return nil, err
	}
	res.Report.Skipped = found.skipped
	return res, nil
}

// ImportFrom reads every source in order and applies the corpus rules to
// all their rows together. opts.Sources is recorded in the report but not
// read here (Import reads it); the other options apply.
func ImportFrom(opts importreport.Options, sources ...Source) (*Result, error) {
	if err := validateOptions(&opts); err != nil {
		return nil, err
	}
	b := &builder{opts: opts, sources: map[string]*importreport.SourceReport{}, lines: map[string]string{}}
	rows := &Rows{b: b}
	var errs []error
	for _, s := range sources {
		if err := s.Read(rows); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	kept, present := b.versionWindow()
	b.build()
	b.plausible()
	b.dedup()
	units, err := b.group()
	if err != nil {
		return nil, err
	}
	res := b.result(units, kept, present)
	if len(units) == 0 {
		return nil, b.noPoints(&res.Report)
	}
	return res, nil
}

// noPoints is the error of an import whose every row was excluded: a
// ledger without units is of no use (score refuses it). It says why, by
// reason, and what would help.
func (b *builder) noPoints(r *importreport.Report) error {
	var why []string
	for _, k := range slices.Sorted(maps.Keys(r.Excluded)) {
		why = append(why, fmt.Sprintf("%d %s", r.Excluded[k], k))
	}
	msg := fmt.Sprintf("no points: all %d rows were excluded (%s)", r.RowsIn, strings.Join(why, ", "))
	if r.RowsIn == 0 {
		msg = "no points: the sources hold no rows"
	}
	var hints []string
	if n := r.Excluded[ReasonRunDate]; n > 0 {
		ids := map[string]bool{}
		for _, c := range b.cands {
			if c.reason == ReasonRunDate {
				ids[c.row.RunID] = true
			}
		}
		hints = append(hints, fmt.Sprintf("give the date of run %s with --run-date RUNID=YYYY-MM-DD", strings.Join(slices.Sorted(maps.Keys(ids)), ", ")))
	}
	if r.Excluded[ReasonOldVersion] > 0 {
		hints = append(hints, "keep more vLLM versions with --versions")
	}
	if r.Excluded[ReasonNotVLLM] == r.RowsIn && r.RowsIn > 0 {
		hints = append(hints, "the corpus holds vLLM measurements only; these sources have none")
	}
	if len(hints) > 0 {
		msg += "; " + strings.Join(hints, "; ")
	}
	return errors.New(msg)
}

// validate checks everything but Sources.
func validateOptions(o *importreport.Options) error {
	var errs []error
	if o.Versions < 1 {
		errs = append(errs, fmt.Errorf("versions: %d (want at least 1)", o.Versions))
	}
	if !(o.MaxFailedFraction >= 0 && o.MaxFailedFraction < 1) {
		errs = append(errs, fmt.Errorf("max failed fraction: %v (want at least 0 and below 1)", o.MaxFailedFraction))
	}
	ids := slices.Sorted(maps.Keys(o.RunDates))
	for _, id := range ids {
		var bad []string
		if _, err := strconv.ParseUint(id, 10, 64); err != nil {
			bad = append(bad, fmt.Sprintf("run id %q is not a number", id))
		}
		if _, err := time.Parse(time.DateOnly, o.RunDates[id]); err != nil {
			bad = append(bad, fmt.Sprintf("%q is not a YYYY-MM-DD date", o.RunDates[id]))
		}
		if len(bad) > 0 {
			errs = append(errs, fmt.Errorf("run date %s=%s: %s", id, o.RunDates[id], strings.Join(bad, "; ")))
		}
	}
	if strings.TrimSpace(o.Name) == "" {
		errs = append(errs, errors.New("ledger name: must not be empty"))
	}
	if strings.TrimSpace(o.Version) == "" {
		errs = append(errs, errors.New("ledger version: must not be empty"))
	}
	return errors.Join(errs...)
}

// builder holds one import's rows on their way through the rules.
type builder struct {
	opts    importreport.Options
	sources map[string]*importreport.SourceReport // by input path
	lines   map[string]string                     // manifest line by input path
	cands   []*candidate
}

// build makes the point of every row still in (inside the version window).
func (b *builder) build() {
	for _, c := range b.cands {
		if c.reason != "" {
			continue
		}
		c.built, c.reason = c.row.Build()
		if c.reason == "" {
			c.identity = identity(c)
		}
	}
}
