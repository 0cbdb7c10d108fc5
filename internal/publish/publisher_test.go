package publish

import (
	"context"
	"fmt"
	"github.com/inference-sim/accuracy-dashboard/internal/bump/bumpfake"
	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/render"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

const runID = 4242

type publishWorld struct {
	gh        *bumpfake.GitHub
	dashboard ident.Repo
	harness   ident.Repo
	pub       *Publisher
	run       WorkflowRun
}

// harnessName is the harness repository of the tests.
const harnessName = "inference-sim/accuracy-dashboard"

func newPublishWorld(t *testing.T) *publishWorld {
	gh := bumpfake.New(t)
	w := &publishWorld{gh: gh}
	w.harness = gh.AddRepo(harnessName, map[string]string{"go.mod": "module x\n"}, false)
	w.dashboard = gh.AddRepo("inference-sim/accuracy-data", map[string]string{"README.md": "# Data\n"}, false)
	w.pub = &Publisher{GH: gh, Cfg: PublishConfig{
		Dashboard: w.dashboard, Harness: w.harness, WorkflowRepo: w.harness,
		WorkflowPath: ".github/workflows/publish.yml", Artifact: "accuracy-report",
	}, Now: func() time.Time { return t0 }}
	w.run = WorkflowRun{Repo: w.harness, ID: runID, WorkflowPath: ".github/workflows/publish.yml", Event: "schedule", Status: "completed",
		Conclusion: "success", HeadSHA: strings.Repeat("d", 40), HeadBranch: "main", DefaultBranch: "main", HeadRepo: w.harness,
		URL: "https://github.com/" + harnessName + "/actions/runs/4242", UpdatedAt: t0}
	return w
}

func (w *publishWorld) artifact(t *testing.T, files map[string][]byte) {
	w.gh.Artifacts[harnessName+"#4242/accuracy-report"] = testkit.Zip(t, files)
}

func TestPublishRunOneCommitWithEveryFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newPublishWorld(t)
	rep := releaseReport(t, "v0.7.15", "v1.0.0")
	w.artifact(t, map[string][]byte{"out/summary.json": rep.Summary, "out/points.json": rep.Points})
	before, _ := w.gh.BranchHead(ctx, w.dashboard, "main")
	res, err := w.pub.PublishRun(ctx, w.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != PublishPublished {
		t.Fatalf("outcome %s %v", res.Outcome, res.Reasons)
	}
	if n := w.gh.CountWrites("CreateCommit"); n != 1 {
		t.Errorf("%d commits, want 1", n)
	}
	head, _ := w.gh.BranchHead(ctx, w.dashboard, "main")
	c, _ := w.gh.GetCommit(ctx, w.dashboard, head)
	if head != res.Commit || len(c.Parents) != 1 || c.Parents[0] != before {
		t.Errorf("main is %s (parents %v), want the one commit %s on %s", head, c.Parents, res.Commit, before)
	}
	files := w.gh.Tip(w.dashboard, "main")
	id := "v0.7.15_ledger-v1.0.0_harness-v1.1.0_run-4242"
	for _, p := range []string{"data/snapshots/" + id + "/summary.json", "data/snapshots/" + id + "/summary.md", "data/snapshots/" + id + "/points.json",
		"data/latest/summary.json", "data/latest/summary.md", "data/latest/points.json", dashboard.IndexPath, dashboard.LastRunPath} {
		if len(files[p]) == 0 {
			t.Errorf("%s missing from the commit", p)
		}
	}
	if md := string(files["data/snapshots/"+id+"/summary.md"]); !strings.Contains(md, "v0.7.15") {
		t.Errorf("summary.md does not look rendered:\n%s", md)
	}
	if r := string(files[dashboard.ReadmePath]); !strings.HasPrefix(r, "# Data\n") || !strings.Contains(r, render.TableStart) || !strings.Contains(r, id) {
		t.Errorf("README.md:\n%s", r)
	}

	// The same run again (a redelivery) or a later run on the same pair: no-op.
	res, err = w.pub.PublishRun(ctx, w.run, nil)
	if err != nil || res.Outcome != PublishUnchanged {
		t.Errorf("again: %+v, %v; want unchanged", res, err)
	}
	if n := w.gh.CountWrites("CreateCommit"); n != 1 {
		t.Errorf("%d commits after the repeat, want 1", n)
	}
}

// TestPublishAgainAfterANewerRelease: v0.7.15, then v0.8.0, then v0.7.15
// again (a re-run of an old workflow). The third is a no-op: no commit, and
// data/latest and state/last-run.json stay on v0.8.0.
func TestPublishAgainAfterANewerRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newPublishWorld(t)
	old, newer := releaseSummary(t, "v0.7.15", "v1.0.0"), releaseSummary(t, "v0.8.0", "v1.0.0")
	for i, s := range []runresult.Summary{old, newer} {
		if res, err := w.pub.Publish(ctx, Report{Summary: encode(t, s)}, t0.Add(time.Duration(i)*time.Hour), ""); err != nil || res.Outcome != PublishPublished {
			t.Fatalf("publish %s: %s %v, %v", s.Provenance.Simulator.Tag, res.Outcome, res.Reasons, err)
		}
	}
	before := w.gh.Tip(w.dashboard, "main")
	res, err := w.pub.Publish(ctx, Report{Summary: encode(t, old)}, t0.Add(2*time.Hour), "")
	if err != nil || res.Outcome != PublishUnchanged {
		t.Errorf("v0.7.15 again: %s %v, %v; want unchanged", res.Outcome, res.Reasons, err)
	}
	if n := w.gh.CountWrites("CreateCommit"); n != 2 {
		t.Errorf("%d commits, want 2", n)
	}
	after := w.gh.Tip(w.dashboard, "main")
	for _, p := range []string{dashboard.LatestDir + "/summary.json", dashboard.LastRunPath, dashboard.IndexPath} {
		if string(after[p]) != string(before[p]) {
			t.Errorf("%s changed:\n%s", p, after[p])
		}
	}
	if !strings.Contains(string(after[dashboard.LastRunPath]), `"simulator_release": "v0.8.0"`) {
		t.Errorf("%s:\n%s", dashboard.LastRunPath, after[dashboard.LastRunPath])
	}
}

func TestPublishRefusals(t *testing.T) {
	t.Parallel()
	experimental := func(t *testing.T) []byte {
		s := releaseSummary(t, "v0.7.15", "v1.0.0")
		s.Provenance.Simulator.Release, s.Provenance.Simulator.Tag = false, ""
		s.Label, s.LabelReasons = runresult.Label(s.Provenance)
		return encode(t, s)
	}
	unbalanced := func(t *testing.T) []byte {
		s := releaseSummary(t, "v0.7.15", "v1.0.0")
		s.Coverage.CorpusPoints = 10
		return encode(t, s)
	}
	for _, tc := range []struct {
		name     string
		artifact func(t *testing.T) map[string][]byte
		want     string
	}{
		{"experimental", func(t *testing.T) map[string][]byte { return map[string][]byte{"summary.json": experimental(t)} }, `label is "experimental"`},
		{"unbalanced", func(t *testing.T) map[string][]byte { return map[string][]byte{"summary.json": unbalanced(t)} }, "coverage does not balance"},
		{"no summary in artifact", func(*testing.T) map[string][]byte { return map[string][]byte{"points.json": []byte("[]")} }, "no summary.json"},
		{"malformed json", func(*testing.T) map[string][]byte { return map[string][]byte{"summary.json": []byte("{")} }, "summary.json: not JSON"},
		{"schema", func(*testing.T) map[string][]byte {
			return map[string][]byte{"summary.json": []byte(`{"schema_version":1,"label":"release"}`)}
		}, "summary.json: does not match its schema"},
		{"asserted harness not released", func(t *testing.T) map[string][]byte {
			s := releaseSummary(t, "v0.7.15", "v1.0.0")
			s.Provenance.Harness.Source = runresult.HarnessAssertion
			return map[string][]byte{"summary.json": encode(t, s)}
		}, "not reachable from the harness's main"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w := newPublishWorld(t)
			w.artifact(t, tc.artifact(t))
			res, err := w.pub.PublishRun(ctx, w.run, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != PublishRefused || !strings.Contains(strings.Join(res.Reasons, "\n"), tc.want) {
				t.Fatalf("result %+v, want refused for %q", res, tc.want)
			}
			if n := w.gh.CountWrites("CreateCommit"); n != 0 {
				t.Errorf("a refused artifact made %d commits", n)
			}
			if len(w.gh.Comments) != 1 || !strings.HasPrefix(w.gh.Comments[0], harnessName+"@"+w.run.HeadSHA+": "+render.RefusalMarker(runID)+"\n") ||
				!strings.Contains(w.gh.Comments[0], tc.want) {
				t.Errorf("comments = %q, want one on the run's commit with the run's marker, naming the reason", w.gh.Comments)
			}
		})
	}
}

// A successful nightly whose plan found nothing changed uploads no report:
// the bot publishes nothing and says nothing on the commit (it would
// otherwise comment on most nights).
func TestPublishRunWithoutArtifactIsIgnored(t *testing.T) {
	t.Parallel()
	w := newPublishWorld(t)
	res, err := w.pub.PublishRun(context.Background(), w.run, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != PublishIgnored || !strings.Contains(strings.Join(res.Reasons, "\n"), `uploaded no artifact named "accuracy-report"`) {
		t.Fatalf("result %+v, want ignored naming the missing artifact", res)
	}
	if n := w.gh.CountWrites("CreateCommit"); n != 0 || len(w.gh.Comments) != 0 {
		t.Errorf("a run without a report made %d commits and comments %q", n, w.gh.Comments)
	}
}

func TestPublishAssertedHarnessAccepted(t *testing.T) {
	t.Parallel()
	w := newPublishWorld(t)
	rel, sha := w.gh.AddRelease(w.harness, "v1.1.0", "")
	_ = rel
	s := releaseSummary(t, "v0.7.15", "v1.0.0")
	s.Provenance.Harness = runresult.Harness{Commit: sha, Source: runresult.HarnessAssertion, Version: "v1.1.0"}
	res, err := w.pub.Publish(context.Background(), Report{Summary: encode(t, s)}, t0, "")
	if err != nil || res.Outcome != PublishPublished {
		t.Fatalf("%+v, %v", res, err)
	}
	// The same commit under a tag that does not name it is refused.
	w2 := newPublishWorld(t)
	w2.gh.AddRelease(w2.harness, "v1.1.0", "")
	_, other := w2.gh.AddRelease(w2.harness, "v1.2.0", "")
	s.Provenance.Harness.Commit = other
	s.Provenance.Harness.Version = "v1.1.0"
	res, err = w2.pub.Publish(context.Background(), Report{Summary: encode(t, s)}, t0, "")
	if err != nil || res.Outcome != PublishRefused || !strings.Contains(res.Reasons[0], "no release names it") {
		t.Fatalf("%+v, %v; want refused: no release names it", res, err)
	}
}

func TestPublishRebuildsOnConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newPublishWorld(t)
	// Another publisher lands a different snapshot first, twice.
	w.gh.Conflicts = 2
	w.gh.OnConflict = map[string][]byte{"data/other.txt": []byte("concurrent\n")}
	s := releaseSummary(t, "v0.7.15", "v1.0.0")
	res, err := w.pub.Publish(ctx, Report{Summary: encode(t, s)}, t0, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != PublishPublished || res.Attempts != 3 {
		t.Errorf("outcome %s after %d attempts, want published after 3", res.Outcome, res.Attempts)
	}
	files := w.gh.Tip(w.dashboard, "main")
	if string(files["data/other.txt"]) != "concurrent\n" || files[dashboard.IndexPath] == nil {
		t.Error("the concurrent write or the snapshot was lost")
	}

	// A branch that never stops moving is an error, not a silent loss.
	w2 := newPublishWorld(t)
	w2.gh.Conflicts = 100
	w2.pub.Cfg.MaxAttempts = 3
	if _, err := w2.pub.Publish(ctx, Report{Summary: encode(t, s)}, t0, ""); err == nil || !strings.Contains(err.Error(), "gave up after 3 attempts") {
		t.Errorf("endless conflicts: %v", err)
	}
	// Without an attempt cap it retries, backing off, until the deadline.
	w3 := newPublishWorld(t)
	w3.gh.Conflicts = 1 << 20
	w3.pub.Cfg.Deadline = 300 * time.Millisecond
	res, err = w3.pub.Publish(ctx, Report{Summary: encode(t, s)}, t0, "")
	if err == nil || !strings.Contains(err.Error(), "deadline") || res.Attempts < 2 ||
		!strings.Contains(err.Error(), fmt.Sprintf("after %d attempts", res.Attempts)) {
		t.Errorf("endless conflicts until the deadline: %d attempts, %v", res.Attempts, err)
	}
}

// TestTenConcurrentPublishesAllLand: ten publishers of ten snapshots race
// for the dashboard branch (each commit takes a round trip, so they read the
// same head and collide); with backoff and jitter until the deadline every
// one lands, latest is the newest, and each reports how many attempts it
// made.
func TestTenConcurrentPublishesAllLand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newPublishWorld(t)
	w.gh.Latency = 20 * time.Millisecond
	const n = 10
	results := make([]PublishResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := releaseSummary(t, fmt.Sprintf("v0.7.%d", i+1), "v1.0.0")
			results[i], errs[i] = w.pub.Publish(ctx, Report{Summary: encode(t, s)}, t0.Add(time.Duration(i)*time.Hour), "")
		}()
	}
	wg.Wait()
	attempts, commits := 0, 0
	for i := range n {
		if errs[i] != nil || results[i].Outcome != PublishPublished {
			t.Errorf("publisher %d: %s after %d attempts, %v", i, results[i].Outcome, results[i].Attempts, errs[i])
		}
		attempts += results[i].Attempts
	}
	commits = w.gh.CountWrites("CreateCommit")
	if attempts != commits {
		t.Errorf("attempts reported %d, commits created %d: each attempt creates one commit", attempts, commits)
	}
	if attempts == n {
		t.Errorf("no publisher collided (%d attempts): the test does not exercise the race", attempts)
	}
	files := w.gh.Tip(w.dashboard, "main")
	var idx dashboard.Index
	if err := jsoncodec.Decode(files[dashboard.IndexPath], &idx); err != nil {
		t.Fatal(err)
	}
	if len(idx.Snapshots) != n {
		t.Errorf("index lists %d snapshots, want %d", len(idx.Snapshots), n)
	}
	if !strings.Contains(string(files[dashboard.LastRunPath]), `"simulator_release": "v0.7.10"`) {
		t.Errorf("%s is not the newest run:\n%s", dashboard.LastRunPath, files[dashboard.LastRunPath])
	}
	for i := range n {
		if files[fmt.Sprintf("%s/v0.7.%d_ledger-v1.0.0_harness-v1.1.0/summary.json", dashboard.SnapshotsDir, i+1)] == nil {
			t.Errorf("snapshot v0.7.%d lost", i+1)
		}
	}
}

func TestRunDecision(t *testing.T) {
	t.Parallel()
	w := newPublishWorld(t)
	base := w.run
	for _, tc := range []struct {
		edit func(*WorkflowRun)
		want string
	}{
		{func(*WorkflowRun) {}, ""},
		{func(r *WorkflowRun) { r.WorkflowPath += "@refs/heads/main" }, ""},
		{func(r *WorkflowRun) { r.Conclusion = "failure" }, `concluded "failure"`},
		{func(r *WorkflowRun) { r.WorkflowPath = ".github/workflows/ci.yml" }, "not the publishing workflow"},
		{func(r *WorkflowRun) { r.Event = "pull_request" }, "triggered by pull_request"},
		{func(r *WorkflowRun) { r.HeadRepo = ident.Repo{Owner: "fork", Name: "x"} }, "from fork/x"},
		{func(r *WorkflowRun) { r.HeadRepo = ident.Repo{} }, "head repository is unknown"},
		{func(r *WorkflowRun) { r.Repo = ident.Repo{Owner: "o", Name: "r"} }, "run of o/r"},
		{func(r *WorkflowRun) { r.HeadBranch = "experiment" }, `run on branch "experiment", not the default branch "main"`},
		{func(r *WorkflowRun) { r.DefaultBranch = "" }, "default branch is unknown"},
	} {
		r := base
		tc.edit(&r)
		got := RunDecision(r, w.harness, ".github/workflows/publish.yml")
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("RunDecision(%+v) = %q, want %q", r, got, tc.want)
		}
	}
	// An ignored run makes no GitHub call: this publisher has no GitHub,
	// so any call would panic.
	r := base
	r.Conclusion = "cancelled"
	offline := &Publisher{Cfg: w.pub.Cfg}
	if res, err := offline.PublishRun(context.Background(), r, nil); err != nil || res.Outcome != PublishIgnored {
		t.Errorf("%+v %v", res, err)
	}
}

func TestSummaryFromArtifactLimits(t *testing.T) {
	t.Parallel()
	if _, err := ReportFromArtifact([]byte("not a zip")); err == nil || !strings.Contains(err.Error(), "not a zip") {
		t.Errorf("garbage: %v", err)
	}
	two := testkit.Zip(t, map[string][]byte{"a/summary.json": []byte("{}"), "b/summary.json": []byte("{}")})
	if _, err := ReportFromArtifact(two); err == nil || !strings.Contains(err.Error(), "more than one") {
		t.Errorf("two summaries: %v", err)
	}
	big := testkit.Zip(t, map[string][]byte{"summary.json": make([]byte, MaxFileBytes+1)})
	if _, err := ReportFromArtifact(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized summary: %v", err)
	}
}

// nightlyPlan is the plan a nightly run of releaseReport's summary carries:
// its ledger imported from an InferenceX dump.
func nightlyPlan(simTag string) nightly.Plan {
	return nightly.Plan{Version: nightly.Version,
		Simulator: nightly.Source{Repository: "inference-sim/inference-sim", Release: simTag, Commit: simCommit},
		Harness:   nightly.Source{Repository: harnessName, Release: "v1.1.0", Commit: harnessCommit},
		Data:      []nightly.Data{{Name: "catalog", Version: "bundled"}, {Name: nightly.DataInferenceXDump, Version: "db-dump/2026-11-29"}}}
}

// dumpLedgerVersion is the version of the ledger imported from plan's dump,
// as the harness records it (the digest of releaseRun's ledger).
func dumpLedgerVersion(plan nightly.Plan) string {
	return plan.DataVersion(nightly.DataInferenceXDump) + "+" + strings.Repeat("c", 12)
}

// TestPublishPerRun: each nightly run is its own immutable snapshot with
// its points and plan; the second one (a new simulator release) also gets
// the comparison with the first, linked from the index; the same run again
// and a run of unchanged inputs are no-ops; a new harness release (same
// simulator and data) publishes again.
func TestPublishPerRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newPublishWorld(t)
	publish := func(simTag string, run int64, plan nightly.Plan, at time.Duration) PublishResult {
		t.Helper()
		rep := releaseReport(t, simTag, dumpLedgerVersion(plan))
		rep.Plan, rep.RunID = plan.Encode(), run
		res, err := w.pub.Publish(ctx, rep, t0.Add(at), "")
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := publish("v0.7.15", 1, nightlyPlan("v0.7.15"), 0)
	second := publish("v0.8.0", 2, nightlyPlan("v0.8.0"), time.Hour)
	if first.Outcome != PublishPublished || second.Outcome != PublishPublished {
		t.Fatalf("outcomes %s %v, %s %v", first.Outcome, first.Reasons, second.Outcome, second.Reasons)
	}
	files := w.gh.Tip(w.dashboard, "main")
	page := dashboard.CompareDir + "/" + first.ID + ".." + second.ID + ".md"
	md := string(files[page])
	// The page names the snapshots by their labels, their ids in a footnote.
	for _, want := range []string{"### Simulator accuracy: v0.7.15 · 2026-08-22 → v0.8.0 · 2026-08-22\n", "| v0.7.15 · 2026-08-22 MAPE | v0.8.0 · 2026-08-22 MAPE | Δ MAPE |",
		"Scored by both: 3.", "<sub>Snapshots: v0.7.15 · 2026-08-22 is `" + first.ID + "`; v0.8.0 · 2026-08-22 is `" + second.ID + "`.</sub>"} {
		if !strings.Contains(md, want) {
			t.Errorf("%s lacks %q:\n%s", page, want, md)
		}
	}
	var idx dashboard.Index
	if err := jsoncodec.Decode(files[dashboard.IndexPath], &idx); err != nil {
		t.Fatal(err)
	}
	if idx.Snapshots[0].Compare != page || idx.Snapshots[0].Run != 2 || idx.Snapshots[1].Compare != "" {
		t.Errorf("index entries: %+v", idx.Snapshots)
	}
	if !strings.Contains(string(files[dashboard.ReadmePath]), "[vs previous]("+page+")") {
		t.Errorf("README does not link the comparison:\n%s", files[dashboard.ReadmePath])
	}
	last, err := dashboard.ParseLastRun(files[dashboard.LastRunPath])
	if err != nil || last.Inputs == nil || !nightly.Equal(*last.Inputs, nightlyPlan("v0.8.0")) || last.Snapshot != second.ID {
		t.Errorf("%s = %+v, %v; want the second run's plan", dashboard.LastRunPath, last, err)
	}

	// The same run again, and another run of the same inputs: no-ops.
	if res := publish("v0.8.0", 2, nightlyPlan("v0.8.0"), 2*time.Hour); res.Outcome != PublishUnchanged {
		t.Errorf("same run again: %s", res.Outcome)
	}
	if res := publish("v0.8.0", 3, nightlyPlan("v0.8.0"), 2*time.Hour); res.Outcome != PublishUnchanged {
		t.Errorf("unchanged inputs: %s", res.Outcome)
	}
	// A new InferenceX dump (the plan's data) publishes a new snapshot.
	newer := nightlyPlan("v0.8.0")
	newer.Data[1].Version = "db-dump/2026-12-06"
	if res := publish("v0.8.0", 4, newer, 3*time.Hour); res.Outcome != PublishPublished || res.ID == second.ID {
		t.Errorf("new dump: %s %s", res.Outcome, res.ID)
	}
	if n := w.gh.CountWrites("CreateCommit"); n != 3 {
		t.Errorf("%d commits, want 3", n)
	}
}

// TestPublishComparesRunsOfTheSameSecond: two runs whose updates carry the
// same second are ordered by run id; the later one is compared with the
// earlier (the previous snapshot read for the page is the one the index
// puts after it).
func TestPublishComparesRunsOfTheSameSecond(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newPublishWorld(t)
	var ids []string
	for run, simTag := range []string{"v0.7.15", "v0.8.0"} {
		rep := releaseReport(t, simTag, dumpLedgerVersion(nightlyPlan(simTag)))
		rep.Plan, rep.RunID = nightlyPlan(simTag).Encode(), int64(run+1)
		res, err := w.pub.Publish(ctx, rep, t0, "")
		if err != nil || res.Outcome != PublishPublished {
			t.Fatalf("run %d: %s %v, %v", run+1, res.Outcome, res.Reasons, err)
		}
		ids = append(ids, res.ID)
	}
	page := dashboard.CompareDir + "/" + ids[0] + ".." + ids[1] + ".md"
	if _, ok := w.gh.Tip(w.dashboard, "main")[page]; !ok {
		t.Errorf("no %s", page)
	}
}

// TestPublishRefusesInconsistentRun: a plan that names another simulator or
// harness than the summary ran, and points that are not the summary's, are
// refused with reasons.
func TestPublishRefusesInconsistentRun(t *testing.T) {
	t.Parallel()
	w := newPublishWorld(t)
	rep := releaseReport(t, "v0.7.15", "v1.0.0")
	plan := nightlyPlan("v0.8.0")
	plan.Harness.Commit = strings.Repeat("e", 40)
	rep.Plan, rep.RunID = plan.Encode(), 9
	res, err := w.pub.Publish(context.Background(), rep, t0, "")
	reasons := strings.Join(res.Reasons, "\n")
	if err != nil || res.Outcome != PublishRefused || !strings.Contains(reasons, "plan.json names simulator v0.8.0") ||
		!strings.Contains(reasons, "plan.json names harness v1.1.0 (eeeeeeeeeeee)") ||
		!strings.Contains(reasons, "plan.json names InferenceX dump db-dump/2026-11-29 but the summary scored ledger ledger v1.0.0") {
		t.Errorf("plan mismatch: %s %v, %v", res.Outcome, res.Reasons, err)
	}
	rep = releaseReport(t, "v0.7.15", "v1.0.0")
	rep.Points = []byte("[]")
	res, err = w.pub.Publish(context.Background(), rep, t0, "")
	if err != nil || res.Outcome != PublishRefused || !strings.Contains(strings.Join(res.Reasons, "\n"), "points.json holds 0 points (0 scored), summary.json counts 4 (3 scored)") {
		t.Errorf("other points: %s %v, %v", res.Outcome, res.Reasons, err)
	}
	rep.Points, rep.RunID = nil, 9
	res, _ = w.pub.Publish(context.Background(), rep, t0, "")
	if res.Outcome != PublishRefused || !strings.Contains(strings.Join(res.Reasons, "\n"), "no points.json next to summary.json") {
		t.Errorf("a run without points: %s %v", res.Outcome, res.Reasons)
	}
}

func TestReportFromArtifact(t *testing.T) {
	t.Parallel()
	rep, err := ReportFromArtifact(testkit.Zip(t, map[string][]byte{"head/summary.json": []byte("s"), "head/points.json": []byte("p"), "head/plan.json": []byte("n"), "base/other.json": []byte("x")}))
	if err != nil || string(rep.Summary) != "s" || string(rep.Points) != "p" || string(rep.Plan) != "n" {
		t.Errorf("ReportFromArtifact = %q %q %q, %v", rep.Summary, rep.Points, rep.Plan, err)
	}
	if _, err := ReportFromArtifact(testkit.Zip(t, map[string][]byte{"a/summary.json": []byte("s"), "b/points.json": []byte("p")})); err == nil || !strings.Contains(err.Error(), "b/points.json is not next to a/summary.json") {
		t.Errorf("points elsewhere: %v", err)
	}

	// The what-ifs next to the summary are read (whatif/<name>/, each a
	// what-if of that name); one anywhere else, or a folder of another
	// run, is an error naming it.
	s, points := releaseRun(t, "v0.7.15", "v1.0.0")
	wi := whatIfOf(t, s, points)
	sum, _ := jsoncodec.Encode(s)
	pts, _ := jsoncodec.Encode(points)
	wsum, _ := jsoncodec.Encode(wi.Summary)
	wpts, _ := jsoncodec.Encode(wi.Points)
	rep, err = ReportFromArtifact(testkit.Zip(t, map[string][]byte{"head/summary.json": sum, "head/points.json": pts,
		"head/whatif/half-weights/summary.json": wsum, "head/whatif/half-weights/points.json": wpts}))
	if err != nil || len(rep.WhatIfs) != 1 || rep.WhatIfs[0].Summary.Label != "what-if: half-weights" || len(rep.WhatIfs[0].Points) != 4 {
		t.Errorf("a report with a what-if: %d what-ifs, %v", len(rep.WhatIfs), err)
	}
	for name, tc := range map[string]struct {
		files map[string][]byte
		want  string
	}{
		"elsewhere": {map[string][]byte{"head/summary.json": sum, "head/points.json": pts, "other/whatif/half-weights/summary.json": wsum},
			"other/whatif/half-weights/summary.json is not in the whatif/ folder next to head/summary.json"},
		"misnamed": {map[string][]byte{"summary.json": sum, "points.json": pts, "whatif/x/summary.json": wsum, "whatif/x/points.json": wpts},
			"whatif/x: its summary is not the what-if x"},
		"not a what-if": {map[string][]byte{"summary.json": sum, "points.json": pts, "whatif/half-weights/summary.json": sum, "whatif/half-weights/points.json": pts},
			"whatif/half-weights: its summary is not the what-if half-weights"},
		"no points": {map[string][]byte{"summary.json": sum, "points.json": pts, "whatif/half-weights/summary.json": wsum},
			"whatif/half-weights/points.json"},
	} {
		if _, err := ReportFromArtifact(testkit.Zip(t, tc.files)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, tc.want)
		}
	}
}
