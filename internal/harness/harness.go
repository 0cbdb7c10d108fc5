// Package harness scores a simulator build against the measured corpus: it
// builds BLIS at an exact tag or commit (never a branch), probes how the
// build can be driven, regenerates the exact workload of every measured
// point, runs the points through the simulator in a bounded worker pool, and
// turns the per-request output into the benchmark client's own figures
// (every metric of internal/metric: mean TTFT and TPOT, and the secondary
// ones). The result is plain data (runresult.Point, runresult.Summary) with full
// provenance; rendering and writing are the caller's.
package harness

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/hardware"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/pool"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// Options is everything one scoring run needs. Data directories are already
// resolved to paths; their versions are recorded as given.
type Options struct {
	// HarnessDir is the harness's own directory (see HarnessIdentity).
	HarnessDir string
	// Embedded is the data embedded in the running binary (the bundled
	// corpus), rooted at EmbeddedRoot of the harness's tree ("corpus"); nil
	// for none. When the harness is a checkout, Score refuses an embedded
	// corpus that is not the one committed at its HEAD
	// (CheckEmbeddedCorpus).
	Embedded     fs.FS
	EmbeddedRoot string

	// SimRepo and SimRef select a build from source; SimRef "" means the
	// newest release tag of SimRepo.
	SimRepo string
	SimRef  string
	// SimBin, when set, is a prebuilt simulator run instead of a build; it
	// runs in SimDataDir (default: its own directory). Its figures are
	// experimental.
	SimBin     string
	SimDataDir string

	Ledger        *ledger.Ledger
	LedgerVersion runresult.DataVersion
	// Catalog and Registry are handed to the simulator ("" for none).
	Catalog         string
	CatalogVersion  *runresult.DataVersion
	Registry        string
	RegistryVersion *runresult.DataVersion
	// Hardware is the hardware registry (nil for none): its GPUs that the
	// build's own hardware_config.json lacks are handed, with the build's
	// entries, to builds that take --hardware-config. HardwareVersion
	// identifies it in the provenance.
	Hardware        *hardware.Registry
	HardwareVersion *runresult.DataVersion

	// Units selects units by id, glob (path.Match) or id prefix; empty = all.
	Units []string
	// Points, when set, keeps only these point ids of the selected units
	// (a bisect's step scores only the points that moved); an id that is
	// not a point of the selection is an error. The selection is then not
	// the whole ledger.
	Points []string
	// Shard, when set, keeps only the points of slice Index of Count.
	Shard *runresult.Shard
	// PointsCap is the largest points.json the run may write, checked
	// over the whole selection (every shard) before anything is built or
	// simulated (runresult.CheckPointsCap); 0 is runresult.MaxPointsBytes,
	// which every reader takes. Tests set a smaller one.
	PointsCap int
	// Jobs is the number of simulations run at once (default: CPU count).
	Jobs int
	// PointTimeout bounds one simulation (default DefaultPointTimeout).
	PointTimeout time.Duration
	// Reuse holds an earlier run's predictions by replay digest: a point
	// whose digest is there is not simulated (nil: every point is).
	Reuse *Reuse
	// WhatIf, when set, is the what-if experiment the run measures: only
	// the units it applies to (among Units) are scored, with its one
	// change made (applyWhatIf), and the result is labelled
	// "what-if: NAME" (report.Label) with the change in its provenance.
	WhatIf *whatif.Spec
	// ClosedLoopDriver forces the driver of closed-loop points
	// (DriverReplayMetrics or DriverRunClosedLoop); "" or ClosedLoopAuto
	// lets the probe choose.
	ClosedLoopDriver string

	// CacheDir keeps simulator mirrors and builds between runs.
	CacheDir string
	// WorkDir holds per-point run directories (default: a temp dir).
	WorkDir string
	// KeepRuns leaves per-point run directories for inspection.
	KeepRuns bool

	// Progress receives one line per finished point batch (nil: none).
	Progress io.Writer
	Log      *slog.Logger
	// Now is the clock for progress estimates (default time.Now).
	Now func() time.Time
}

// Result is one scoring run.
type Result struct {
	runresult.Result
	Build *Build
	Caps  Capabilities
}

// Score runs the whole pipeline. It fails, rather than return figures, when
// the harness checkout is dirty, the simulator ref is not pinned or does not
// build, or coverage does not balance; a point that cannot be simulated is
// not scored with a reason.
func Score(ctx context.Context, o Options) (*Result, error) {
	log := o.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Ledger == nil {
		return nil, errors.New("score: no ledger")
	}
	if (o.Hardware == nil) != (o.HardwareVersion == nil) {
		return nil, errors.New("score: a hardware registry needs its version for the provenance (Options.Hardware and HardwareVersion go together)")
	}
	harnessID, err := HarnessIdentity(ctx, o.HarnessDir)
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	if o.Embedded != nil && harnessID.Source == runresult.HarnessCheckout {
		if err := CheckEmbeddedCorpus(ctx, o.HarnessDir, o.EmbeddedRoot, o.Embedded); err != nil {
			return nil, fmt.Errorf("score: %w", err)
		}
	}
	units, err := SelectUnits(o.Ledger.Units, o.Units)
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	if o.WhatIf != nil {
		if units, err = SelectUnits(units, o.WhatIf.Units); err != nil {
			return nil, fmt.Errorf("score: what-if %s: %w", o.WhatIf.Name, err)
		}
	}
	if err := checkPointsCap(units, o.Points, o.PointsCap); err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}

	var bld *Build
	if o.SimBin != "" {
		bld, err = prebuilt(o.SimBin, o.SimDataDir)
	} else {
		b := &Builder{CacheDir: o.CacheDir, Log: log}
		ref := o.SimRef
		if ref == "" {
			if ref, err = b.DefaultRef(ctx, o.SimRepo); err != nil {
				return nil, fmt.Errorf("score: %w", err)
			}
			log.Info("no --sim given; using the newest release tag", "tag", ref)
		}
		bld, err = b.Build(ctx, o.SimRepo, ref)
	}
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	caps, err := Probe(ctx, bld.Binary, bld.DataDir)
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	if caps, err = caps.Force(o.ClosedLoopDriver); err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	log.Info("simulator ready", "commit", bld.Commit, "tag", bld.Tag, "rate_driver", caps.Rate, "closed_loop_driver", caps.ClosedLoop, "cached", bld.Cached)

	work := o.WorkDir
	if work == "" {
		if work, err = os.MkdirTemp("", "accuracy-harness-"); err != nil {
			return nil, err
		}
		if !o.KeepRuns {
			defer os.RemoveAll(work)
		}
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	hw, err := PrepareHardware(bld, caps, o.Hardware, work)
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	prov := runresult.Provenance{
		Harness: harnessID,
		Simulator: runresult.Simulator{Repo: bld.Repo, Ref: bld.Ref, Commit: bld.Commit, Tag: bld.Tag,
			Release: bld.Tag != "" && bld.BuiltByHarness, BuiltByHarness: bld.BuiltByHarness, Driver: strings.Join(caps.Drivers(), "+")},
		Ledger:   o.LedgerVersion,
		Catalog:  o.CatalogVersion,
		Registry: o.RegistryVersion,
	}
	hardwareProvenance(&prov, o.HardwareVersion, hw)
	notPassed(&prov, caps)
	catalog := o.Catalog
	var whatIfArgs []string
	if o.WhatIf != nil {
		a, err := applyWhatIf(o.WhatIf, o.Catalog, prov.Catalog != nil, hw.Config, work)
		if err != nil {
			return nil, fmt.Errorf("score: %w", err)
		}
		catalog, hw.Config, whatIfArgs, prov.WhatIf = a.catalog, a.hardware, a.args, a.record
	}

	digestInputs, err := replayInputs(harnessID.Commit, bld, prov, hw.Config)
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	runner := &Runner{Build: bld, Caps: caps, Catalog: catalog, Registry: o.Registry, Timeout: o.PointTimeout, WorkDir: work, Keep: o.KeepRuns,
		HardwareConfig: hw.Config, Supplied: hw.Supplied, DigestInputs: digestInputs, Reuse: o.Reuse, WhatIfArgs: whatIfArgs}
	if o.Reuse != nil && runner.DigestInputs == nil {
		return nil, errors.New("score: reuse needs a simulator build identified by its commit (not --sim-bin): a prebuilt binary's points have no replay digest")
	}
	jobs := planJobs(units, o.Shard)
	if o.Points != nil {
		if jobs, err = keepPoints(jobs, o.Points); err != nil {
			return nil, fmt.Errorf("score: %w", err)
		}
	}
	points := runAll(ctx, runner, jobs, o.Jobs, progressPrinter(o.Progress, len(jobs), o.Now))
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	prov.Selection = &runresult.Selection{All: len(units) == len(o.Ledger.Units) && o.Points == nil, Units: append([]string{}, o.Units...)}
	sum, err := runresult.Summarize(points, prov, o.Shard)
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	if sum.Coverage.CorpusPoints != len(jobs) {
		return nil, fmt.Errorf("score: coverage does not balance: %d points accounted for, %d in the corpus selection", sum.Coverage.CorpusPoints, len(jobs))
	}
	return &Result{Result: runresult.Result{Summary: sum, Points: runresult.SortPoints(points)}, Build: bld, Caps: caps}, nil
}

func prebuilt(bin, dataDir string) (*Build, error) {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("--sim-bin %s: %w", bin, err)
	}
	if st.IsDir() || st.Mode()&0o111 == 0 {
		return nil, fmt.Errorf("--sim-bin %s: not an executable file", bin)
	}
	if dataDir == "" {
		dataDir = filepath.Dir(abs)
	}
	return &Build{Binary: abs, DataDir: dataDir, BuiltByHarness: false}, nil
}

// Source is the data source of u's points (runresult.SourceInferenceX,
// runresult.SourceInferencePerf), named by the client that measured them.
func Source(u *ledger.Unit) string {
	switch u.Workload.Client {
	case ledger.ClientInferenceX:
		return runresult.SourceInferenceX
	case ledger.ClientInferencePerf:
		return runresult.SourceInferencePerf
	}
	return u.Workload.Client
}

// SelectUnits keeps the units matching any selector: an exact id, a glob
// (path.Match, where * stays within one segment) or an id prefix ending at a
// segment boundary. No selectors keeps every unit. A selector that matches
// nothing is an error.
func SelectUnits(units []ledger.Unit, selectors []string) ([]ledger.Unit, error) {
	if len(selectors) == 0 {
		return units, nil
	}
	var out []ledger.Unit
	used := make([]bool, len(selectors))
	for _, u := range units {
		keep := false
		for k, s := range selectors {
			ok, err := path.Match(s, u.ID)
			if err != nil {
				return nil, fmt.Errorf("--units %q: %w", s, err)
			}
			if ok || strings.HasPrefix(u.ID, strings.TrimSuffix(s, "/")+"/") {
				keep, used[k] = true, true
			}
		}
		if keep {
			out = append(out, u)
		}
	}
	var unused []string
	for k, s := range selectors {
		if !used[k] {
			unused = append(unused, s)
		}
	}
	if len(unused) > 0 {
		return nil, fmt.Errorf("--units %s matches no unit of the ledger", strings.Join(unused, ", "))
	}
	return out, nil
}

type job struct {
	unit  *ledger.Unit
	index int
	// cost is the point's expected simulation cost (ExpectedCost).
	cost float64
}

// InShard reports whether the point with this id belongs to shard s: points
// are spread by a hash of their id, so a shard's slice does not depend on
// which other points exist.
func InShard(pointID string, s *runresult.Shard) bool {
	if s == nil || s.Count <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(pointID))
	return int(h.Sum32()%uint32(s.Count)) == s.Index-1
}

func planJobs(units []ledger.Unit, shard *runresult.Shard) []job {
	var jobs []job
	for ui := range units {
		u := &units[ui]
		for i := range u.Points {
			if InShard(u.PointID(i), shard) {
				jobs = append(jobs, job{unit: u, index: i, cost: pointCost(u, i)})
			}
		}
	}
	return jobs
}

// keepPoints keeps the jobs of the points ids names, each of which must be
// among them.
func keepPoints(jobs []job, ids []string) ([]job, error) {
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	var kept []job
	for _, j := range jobs {
		if id := j.unit.PointID(j.index); want[id] {
			kept = append(kept, j)
			delete(want, id)
		}
	}
	if len(want) > 0 {
		return nil, fmt.Errorf("points %s are not points of the selected units", strings.Join(slices.Sorted(maps.Keys(want)), ", "))
	}
	return kept, nil
}

// pointCost is the expected cost of simulating point i of u: 0 for a point
// that will not run (excluded, or no workload).
func pointCost(u *ledger.Unit, i int) float64 {
	if u.Points[i].Excluded != "" {
		return 0
	}
	t, err := Generate(u, i)
	if err != nil {
		return 0
	}
	return ExpectedCost(t)
}

// ExpectedCost is what simulating t is expected to cost, known before
// running: the tokens it moves (requests × (input + output) tokens). The
// simulator's work grows with the tokens it prefills and decodes, so the
// points of a corpus order by it as their run times do; only the order
// matters (pool.Run starts the most expensive first).
func ExpectedCost(t Trace) float64 {
	var tokens float64
	for _, r := range t.Requests {
		tokens += float64(r.InputTokens + r.OutputTokens)
	}
	return tokens
}

// runAll runs every job in a pool of n workers, the most expensive first,
// and returns one point per job, in job order.
func runAll(ctx context.Context, r *Runner, jobs []job, n int, done func(scored bool)) []runresult.Point {
	out := make([]runresult.Point, len(jobs))
	costs := make([]float64, len(jobs))
	for k, j := range jobs {
		costs[k] = j.cost
	}
	var mu sync.Mutex
	pool.Run(ctx, n, costs, func(ctx context.Context, k int) {
		j := jobs[k]
		oc := r.RunPoint(ctx, j.unit, j.index)
		out[k] = toPoint(j.unit, j.index, oc)
		mu.Lock()
		done(oc.Predicted != nil)
		mu.Unlock()
	})
	return out
}

// pointEvidence is the tier of point i of u: the weakest evidence of its
// settings and, when the hardware registry supplied its GPU, of that entry.
func pointEvidence(u *ledger.Unit, i int, oc Outcome) ledger.Evidence {
	e := u.Evidence(i)
	if oc.HardwareEvidence != "" {
		e = ledger.Weaker(e, oc.HardwareEvidence)
	}
	return e
}

// corpusPoint is point i of u as the corpus gives it, before it is run:
// id, unit, model, hardware, load, source and measured values.
func corpusPoint(u *ledger.Unit, i int) runresult.Point {
	p := u.Points[i]
	return runresult.Point{
		ID: u.PointID(i), Unit: u.ID, Model: u.Deployment.Model, Hardware: u.Deployment.Hardware,
		Load:     runresult.Load{Concurrency: p.Load.Concurrency, Rate: p.Load.Rate},
		Measured: metric.Measured(p.Measured),
		Source:   Source(u),
	}
}

// checkPointsCap refuses a run whose points.json would be over its cap
// (runresult.CheckPointsCap, limit 0: runresult.MaxPointsBytes) before
// anything is built or simulated: over the points of the whole run jobs
// are a shard of (shard's whole selection), as the merge writes them.
func checkPointsCap(units []ledger.Unit, points []string, limit int) error {
	jobs := planJobs(units, nil)
	if points != nil {
		var err error
		if jobs, err = keepPoints(jobs, points); err != nil {
			return err
		}
	}
	skeleton := make([]runresult.Point, len(jobs))
	for k, j := range jobs {
		skeleton[k] = corpusPoint(j.unit, j.index)
	}
	return runresult.CheckPointsCap(skeleton, limit)
}

func toPoint(u *ledger.Unit, i int, oc Outcome) runresult.Point {
	rp := corpusPoint(u, i)
	p := u.Points[i]
	rp.Tier = string(pointEvidence(u, i, oc))
	rp.Driver = oc.Driver
	rp.NotPassed = oc.NotPassed
	rp.ReplayDigest, rp.ReusedFrom = oc.ReplayDigest, oc.ReusedFrom
	rp.Warnings, rp.WarningsOmitted = oc.Warnings, oc.WarningsOmitted
	if oc.Predicted != nil {
		rp.Scored, rp.Predicted = true, oc.Predicted
		rp.CompletionRate = oc.CompletionRate
		rp.Saturated = runresult.IsSaturated(p.Load.Rate, oc.CompletionRate)
		return rp
	}
	rp.Reason, rp.Detail = oc.Reason, oc.Detail
	if rp.Reason == "" {
		rp.Reason, rp.Detail = ReasonRunError, "no outcome"
	}
	return rp
}

// progressPrinter reports points done / total with an estimate of the time
// left, at most every two seconds and always at the end.
func progressPrinter(w io.Writer, total int, now func() time.Time) func(bool) {
	if w == nil {
		return func(bool) {}
	}
	if now == nil {
		now = time.Now
	}
	start := now()
	var last time.Time
	done, scored := 0, 0
	return func(ok bool) {
		done++
		if ok {
			scored++
		}
		t := now()
		if done < total && t.Sub(last) < 2*time.Second {
			return
		}
		last = t
		el := t.Sub(start)
		eta := "?"
		if done > 0 {
			eta = (time.Duration(float64(el) / float64(done) * float64(total-done))).Round(time.Second).String()
		}
		fmt.Fprintf(w, "progress: %d/%d points (%d scored), %s elapsed, ~%s left\n", done, total, scored, el.Round(time.Second), eta)
	}
}

// notPassed drops from prov the catalog and registry the build could not
// take (neither of its commands has a flag for them) and says so in
// NotPassed: the figures record only the data the simulator was given.
func notPassed(prov *runresult.Provenance, caps Capabilities) {
	takes := func(names ...string) bool {
		for _, f := range []simcli.Flags{caps.Replay, caps.Run} {
			for _, n := range names {
				if f.Has(n) {
					return true
				}
			}
		}
		return false
	}
	if c := prov.Catalog; c != nil && !takes("catalog", "model-config-folder") {
		prov.NotPassed = append(prov.NotPassed, fmt.Sprintf("catalog %s %s: this build takes no --catalog or --model-config-folder", c.Name, c.Version))
		prov.Catalog = nil
	}
	if r := prov.Registry; r != nil && !takes("registry") {
		prov.NotPassed = append(prov.NotPassed, fmt.Sprintf("registry %s %s: this build takes no --registry", r.Name, r.Version))
		prov.Registry = nil
	}
}
