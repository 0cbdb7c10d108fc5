package bump

import (
	"context"
	"github.com/inference-sim/accuracy-dashboard/internal/bump/bumpfake"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/golden"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"

	"github.com/google/go-cmp/cmp"
)

const (
	harnessName = "inference-sim/accuracy-dashboard"
	oldCommit   = "0123456789abcdef0123456789abcdef01234567"
	bumpBranch  = "accuracy-bot/harness"
)

var pinV100 = `# The accuracy harness this repository's PR checks run.
harness:
  repository: inference-sim/accuracy-dashboard
  tag: v1.0.0   # bumped by the bot
  commit: ` + oldCommit + `
data:
  ledger: bundled
`

var workflowV100 = `name: accuracy
on: pull_request
jobs:
  accuracy:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: inference-sim/accuracy-dashboard@` + oldCommit + ` # v1.0.0
        with:
          mode: pr
`

type bumpWorld struct {
	gh                              *bumpfake.GitHub
	harness, app, lib, plain, newer ident.Repo
	bumper                          *Bumper
}

func newBumpWorld(t *testing.T) *bumpWorld {
	gh := bumpfake.New(t)
	w := &bumpWorld{gh: gh}
	w.harness = gh.AddRepo(harnessName, map[string]string{"go.mod": "module x\n"}, false)
	w.app = gh.AddRepo("org/app", map[string]string{
		".github/accuracy-harness.yaml":  pinV100,
		".github/workflows/accuracy.yml": workflowV100,
		".github/workflows/notes.txt":    "not a workflow",
	}, true)
	w.lib = gh.AddRepo("org/lib", map[string]string{".github/workflows/ci.yaml": workflowV100}, true)
	w.plain = gh.AddRepo("org/plain", map[string]string{"README.md": "hi\n"}, true)
	w.newer = gh.AddRepo("org/newer", map[string]string{
		".github/accuracy-harness.yaml": strings.Replace(pinV100, "v1.0.0", "v9.0.0", 1),
	}, true)
	w.bumper = &Bumper{GH: gh, Cfg: BumpConfig{
		Harness: w.harness, PinFile: ".github/accuracy-harness.yaml", Branch: bumpBranch, WebURL: "https://github.com",
	}}
	return w
}

func outcomes(os []RepoOutcome) map[string]string {
	m := map[string]string{}
	for _, o := range os {
		m[o.Repo.String()] = o.Outcome
	}
	return m
}

func TestBumpReleaseOnePullPerPinningRepository(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newBumpWorld(t)
	rel, sha := w.gh.AddRelease(w.harness, "v1.1.0", "Faster scoring. Thanks @alice, fixes #12.")
	got, err := w.bumper.BumpRelease(ctx, rel, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"org/app": OutcomeCreated, "org/lib": OutcomeCreated, "org/plain": OutcomeSkipped, "org/newer": OutcomeSkipped}
	if d := cmp.Diff(want, outcomes(got)); d != "" {
		t.Errorf("outcomes (-want +got):\n%s", d)
	}
	for _, repo := range []ident.Repo{w.app, w.lib} {
		pulls := w.gh.OpenPullsOf(repo)
		if len(pulls) != 1 {
			t.Fatalf("%s: %d open pull requests, want 1", repo, len(pulls))
		}
		p := pulls[0]
		if base := w.gh.PullBase(repo, p.Number); p.Title != "Bump accuracy harness to v1.1.0" || p.Head != bumpBranch || base != "main" {
			t.Errorf("%s: pull = %+v", repo, p)
		}
		for _, want := range []string{render.BumpMarker, "https://github.com/" + harnessName + "/compare/v1.0.0...v1.1.0", "@\u200dalice", "#\u200d12", sha} {
			if !strings.Contains(p.Body, want) {
				t.Errorf("%s: body lacks %q:\n%s", repo, want, p.Body)
			}
		}
		files := w.gh.Tip(repo, bumpBranch)
		for path, content := range files {
			if strings.Contains(string(content), oldCommit) {
				t.Errorf("%s: %s on the bump branch still pins the old commit", repo, path)
			}
		}
	}
	wantWF := strings.Replace(strings.Replace(workflowV100, oldCommit, sha, 1), "# v1.0.0", "# v1.1.0", 1)
	if d := cmp.Diff(wantWF, string(w.gh.Tip(w.lib, bumpBranch)[".github/workflows/ci.yaml"])); d != "" {
		t.Errorf("bumped workflow (-want +got):\n%s", d)
	}
	wantPin := strings.Replace(strings.Replace(pinV100, oldCommit, sha, 1), "tag: v1.0.0", "tag: v1.1.0", 1)
	if d := cmp.Diff(wantPin, string(w.gh.Tip(w.app, bumpBranch)[".github/accuracy-harness.yaml"])); d != "" {
		t.Errorf("bumped pin file (-want +got):\n%s", d)
	}
	if n := w.gh.CountWrites("CreateCommit"); n != 2 {
		t.Errorf("%d commits, want one per pinning repository (2)", n)
	}

	// A redelivered event changes nothing.
	before := len(w.gh.Writes)
	again, err := w.bumper.BumpRelease(ctx, rel, nil)
	if err != nil {
		t.Fatal(err)
	}
	if extra := w.gh.Writes[before:]; len(extra) != 0 {
		t.Errorf("redelivery wrote %v, want nothing", extra)
	}
	if o := outcomes(again); o["org/app"] != OutcomeUnchanged || o["org/lib"] != OutcomeUnchanged {
		t.Errorf("redelivery outcomes = %v", o)
	}
}

func TestBumpUpdatesInPlaceClosesSupersededAndRespectsHumans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newBumpWorld(t)
	// An older bump PR on another branch, opened by the bot.
	w.gh.Push(w.app, "accuracy-bot/harness-v0.9.0", map[string]string{"x": "y"}, "old bump\n\n"+BumpTrailer, w.gh.ID)
	old, _ := w.gh.CreatePull(ctx, w.app, "accuracy-bot/harness-v0.9.0", "main", "Bump accuracy harness to v0.9.0", render.BumpMarker+"\nold")
	// A human's PR that mentions the marker is not the bot's.
	w.gh.Push(w.app, "feature", map[string]string{"f": "1"}, "feature", ghmodel.Identity{Login: "human"})
	w.gh.Mu.Lock()
	w.gh.Repos["org/app"].Pulls = append(w.gh.Repos["org/app"].Pulls, &bumpfake.FakePull{Pull: ghmodel.Pull{Number: 99, Head: "feature", Author: "human", Body: render.BumpMarker}})
	w.gh.Mu.Unlock()

	rel1, _ := w.gh.AddRelease(w.harness, "v1.1.0", "one")
	if _, err := w.bumper.BumpRelease(ctx, rel1, nil); err != nil {
		t.Fatal(err)
	}
	first := w.gh.OpenPullsOf(w.app)
	var bump ghmodel.Pull
	for _, p := range first {
		if p.Head == bumpBranch {
			bump = p
		}
		if p.Number == old.Number {
			t.Errorf("superseded pull request #%d still open", old.Number)
		}
	}
	if len(first) != 2 {
		t.Errorf("open pulls = %+v, want the bump and the human's", first)
	}

	rel2, sha2 := w.gh.AddRelease(w.harness, "v1.2.0", "two")
	got, err := w.bumper.BumpRelease(ctx, rel2, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range got {
		if o.Repo == w.app && (o.Outcome != OutcomeUpdated || o.Pull != bump.Number) {
			t.Errorf("app outcome = %+v, want pull #%d updated in place", o, bump.Number)
		}
	}
	now := w.gh.OpenPullsOf(w.app)
	if len(now) != 2 {
		t.Fatalf("open pulls after the second release = %+v", now)
	}
	for _, p := range now {
		if p.Head == bumpBranch && (p.Number != bump.Number || p.Title != "Bump accuracy harness to v1.2.0" || !strings.Contains(p.Body, "compare/v1.0.0...v1.2.0")) {
			t.Errorf("bump pull not updated in place: %+v", p)
		}
	}
	if !strings.Contains(string(w.gh.Tip(w.app, bumpBranch)[".github/workflows/accuracy.yml"]), sha2+" # v1.2.0") {
		t.Error("bump branch not moved to v1.2.0")
	}

	// A human pushes to the bump branch of lib: the bot leaves it alone.
	humanSHA := w.gh.Push(w.lib, bumpBranch, map[string]string{"tweak": "1"}, "tweak", ghmodel.Identity{Login: "human"})
	rel3, _ := w.gh.AddRelease(w.harness, "v1.3.0", "three")
	got, err = w.bumper.BumpRelease(ctx, rel3, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range got {
		if o.Repo == w.lib && (o.Outcome != OutcomeSkipped || !strings.Contains(o.Reason, "not made by the bot")) {
			t.Errorf("lib outcome = %+v, want skipped for a human push", o)
		}
		if o.Repo == w.app && o.Outcome != OutcomeUpdated {
			t.Errorf("app outcome = %+v, want updated", o)
		}
	}
	if head, _ := w.gh.BranchHead(ctx, w.lib, bumpBranch); head != humanSHA {
		t.Errorf("lib bump branch moved from the human's commit")
	}
}

func TestBumpReleaseIgnoresDraftsPrereleasesAndOtherRepos(t *testing.T) {
	t.Parallel()
	h := ident.Repo{Owner: "inference-sim", Name: "accuracy-dashboard"}
	for _, tc := range []struct {
		rel      ghmodel.Release
		allowPre bool
		want     string
	}{
		{ghmodel.Release{Repo: h, Tag: "v1.0.0"}, false, ""},
		{ghmodel.Release{Repo: ident.Repo{Owner: "Inference-Sim", Name: "Accuracy-Dashboard"}, Tag: "v1.0.0"}, false, ""},
		{ghmodel.Release{Repo: h, Tag: "v1.0.0", Draft: true}, true, "draft release"},
		{ghmodel.Release{Repo: h, Tag: "v1.0.0-rc.1", Prerelease: true}, false, "prerelease (allow_prereleases is off)"},
		{ghmodel.Release{Repo: h, Tag: "v1.0.0-rc.1", Prerelease: true}, true, ""},
		{ghmodel.Release{Repo: ident.Repo{Owner: "o", Name: "r"}, Tag: "v1.0.0"}, false, "release of o/r, not of the harness inference-sim/accuracy-dashboard"},
		// A tag that is not a release tag (a moving v1, no v) cannot be
		// pinned, by the webhook's queue or the CLI's bump alike.
		{ghmodel.Release{Repo: h, Tag: "v1"}, false, `tag "v1" is not a release tag`},
		{ghmodel.Release{Repo: h, Tag: "0.0.1"}, false, `tag "0.0.1" is not a release tag`},
	} {
		if got := ReleaseDecision(tc.rel, h, tc.allowPre); got != tc.want {
			t.Errorf("ReleaseDecision(%+v, %v) = %q, want %q", tc.rel, tc.allowPre, got, tc.want)
		}
	}
	// An ignored release makes no call at all (the fake would fail on an unknown repo).
	b := &Bumper{GH: bumpfake.New(t), Cfg: BumpConfig{Harness: h}}
	if out, err := b.BumpRelease(context.Background(), ghmodel.Release{Repo: h, Tag: "v1", Draft: true}, nil); err != nil || out != nil {
		t.Errorf("draft: %v, %v", out, err)
	}
}

func TestBumpDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	w := newBumpWorld(t)
	w.bumper.Cfg.DryRun = true
	rel, _ := w.gh.AddRelease(w.harness, "v1.1.0", "")
	got, err := w.bumper.BumpRelease(context.Background(), rel, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.gh.Writes) != 0 {
		t.Errorf("dry run wrote %v", w.gh.Writes)
	}
	planned := 0
	for _, o := range got {
		if o.Outcome == OutcomePlanned {
			planned++
			if o.Plan == nil || len(o.Plan.Files) == 0 {
				t.Errorf("%s: planned without files", o.Repo)
			}
		}
	}
	if planned != 2 {
		t.Errorf("%d repositories planned, want 2", planned)
	}
}

func TestPlanBumpGolden(t *testing.T) {
	t.Parallel()
	const newCommit = "89abcdef0123456789abcdef0123456789abcdef"
	h := ident.Repo{Owner: "inference-sim", Name: "accuracy-dashboard"}
	plan, err := PlanBump(ConsumerFiles{
		PinPath:   ".github/accuracy-harness.yaml",
		Pin:       []byte(pinV100),
		Workflows: map[string][]byte{".github/workflows/a.yml": []byte(workflowV100), ".github/workflows/broken.yml": []byte("jobs: [\n")},
	}, Target{Harness: h, Tag: "v1.1.0", Commit: newCommit, WebURL: "https://ghe.example.com/",
		Release: ghmodel.Release{Notes: "## Changes\r\n- faster scoring (@alice, #12)\r\n- <details> breaks nothing\r\n- cc @org/team"}})
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "bump-message.txt"), []byte(plan.Message))
	// The body is render.BumpBody's (golden-tested there) of this plan.
	for _, want := range []string{render.BumpMarker + "\n", "[inference-sim/accuracy-dashboard](https://ghe.example.com/inference-sim/accuracy-dashboard) from `v1.0.0` to `v1.1.0` (commit `" + newCommit + "`)",
		"- `.github/accuracy-harness.yaml`\n- `.github/workflows/a.yml`\n", "compare/v1.0.0...v1.1.0", "> .github/workflows/broken.yml left alone: ", "> - faster scoring (@\u200dalice, #\u200d12)"} {
		if !strings.Contains(plan.Body, want) {
			t.Errorf("body lacks %q:\n%s", want, plan.Body)
		}
	}
	if d := cmp.Diff([]string{".github/accuracy-harness.yaml", ".github/workflows/a.yml"}, plan.Paths()); d != "" {
		t.Errorf("paths (-want +got):\n%s", d)
	}

	long := strings.Repeat("notes line\n", 10000)
	plan, err = PlanBump(ConsumerFiles{PinPath: "p.yaml", Pin: []byte(pinV100)},
		Target{Harness: h, Tag: "v1.1.0", Commit: newCommit, WebURL: "https://github.com", Release: ghmodel.Release{Notes: long}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Body) > textcut.MaxGitHubBody || !strings.Contains(plan.Body, "release notes truncated") || !strings.HasSuffix(plan.Body, "touching it.\n") {
		t.Errorf("long notes: body of %d bytes, truncated visibly = %v", len(plan.Body), strings.Contains(plan.Body, "truncated"))
	}
}

// TestPlanBumpUppercaseCommit: pin.BumpUses moves a reference whose commit
// is written in uppercase, so the plan counts it as pinning the harness.
func TestPlanBumpUppercaseCommit(t *testing.T) {
	t.Parallel()
	const newCommit = "89abcdef0123456789abcdef0123456789abcdef"
	wf := strings.Replace(workflowV100, oldCommit, strings.ToUpper(oldCommit), 1)
	plan, err := PlanBump(ConsumerFiles{PinPath: ".github/accuracy-harness.yaml", Workflows: map[string][]byte{".github/workflows/a.yml": []byte(wf)}},
		Target{Harness: ident.Repo{Owner: "Inference-Sim", Name: "accuracy-dashboard"}, Tag: "v1.1.0", Commit: newCommit, WebURL: "https://github.com"})
	if err != nil {
		t.Fatalf("PlanBump: %v, want a plan", err)
	}
	if plan.FromTag != "v1.0.0" || !strings.Contains(string(plan.Files[".github/workflows/a.yml"]), "@"+newCommit+" # v1.1.0") {
		t.Errorf("plan from %q, files %q", plan.FromTag, plan.Files)
	}
}

func TestBumpLateOlderReleaseDoesNotMoveTheBranchBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newBumpWorld(t)
	rel1, _ := w.gh.AddRelease(w.harness, "v1.1.0", "")
	rel2, sha2 := w.gh.AddRelease(w.harness, "v1.2.0", "")
	if _, err := w.bumper.BumpRelease(ctx, rel2, nil); err != nil {
		t.Fatal(err)
	}
	before := len(w.gh.Writes)
	got, err := w.bumper.BumpRelease(ctx, rel1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if extra := w.gh.Writes[before:]; len(extra) != 0 {
		t.Errorf("the late v1.1.0 wrote %v", extra)
	}
	for _, o := range got {
		if (o.Repo == w.app || o.Repo == w.lib) && (o.Outcome != OutcomeSkipped || !strings.Contains(o.Reason, "newer")) {
			t.Errorf("%s: %+v, want skipped: newer", o.Repo, o)
		}
	}
	if !strings.Contains(string(w.gh.Tip(w.lib, bumpBranch)[".github/workflows/ci.yaml"]), sha2) {
		t.Error("bump branch no longer at v1.2.0")
	}
}

func TestConsumerFilesHas(t *testing.T) {
	t.Parallel()
	c := ConsumerFiles{PinPath: "p.yaml", Pin: []byte("pin"), Workflows: map[string][]byte{"w.yml": []byte("wf")}}
	for _, tc := range []struct {
		files map[string][]byte
		want  bool
	}{
		{map[string][]byte{"p.yaml": []byte("pin"), "w.yml": []byte("wf")}, true},
		{map[string][]byte{"w.yml": []byte("wf")}, true},
		{map[string][]byte{"p.yaml": []byte("new pin")}, false},
		{map[string][]byte{"other.yml": []byte("wf")}, false},
	} {
		if got := c.Has(tc.files); got != tc.want {
			t.Errorf("Has(%q) = %v, want %v", tc.files, got, tc.want)
		}
	}
	if (ConsumerFiles{PinPath: "p.yaml"}).Has(map[string][]byte{"p.yaml": nil}) {
		t.Error("an absent pin file counted as present")
	}
}
