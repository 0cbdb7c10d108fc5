package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
)

// releaseLedger is the test ledger as a clean git checkout at a tag, so
// that its runs are releases the publish gate admits.
func releaseLedger(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ledger")
	if err := os.CopyFS(dir, os.DirFS(testLedger)); err != nil {
		t.Fatal(err)
	}
	harnesstest.GitInit(t, dir)
	harnesstest.CommitAll(t, dir, "ledger")
	harnesstest.Run(t, dir, "git", "tag", "v0.0.1")
	return dir
}

// TestBackfillStandin backfills the stand-in's two releases into an empty
// dashboard, the second after an interruption that left its run scored but
// not published, then once more with nothing left to do.
func TestBackfillStandin(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	dash, work, cache := t.TempDir(), t.TempDir(), t.TempDir()
	ledger := releaseLedger(t)
	common := []string{"--harness-dir", hdir, "--sim-repo", repo.Dir, "--ledger", ledger, "--catalog", "none", "--cache-dir", cache, "--jobs", "2", "--quiet"}
	backfill := func(from, to string) string {
		t.Helper()
		out, err := runAction(t, append([]string{"backfill", "--dashboard", dash, "--work", work, "--from", from, "--to", to}, common...)...)
		if err != nil {
			t.Fatalf("backfill %s..%s: %v\n%s", from, to, err, out)
		}
		return out
	}
	before := time.Now().UTC().Truncate(time.Second)
	out := backfill("v0.1.0", "v0.1.0")
	if !strings.Contains(out, "v0.1.0 ("+repo.V010[:12]) || !strings.Contains(out, ": published v0.1.0_") {
		t.Fatalf("first backfill:\n%s", out)
	}
	// The interruption: v0.2.0 scored into the work directory, not published.
	if out, err := runAction(t, append([]string{"score", "--sim", "v0.2.0", "--out", filepath.Join(work, "v0.2.0")}, common...)...); err != nil {
		t.Fatalf("score: %v\n%s", err, out)
	}
	out = backfill("v0.1.0", "v0.2.0")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "v0.1.0") || !strings.Contains(lines[0], "already published") ||
		!strings.Contains(lines[1], "v0.2.0") || !strings.Contains(lines[1], ": published") || !strings.Contains(lines[1], "run resumed") {
		t.Fatalf("resumed backfill:\n%s", out)
	}

	raw, err := os.ReadFile(filepath.Join(dash, dashboard.IndexPath))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := dashboard.DecodeIndex(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Snapshots) != 2 || idx.Snapshots[0].Simulator != "v0.2.0" || idx.Snapshots[1].Simulator != "v0.1.0" {
		t.Fatalf("index %+v", idx.Snapshots)
	}
	for _, e := range idx.Snapshots {
		commit := repo.V010
		if e.Simulator == "v0.2.0" {
			commit = repo.V020
		}
		date := harnesstest.Run(t, repo.Dir, "git", "log", "-1", "--format=%cI", commit)
		released, _ := time.Parse(time.RFC3339, date)
		scored, err := time.Parse(time.RFC3339, e.BackfilledAt)
		if e.PublishedAt != released.UTC().Format(time.RFC3339) || err != nil || scored.Before(before) {
			t.Errorf("%s: published_at %s (release %s), backfilled_at %s (after %s)", e.ID, e.PublishedAt, date, e.BackfilledAt, before)
		}
		if e.Simulator == "v0.2.0" { // resumed: scored when the interrupted backfill wrote its run
			fi, err := os.Stat(filepath.Join(work, "v0.2.0", "summary.json"))
			if err != nil || !scored.Equal(fi.ModTime().UTC().Truncate(time.Second)) {
				t.Errorf("resumed v0.2.0: backfilled_at %s, want when its run was written (%v, %v)", e.BackfilledAt, fi.ModTime(), err)
			}
		}
	}

	if out := backfill("v0.1.0", "v0.2.0"); strings.Count(out, "already published") != 2 {
		t.Errorf("a third backfill did something:\n%s", out)
	}
	site := t.TempDir()
	if out, err := runAction(t, "site", "--dashboard", dash, "--out", site); err != nil {
		t.Fatalf("site: %v\n%s", err, out)
	}
	hist, err := os.ReadFile(filepath.Join(site, "history.html"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(hist), `backfilled: scored <span class="nowrap">`+before.Format("2006-01-02")); n != 2 {
		t.Errorf("the History marks %d snapshots as backfilled, want 2", n)
	}
}

func TestBackfillRefusals(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	common := []string{"backfill", "--dashboard", t.TempDir(), "--harness-dir", hdir, "--sim-repo", repo.Dir, "--ledger", testLedger, "--catalog", "none", "--cache-dir", t.TempDir(), "--quiet"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", "v0.2.0", "--to", "v0.1.0"}, "newer than"},
		{[]string{"--from", "v0.1.0", "--to", "feature"}, "not a release tag"},
		{[]string{"--from", "v0.0.9", "--to", "v0.2.0"}, "v0.0.9 is not a tag"},
		// The test ledger is no release: the gate refuses the first run.
		{[]string{"--from", "v0.1.0", "--to", "v0.2.0"}, "backfill v0.1.0: refused by the gate"},
	} {
		out, err := runAction(t, append(common, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want %q\n%s", tc.args, err, tc.want, out)
		}
	}
}
