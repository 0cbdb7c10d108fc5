package publish

import (
	"errors"
	"fmt"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Admission is how strictly Admit gates a report.
type Admission int

// Admissions.
const (
	// AdmitRelease is the bot's gate (Gate): only release figures.
	AdmitRelease Admission = iota
	// AdmitExperimental waives the release requirement alone
	// (GateExperimental): a maintainer's example or preview of a build no
	// release names, published as experimental. The bot never uses it.
	AdmitExperimental
)

// Admit reads a run's report through runresult.Parse (summary.json:
// schema, strict decoding, balanced coverage; points.json, which must be
// the points the summary counts and is required from a workflow run; each
// within report's caps) and plan.json, which must name what the summary
// ran, and applies the gate with what harness says about the summary's
// harness commit (asked only of a summary that decodes); a run the gate
// admits gets the what-ifs measured against it (rep.WhatIfs,
// Snapshot.AttachWhatIfs, whose reasons are refusals too). Points whose
// canonical encoding, the points.json the snapshot writes, is over
// runresult.MaxPointsBytes are refused too: the site would refuse the
// snapshot. It returns the snapshot to publish, or the reasons it may not
// be published (every one, in the order the checks run); an error is
// harness's. The bot's publish
// and `action publish` both admit through it, then plan the files with
// LoadDashboard and PlanSnapshot.
func Admit(rep Report, how Admission, publishedAt time.Time, source string, harness func(runresult.Summary) (HarnessCheck, error)) (Snapshot, []string, error) {
	run, err := runresult.Parse(rep.Summary, rep.Points)
	var badPoints *runresult.PointsError
	switch {
	case errors.As(err, &badPoints):
		run.Summary = badPoints.Summary
	case err != nil:
		return Snapshot{}, []string{err.Error()}, nil
	}
	s := run.Summary
	snap := Snapshot{Summary: s, Markdown: []byte(render.Summary(s)), PublishedAt: publishedAt, Source: source, RunID: rep.RunID, Inputs: InputsOf(s)}
	var reasons []string
	switch {
	case rep.Points == nil && rep.RunID != 0:
		reasons = append(reasons, fmt.Sprintf("no %s next to %s (a snapshot keeps its points)", runresult.PointsFile, runresult.SummaryFile))
	case badPoints != nil:
		reasons = append(reasons, badPoints.Error())
	case rep.Points != nil:
		snap.Points = run.Points
		if snap.Points == nil {
			snap.Points = []runresult.Point{} // kept, though empty
		}
		var reason string
		if snap.pointsJSON, reason = pointsOverCap(snap.Points, len(rep.Points)); reason != "" {
			reasons = append(reasons, reason)
		}
	}
	if rep.Plan != nil {
		plan, err := nightly.Parse(rep.Plan)
		if err != nil {
			reasons = append(reasons, err.Error())
		} else {
			reasons = append(reasons, PlanReasons(plan, s)...)
			snap.Inputs = plan
		}
	}
	h, err := harness(s)
	if err != nil {
		return Snapshot{}, nil, err
	}
	gate := Gate
	if how == AdmitExperimental {
		gate = GateExperimental
	}
	if reasons = append(reasons, gate(s, h)...); len(reasons) == 0 {
		reasons = snap.AttachWhatIfs(rep.WhatIfs)
	}
	return snap, reasons, nil
}

// pointsOverCap is the reason to refuse points whose canonical encoding,
// the points.json a snapshot writes (PlanSnapshot), is over
// runresult.MaxPointsBytes, which the site and every reader refuse; a
// compact points.json of given bytes within the cap can grow past it.
// It returns the encoding, which PlanSnapshot writes, and a reason that
// is "" when they fit.
func pointsOverCap(points []runresult.Point, given int) ([]byte, string) {
	raw, err := jsoncodec.Encode(points)
	if err != nil {
		return nil, fmt.Sprintf("encode %s: %v", runresult.PointsFile, err)
	}
	if len(raw) <= runresult.MaxPointsBytes {
		return raw, ""
	}
	return nil, fmt.Sprintf("%s as a snapshot writes it is %d bytes, over the cap of %d bytes (runresult.MaxPointsBytes) that the dashboard's site reads (the run's is %d bytes; a snapshot writes the canonical, indented encoding)",
		runresult.PointsFile, len(raw), runresult.MaxPointsBytes, given)
}

// ReadDashboardFile reads one file of the dashboard at the revision being
// published onto; a missing file is an error wrapping ghmodel.ErrNotFound.
type ReadDashboardFile func(path string) ([]byte, error)

// ListDashboardFiles lists every file under a directory of the dashboard
// at the revision being published onto, at any depth, as paths from its
// root; a missing directory is an error wrapping ghmodel.ErrNotFound.
type ListDashboardFiles func(dir string) ([]string, error)

// LoadDashboard reads what PlanSnapshot needs of the dashboard to publish
// snap under id: the index, the last run, the README, the dashboard's
// settings (dashboard.ConfigPath, parsed: an error names it), this id's
// summary (when published already), the summary and points of the
// snapshot just older than it among those the retention keeps (for its
// comparison page; a snapshot without points.json, published before
// snapshots kept them, gives no comparison) and, when the retention
// prunes some snapshot with this one published, the files under each
// pruned one's directory and those of data/compare/ (list).
func LoadDashboard(read ReadDashboardFile, list ListDashboardFiles, snap Snapshot, id string) (Dashboard, error) {
	var d Dashboard
	var config []byte
	for _, f := range []struct {
		path string
		dst  *[]byte
	}{
		{dashboard.IndexPath, &d.Index},
		{dashboard.LastRunPath, &d.LastRun},
		{dashboard.ReadmePath, &d.Readme},
		{dashboard.ConfigPath, &config},
		{dashboard.SnapshotsDir + "/" + id + "/" + runresult.SummaryFile, &d.Existing},
	} {
		data, err := read(f.path)
		if errors.Is(err, ghmodel.ErrNotFound) {
			continue
		}
		if err != nil {
			return d, fmt.Errorf("read %s: %w", f.path, err)
		}
		*f.dst = data
	}
	var err error
	if d.Config, err = dashboard.ParseConfig(config); err != nil {
		return d, err
	}
	if err := d.listPruned(list, snap, id); err != nil {
		return d, err
	}
	prev := PreviousID(snap, id, d.Index, d.Config.Retention)
	if prev == "" || snap.Points == nil {
		return d, nil
	}
	p := &PreviousSnapshot{ID: prev}
	for _, f := range []struct {
		name string
		dst  *[]byte
	}{{runresult.SummaryFile, &p.Summary}, {runresult.PointsFile, &p.Points}} {
		data, err := read(dashboard.SnapshotsDir + "/" + prev + "/" + f.name)
		if errors.Is(err, ghmodel.ErrNotFound) {
			return d, nil
		}
		if err != nil {
			return d, fmt.Errorf("read snapshot %s: %w", prev, err)
		}
		*f.dst = data
	}
	d.Previous = p
	return d, nil
}

// listPruned lists, when the retention prunes snapshots with snap
// published under id, the files of each (PrunedFiles) and of
// data/compare/ (ComparePages). A malformed index is PlanSnapshot's to
// report.
func (d *Dashboard) listPruned(list ListDashboardFiles, snap Snapshot, id string) error {
	p, err := place(d.Index, snap.entry(id), d.Config.Retention)
	if err != nil || len(p.pruned) == 0 {
		return nil
	}
	listed := func(dir string) ([]string, error) {
		files, err := list(dir)
		if errors.Is(err, ghmodel.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", dir, err)
		}
		return files, nil
	}
	d.PrunedFiles = map[string][]string{}
	for _, e := range p.pruned {
		if d.PrunedFiles[e.ID], err = listed(dashboard.SnapshotsDir + "/" + e.ID); err != nil {
			return err
		}
	}
	pages, err := listed(dashboard.CompareDir)
	if err != nil {
		return err
	}
	d.ComparePages = map[string]bool{}
	for _, f := range pages {
		d.ComparePages[f] = true
	}
	return nil
}
