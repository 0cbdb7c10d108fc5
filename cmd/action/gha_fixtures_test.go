package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
)

const harnessTag = "v9.9.9"

// harnessRepo is this module's working tree as a git repository tagged
// harnessTag (harnesstest.WorkingTreeRepo).
func harnessRepo(t *testing.T) (dir, commit string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return harnesstest.WorkingTreeRepo(t, root, harnessTag)
}

// consumerRepo makes the simulator repository a pull request runs in: a
// clone of the stand-in simulator whose head commit (on top of v0.2.0) adds
// the pin file and a ledger; the base is v0.1.0.
func consumerRepo(t *testing.T, harnessDir, harnessCommit string) (dir, head, base string) {
	t.Helper()
	sim := harnesstest.StandinRepo(t)
	dir = filepath.Join(t.TempDir(), "simulator")
	harnesstest.Run(t, "", "git", "clone", "--quiet", sim.Dir, dir)
	harnesstest.Run(t, dir, "git", "checkout", "--quiet", "-B", "feature", sim.V020)
	if err := os.CopyFS(filepath.Join(dir, "accuracy", "ledger"), os.DirFS(testLedger)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, ".github", "accuracy-harness.yaml"), "# Harness pinned for pull-request accuracy checks.\n"+
		"harness:\n  repository: "+harnessDir+"\n  tag: "+harnessTag+"   # release\n  commit: "+harnessCommit+"\n"+
		"data:\n  ledger: accuracy/ledger\n  catalog: none\n  registry: none\n")
	head = harnesstest.CommitAll(t, dir, "pin the accuracy harness")
	return dir, head, sim.V010
}

// pullRequestEvent is a real pull_request webhook payload (npm
// @octokit/webhooks-examples) with its commits, number and repository set.
func pullRequestEvent(t *testing.T, action, repo string, number int, head, base string) []byte {
	t.Helper()
	ev := githubfake.WebhookExample(t, "pull_request", action)
	pr := ev["pull_request"].(map[string]any)
	pr["number"] = number
	ev["number"] = number
	pr["head"].(map[string]any)["sha"] = head
	pr["base"].(map[string]any)["sha"] = base
	ev["repository"].(map[string]any)["full_name"] = repo
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readOutputs parses a $GITHUB_OUTPUT file written with heredoc delimiters.
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			continue
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}
