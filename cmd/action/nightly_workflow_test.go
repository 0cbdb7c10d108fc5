package main

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"gopkg.in/yaml.v3"
)

// nightlyJob is the part of a job of the nightly workflow these tests read.
type nightlyJob struct {
	Needs    yaml.Node         `yaml:"needs"`
	If       string            `yaml:"if"`
	Uses     string            `yaml:"uses"`
	With     map[string]string `yaml:"with"`
	Outputs  map[string]string `yaml:"outputs"`
	Strategy struct {
		Matrix struct {
			Shard []int `yaml:"shard"`
		} `yaml:"matrix"`
	} `yaml:"strategy"`
	Steps []workflowStep `yaml:"steps"`
}

func readNightlyJobs(t *testing.T, path string) map[string]nightlyJob {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]nightlyJob `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return wf.Jobs
}

func (j nightlyJob) needs() []string {
	if j.Needs.Kind == yaml.ScalarNode {
		return []string{j.Needs.Value}
	}
	var n []string
	j.Needs.Decode(&n)
	return n
}

// step returns the first step for which match holds (nil: none).
func (j nightlyJob) step(match func(workflowStep) bool) *workflowStep {
	for i := range j.Steps {
		if match(j.Steps[i]) {
			return &j.Steps[i]
		}
	}
	return nil
}

// with is a step's with: value of key as text ("" when absent).
func with(s *workflowStep, key string) string {
	if s == nil {
		return ""
	}
	v, _ := s.With[key].(string)
	return v
}

func usesAction(s workflowStep) bool { return s.Uses == "./.accuracy-harness" }

// TestNightlyWorkflowWiring: the shipped nightly plans; imports the ledger
// from the plan's InferenceX dump (the reusable workflow) only when the plan
// names one and feeds it to every shard; scores a matrix of shards k/n whose
// n is the matrix's size, each reusing the last snapshot's predictions; and
// merges them in a job that runs only when every
// shard succeeded and uploads the one report artifact the bot publishes.
func TestNightlyWorkflowWiring(t *testing.T) {
	t.Parallel()
	jobs := readNightlyJobs(t, "../../.github/workflows/accuracy-nightly.yml")
	plan, ledgerJob, evaluate, rep := jobs["plan"], jobs["ledger"], jobs["evaluate"], jobs["report"]
	if len(jobs) != 4 || plan.Steps == nil || evaluate.Steps == nil || rep.Steps == nil {
		t.Fatalf("want jobs plan, ledger, evaluate, report; got %v", jobs)
	}
	planStep := plan.step(usesAction)
	if planStep == nil || with(planStep, "mode") != "nightly-plan" || with(planStep, "inferencex-repository") != "${{ vars.ACCURACY_INFERENCEX_REPOSITORY }}" {
		t.Errorf("plan step %+v: want mode nightly-plan with inferencex-repository from the repository variable", planStep)
	}
	for _, out := range []string{"changed", "plan", "inferencex-dump", "last-snapshot", "harness-repository", "harness-tag", "harness-commit"} {
		if plan.Outputs[out] == "" {
			t.Errorf("plan job has no output %s", out)
		}
	}

	// The ledger: only when the plan names a dump.
	if ledgerJob.Uses != "./.github/workflows/inferencex-db-ledger.yml" || ledgerJob.With["dump-tag"] != "${{ needs.plan.outputs.inferencex-dump }}" ||
		!strings.Contains(ledgerJob.If, "needs.plan.outputs.inferencex-dump != ''") || !strings.Contains(ledgerJob.If, "needs.plan.outputs.changed == 'true'") {
		t.Errorf("ledger job: uses %q, with %v, if %q", ledgerJob.Uses, ledgerJob.With, ledgerJob.If)
	}

	// The shards.
	n := len(evaluate.Strategy.Matrix.Shard)
	if n < 2 || !slices.Equal(evaluate.needs(), []string{"plan", "ledger"}) {
		t.Fatalf("evaluate: matrix %v, needs %v", evaluate.Strategy.Matrix.Shard, evaluate.needs())
	}
	for i, k := range evaluate.Strategy.Matrix.Shard {
		if k != i+1 {
			t.Errorf("matrix shard %v: want 1..%d", evaluate.Strategy.Matrix.Shard, n)
		}
	}
	for _, cond := range []string{"!cancelled()", "needs.plan.outputs.changed == 'true'", "needs.ledger.result == 'success' || needs.ledger.result == 'skipped'"} {
		if !strings.Contains(evaluate.If, cond) {
			t.Errorf("evaluate if %q lacks %q", evaluate.If, cond)
		}
	}
	score := evaluate.step(usesAction)
	if score == nil || with(score, "mode") != "nightly" || with(score, "plan") != "${{ needs.plan.outputs.plan }}" ||
		with(score, "shard") != fmt.Sprintf("${{ matrix.shard }}/%d", n) || !strings.Contains(with(score, "ledger-dir"), "inferencex-db-ledger") {
		t.Errorf("evaluate step %+v", score)
	}
	dl := evaluate.step(func(s workflowStep) bool { return strings.HasPrefix(s.Uses, "actions/download-artifact@") })
	if dl == nil || with(dl, "name") != "inferencex-db-ledger" || dl.If != "needs.plan.outputs.inferencex-dump != ''" ||
		!strings.HasPrefix(with(score, "ledger-dir"), "${{ needs.plan.outputs.inferencex-dump != '' && format('{0}/inferencex-db-ledger', runner.temp)") {
		t.Errorf("evaluate does not hand the imported ledger to the Action: download %+v, ledger-dir %q", dl, with(score, "ledger-dir"))
	}
	// Every shard reuses the last published snapshot's predictions.
	if got := with(score, "reuse"); got != "${{ needs.plan.outputs.last-snapshot != '' && format('data/snapshots/{0}', needs.plan.outputs.last-snapshot) || '' }}" {
		t.Errorf("evaluate reuse %q: want the last snapshot, data/snapshots/<id>", got)
	}
	up := evaluate.step(func(s workflowStep) bool { return strings.HasPrefix(s.Uses, "actions/upload-artifact@") })
	if up == nil || with(up, "name") != "accuracy-shard-${{ matrix.shard }}" || with(up, "path") != with(score, "out-dir") {
		t.Errorf("evaluate upload %+v", up)
	}

	// The merge: only after every shard succeeded; one report artifact.
	if !slices.Contains(rep.needs(), "evaluate") || !strings.Contains(rep.If, "needs.evaluate.result == 'success'") || strings.Contains(rep.If, "always()") {
		t.Errorf("report: needs %v, if %q; want it only after every shard succeeded", rep.needs(), rep.If)
	}
	get := rep.step(func(s workflowStep) bool { return strings.HasPrefix(s.Uses, "actions/download-artifact@") })
	merge := rep.step(usesAction)
	last := rep.Steps[len(rep.Steps)-1]
	if get == nil || with(get, "pattern") != "accuracy-shard-*" || merge == nil || with(merge, "mode") != "merge" ||
		with(merge, "plan") != "${{ needs.plan.outputs.plan }}" || with(merge, "shards-dir") != with(get, "path") {
		t.Errorf("report merge: download %+v, merge %+v", get, merge)
	}
	if !strings.HasPrefix(last.Uses, "actions/upload-artifact@") || with(&last, "name") != "accuracy-report" || with(&last, "path") != with(merge, "out-dir")+"/head" {
		t.Errorf("report upload %+v", last)
	}
}

// pinnedHarness is the local action every job running the harness starts
// with: on the pin file in the nightly's plan job, the ledger import and the
// leaderboard, on the plan's outputs in the nightly's later jobs.
const pinnedHarness = "./.github/actions/pinned-harness"

// pinStep is the one shell step of the pinned-harness action and its
// inputs' defaults. It fails the test unless every job that runs the
// harness checks it out through that action (no copy of the step is left).
func pinStep(t *testing.T) (workflowStep, map[string]string) {
	t.Helper()
	b, err := os.ReadFile("../../" + pinnedHarness + "/action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Using string         `yaml:"using"`
			Steps []workflowStep `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" || len(action.Runs.Steps) != 1 || action.Runs.Steps[0].Run == "" {
		t.Fatalf("%s: want a composite action of one shell step, got %+v", pinnedHarness, action.Runs)
	}
	defaults := map[string]string{}
	for k, in := range action.Inputs {
		defaults[k] = in.Default
	}
	fromPlan := map[string]string{"repository": "${{ needs.plan.outputs.harness-repository }}",
		"tag": "${{ needs.plan.outputs.harness-tag }}", "commit": "${{ needs.plan.outputs.harness-commit }}"}
	for _, c := range []struct {
		file, job string
		with      map[string]string
	}{
		{"accuracy-nightly.yml", "plan", nil},
		{"accuracy-nightly.yml", "evaluate", fromPlan},
		{"accuracy-nightly.yml", "report", fromPlan},
		{"inferencex-db-ledger.yml", "import", nil},
		{"leaderboard.yml", "run", nil},
	} {
		j := readNightlyJobs(t, "../../.github/workflows/"+c.file)[c.job]
		s := j.step(func(s workflowStep) bool { return s.Uses == pinnedHarness })
		if s == nil {
			t.Errorf("%s: job %s does not check out the harness with %s", c.file, c.job, pinnedHarness)
			continue
		}
		got := map[string]string{}
		for k := range s.With {
			got[k] = with(s, k)
		}
		if len(got) != len(c.with) || (c.with != nil && !maps.Equal(got, c.with)) {
			t.Errorf("%s: job %s gives %s %v, want %v", c.file, c.job, pinnedHarness, got, c.with)
		}
		if copied := j.step(func(s workflowStep) bool { return strings.Contains(s.Run, "git clone") }); copied != nil {
			t.Errorf("%s: job %s clones in a step of its own (%q)", c.file, c.job, copied.Name)
		}
	}
	return action.Runs.Steps[0], defaults
}

// TestNightlyPinStep runs the pinned-harness action's step as the runner
// would: it reads harness.repository, tag and commit of the pin file (not
// the leaderboard's), or takes the three the plan job read, checks out the
// harness from the git server at that commit and verifies the tag names it;
// a placeholder pin, a commit the repository lacks and a tag naming another
// commit fail with an error.
func TestNightlyPinStep(t *testing.T) {
	t.Parallel()
	step, defaults := pinStep(t)
	hdir, c1 := harnesstest.HarnessCheckout(t)
	harnesstest.Run(t, hdir, "git", "tag", "v1.0.0")
	// Tags the step's check must take exactly as the pin's parse does
	// (ident.CheckTag): each names c1, so only the check can refuse it.
	tags := []string{"v1.0.0-rc.1", "v0.10.2-alpha-1.x", "v1.0.0.1", "v1.0.0foo", "v01.0.0", "v1.0.0-01", "v1.0.0+build", "v1.0", "v1.0.0-"}
	for _, tag := range tags {
		harnesstest.Run(t, hdir, "git", "tag", tag)
	}
	// Tags git cannot hold: the check refuses them before any clone.
	tags = append(tags, "v1.0.0-rc..1", "v1.0.0-"+strings.Repeat("a", ident.MaxTagBytes-len("v1.0.0-")+1))
	writeFile(t, filepath.Join(hdir, "CHANGES"), "more\n")
	c2 := harnesstest.CommitAll(t, hdir, "after the release")
	srv := t.TempDir()
	harnesstest.Run(t, "", "git", "clone", "--quiet", "--bare", hdir, filepath.Join(srv, "inference-sim", "accuracy-dashboard.git"))

	// run runs the step in a fresh workspace holding pinText at the default
	// pin file, the action's inputs given (over their defaults) as env.
	run := func(pinText string, given map[string]string) (map[string]string, string, error) {
		inputs := maps.Clone(defaults)
		maps.Copy(inputs, given)
		ws := t.TempDir()
		writeFile(t, filepath.Join(ws, inputs["pin-file"]), pinText)
		out := filepath.Join(t.TempDir(), "output")
		writeFile(t, out, "")
		cmd := exec.Command("bash", "-e", "-c", step.Run)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GITHUB_SERVER_URL=file://"+srv, "GITHUB_OUTPUT="+out)
		for k, v := range step.Env {
			name, ok := strings.CutPrefix(v, "${{ inputs.")
			if name, ok = strings.CutSuffix(name, " }}"); !ok {
				t.Fatalf("the step's env %s=%q is not an input of the action", k, v)
			}
			cmd.Env = append(cmd.Env, k+"="+inputs[name])
		}
		msg, err := cmd.CombinedOutput()
		if err != nil {
			return nil, string(msg), err
		}
		head := harnesstest.Run(t, filepath.Join(ws, ".accuracy-harness"), "git", "rev-parse", "HEAD")
		o := map[string]string{"HEAD": strings.TrimSpace(head)}
		raw, _ := os.ReadFile(out)
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			if k, v, ok := strings.Cut(line, "="); ok {
				o[k] = v
			}
		}
		return o, string(msg), nil
	}
	pinOf := func(tag, commit string) string {
		return "# The harness release.\nharness:\n  repository: \"inference-sim/accuracy-dashboard\"   # owner/name\n  tag: " + tag + "  # release\n  commit: " + commit + "\n" +
			"leaderboard:\n  simulator:\n    repository: inference-sim/inference-sim\n    tag: v0.7.15\n    commit: " + strings.Repeat("f", 40) + "\n" +
			"  catalog:\n    source: none\n"
	}
	out, msg, err := run(pinOf("v1.0.0", c1), nil)
	if err != nil || out["repository"] != "inference-sim/accuracy-dashboard" || out["tag"] != "v1.0.0" || out["commit"] != c1 || out["HEAD"] != c1 {
		t.Errorf("pin step: %v, outputs %v\n%s", err, out, msg)
	}
	// The nightly's later jobs: the plan's outputs, not the pin file.
	plan := map[string]string{"repository": "inference-sim/accuracy-dashboard", "tag": "v1.0.0", "commit": c1}
	out, msg, err = run("data:\n  ledger: bundled\n", plan)
	if err != nil || out["commit"] != c1 || out["HEAD"] != c1 {
		t.Errorf("pin step on the plan's outputs: %v, outputs %v\n%s", err, out, msg)
	}
	for _, tag := range tags {
		out, msg, err := run(pinOf(fmt.Sprintf("%q", tag), c1), nil)
		switch want := ident.CheckTag(tag); {
		case want == nil && (err != nil || out["tag"] != tag || out["HEAD"] != c1):
			t.Errorf("tag %q, a release tag: %v, outputs %v\n%s", tag, err, out, msg)
		case want != nil && (err == nil || !strings.Contains(msg, "a release tag vX.Y.Z")):
			t.Errorf("tag %q, which the pin refuses (%v): %v, want the step to refuse it\n%s", tag, want, err, msg)
		}
	}
	for name, c := range map[string]struct {
		pin   string
		given map[string]string
		want  string
	}{
		"bad tag given": {pinOf("v1.0.0", c1), map[string]string{"repository": "inference-sim/accuracy-dashboard", "tag": "v1.0.0.1", "commit": c1},
			"a release tag vX.Y.Z and its 40-hex commit; got 'inference-sim/accuracy-dashboard' 'v1.0.0.1'"},
		"two lines given": {pinOf("v1.0.0", c1), map[string]string{"repository": "inference-sim/accuracy-dashboard", "tag": "v1.0.0\nv1.0.0", "commit": c1},
			"a release tag vX.Y.Z and its 40-hex commit; got 'inference-sim/accuracy-dashboard' 'v1.0.0\nv1.0.0'"},
		"placeholder":        {pinOf("v0.0.0", strings.Repeat("0", 40)), nil, "has no commit " + strings.Repeat("0", 40)},
		"tag names another":  {pinOf("v1.0.0", c2), nil, "tag v1.0.0 names '" + c1 + "', not the pinned " + c2},
		"no harness section": {"data:\n  ledger: bundled\n", nil, "want repository owner/name"},
		"no such repository": {strings.Replace(pinOf("v1.0.0", c1), "accuracy-dashboard", "no-such-harness", 1), nil,
			"::error file=.github/accuracy-harness.yaml::cannot clone inference-sim/no-such-harness from file://"},
		"plan's tag names another": {pinOf("v1.0.0", c1), map[string]string{"repository": "inference-sim/accuracy-dashboard", "tag": "v1.0.0", "commit": c2},
			"tag v1.0.0 names '" + c1 + "', not the pinned " + c2},
	} {
		if _, msg, err := run(c.pin, c.given); err == nil || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %v, want an error with %q\n%s", name, err, c.want, msg)
		}
	}
}
