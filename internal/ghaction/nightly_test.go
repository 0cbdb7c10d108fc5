package ghaction

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// nightlyDashboard is a dashboard checkout pinning the harness at hdir
// (tagged harnessTag) with the test ledger, and the plan of the stand-in
// simulator's release v0.2.0 with that harness.
func nightlyDashboard(t *testing.T, hdir, hcommit string) (dash string, plan nightly.Plan) {
	t.Helper()
	dash = t.TempDir()
	if err := os.CopyFS(filepath.Join(dash, "accuracy", "ledger"), os.DirFS(testLedger)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dash, ".github", "accuracy-harness.yaml"),
		"harness:\n  repository: "+hdir+"\n  tag: "+harnessTag+"\n  commit: "+hcommit+"\n"+
			"data:\n  ledger: accuracy/ledger\n  catalog: none\n  registry: none\n")
	sim := harnesstest.StandinRepo(t)
	plan = nightly.Plan{Version: nightly.Version,
		Simulator: nightly.Source{Repository: sim.Dir, Release: "v0.2.0", Commit: sim.V020},
		Harness:   nightly.Source{Repository: hdir, Release: harnessTag, Commit: hcommit},
		Data:      []nightly.Data{{Name: "catalog", Version: "none"}, {Name: "ledger", Version: "test"}, {Name: "registry", Version: "none"}},
	}.Normalize()
	return dash, plan
}

// runNightlyAction runs the Action in mode (nightly or merge) on a schedule
// event with the given inputs; it returns the output directory, the log
// (stdout and stderr) and the error.
func runNightlyAction(t *testing.T, fake *githubfake.Server, dash, cache string, inputs map[string]string) (string, string, error) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	vars := map[string]string{"GITHUB_EVENT_NAME": "schedule", "INPUT_COMMENT": "false", "INPUT_OUT_DIR": out}
	for k, v := range inputs {
		vars[k] = v
	}
	e := newActionEnv(t, fake, dash, cache, []byte(`{"schedule": "17 3 * * *"}`), vars)
	var log bytes.Buffer
	err := Run(context.Background(), fakeEnv(e.vars), &log, &log, leaderboardFlow)
	return out, log.String(), err
}

// nightlyShards runs mode nightly for shards 1/2 and 2/2 of plan and
// returns the directory their outputs are in, as the report job downloads
// them (accuracy-shard-<k>/).
func nightlyShards(t *testing.T, fake *githubfake.Server, dash, cache string, plan nightly.Plan) string {
	t.Helper()
	shards := t.TempDir()
	for _, k := range []string{"1", "2"} {
		out, stdout, err := runNightlyAction(t, fake, dash, cache, map[string]string{"INPUT_MODE": "nightly", "INPUT_PLAN": string(plan.Encode()), "INPUT_SHARD": k + "/2"})
		if err != nil {
			t.Fatalf("shard %s/2: %v\n%s", k, err, stdout)
		}
		if err := os.Rename(out, filepath.Join(shards, "accuracy-shard-"+k)); err != nil {
			t.Fatal(err)
		}
	}
	return shards
}

// TestNightlyShardsMerge: a matrix of mode nightly shards merges (mode
// merge with the plan) into the one whole-corpus report the bot publishes,
// with plan.json; an incomplete set of shards, a shard of another plan and a
// shard of another build are refused with errors naming what is wrong.
func TestNightlyShardsMerge(t *testing.T) {
	hdir, hcommit := harnessRepo(t)
	dash, plan := nightlyDashboard(t, hdir, hcommit)
	cache := t.TempDir()
	fake := githubfake.New(t, githubfake.Options{Token: "test-token"})
	shards := nightlyShards(t, fake, dash, cache, plan)
	merge := func(dir string) (string, string, error) {
		return runNightlyAction(t, fake, dash, cache, map[string]string{"INPUT_MODE": "merge", "INPUT_PLAN": string(plan.Encode()), "INPUT_SHARDS_DIR": dir})
	}
	out, stdout, err := merge(shards)
	if err != nil {
		t.Fatalf("merge: %v\n%s", err, stdout)
	}
	rr, err := runresult.Read(filepath.Join(out, "head"))
	s, points := rr.Summary, rr.Points
	if err != nil || s.Shard != nil || len(points) != s.Coverage.CorpusPoints || s.Coverage.Scored == 0 {
		t.Fatalf("merged report: shard %+v, %d points, %+v, %v", s.Shard, len(points), s.Coverage, err)
	}
	raw, err := os.ReadFile(filepath.Join(out, "head", nightly.File))
	if got, perr := nightly.Parse(raw); err != nil || perr != nil || !nightly.Equal(got, plan) {
		t.Errorf("merged plan.json: %s (%v, %v)", raw, err, perr)
	}

	// A shard missing: nothing is merged.
	only1 := t.TempDir()
	os.CopyFS(filepath.Join(only1, "accuracy-shard-1"), os.DirFS(filepath.Join(shards, "accuracy-shard-1")))
	if _, _, err := merge(only1); err == nil || !strings.Contains(err.Error(), "shards missing") || !strings.Contains(err.Error(), "2/2") {
		t.Errorf("merge of shard 1/2 alone: %v", err)
	}

	// A shard of another plan (another simulator release): refused.
	other := t.TempDir()
	os.CopyFS(other, os.DirFS(shards))
	p2 := plan
	p2.Simulator.Release = "v0.2.1"
	writeFile(t, filepath.Join(other, "accuracy-shard-2", "head", nightly.File), string(p2.Encode())+"\n")
	if _, _, err := merge(other); err == nil || !strings.Contains(err.Error(), "another plan") || !strings.Contains(err.Error(), "v0.2.0 → v0.2.1") {
		t.Errorf("merge of a shard of another plan: %v", err)
	}

	// A shard of another build (its provenance names other data): refused
	// by the harness's merge, naming the field.
	build := t.TempDir()
	os.CopyFS(build, os.DirFS(shards))
	sum := filepath.Join(build, "accuracy-shard-2", "head", runresult.SummaryFile)
	b, err := os.ReadFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := runresult.ParseSummary(b)
	if err != nil {
		t.Fatal(err)
	}
	s2.Provenance.Simulator.Driver += "+other"
	enc, err := jsoncodec.Encode(s2)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, sum, string(enc))
	_, log, err := merge(build)
	if err == nil || !strings.Contains(log, "come from different runs") || !strings.Contains(log, "simulator.driver") {
		t.Errorf("merge of shards of two builds: %v\n%s", err, log)
	}
}
