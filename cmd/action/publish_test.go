package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/publish"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// TestPublishCommand publishes two stand-in runs into an empty dashboard
// checkout as the bot would: the gate's refusal (exit 3, every reason,
// nothing written), the first snapshot's files, a dry run that lists the
// second's and writes nothing, the second with its comparison page (the
// bytes `action compare` prints for the two snapshot ids), and a
// republish that changes nothing.
func TestPublishCommand(t *testing.T) {
	runs := scoreStandin(t)
	dash := t.TempDir()

	out, err := runAction(t, "publish", "--dashboard", dash, runs.slow)
	if cli.ExitCode(err) != 3 || !strings.Contains(out, `refused: label is "experimental"`) ||
		!strings.Contains(out, "refused: simulator build is not named by a release tag") {
		t.Fatalf("experimental run: exit %d (%v), output:\n%s\nwant exit 3 with both reasons", cli.ExitCode(err), err, out)
	}
	if files := testkit.Paths(t, dash); len(files) != 0 {
		t.Fatalf("a refused publish wrote %v", files)
	}

	out, err = runAction(t, "publish", "--dashboard", dash, "--published-at", "2026-11-01T00:00:00Z", runs.release)
	if err != nil {
		t.Fatalf("publish: %v\n%s", err, out)
	}
	first := publish.SnapshotID(runs.releaseRun.Summary, 0)
	snap := dashboard.SnapshotsDir + "/" + first + "/"
	want := []string{"README.md", "data/index.json", "data/latest/points.json", "data/latest/summary.json", "data/latest/summary.md",
		snap + "points.json", snap + "summary.json", snap + "summary.md", "state/last-run.json"}
	if got := testkit.Paths(t, dash); !slices.Equal(got, want) {
		t.Errorf("files written:\n%v\nwant\n%v", got, want)
	}
	sum, _ := os.ReadFile(filepath.Join(dash, filepath.FromSlash(snap+runresult.SummaryFile)))
	if enc, _ := jsoncodec.Encode(runs.releaseRun.Summary); !bytes.Equal(sum, enc) {
		t.Error("the snapshot's summary.json is not the run's summary, canonically encoded")
	}

	out, err = runAction(t, "publish", "--dashboard", dash, "--experimental", "--dry-run", "--published-at", "2026-11-02T00:00:00Z", runs.slow)
	second := publish.SnapshotID(runs.slowRun.Summary, 0)
	page := dashboard.CompareDir + "/" + first + ".." + second + ".md"
	if err != nil || !strings.Contains(out, "would publish snapshot "+second) || !strings.Contains(out, page) {
		t.Errorf("dry run (%v):\n%s\nwant it to list %s", err, out, page)
	}
	if got := testkit.Paths(t, dash); !slices.Equal(got, want) {
		t.Errorf("a dry run wrote files: %v", got)
	}

	if out, err = runAction(t, "publish", "--dashboard", dash, "--experimental", "--published-at", "2026-11-02T00:00:00Z", runs.slow); err != nil {
		t.Fatalf("publish --experimental: %v\n%s", err, out)
	}
	md, err := os.ReadFile(filepath.Join(dash, filepath.FromSlash(page)))
	if err != nil {
		t.Fatal(err)
	}
	cmpOut, err := runAction(t, "compare", "--dashboard", dash, first, second)
	if err != nil || cmpOut != string(md) {
		t.Errorf("the comparison page differs from action compare of the two snapshots (%v):\n%s\n---\n%s", err, md, cmpOut)
	}
	if !strings.Contains(string(md), "| TTFT | 5.3% → 15.2% | **+9.89 pp** | +20 % |") || !strings.Contains(string(md), "| +20 % | 0 / 5 / 0 of 5 |") {
		t.Errorf("a uniform 20 %% slowdown does not read +20 %%:\n%s", md)
	}
	last, _ := os.ReadFile(filepath.Join(dash, filepath.FromSlash(dashboard.LastRunPath)))
	if lr, err := dashboard.ParseLastRun(last); err != nil || lr.Snapshot != second {
		t.Errorf("state/last-run.json names %q (%v), want the newest snapshot %s", lr.Snapshot, err, second)
	}

	before := testkit.Paths(t, dash)
	if out, err = runAction(t, "publish", "--dashboard", dash, "--experimental", runs.slow); err != nil || !strings.HasPrefix(out, "unchanged: snapshot "+second) {
		t.Errorf("republish (%v): %s", err, out)
	}
	if got := testkit.Paths(t, dash); !slices.Equal(got, before) {
		t.Errorf("a republish changed the file set: %v", got)
	}

	// A result directory without summary.json names the file.
	if _, err := runAction(t, "publish", "--dashboard", dash, t.TempDir()); err == nil || !strings.Contains(err.Error(), runresult.SummaryFile) {
		t.Errorf("empty result directory: %v, want an error naming %s", err, runresult.SummaryFile)
	}
}

// --backfilled-at publishes a past release's run as action backfill does:
// dated by the release, marked with when it was scored; without
// --published-at it is a usage error.
func TestPublishBackfilledAt(t *testing.T) {
	runs := scoreStandin(t)
	dash := t.TempDir()
	if _, err := runAction(t, "publish", "--dashboard", dash, "--backfilled-at", "2026-12-04T06:00:00Z", runs.release); cli.ExitCode(err) != 2 ||
		!strings.Contains(err.Error(), "--backfilled-at needs --published-at") {
		t.Errorf("--backfilled-at alone: exit %d (%v), want a usage error", cli.ExitCode(err), err)
	}
	if _, err := runAction(t, "publish", "--dashboard", dash, "--backfilled-at", "yesterday", runs.release); cli.ExitCode(err) != 2 ||
		!strings.Contains(err.Error(), "backfilled-at") {
		t.Errorf("--backfilled-at yesterday: exit %d (%v), want a usage error naming the flag", cli.ExitCode(err), err)
	}
	if out, err := runAction(t, "publish", "--dashboard", dash, "--published-at", "2026-10-01T00:00:00Z", "--backfilled-at", "2026-12-04T06:00:00Z", runs.release); err != nil {
		t.Fatalf("publish: %v\n%s", err, out)
	}
	idx, err := dashboard.ReadIndex(os.DirFS(dash))
	if err != nil || len(idx.Snapshots) != 1 {
		t.Fatalf("index: %+v, %v", idx, err)
	}
	if e := idx.Snapshots[0]; e.BackfilledAt != "2026-12-04T06:00:00Z" || e.PublishedAt != "2026-10-01T00:00:00Z" {
		t.Errorf("index entry published_at %v, backfilled_at %q; want the release's date and when it was scored", e.PublishedAt, e.BackfilledAt)
	}
}
