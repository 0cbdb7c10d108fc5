package main

import (
	"archive/zip"
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/inference-sim/accuracy-dashboard/internal/botconfig"
	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/publish"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// lbExample is the committed example leaderboard, produced by BLIS at
// f90a1e3a (which no release names).
const lbExample = "../../docs/examples/leaderboard"

var lbSimCommit = simPinned

var lbPinFile = pairPin("    source: none\n")

// lbArtifact is the example's results directory re-sealed as if release
// v0.7.15 (at lbSimCommit) had produced it; tamper edits one file's bytes.
func lbArtifact(t *testing.T, tamper bool) []byte {
	t.Helper()
	files := leaderboardtest.Results(t, filepath.Join(lbExample, "results"), leaderboard.Simulator{Commit: lbSimCommit, Tag: "v0.7.15"}, nil)
	if tamper {
		p := "qwen3-14b-chat-8rps/a100-tp1.json"
		files[p] = []byte(strings.Replace(string(files[p]), `"completed_requests": 300`, `"completed_requests": 299`, 1))
	}
	return testkit.Zip(t, files)
}

func leaderboardRunEvent(t *testing.T, id int64, headSHA string) []byte {
	return payload(t, "workflow_run", "completed", func(m map[string]any) bool {
		return m["workflow_run"].(map[string]any)["conclusion"] == "success"
	}, func(m map[string]any) {
		repo := m["repository"].(map[string]any)
		repo["full_name"], repo["default_branch"] = dashboardRepo, "main"
		r := m["workflow_run"].(map[string]any)
		r["id"], r["path"], r["event"], r["head_sha"], r["head_branch"] = id, botconfig.DefaultLeaderboardWorkflow, "push", headSHA, "main"
		r["head_repository"].(map[string]any)["full_name"] = dashboardRepo
	})
}

// TestServeLeaderboardRunPublishesOnce: with the default configuration the
// leaderboard workflow of the dashboard repository publishes its results
// and tables into leaderboard/ beside runs.yaml, in one commit; the same
// results again change nothing; a tampered result is refused on the run's
// commit, naming the file.
func TestServeLeaderboardRunPublishesOnce(t *testing.T) {
	w := newWorld(t)
	runs, err := os.ReadFile(filepath.Join(lbExample, "runs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	head := w.fake.Commit(dashboardRepo, "main", "maintainer", "declare the leaderboard", map[string]string{
		botconfig.DefaultLeaderboardRuns: string(runs), botconfig.DefaultPinFile: lbPinFile,
	})
	before := len(w.fake.Commits(dashboardRepo, "refs/heads/main"))
	good := w.fake.AddWorkflowRun(dashboardRepo, githubfake.WorkflowRun{HeadSHA: head, HeadBranch: "main"})
	w.fake.AddArtifact(dashboardRepo, good, botconfig.DefaultLeaderboardArtifact, lbArtifact(t, false), false)

	addr, done := w.serve(t)
	if code := post(t, addr, "workflow_run", "lb-good", leaderboardRunEvent(t, good, head)); code != http.StatusAccepted {
		t.Fatalf("leaderboard run answered %d\n%s", code, w.stderr)
	}
	waitDelivery(t, done)
	commits := w.fake.Commits(dashboardRepo, "refs/heads/main")
	if len(commits) != before+1 || !strings.HasPrefix(commits[0].Message, "Publish leaderboard: 17 results in 2 groups") {
		t.Fatalf("want one leaderboard commit; got %d commits, newest %q\n%s", len(commits)-before, commits[0].Message, w.stderr)
	}
	for _, p := range []string{"leaderboard/results/qwen3-14b-chat-8rps/h100-tp1.json", "leaderboard/results/llama-3.1-8b-sweep/a100-tp1--rate-64.json",
		"leaderboard/README.md", "leaderboard/index.html", "leaderboard/published.json"} {
		if _, ok := w.fake.File(dashboardRepo, "main", p); !ok {
			t.Errorf("%s not published", p)
		}
	}
	if md, _ := w.fake.File(dashboardRepo, "main", "leaderboard/README.md"); !strings.Contains(md, "Qwen3 14B") {
		t.Errorf("leaderboard/README.md is not the group tables:\n%.400s", md)
	}
	if got, _ := w.fake.File(dashboardRepo, "main", botconfig.DefaultLeaderboardRuns); got != string(runs) {
		t.Error("the maintainers' runs.yaml was rewritten")
	}
	if readme, _ := w.fake.File(dashboardRepo, "main", "README.md"); readme != "# Accuracy data\n" {
		t.Errorf("the dashboard's own README.md changed: %q", readme)
	}

	// A re-run with the same results: no commit.
	rerun := w.fake.AddWorkflowRun(dashboardRepo, githubfake.WorkflowRun{HeadSHA: head, HeadBranch: "main"})
	w.fake.AddArtifact(dashboardRepo, rerun, botconfig.DefaultLeaderboardArtifact, lbArtifact(t, false), false)
	if code := post(t, addr, "workflow_run", "lb-rerun", leaderboardRunEvent(t, rerun, head)); code != http.StatusAccepted {
		t.Fatal(code)
	}
	waitDelivery(t, done)
	if n := len(w.fake.Commits(dashboardRepo, "refs/heads/main")); n != before+1 {
		t.Errorf("re-publishing the same results made %d more commits", n-before-1)
	}

	// A tampered result: refused, named, on the run's commit; nothing written.
	bad := w.fake.AddWorkflowRun(dashboardRepo, githubfake.WorkflowRun{HeadSHA: head, HeadBranch: "main"})
	w.fake.AddArtifact(dashboardRepo, bad, botconfig.DefaultLeaderboardArtifact, lbArtifact(t, true), false)
	if code := post(t, addr, "workflow_run", "lb-bad", leaderboardRunEvent(t, bad, head)); code != http.StatusAccepted {
		t.Fatal(code)
	}
	waitDelivery(t, done)
	cs := w.fake.CommitComments(dashboardRepo, head)
	if len(cs) != 1 || !strings.HasPrefix(cs[0].Body, render.RefusalMarker(bad)+"\n**Leaderboard not published.**") ||
		!strings.Contains(cs[0].Body, "tampered: qwen3-14b-chat-8rps/a100-tp1.json") {
		t.Errorf("refusal comments on %s: %+v", head, cs)
	}
	if n := len(w.fake.Commits(dashboardRepo, "refs/heads/main")); n != before+1 {
		t.Errorf("a refused leaderboard wrote %d commits", n-before-1)
	}
	if !logged(t, w.stderr.String(), map[string]any{"msg": "artifact refused", "delivery": "lb-bad", "run": float64(bad)}) {
		t.Errorf("refusal not logged once with its delivery:\n%s", w.stderr)
	}
	if !logged(t, w.stderr.String(), map[string]any{"msg": "publish", "delivery": "lb-rerun", "outcome": publish.PublishUnchanged}) {
		t.Errorf("the re-run's no-op not logged:\n%s", w.stderr)
	}
}

// TestShippedLeaderboardMatchesDefaults: the bot's default configuration is
// the leaderboard workflow this repository ships: the workflow file, the
// declaration it runs, the artifact it uploads (the Action's results
// directory), and a pin file whose leaderboard pair is a release; and the
// bot's harness bump moves the workflow's Action pin.
func TestShippedLeaderboardMatchesDefaults(t *testing.T) {
	root := filepath.Join("..", "..")
	raw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(botconfig.DefaultLeaderboardWorkflow)))
	if err != nil {
		t.Fatalf("the default leaderboard workflow is not shipped: %v", err)
	}
	var wf struct {
		On struct {
			Push struct{ Branches, Paths []string }
		}
		Permissions map[string]string
		Jobs        map[string]struct {
			Steps []struct {
				ID   string
				If   string
				Uses string
				With map[string]any
			}
		}
	}
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(wf.On.Push.Branches, "main") || !slices.Contains(wf.On.Push.Paths, botconfig.DefaultLeaderboardRuns) || !slices.Contains(wf.On.Push.Paths, botconfig.DefaultPinFile) {
		t.Errorf("the workflow does not run on pushes to main that change %s or %s: %+v", botconfig.DefaultLeaderboardRuns, botconfig.DefaultPinFile, wf.On.Push)
	}
	if len(wf.Permissions) != 2 || wf.Permissions["contents"] != "read" || wf.Permissions["pull-requests"] != "write" {
		t.Errorf("permissions %v, want contents: read (the bot writes, not the workflow) and pull-requests: write (the comment)", wf.Permissions)
	}
	ran, uploaded := "", false
	for _, j := range wf.Jobs {
		for _, s := range j.Steps {
			switch {
			case strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["persist-credentials"] != false:
				t.Error("actions/checkout without persist-credentials: false")
			case s.Uses == localAction && s.With["mode"] == "leaderboard":
				if s.With["runs"] != botconfig.DefaultLeaderboardRuns || s.ID == "" {
					t.Errorf("the Action runs %v (step id %q), want %s", s.With["runs"], s.ID, botconfig.DefaultLeaderboardRuns)
				}
				ran = s.ID
			case strings.HasPrefix(s.Uses, uploadRef):
				// Only the default branch's results are uploaded: the bot
				// never publishes a pull request's run anyway.
				uploaded = s.With["name"] == botconfig.DefaultLeaderboardArtifact && ran != "" &&
					s.With["path"] == "${{ steps."+ran+".outputs.results-dir }}" && s.If == "${{ github.event_name != 'pull_request' }}"
			}
		}
	}
	if ran == "" || !uploaded {
		t.Errorf("want the Action (%s, mode: leaderboard) and an upload of its results-dir as %s after it; got step %q, upload %v",
			localAction, botconfig.DefaultLeaderboardArtifact, ran, uploaded)
	}
	// Every input the workflow gives the Action, and the output it
	// uploads, is one the Action declares.
	var action struct{ Inputs, Outputs map[string]any }
	actionYML, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err == nil {
		err = yaml.Unmarshal(actionYML, &action)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range wf.Jobs {
		for _, s := range j.Steps {
			if s.Uses != localAction {
				continue
			}
			for k := range s.With {
				if _, ok := action.Inputs[k]; !ok {
					t.Errorf("the workflow gives the Action input %q, which action.yml does not declare", k)
				}
			}
		}
	}
	if _, ok := action.Outputs["results-dir"]; !ok {
		t.Error("action.yml has no output results-dir")
	}
	// The workflow names no harness version: it runs the Action at the pin
	// file's release, which the harness bump moves.
	if _, changed, err := pin.BumpUses(raw, harnessRepo, "v1.0.0", strings.Repeat("c", 40)); err != nil || changed {
		t.Errorf("the workflow pins the Action itself (a bump would move it): %v, %v", changed, err)
	}
	// The leaderboard directory of the dashboard is the declaration's: the
	// bot publishes beside runs.yaml and never rewrites it.
	if path.Dir(botconfig.DefaultLeaderboardRuns) != botconfig.DefaultLeaderboardDir {
		t.Errorf("runs %s is not in the published directory %s", botconfig.DefaultLeaderboardRuns, botconfig.DefaultLeaderboardDir)
	}
	runs, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(botconfig.DefaultLeaderboardRuns)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaderboard.Decode(runs, botconfig.DefaultLeaderboardRuns); err != nil {
		t.Errorf("the shipped declaration: %v", err)
	}
	pinRaw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(botconfig.DefaultPinFile)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := pin.Parse(pinRaw, botconfig.DefaultPinFile)
	if err != nil || p.Leaderboard == nil || !ident.IsStableRelease(p.Leaderboard.Simulator.Tag) {
		t.Errorf("the shipped pin file does not pin a released leaderboard simulator: %+v, %v", p.Leaderboard, err)
	}
}

// TestShippedLeaderboardWithRealBLIS is opt-in: BLIS_SOURCE names a clone of
// the simulator. The shipped declaration is run by `action leaderboard run`
// on the pinned pair of the shipped pin file (a release), and the bot,
// with its default configuration, publishes the results as the workflow
// would hand them over: every result, README.md and index.html in one
// commit, the release named in the tables.
//
//	BLIS_SOURCE=../inference-sim go test ./cmd/bot -run RealBLIS -v
func TestShippedLeaderboardWithRealBLIS(t *testing.T) {
	src := os.Getenv("BLIS_SOURCE")
	if src == "" {
		t.Skip("BLIS_SOURCE not set")
	}
	root := filepath.Join("..", "..")
	runs, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(botconfig.DefaultLeaderboardRuns)))
	if err != nil {
		t.Fatal(err)
	}
	pinRaw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(botconfig.DefaultPinFile)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := pin.Parse(pinRaw, botconfig.DefaultPinFile)
	if err != nil || p.Leaderboard == nil {
		t.Fatalf("shipped pin: %+v, %v", p.Leaderboard, err)
	}
	action := filepath.Join(t.TempDir(), "action")
	if out, err := exec.Command("go", "build", "-o", action, "../action").CombinedOutput(); err != nil {
		t.Fatalf("build the action: %v\n%s", err, out)
	}
	hdir, _ := harnesstest.HarnessCheckout(t)
	results := t.TempDir()
	cmd := exec.Command(action, "leaderboard", "run", "--runs", filepath.Join(root, filepath.FromSlash(botconfig.DefaultLeaderboardRuns)),
		"--sim-repo", src, "--sim", p.Leaderboard.Simulator.Commit, "--harness-dir", hdir, "--cache-dir", t.TempDir(),
		"--jobs", "2", "--quiet", "--out", results)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("leaderboard run at %s: %v\n%s", p.Leaderboard.Simulator.Tag, err, out)
	}

	w := newWorld(t)
	head := w.fake.Commit(dashboardRepo, "main", "maintainer", "the shipped leaderboard", map[string]string{
		botconfig.DefaultLeaderboardRuns: string(runs), botconfig.DefaultPinFile: string(pinRaw),
	})
	id := w.fake.AddWorkflowRun(dashboardRepo, githubfake.WorkflowRun{HeadSHA: head, HeadBranch: "main"})
	w.fake.AddArtifact(dashboardRepo, id, botconfig.DefaultLeaderboardArtifact, testkit.ZipDir(t, results), false)
	addr, done := w.serve(t)
	if code := post(t, addr, "workflow_run", "lb-real", leaderboardRunEvent(t, id, head)); code != http.StatusAccepted {
		t.Fatal(code)
	}
	waitDelivery(t, done)
	commits := w.fake.Commits(dashboardRepo, "refs/heads/main")
	if !strings.HasPrefix(commits[0].Message, "Publish leaderboard: ") {
		t.Fatalf("not published: newest commit %q\n%s", commits[0].Message, w.stderr)
	}
	md, _ := w.fake.File(dashboardRepo, "main", "leaderboard/README.md")
	if !strings.Contains(md, p.Leaderboard.Simulator.Commit+" ("+p.Leaderboard.Simulator.Tag+")") {
		t.Errorf("the tables do not name the pinned release:\n%.600s", md)
	}
	t.Logf("%s\n%.1500s", commits[0].Message, md)
}

// TestPublishLeaderboardCommand: `bot publish-leaderboard` checks a local
// results directory as the webhook checks an artifact, plans (--dry-run),
// publishes in one commit, is a no-op the second time, and refuses a
// tampered result with exit 3.
func TestPublishLeaderboardCommand(t *testing.T) {
	w := newWorld(t)
	dir := t.TempDir()
	runs, err := os.ReadFile(filepath.Join(lbExample, "runs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Join(dir, "runs.yaml"), string(runs))
	testkit.WriteFile(t, filepath.Join(dir, "pin.yaml"), lbPinFile)
	results := func(tamper bool) string {
		out := t.TempDir()
		zr, err := zip.NewReader(bytes.NewReader(lbArtifact(t, tamper)), int64(len(lbArtifact(t, tamper))))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			rc, _ := f.Open()
			raw, _ := io.ReadAll(rc)
			rc.Close()
			testkit.WriteFile(t, filepath.Join(out, filepath.FromSlash(f.Name)), string(raw))
		}
		return out
	}
	// By default the declaration lives in the dashboard's leaderboard/: the
	// one given must be the one there, which the bot never rewrites.
	w.fake.Commit(dashboardRepo, "main", "maintainer", "declare", map[string]string{botconfig.DefaultLeaderboardRuns: string(runs)})
	good := results(false)
	args := []string{"publish-leaderboard", "--runs", filepath.Join(dir, "runs.yaml"), "--pin", filepath.Join(dir, "pin.yaml"), "--results", good}
	before := len(w.fake.Commits(dashboardRepo, "refs/heads/main"))
	if err := w.run(t, append(args, "--dry-run")...); err != nil {
		t.Fatalf("%v\n%s", err, w.stderr)
	}
	if out := w.stdout.String(); !strings.Contains(out, "leaderboard/results/qwen3-14b-chat-8rps/h100-tp1.json (") || strings.Contains(out, "leaderboard/runs.yaml") ||
		w.fake.Calls("git/create-commit") != 0 {
		t.Errorf("dry run: %s (commits %d)", out, w.fake.Calls("git/create-commit"))
	}
	if err := w.run(t, args...); err != nil || !strings.Contains(w.stdout.String(), "published the leaderboard") {
		t.Fatalf("publish: %v\n%s%s", err, w.stdout, w.stderr)
	}
	if n := len(w.fake.Commits(dashboardRepo, "refs/heads/main")); n != before+1 {
		t.Errorf("%d commits, want one", n-before)
	}
	if got, _ := w.fake.File(dashboardRepo, "main", "leaderboard/README.md"); !strings.Contains(got, "Qwen3 14B") {
		t.Errorf("leaderboard/README.md is not the tables:\n%.300s", got)
	}
	if err := w.run(t, args...); err != nil || !strings.Contains(w.stdout.String(), "unchanged") {
		t.Errorf("again: %v, %s", err, w.stdout)
	}
	bad := append(args[:len(args)-1:len(args)-1], results(true))
	err = w.run(t, bad...)
	if cli.ExitCode(err) != 3 || !strings.Contains(w.stdout.String(), "refused: tampered: qwen3-14b-chat-8rps/a100-tp1.json") {
		t.Errorf("tampered: exit %d (%v)\n%s", cli.ExitCode(err), err, w.stdout)
	}
	// A declaration other than the dashboard's is refused.
	testkit.WriteFile(t, filepath.Join(dir, "runs.yaml"), string(runs)+"# edited\n")
	if err := w.run(t, args...); cli.ExitCode(err) != 3 || !strings.Contains(w.stdout.String(), "differs from leaderboard/runs.yaml on the default branch") {
		t.Errorf("another declaration: exit %d (%v)\n%s", cli.ExitCode(err), err, w.stdout)
	}
	if n := len(w.fake.Commits(dashboardRepo, "refs/heads/main")); n != before+1 {
		t.Errorf("%d commits after the no-op and the refusals, want one", n-before)
	}
}
