package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/botconfig"
	"github.com/inference-sim/accuracy-dashboard/internal/bump"
	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	rep "github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		os.Exit(children[name]()) // a child process of a test (startBot)
	}
	code := m.Run()
	harnesstest.Cleanup()
	os.Exit(code)
}

// Pinned third-party actions of the shipped nightly, replaced by local
// stand-ins (GitHub is unreachable in tests). The Action itself is checked
// out by the workflow at the pinned harness release, from the git server.
const (
	nightlyWorkflow = ".github/workflows/accuracy-nightly.yml"
	setupGoRef      = "actions/setup-go@d35c59abb061a4a6fb18e82ac0862c26744d6ab5"
	uploadRef       = "actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02"
	downloadRef     = "actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093"
	// nightlyShards is the shipped nightly's matrix of evaluate shards.
	nightlyShards = 3
	// localAction is how the shipped workflows run the Action: checked out
	// at the pin file's harness release.
	localAction = "./.accuracy-harness"
)

// nightlyWorld is the loop of docs/NIGHTLY.md on one machine: this
// repository's working tree as the dashboard (and harness) repository, git
// repositories served from a directory (file://) as GitHub's git server, the
// fake GitHub (OpenAPI-checked) as its API, nektos/act running the shipped
// nightly workflow, and the bot serving webhooks in-process.
type nightlyWorld struct {
	*world
	act, dash, srv, home, artifacts string
	setupGo, upload, download       string
	sim                             harnesstest.Standin
	simGit                          string
	addr                            string
	done                            chan error
	runs                            int
}

func newNightlyWorld(t *testing.T) *nightlyWorld {
	t.Helper()
	nw := &nightlyWorld{act: harnesstest.FindAct(t), world: newWorld(t)}
	// The bot's defaults: this repository is the harness, the dashboard and
	// where the nightly runs.
	for _, k := range []string{botconfig.EnvHarnessRepo, botconfig.EnvDashboardRepo, botconfig.EnvPublishRepo, botconfig.EnvPublishWorkflow} {
		delete(nw.vars, k)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var hcommit string
	nw.dash, hcommit = harnesstest.WorkingTreeRepo(t, root, "v9.9.9")
	nw.srv, nw.home, nw.artifacts = t.TempDir(), t.TempDir(), t.TempDir()
	nw.sim = harnesstest.StandinRepo(t)
	nw.simGit = filepath.Join(nw.srv, "inference-sim", "inference-sim.git")
	harnesstest.Run(t, "", "git", "clone", "--quiet", "--bare", nw.sim.Dir, nw.simGit)
	nw.pinHarness(t, "v9.9.9", hcommit)

	// The simulator's releases, as GitHub's API lists them.
	nw.fake.AddRepo("inference-sim/inference-sim", "main")
	nw.release(t, "v0.1.0", nw.sim.V010)
	nw.release(t, "v0.2.0", nw.sim.V020)

	nw.setupGo = filepath.Join(t.TempDir(), "setup-go")
	testkit.WriteFile(t, filepath.Join(nw.setupGo, "action.yml"), "name: setup-go stand-in\ninputs:\n  go-version-file: {}\n  cache: {}\n"+
		"runs:\n  using: composite\n  steps:\n    - shell: bash\n      run: go version\n")
	// upload-artifact keeps the files in $NIGHTLY_ARTIFACTS/<name>.
	nw.upload = filepath.Join(t.TempDir(), "upload-artifact")
	testkit.WriteFile(t, filepath.Join(nw.upload, "action.yml"), "name: upload-artifact stand-in\ninputs:\n  name: {}\n  path: {}\n  if-no-files-found: {}\n"+
		"runs:\n  using: composite\n  steps:\n    - shell: bash\n      env:\n        NAME: ${{ inputs.name }}\n        SRC: ${{ inputs.path }}\n"+
		"      run: test -n \"$(ls -A \"$SRC\")\" && mkdir -p \"$NIGHTLY_ARTIFACTS/$NAME\" && cp -R \"$SRC/.\" \"$NIGHTLY_ARTIFACTS/$NAME/\"\n")
	// download-artifact copies $NIGHTLY_ARTIFACTS/<name> into path, or with
	// a pattern each matching artifact into path/<artifact>, as
	// actions/download-artifact lays them out.
	nw.download = filepath.Join(t.TempDir(), "download-artifact")
	testkit.WriteFile(t, filepath.Join(nw.download, "action.yml"), "name: download-artifact stand-in\ninputs:\n  name: {}\n  pattern: {}\n  path: {}\n"+
		"runs:\n  using: composite\n  steps:\n    - shell: bash\n      env:\n        NAME: ${{ inputs.name }}\n        PATTERN: ${{ inputs.pattern }}\n        DST: ${{ inputs.path }}\n"+
		"      run: |\n        set -euo pipefail\n        mkdir -p \"$DST\"\n"+
		"        if [ -n \"$NAME\" ]; then cp -R \"$NIGHTLY_ARTIFACTS/$NAME/.\" \"$DST/\"; exit 0; fi\n"+
		"        for a in \"$NIGHTLY_ARTIFACTS\"/$PATTERN; do if [ -d \"$a\" ]; then cp -R \"$a\" \"$DST/\"; fi; done\n")
	nw.addr, nw.done = nw.serve(t)
	return nw
}

// pinHarness points the dashboard's pin at a harness release, serves the
// dashboard repository at its new head, and commits.
func (nw *nightlyWorld) pinHarness(t *testing.T, tag, commit string) {
	t.Helper()
	testkit.WriteFile(t, filepath.Join(nw.dash, ".github", "accuracy-harness.yaml"),
		"harness:\n  repository: inference-sim/accuracy-dashboard\n  tag: "+tag+"\n  commit: "+commit+"\n")
	harnesstest.CommitAll(t, nw.dash, "pin the harness "+tag)
	nw.serveDashboard(t)
}

// serveDashboard makes the git server's copy of the dashboard (and harness)
// repository the local checkout's.
func (nw *nightlyWorld) serveDashboard(t *testing.T) {
	t.Helper()
	bare := filepath.Join(nw.srv, "inference-sim", "accuracy-dashboard.git")
	os.RemoveAll(bare)
	harnesstest.Run(t, "", "git", "clone", "--quiet", "--bare", nw.dash, bare)
}

// release tags a simulator commit as a release, in the git server and in
// the API.
func (nw *nightlyWorld) release(t *testing.T, tag, commit string) {
	t.Helper()
	harnesstest.Run(t, nw.simGit, "git", "tag", "-f", tag, commit)
	nw.fake.ForeignCommit("inference-sim/inference-sim", commit, "release "+tag)
	nw.fake.Tag("inference-sim/inference-sim", tag, commit, false)
}

// nightly runs the shipped workflow under act on a schedule event. It
// returns act's log, the uploaded report directory ("" when none) and
// whether the workflow succeeded.
func (nw *nightlyWorld) nightly(t *testing.T) (log, report string, ok bool) {
	t.Helper()
	nw.runs++
	art := filepath.Join(nw.artifacts, fmt.Sprint(nw.runs))
	gocache := strings.TrimSpace(harnesstest.Run(t, "", "go", "env", "GOCACHE"))
	gomodcache := strings.TrimSpace(harnesstest.Run(t, "", "go", "env", "GOMODCACHE"))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nw.act, "schedule", "-W", nightlyWorkflow,
		"-P", "ubuntu-latest=-self-hosted", "--no-cache-server",
		// act fetches actions from GITHUB_SERVER_URL; the full URL names them.
		"--local-repository", "file://"+nw.srv+"/"+setupGoRef+"="+nw.setupGo,
		"--local-repository", "file://"+nw.srv+"/"+uploadRef+"="+nw.upload,
		"--local-repository", "file://"+nw.srv+"/"+downloadRef+"="+nw.download,
		"-s", "GITHUB_TOKEN=test-token",
		"--env", "GITHUB_API_URL="+strings.TrimSuffix(nw.fake.URL(), "/"),
		"--env", "GITHUB_SERVER_URL=file://"+nw.srv,
		"--env", "GITHUB_REPOSITORY="+harnessRepo,
		"--env", "HOME="+nw.home,
		"--env", "GOCACHE="+gocache,
		"--env", "GOMODCACHE="+gomodcache,
		// Each job builds the Action from its own checkout path: without
		// -trimpath the build cache would miss on every job.
		"--env", "GOFLAGS=-trimpath",
		"--env", "NIGHTLY_ARTIFACTS="+art,
	)
	cmd.Dir = nw.dash
	cmd.Env = append(os.Environ(), "ACT_DISABLE_VERSION_CHECK=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	t.Logf("nightly %d under act: %v (%v)", nw.runs, time.Since(start).Round(time.Second), err)
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.Contains(line, "✅  Success - Main") || strings.Contains(line, "❌  Failure - Main") {
			t.Log(strings.TrimSpace(line))
		}
	}
	if _, serr := os.Stat(filepath.Join(art, "accuracy-report", "summary.json")); serr == nil {
		report = filepath.Join(art, "accuracy-report")
	}
	return out.String(), report, err == nil
}

// deliver makes the finished run known to the fake GitHub (its report
// artifact, zipped as GitHub does) and delivers its workflow_run webhook to
// the bot, as GitHub would.
func (nw *nightlyWorld) deliver(t *testing.T, report, conclusion string) int64 {
	t.Helper()
	head, _ := nw.fake.Ref(harnessRepo, "refs/heads/main")
	id := nw.fake.AddWorkflowRun(harnessRepo, githubfake.WorkflowRun{HeadSHA: head, HeadBranch: "main"})
	if report != "" {
		nw.fake.AddArtifact(harnessRepo, id, botconfig.DefaultArtifactName, testkit.ZipDir(t, report), false)
	}
	body := payload(t, "workflow_run", "completed", func(m map[string]any) bool {
		return m["workflow_run"].(map[string]any)["conclusion"] == "success"
	}, func(m map[string]any) {
		repo := m["repository"].(map[string]any)
		repo["full_name"], repo["default_branch"] = harnessRepo, "main"
		r := m["workflow_run"].(map[string]any)
		r["id"], r["path"], r["event"], r["head_sha"], r["head_branch"] = id, nightlyWorkflow, "schedule", head, "main"
		r["conclusion"] = conclusion
		// Each run finishes a day after the previous one.
		r["updated_at"] = time.Date(2026, 12, 1, 3, 40, 0, 0, time.UTC).AddDate(0, 0, nw.runs).Format(time.RFC3339)
		r["head_repository"].(map[string]any)["full_name"] = harnessRepo
	})
	code := post(t, nw.addr, "workflow_run", fmt.Sprint("nightly-", id), body)
	if conclusion != "success" {
		// A run that did not succeed is ignored on the request, never
		// queued (docs/BOT.md, Webhooks).
		if code != http.StatusOK {
			t.Fatalf("workflow_run delivery of a %s run answered %d, want 200 ignored", conclusion, code)
		}
		return id
	}
	if code != http.StatusAccepted {
		t.Fatalf("workflow_run delivery answered %d", code)
	}
	waitDelivery(t, nw.done)
	return id
}

// pull brings the bot's commit into the local dashboard checkout (what the
// next nightly's checkout sees): state/last-run.json and the snapshots.
func (nw *nightlyWorld) pull(t *testing.T) {
	t.Helper()
	last, ok := nw.fake.File(harnessRepo, "refs/heads/main", dashboard.LastRunPath)
	if !ok {
		t.Fatalf("the dashboard has no %s", dashboard.LastRunPath)
	}
	testkit.WriteFile(t, filepath.Join(nw.dash, filepath.FromSlash(dashboard.LastRunPath)), last)
	// The snapshots too: the next nightly reuses the last one's predictions.
	for _, snap := range nw.index(t).Snapshots {
		for _, f := range []string{"summary.json", "points.json", "summary.md"} {
			name := dashboard.SnapshotsDir + "/" + snap.ID + "/" + f
			if b, ok := nw.fake.File(harnessRepo, "refs/heads/main", name); ok {
				testkit.WriteFile(t, filepath.Join(nw.dash, filepath.FromSlash(name)), b)
			}
		}
	}
	harnesstest.CommitAll(t, nw.dash, "pull the published snapshot")
	nw.serveDashboard(t)
}

func (nw *nightlyWorld) index(t *testing.T) dashboard.Index {
	t.Helper()
	raw, ok := nw.fake.File(harnessRepo, "refs/heads/main", dashboard.IndexPath)
	if !ok {
		t.Fatalf("no %s", dashboard.IndexPath)
	}
	var idx dashboard.Index
	if err := json.Unmarshal([]byte(raw), &idx); err != nil {
		t.Fatal(err)
	}
	return idx
}

// TestNightlyEndToEnd runs the nightly this repository ships, as a new
// installation would, on the stand-in simulator: the first nightly publishes
// a snapshot, with the declared what-ifs beside it; a second with unchanged inputs is a no-op; a new simulator
// release publishes a new snapshot with its comparison page; a failed
// evaluate publishes nothing. (A new harness release changes the plan the
// same way: TestResolvePlan in internal/dashboard.)
func TestNightlyEndToEnd(t *testing.T) {
	nw := newNightlyWorld(t)
	files := func() int { return len(nw.fake.Commits(harnessRepo, "refs/heads/main")) }

	// 1. First nightly: v0.2.0 with harness v9.9.9.
	log, report, ok := nw.nightly(t)
	if !ok || report == "" {
		t.Fatalf("first nightly: ok %v, report %q\n%s", ok, report, log)
	}
	if !strings.Contains(log, "Accuracy nightly: evaluating") {
		t.Errorf("the plan did not say what it evaluates:\n%s", log)
	}
	// The evaluate matrix scored every shard; the report job merged them
	// into one whole-corpus report.
	shards, _ := filepath.Glob(filepath.Join(filepath.Dir(report), "accuracy-shard-*", "head", rep.SummaryFile))
	mergedRun, err := rep.Read(report)
	merged := mergedRun.Summary
	if err != nil {
		t.Fatal(err)
	}
	points := 0
	for _, f := range shards {
		shard, err := rep.Read(filepath.Dir(f))
		s := shard.Summary
		if err != nil || s.Shard == nil || s.Shard.Count != nightlyShards {
			t.Fatalf("shard %s: %+v, %v", f, s.Shard, err)
		}
		points += s.Coverage.CorpusPoints
	}
	if len(shards) != nightlyShards || merged.Shard != nil || merged.Coverage.CorpusPoints != points || points == 0 {
		t.Errorf("%d shards of %d points merged into a report of %d points (shard %+v)", len(shards), points, merged.Coverage.CorpusPoints, merged.Shard)
	}
	before := files()
	run1 := nw.deliver(t, report, "success")
	if files() != before+1 {
		t.Fatalf("first nightly: %d dashboard commits, want one more than %d\n%s", files(), before, nw.stderr)
	}
	idx := nw.index(t)
	if len(idx.Snapshots) != 1 {
		t.Fatalf("index: %+v", idx)
	}
	id1 := idx.Snapshots[0].ID
	if !strings.HasPrefix(id1, "v0.2.0_ledger-") || !strings.HasSuffix(id1, fmt.Sprintf("_harness-v9.9.9_run-%d", run1)) {
		t.Errorf("snapshot id %s", id1)
	}
	for _, p := range []string{"summary.json", "points.json", "summary.md"} {
		for _, dir := range []string{dashboard.SnapshotsDir + "/" + id1, dashboard.LatestDir} {
			if _, ok := nw.fake.File(harnessRepo, "refs/heads/main", dir+"/"+p); !ok {
				t.Errorf("%s/%s missing", dir, p)
			}
		}
	}
	// The report job measured the merged run with the declared what-ifs
	// (what-if: all); the bot published them beside the snapshot, whose
	// summary.md has their Why section.
	for _, f := range []string{"summary.json", "points.json", "summary.md"} {
		if _, ok := nw.fake.File(harnessRepo, "refs/heads/main", dashboard.SnapshotsDir+"/"+id1+"/whatif/gpt-oss-120b-mxfp4/"+f); !ok {
			t.Errorf("the what-if's %s was not published beside %s", f, id1)
		}
	}
	if md, _ := nw.fake.File(harnessRepo, "refs/heads/main", dashboard.SnapshotsDir+"/"+id1+"/summary.md"); !strings.Contains(md, "gpt-oss-120b at 4-bit weights: ") {
		t.Errorf("the snapshot's summary.md has no Why section:\n%s", md)
	}
	last, _ := nw.fake.File(harnessRepo, "refs/heads/main", dashboard.LastRunPath)
	readme, _ := nw.fake.File(harnessRepo, "refs/heads/main", dashboard.ReadmePath)
	if !strings.Contains(last, `"release": "v0.2.0"`) || !strings.Contains(last, `"release": "v9.9.9"`) || !strings.Contains(readme, id1) {
		t.Errorf("state or README not updated:\n%s\n%s", last, readme)
	}
	nw.pull(t)

	// 2. Nothing changed: the plan says so, nothing is evaluated or uploaded.
	log, report, ok = nw.nightly(t)
	if !ok || report != "" || !strings.Contains(log, "Accuracy nightly: nothing changed") {
		t.Fatalf("unchanged nightly: ok %v, report %q\n%s", ok, report, log)
	}

	// 3. A new simulator release: a new snapshot and its comparison page.
	nw.release(t, "v0.3.0", nw.sim.Feature)
	log, report, ok = nw.nightly(t)
	if !ok || report == "" || !strings.Contains(log, "simulator release v0.2.0 → v0.3.0") {
		t.Fatalf("new simulator release: ok %v, report %q\n%s", ok, report, log)
	}
	// Another simulator commit: the last snapshot's predictions are not
	// reused, every point is simulated again.
	if r, err := rep.Read(report); err != nil || r.Summary.Coverage.Reused != 0 || r.Summary.Coverage.Scored == 0 {
		t.Errorf("v0.3.0 (another commit) reused predictions: %+v, %v", r.Summary.Coverage, err)
	}
	nw.deliver(t, report, "success")
	idx = nw.index(t)
	if len(idx.Snapshots) != 2 || !strings.HasPrefix(idx.Snapshots[0].ID, "v0.3.0_") || idx.Snapshots[0].Compare == "" {
		t.Fatalf("after v0.3.0: %+v", idx.Snapshots)
	}
	page, ok := nw.fake.File(harnessRepo, "refs/heads/main", idx.Snapshots[0].Compare)
	// The heading names the snapshots by their short labels, the footnote by
	// their ids.
	if !ok || !strings.Contains(page, "→ v0.3.0 · ") || !strings.Contains(page, "is `"+idx.Snapshots[0].ID+"`") || !strings.Contains(page, "| Δ MAPE |") {
		t.Errorf("comparison page %s:\n%s", idx.Snapshots[0].Compare, page)
	}
	nw.pull(t)

	// 3b. A release naming the published commit (only the release changed):
	// every shard takes each prediction from the last snapshot by replay
	// digest, the bot publishes the reused figures like simulated ones.
	id2 := idx.Snapshots[0].ID
	nw.release(t, "v0.3.1", nw.sim.Feature)
	log, report, ok = nw.nightly(t)
	if !ok || report == "" || !strings.Contains(log, "simulator release v0.3.0 → v0.3.1") {
		t.Fatalf("re-tagged release: ok %v, report %q\n%s", ok, report, log)
	}
	r3, err := rep.Read(report)
	s3, p3 := r3.Summary, r3.Points
	if err != nil || s3.Coverage.Scored == 0 || s3.Coverage.Reused != s3.Coverage.Scored {
		t.Fatalf("re-tagged release: coverage %+v, %v; want every scored point reused", s3.Coverage, err)
	}
	for _, p := range p3 {
		if p.Scored && p.ReusedFrom != id2 {
			t.Errorf("%s reused from %q, want the last snapshot %s", p.ID, p.ReusedFrom, id2)
		}
	}
	nw.deliver(t, report, "success")
	if idx = nw.index(t); len(idx.Snapshots) != 3 || !strings.HasPrefix(idx.Snapshots[0].ID, "v0.3.1_") {
		t.Fatalf("after v0.3.1: %+v", idx.Snapshots)
	}
	nw.pull(t)

	// 4. A release whose build fails: evaluate fails, nothing is uploaded,
	// the failed run is ignored and the previous snapshot stands.
	nw.release(t, "v0.4.0", nw.sim.Broken)
	log, report, ok = nw.nightly(t)
	if ok || report != "" {
		t.Fatalf("broken release: ok %v, report %q\n%s", ok, report, log)
	}
	before = files()
	nw.deliver(t, "", "failure")
	if files() != before || len(nw.index(t).Snapshots) != 3 {
		t.Errorf("a failed evaluate changed the dashboard")
	}
	latest, _ := nw.fake.File(harnessRepo, "refs/heads/main", dashboard.LatestDir+"/summary.json")
	if !strings.Contains(latest, `"tag": "v0.3.1"`) {
		t.Errorf("data/latest moved after a failed evaluate")
	}
}

// TestShippedNightlyMatchesDefaults: the bot's default configuration is the
// nightly this repository ships: the workflow file, the artifact it
// uploads, and a pin file the harness reads.
func TestShippedNightlyMatchesDefaults(t *testing.T) {
	root := filepath.Join("..", "..")
	wf, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(botconfig.DefaultPublishWorkflow)))
	if err != nil {
		t.Fatalf("the default publishing workflow is not shipped: %v", err)
	}
	for _, want := range []string{"name: " + botconfig.DefaultArtifactName + "\n", "mode: nightly-plan", "mode: nightly\n", "mode: merge\n",
		"schedule:", "uses: " + localAction + "\n", fmt.Sprintf("shard: ${{ matrix.shard }}/%d\n", nightlyShards)} {
		if !strings.Contains(string(wf), want) {
			t.Errorf("%s lacks %q", botconfig.DefaultPublishWorkflow, want)
		}
	}
	cfg := botconfig.Default()
	if cfg.DashboardRepo != botconfig.DefaultHarnessRepo {
		t.Errorf("default dashboard %s is not this repository %s", cfg.DashboardRepo, botconfig.DefaultHarnessRepo)
	}
	raw, err := os.ReadFile(filepath.Join(root, ".github", "accuracy-harness.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pin.Parse(raw, ".github/accuracy-harness.yaml"); err != nil {
		t.Errorf("the shipped pin: %v", err)
	}
	// The pin file is the one place naming the harness release: a harness
	// release's bump moves it and nothing else.
	files := bump.ConsumerFiles{PinPath: ".github/accuracy-harness.yaml", Pin: raw, Workflows: map[string][]byte{}}
	shipped, err := filepath.Glob(filepath.Join(root, ".github", "workflows", "*.yml"))
	if err != nil || len(shipped) == 0 {
		t.Fatalf("shipped workflows: %v", err)
	}
	for _, f := range shipped {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files.Workflows[".github/workflows/"+filepath.Base(f)] = b
	}
	plan, err := bump.PlanBump(files, bump.Target{Harness: ident.Repo{Owner: "inference-sim", Name: "accuracy-dashboard"}, Tag: "v99.0.0", Commit: strings.Repeat("c", 40)})
	if err != nil {
		t.Fatalf("bump of the shipped files: %v", err)
	}
	if d := plan.Paths(); len(d) != 1 || d[0] != files.PinPath {
		t.Errorf("a harness bump changes %v, want only the pin file", d)
	}
}
