package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"gopkg.in/yaml.v3"
)

// workflowFile is the part of a GitHub workflow these tests read.
type workflowFile struct {
	Permissions yaml.Node `yaml:"permissions"`
	Jobs        map[string]struct {
		Needs       yaml.Node      `yaml:"needs"`
		Permissions yaml.Node      `yaml:"permissions"`
		Steps       []workflowStep `yaml:"steps"`
	} `yaml:"jobs"`
}

type workflowStep struct {
	ID               string            `yaml:"id"`
	Name             string            `yaml:"name"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	Run              string            `yaml:"run"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
	With             map[string]any    `yaml:"with"`
}

func readWorkflow(t *testing.T, path string) workflowFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var wf workflowFile
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return wf
}

// writes lists the scopes a permissions node grants write access to
// ("write-all" counts as every scope).
func writes(n yaml.Node) []string {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Value == "write-all" {
			return []string{"write-all"}
		}
	case yaml.MappingNode:
		var w []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i+1].Value == "write" {
				w = append(w, n.Content[i].Value)
			}
		}
		return w
	}
	return nil
}

// TestReleaseWorkflowTestsWithoutWrite: the release workflow runs the tests
// (.ci/run: npm install scripts, go install, the whole suite) in a job whose
// token is read-only; only the publishing job, which runs none of that and
// starts after the tests passed, may write.
func TestReleaseWorkflowTestsWithoutWrite(t *testing.T) {
	t.Parallel()
	wf := readWorkflow(t, "../../.github/workflows/release.yml")
	if w := writes(wf.Permissions); len(w) > 0 {
		t.Errorf("workflow-level permissions grant write (%v) to every job", w)
	}
	testJob, writers := "", []string{}
	for name, j := range wf.Jobs {
		runsTests := slices.ContainsFunc(j.Steps, func(s workflowStep) bool {
			return strings.Contains(s.Run, ".ci/run") || strings.Contains(s.Run, "go test") || strings.Contains(s.Run, "npm ")
		})
		if runsTests {
			testJob = name
		}
		if len(writes(j.Permissions)) > 0 {
			writers = append(writers, name)
			if runsTests {
				t.Errorf("job %s runs the tests with write permissions %v", name, writes(j.Permissions))
			}
		}
	}
	if testJob == "" || len(writers) == 0 {
		t.Fatalf("want a job that runs .ci/run and a publishing job with write; got test job %q, writers %v", testJob, writers)
	}
	for _, name := range writers {
		var needs []string
		n := wf.Jobs[name].Needs
		if n.Kind == yaml.ScalarNode {
			needs = []string{n.Value}
		} else {
			n.Decode(&needs)
		}
		if !slices.Contains(needs, testJob) {
			t.Errorf("job %s writes without needing the tests (%s); needs %v", name, testJob, needs)
		}
	}
}

// TestExampleWorkflowsDropCheckoutCredentials: actions/checkout leaves the
// workflow token in .git/config unless persist-credentials is false, where
// the code under test (the simulator) could read it. Every example workflow
// that checks out code turns that off.
func TestExampleWorkflowsDropCheckoutCredentials(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../docs/examples/*.yml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example workflows: %v", err)
	}
	for _, f := range files {
		for job, j := range readWorkflow(t, f).Jobs {
			for i, s := range j.Steps {
				if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["persist-credentials"] != false {
					t.Errorf("%s: job %s step %d: actions/checkout without persist-credentials: false", filepath.Base(f), job, i+1)
				}
			}
		}
	}
}

// actionYAML is the part of action.yml the workflow tests read.
type actionYAML struct {
	Inputs  map[string]any `yaml:"inputs"`
	Outputs map[string]any `yaml:"outputs"`
}

// stepOutputRe finds ${{ steps.<id>.outputs.<name> }} references.
var stepOutputRe = regexp.MustCompile(`steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)`)

// TestShippedWorkflowsUseTheActionAsDeclared: every workflow this
// repository ships or documents that uses the Action gives it only inputs
// action.yml declares (a misspelt input is silently ignored by the runner)
// and reads only outputs action.yml declares.
func TestShippedWorkflowsUseTheActionAsDeclared(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action actionYAML
	if err := yaml.Unmarshal(raw, &action); err != nil {
		t.Fatal(err)
	}
	examples, _ := filepath.Glob("../../docs/examples/*.yml")
	shipped, _ := filepath.Glob("../../.github/workflows/*.yml")
	used := 0
	for _, f := range append(examples, shipped...) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					ID   string         `yaml:"id"`
					Uses string         `yaml:"uses"`
					With map[string]any `yaml:"with"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(src, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		ids := map[string]bool{}
		for job, j := range wf.Jobs {
			for _, s := range j.Steps {
				if s.Uses != "./" && s.Uses != "./.accuracy-harness" && !strings.HasPrefix(s.Uses, "inference-sim/accuracy-dashboard@") {
					continue
				}
				used++
				ids[s.ID] = true
				for k := range s.With {
					if _, ok := action.Inputs[k]; !ok {
						t.Errorf("%s: job %s gives the Action input %q, which action.yml does not declare", filepath.Base(f), job, k)
					}
				}
			}
		}
		for _, m := range stepOutputRe.FindAllStringSubmatch(string(src), -1) {
			if _, ok := action.Outputs[m[2]]; ids[m[1]] && !ok {
				t.Errorf("%s: reads output %s of the Action, which action.yml does not declare", filepath.Base(f), m[2])
			}
		}
	}
	if used < 5 {
		t.Errorf("only %d workflow steps use the Action; the examples were not found", used)
	}
}

// examplePinProblem says what is wrong with a uses: line of an example
// workflow ("" when nothing): as docs/ACTION.md ("Workflows to copy")
// says, a third-party action is pinned by commit with its version as a
// comment (pinnedUse), and the project's Action is named by @v1, the
// release line the release workflow moves, the same in every example.
func examplePinProblem(line string) string {
	uses := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- "))
	switch {
	case uses == "uses: inference-sim/accuracy-dashboard@v1":
		return ""
	case strings.HasPrefix(uses, "uses: inference-sim/accuracy-dashboard@"):
		return "names the Action otherwise than @v1, as the other examples and docs/ACTION.md do"
	case !pinnedUse.MatchString(line):
		return "is not pinned by commit with a version comment"
	}
	return ""
}

// TestExampleWorkflowPins: every action an example workflow uses (each
// step's uses:, leaderboard-pr.yml's too) is pinned as docs/ACTION.md says
// (examplePinProblem), and the check refuses what it must.
func TestExampleWorkflowPins(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../../docs/examples/*.yml")
	if !slices.Contains(files, "../../docs/examples/leaderboard-pr.yml") || len(files) < 5 {
		t.Fatalf("example workflows %v, want the five docs/ACTION.md lists", files)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines, steps := 0, 0
		for _, line := range strings.Split(string(raw), "\n") {
			if !strings.Contains(line, "uses:") || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			lines++
			if p := examplePinProblem(line); p != "" {
				t.Errorf("%s: %q %s", filepath.Base(f), strings.TrimSpace(line), p)
			}
		}
		for _, j := range readWorkflow(t, f).Jobs {
			for _, s := range j.Steps {
				if s.Uses != "" {
					steps++
				}
			}
		}
		if lines != steps {
			t.Errorf("%s: %d uses: lines for %d steps using an action; want one line each", filepath.Base(f), lines, steps)
		}
	}
	sha := strings.Repeat("a", 40)
	for line, want := range map[string]string{
		"      - uses: inference-sim/accuracy-dashboard@" + sha + " # v1.2.0": "otherwise than @v1",
		"        uses: inference-sim/accuracy-dashboard@main":                 "otherwise than @v1",
		"      - uses: actions/checkout@v4":                                   "not pinned by commit",
		"      - uses: actions/checkout@" + sha:                               "not pinned by commit",
		"      - uses: actions/checkout@" + sha + " # v4.2.2":                 "",
		"        uses: inference-sim/accuracy-dashboard@v1":                   "",
	} {
		if got := examplePinProblem(line); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("examplePinProblem(%q) = %q, want %q", line, got, want)
		}
	}
}

// TestLeaderboardExampleWorkflow: the leaderboard's copy-paste workflow
// is quoted in docs/LEADERBOARD.md as it is in docs/examples/, runs on
// pull_request (never pull_request_target: it builds and runs what the
// pin file names), may write pull-request comments and nothing else, and
// runs the Action in mode leaderboard.
func TestLeaderboardExampleWorkflow(t *testing.T) {
	t.Parallel()
	const file = "../../docs/examples/leaderboard-pr.yml"
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/LEADERBOARD.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```yaml\n"+string(src)+"```\n") {
		t.Error("docs/LEADERBOARD.md does not quote docs/examples/leaderboard-pr.yml as it is")
	}
	var on struct {
		On map[string]any `yaml:"on"`
	}
	if err := yaml.Unmarshal(src, &on); err != nil {
		t.Fatal(err)
	}
	if _, ok := on.On["pull_request"]; !ok {
		t.Error("the workflow does not run on pull_request")
	}
	if _, ok := on.On["pull_request_target"]; ok {
		t.Error("the workflow runs on pull_request_target")
	}
	wf := readWorkflow(t, file)
	if w := writes(wf.Permissions); !slices.Equal(w, []string{"pull-requests"}) {
		t.Errorf("the workflow may write %v, want pull-requests only", w)
	}
	mode := ""
	for _, j := range wf.Jobs {
		if len(writes(j.Permissions)) > 0 {
			t.Errorf("a job widens the permissions: %v", writes(j.Permissions))
		}
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, "inference-sim/accuracy-dashboard@") {
				mode, _ = s.With["mode"].(string)
			}
		}
	}
	if mode != "leaderboard" {
		t.Errorf("the Action runs in mode %q, want leaderboard", mode)
	}
}

// placeholderRe matches a placeholder pin: the all-zero commit or the
// version v0.0.0.
var placeholderRe = regexp.MustCompile(`(?m)\b0{40}\b|\bv0\.0\.0(?:$|[^\w.-])`)

// TestNoPlaceholderPins: nothing a new user installs names a placeholder.
// The shipped nightly workflows name no harness version at all (they read
// the pin file and check out the Action at its release), and the pin a user
// downloads is stamped by the release workflow with the release's tag and
// the commit it names (scripts/release-install-files.sh, run here as the
// release workflow runs it).
func TestNoPlaceholderPins(t *testing.T) {
	t.Parallel()
	shipped, _ := filepath.Glob("../../.github/workflows/*.yml")
	examples, _ := filepath.Glob("../../docs/examples/*.yml")
	for _, f := range append(shipped, examples...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := placeholderRe.Find(b); m != nil {
			t.Errorf("%s names the placeholder %s", f, m)
		}
	}
	for _, name := range []string{"accuracy-nightly.yml", "inferencex-db-ledger.yml", "leaderboard.yml"} {
		b, err := os.ReadFile("../../.github/workflows/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "inference-sim/accuracy-dashboard@") {
			t.Errorf("%s pins the Action itself; the pin file is the one place naming the harness release", name)
		}
		if !strings.Contains(string(b), "uses: ./.accuracy-harness") && name == "accuracy-nightly.yml" {
			t.Errorf("%s does not run the Action checked out at the pinned release", name)
		}
	}
	rel, err := os.ReadFile("../../.github/workflows/release.yml")
	if err != nil || !strings.Contains(string(rel), "scripts/release-install-files.sh --tag") {
		t.Fatalf("the release workflow does not stamp the install files (%v)", err)
	}

	// A release checkout at v1.2.3: the stamped files.
	repo := t.TempDir()
	for _, name := range []string{"workflows/accuracy-nightly.yml", "workflows/inferencex-db-ledger.yml", "actions/pinned-harness/action.yml"} {
		b, _ := os.ReadFile("../../.github/" + name)
		writeFile(t, filepath.Join(repo, ".github", name), string(b))
	}
	harnesstest.GitInit(t, repo)
	commit := harnesstest.CommitAll(t, repo, "release")
	harnesstest.Run(t, repo, "git", "tag", "-a", "-m", "v1.2.3", "v1.2.3")
	script, _ := filepath.Abs("../../scripts/release-install-files.sh")
	out := filepath.Join(t.TempDir(), "install")
	harnesstest.Run(t, repo, "bash", script, "--tag", "v1.2.3", "--repository", "inference-sim/accuracy-dashboard", out)
	raw, err := os.ReadFile(filepath.Join(out, "accuracy-harness.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := pin.Parse(raw, "accuracy-harness.yaml")
	if err != nil || p.Harness.Tag != "v1.2.3" || p.Harness.Commit != commit || p.Harness.Repository != "inference-sim/accuracy-dashboard" {
		t.Errorf("stamped pin: %+v, %v\n%s", p.Harness, err, raw)
	}
	for _, name := range []string{"accuracy-harness.yaml", "accuracy-nightly.yml", "inferencex-db-ledger.yml", "action.yml"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Errorf("release asset %s: %v", name, err)
		}
		if m := placeholderRe.Find(b); m != nil {
			t.Errorf("release asset %s names the placeholder %s", name, m)
		}
	}
	// Every file the script writes is a release asset, and docs/NIGHTLY.md
	// says where a user puts it; the release uploads no other.
	written, _ := os.ReadDir(out)
	nightlyDoc, _ := os.ReadFile("../../docs/NIGHTLY.md")
	for _, e := range written {
		if !strings.Contains(string(rel), `"${RUNNER_TEMP}/install/`+e.Name()+`"`) {
			t.Errorf("release.yml does not upload %s, which scripts/release-install-files.sh writes", e.Name())
		}
		if !strings.Contains(string(nightlyDoc), "| `"+e.Name()+"` | `.github/") {
			t.Errorf("docs/NIGHTLY.md's install table does not list the release asset %s", e.Name())
		}
	}
	if n := strings.Count(string(rel), `"${RUNNER_TEMP}/install/`); n != len(written) {
		t.Errorf("release.yml uploads %d install files, the script writes %d", n, len(written))
	}
	// A tag the checkout does not have is refused.
	cmd := exec.Command("bash", script, "--tag", "v9.0.0", "--repository", "inference-sim/accuracy-dashboard", t.TempDir())
	cmd.Dir = repo
	if msg, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(msg), "no tag v9.0.0") {
		t.Errorf("stamping an absent tag: %v\n%s", err, msg)
	}
}

// TestReleaseWorkflowBuildsTheLeaderboardImage: a release builds the
// leaderboard server's image from deploy/leaderboard.Containerfile for
// linux/amd64 and linux/arm64 and pushes it to ghcr.io with the release
// tag, in a job that needs the tests, may write packages only and keeps no
// checkout credentials, stating the tool's commit and release to the build.
func TestReleaseWorkflowBuildsTheLeaderboardImage(t *testing.T) {
	t.Parallel()
	wf := readWorkflow(t, "../../.github/workflows/release.yml")
	j, ok := wf.Jobs["image"]
	if !ok {
		t.Fatal("release.yml has no image job")
	}
	if j.Needs.Value != "test" {
		t.Errorf("the image job needs %q, want the tests", j.Needs.Value)
	}
	if w := writes(j.Permissions); !slices.Equal(w, []string{"packages"}) {
		t.Errorf("the image job writes %v, want packages only", w)
	}
	var run string
	for _, s := range j.Steps {
		if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["persist-credentials"] != false {
			t.Errorf("the image job's checkout keeps its credentials: %v", s.With)
		}
		run += s.Run
	}
	for _, want := range []string{
		"--file deploy/leaderboard.Containerfile", "--platform linux/amd64,linux/arm64", `image="ghcr.io/${OWNER,,}/accuracy-leaderboard"`,
		`--tag "${image}:${TAG}"`, "--push", `"HARNESS_COMMIT=${GITHUB_SHA}"`, `"HARNESS_VERSION=${TAG}"`, "docker login ghcr.io",
	} {
		if !strings.Contains(run, want) {
			t.Errorf("the image job does not run %s", want)
		}
	}
	if _, err := os.Stat("../../deploy/leaderboard.Containerfile"); err != nil {
		t.Error(err)
	}
}
