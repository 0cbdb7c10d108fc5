package main

import (
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/bot"
	"github.com/inference-sim/accuracy-dashboard/internal/botconfig"
	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
)

// lbExample is the committed example leaderboard, produced by BLIS at
// f90a1e3a (which no release names).
const lbExample = "../../docs/examples/leaderboard"

var lbSimCommit = strings.Repeat("5", 40)

const lbPinFile = pinFile + `leaderboard:
  simulator:
    repository: inference-sim/inference-sim
    tag: v0.7.15
    commit: 5555555555555555555555555555555555555555
  catalog:
    source: none
`

// lbArtifact is the example's results directory re-sealed as if release
// v0.7.15 (at lbSimCommit) had produced it; tamper edits one file's bytes.
func lbArtifact(t *testing.T, tamper bool) []byte {
	t.Helper()
	files := map[string][]byte{}
	root := filepath.Join(lbExample, "results")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		r, err := leaderboard.ParseResult(raw, rel)
		if err != nil {
			return err
		}
		r.Provenance.Simulator = leaderboard.Simulator{Commit: lbSimCommit, Tag: "v0.7.15"}
		if err := r.Seal(); err != nil {
			return err
		}
		files[filepath.ToSlash(rel)], err = r.Encode()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if tamper {
		p := "qwen3-14b-chat-8rps/a100-tp1.json"
		files[p] = []byte(strings.Replace(string(files[p]), `"completed_requests": 300`, `"completed_requests": 299`, 1))
	}
	return artifactZip(t, files)
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
	if len(cs) != 1 || !strings.HasPrefix(cs[0].Body, bot.RefusalMarker(bad)+"\n**Leaderboard not published.**") ||
		!strings.Contains(cs[0].Body, "tampered: qwen3-14b-chat-8rps/a100-tp1.json") {
		t.Errorf("refusal comments on %s: %+v", head, cs)
	}
	if n := len(w.fake.Commits(dashboardRepo, "refs/heads/main")); n != before+1 {
		t.Errorf("a refused leaderboard wrote %d commits", n-before-1)
	}
	if !logged(t, w.stderr.String(), map[string]any{"msg": "artifact refused", "delivery": "lb-bad", "run": float64(bad)}) {
		t.Errorf("refusal not logged once with its delivery:\n%s", w.stderr)
	}
	if !logged(t, w.stderr.String(), map[string]any{"msg": "publish", "delivery": "lb-rerun", "outcome": bot.PublishUnchanged}) {
		t.Errorf("the re-run's no-op not logged:\n%s", w.stderr)
	}
}
