package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbview"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
)

// Pinned third-party actions the end-to-end workflow names; act replaces
// them with local stand-ins (GitHub is unreachable in tests).
const (
	checkoutAction = "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683"
	setupGoAction  = "actions/setup-go@d35c59abb061a4a6fb18e82ac0862c26744d6ab5"
)

const e2eWorkflow = `name: accuracy e2e
on: pull_request
permissions:
  contents: read
  pull-requests: write
jobs:
  accuracy:
    runs-on: ubuntu-latest
    steps:
      - uses: ` + checkoutAction + ` # v4.2.2
      - id: accuracy
        uses: ./
        with:
          github-token: test-token
          simulator-path: SIMULATOR
          cache-dir: CACHE
          jobs: "2"
      - name: Outputs
        env:
          COMMENT_URL: ${{ steps.accuracy.outputs.comment-url }}
          LABEL: ${{ steps.accuracy.outputs.label }}
          TTFT: ${{ steps.accuracy.outputs.ttft-mape }}
        run: echo "e2e-outputs label=${LABEL} ttft=${TTFT} comment=${COMMENT_URL}"
      - id: leaderboard
        uses: ./
        with:
          github-token: test-token
          mode: leaderboard
          simulator-path: SIMULATOR
          cache-dir: CACHE
          out-dir: ${{ runner.temp }}/leaderboard
          jobs: "2"
      - name: Leaderboard outputs
        env:
          COMMENT_URL: ${{ steps.leaderboard.outputs.comment-url }}
          GROUPS: ${{ steps.leaderboard.outputs.groups }}
          RUNS: ${{ steps.leaderboard.outputs.runs }}
        run: echo "e2e-leaderboard runs=${RUNS} groups=${GROUPS} comment=${COMMENT_URL}"
`

// TestActEndToEnd runs the Action as a real workflow with nektos/act
// (uses: ./, real pull_request payload) against the stand-in simulator and
// the fake GitHub, twice: the first run creates the comment, the second
// edits it.
func TestActEndToEnd(t *testing.T) {
	act := harnesstest.FindAct(t)
	hdir, hcommit := harnesstest.ModuleRepo(t)
	sim, _, base := harnesstest.ConsumerRepo(t, hdir, hcommit)
	cache := t.TempDir()
	// The pull request also declares a leaderboard, pinned to the
	// stand-in simulator at v0.2.0: the workflow's second step runs it.
	standin := harnesstest.StandinRepo(t)
	pinFile := filepath.Join(sim, ".github", "accuracy-harness.yaml")
	pinned, err := os.ReadFile(pinFile)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, pinFile, string(pinned)+"leaderboard:\n  simulator:\n    repository: "+standin.Dir+"\n    tag: v0.2.0\n    commit: "+standin.V020+"\n  catalog:\n    source: none\n")
	writeFile(t, filepath.Join(sim, "leaderboard", "runs.yaml"), standinRuns)
	head := harnesstest.CommitAll(t, sim, "declare a leaderboard")

	fake := githubfake.New(t, githubfake.Options{Token: "test-token", ActionsToken: true})
	fake.AddRepo("octo/sim", "main")
	number := fake.AddPullRequest("octo/sim", githubfake.PullRequest{Title: "faster decode", Head: "feature", HeadRepo: "someone/sim", HeadSHA: head})

	// The workflow lives in the action's repository (the harness copy), as
	// the project's own self-test does.
	wf := strings.NewReplacer("SIMULATOR", sim, "CACHE", cache).Replace(e2eWorkflow)
	writeFile(t, filepath.Join(hdir, ".github", "workflows", "e2e.yml"), wf)
	// Local stand-ins for the remote actions: setup-go finds Go on the host.
	setupGo := filepath.Join(t.TempDir(), "setup-go")
	writeFile(t, filepath.Join(setupGo, "action.yml"), "name: setup-go stand-in\ninputs:\n  go-version-file: {}\n  cache: {}\nruns:\n  using: composite\n  steps:\n    - shell: bash\n      run: go version\n")

	runAct := func(action string) string {
		t.Helper()
		dir := t.TempDir()
		event := filepath.Join(dir, "event.json")
		if err := os.WriteFile(event, githubfake.PullRequestEvent(t, action, "octo/sim", number, head, base), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, act, "pull_request",
			"-W", ".github/workflows/e2e.yml",
			"-e", event,
			"-P", "ubuntu-latest=-self-hosted",
			"--no-cache-server",
			"--local-repository", setupGoAction+"="+setupGo,
			"--env", "GITHUB_API_URL="+strings.TrimSuffix(fake.URL(), "/"),
			"--env", "GITHUB_REPOSITORY=octo/sim",
			"--env", "HOME="+dir,
			// The host's Go caches: the workflow builds the action, the
			// pinned harness and the simulator, which need no network
			// and no recompilation of what the host already built.
			"--env", "GOMODCACHE="+goEnv(t, "GOMODCACHE"),
			"--env", "GOCACHE="+goEnv(t, "GOCACHE"),
		)
		cmd.Dir = hdir
		cmd.Env = append(os.Environ(), "ACT_DISABLE_VERSION_CHECK=1")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		t.Logf("act run (%s) took %v", action, time.Since(start).Round(time.Second))
		if err != nil {
			t.Fatalf("act (%s): %v\n%s", action, err, out.String())
		}
		return out.String()
	}

	// Both modes comment on the one pull request, each in its own comment.
	log1 := runAct("opened")
	comments := fake.Comments("octo/sim", number)
	if len(comments) != 2 || comments[0].User != "github-actions[bot]" || !strings.HasPrefix(comments[0].Body, render.PRMarker) || !strings.Contains(comments[0].Body, "Δ MAPE") ||
		comments[1].User != "github-actions[bot]" || !strings.HasPrefix(comments[1].Body, lbview.Marker) || !strings.Contains(comments[1].Body, "#### leaderboard/runs.yaml") {
		t.Fatalf("comments after the first act run: %+v\n%s", comments, log1)
	}
	if !strings.Contains(log1, "e2e-outputs label=experimental") || !strings.Contains(log1, "comment=http") {
		t.Errorf("outputs not passed through the workflow:\n%s", log1)
	}
	if !strings.Contains(log1, "e2e-leaderboard runs=leaderboard/runs.yaml groups=2 comment=http") {
		t.Errorf("leaderboard outputs not passed through the workflow:\n%s", log1)
	}

	// The second run edits the accuracy comment (its results now come from
	// the cache) and keeps the leaderboard comment, whose tables are the
	// same: neither run touches the other mode's comment.
	log2 := runAct("synchronize")
	after := fake.Comments("octo/sim", number)
	if len(after) != 2 || after[0].ID != comments[0].ID || after[0].Body == comments[0].Body || after[1].ID != comments[1].ID || after[1].Body != comments[1].Body {
		t.Errorf("second act run did not edit each comment in place: %+v\n%s", after, log2)
	}
	if n := fake.Calls("issues/update-comment"); n != 1 {
		t.Errorf("update-comment called %d times, want 1", n)
	}
	if n := fake.Calls("issues/create-comment"); n != 2 {
		t.Errorf("create-comment called %d times, want 2", n)
	}
}

// goEnv is `go env name` on the host.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// TestGitHubActionUsageNamesEveryInput: the help of `action github-action`
// lists the INPUT_* variable of every input action.yml declares (the inputs
// are read in internal/ghaction, the help is written here, so a new input
// must reach both). setup-go is action.yml's own input, not the binary's.
func TestGitHubActionUsageNamesEveryInput(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]any `yaml:"inputs"`
	}
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	if len(a.Inputs) < 2 {
		t.Fatalf("action.yml declares %d inputs", len(a.Inputs))
	}
	for name := range a.Inputs {
		if name == "setup-go" {
			continue
		}
		v := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if !regexp.MustCompile(`\b` + v + `\b`).MatchString(githubActionUsage) {
			t.Errorf("input %s: the github-action help does not name %s", name, v)
		}
	}
}
