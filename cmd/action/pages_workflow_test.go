package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
	"gopkg.in/yaml.v3"
)

const pagesWorkflow = "../../.github/workflows/pages.yml"

// pinnedUse is a remote action pinned by commit with its version as a
// comment: "owner/name@<40 hex> # vX.Y.Z".
var pinnedUse = regexp.MustCompile(`^\s*(?:- )?uses: [\w.-]+/[\w.-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$`)

// TestPagesWorkflow: the Pages workflow builds on a push to main that
// changes data/ or the site's sources, and on demand; its token may only
// read, except the deploy job's, which gets pages: write and id-token:
// write and nothing else; every remote action is pinned by commit with a
// version comment; the build runs `action site` on the checkout.
func TestPagesWorkflow(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(pagesWorkflow)
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On struct {
			Push struct {
				Branches []string `yaml:"branches"`
				Paths    []string `yaml:"paths"`
			} `yaml:"push"`
		} `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Permissions map[string]string `yaml:"permissions"`
			Needs       string            `yaml:"needs"`
			Steps       []workflowStep    `yaml:"steps"`
		} `yaml:"jobs"`
	}
	var on struct {
		On map[string]yaml.Node `yaml:"on"`
	}
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &on); err != nil {
		t.Fatal(err)
	}
	_, dispatch := on.On["workflow_dispatch"]
	if !slices.Equal(wf.On.Push.Branches, []string{"main"}) || !slices.Contains(wf.On.Push.Paths, "data/**") ||
		!slices.Contains(wf.On.Push.Paths, "internal/**") || !slices.Contains(wf.On.Push.Paths, "go.sum") || !dispatch {
		t.Errorf("triggers: push %+v, workflow_dispatch %v; want main, data/** and the site's sources, and on demand", wf.On.Push, dispatch)
	}
	if len(wf.Permissions) != 1 || wf.Permissions["contents"] != "read" {
		t.Errorf("workflow permissions %v, want contents: read only", wf.Permissions)
	}
	for name, j := range wf.Jobs {
		switch {
		case name == "deploy":
			if len(j.Permissions) != 2 || j.Permissions["pages"] != "write" || j.Permissions["id-token"] != "write" || j.Needs != "build" {
				t.Errorf("deploy job: permissions %v, needs %q; want pages and id-token write only, after build", j.Permissions, j.Needs)
			}
		case j.Permissions != nil:
			t.Errorf("job %s sets permissions %v: only the deploy job may", name, j.Permissions)
		}
	}
	build := wf.Jobs["build"]
	if !slices.ContainsFunc(build.Steps, func(s workflowStep) bool { return strings.Contains(s.Run, "go run ./cmd/action site --dashboard .") }) {
		t.Error("the build job does not run action site on the checkout")
	}
	uses := 0
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.Contains(line, "uses:") {
			continue
		}
		uses++
		if !pinnedUse.MatchString(line) {
			t.Errorf("not pinned by commit with a version comment: %q", strings.TrimSpace(line))
		}
	}
	if uses < 4 {
		t.Errorf("%d uses: lines, want checkout, setup-go, upload-pages-artifact and deploy-pages", uses)
	}
}

// actionlint finds rhysd/actionlint (.ci/install-act.sh installs it);
// CI must run the test, elsewhere it is skipped without it.
func actionlint(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("actionlint"); err == nil {
		return p
	}
	if p := filepath.Join(goEnv(t, "GOPATH"), "bin", "actionlint"); fileExists(p) {
		return p
	}
	testkit.Missing(t, "actionlint", errors.New("not on PATH nor in $GOPATH/bin"),
		"go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12 (.ci/install-act.sh installs it)")
	return ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestWorkflowsPassActionlint: every workflow this repository runs or
// ships passes actionlint (expressions, job outputs, permissions, shell).
func TestWorkflowsPassActionlint(t *testing.T) {
	t.Parallel()
	bin := actionlint(t)
	files, _ := filepath.Glob("../../.github/workflows/*.yml")
	if !slices.Contains(files, pagesWorkflow) {
		t.Fatalf("no %s among %v", pagesWorkflow, files)
	}
	out, err := exec.Command(bin, append([]string{"-no-color"}, files...)...).CombinedOutput()
	if err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
}

// TestPagesWorkflowUnderAct runs the Pages workflow's build job with
// nektos/act on a copy of this working tree: with a published dashboard
// (the stand-in's two snapshots in data/) it uploads the site `action
// site` builds; without data/ it builds and uploads nothing. The upload
// action is a local stand-in that copies what it is given.
func TestPagesWorkflowUnderAct(t *testing.T) {
	act := harnesstest.FindAct(t)
	_, dash, site := standinDashboard(t)
	repo, _ := harnesstest.ModuleRepo(t)
	uploaded := filepath.Join(t.TempDir(), "uploaded")
	upload := filepath.Join(t.TempDir(), "upload-pages-artifact")
	writeFile(t, filepath.Join(upload, "action.yml"), "name: upload-pages-artifact stand-in\ninputs:\n  path: {}\nruns:\n  using: composite\n  steps:\n"+
		"    - shell: bash\n      run: cp -r \"${{ inputs.path }}\" "+uploaded+"\n")
	setupGo := filepath.Join(t.TempDir(), "setup-go")
	writeFile(t, filepath.Join(setupGo, "action.yml"), "name: setup-go stand-in\ninputs:\n  go-version-file: {}\nruns:\n  using: composite\n  steps:\n    - shell: bash\n      run: go version\n")
	runAct := func() string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, act, "workflow_dispatch", "-W", ".github/workflows/pages.yml", "-j", "build",
			"-P", "ubuntu-latest=-self-hosted", "--no-cache-server",
			"--local-repository", "actions/setup-go@d35c59abb061a4a6fb18e82ac0862c26744d6ab5="+setupGo,
			"--local-repository", "actions/upload-pages-artifact@fc324d3547104276b827a68afc52ff2a11cc49c9="+upload,
			"--env", "HOME="+t.TempDir(), "--env", "GOFLAGS=-mod=mod",
			"--env", "GOMODCACHE="+goEnv(t, "GOMODCACHE"), "--env", "GOCACHE="+goEnv(t, "GOCACHE"))
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "ACT_DISABLE_VERSION_CHECK=1")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("act: %v\n%s", err, out.String())
		}
		return out.String()
	}

	log := runAct()
	if !strings.Contains(log, "nothing to deploy") || fileExists(uploaded) {
		t.Errorf("without data/: uploaded %v; log:\n%s", fileExists(uploaded), log)
	}
	if err := os.CopyFS(filepath.Join(repo, "data"), os.DirFS(filepath.Join(dash, "data"))); err != nil {
		t.Fatal(err)
	}
	harnesstest.CommitAll(t, repo, "publish two snapshots")
	log = runAct()
	if got, want := testkit.Paths(t, uploaded), testkit.Paths(t, site); !slices.Equal(got, want) {
		t.Fatalf("uploaded %v, want the site action site builds (%v); log:\n%s", got, want, log)
	}
	for _, f := range testkit.Paths(t, site) {
		a, _ := os.ReadFile(filepath.Join(uploaded, f))
		b, _ := os.ReadFile(filepath.Join(site, f))
		if !bytes.Equal(a, b) {
			t.Errorf("uploaded %s differs from action site's", f)
		}
	}
}
