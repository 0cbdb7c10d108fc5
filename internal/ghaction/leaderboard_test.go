package ghaction

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/pinned"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbpr"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbview"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
)

// leaderboardFlow is mode leaderboard's flow as cmd/action wires it into
// Run (its runLeaderboardFlow): lbpr's Flow over what the runtime prepared.
func leaderboardFlow(ctx context.Context, m LeaderboardRun) ([][2]string, error) {
	f := &lbpr.Flow{Checkout: m.Checkout, PinRel: m.PinRel, Pin: m.Pin, Runs: m.Runs, OutDir: m.OutDir, CacheDir: m.CacheDir, Jobs: m.Jobs,
		SimRepo: m.SimRepo, Git: m.Git, Report: m.Report, Comments: m.Comments, DetailsURL: m.DetailsURL,
		PrepareHarness: func(ctx context.Context) (lbpr.Harness, error) { return m.PrepareHarness(ctx) }}
	return f.Step(ctx, lbpr.PR{Number: m.PR.Number, BaseSHA: m.PR.BaseSHA, HeadSHA: m.PR.HeadSHA}, m.IsPR)
}

// lbRepo is a repository that publishes a leaderboard: the pin file with
// the harness and the leaderboard pair (the stand-in simulator at v0.2.0,
// no catalog), leaderboard/runs.yaml and its committed results.
type lbRepo struct {
	dir, base     string
	standin       harnesstest.Standin
	hdir, hcommit string
	cache         string
}

// newLBRepo commits the base: the pin file, the declaration and results
// that `leaderboard run` filed for it on the pinned pair, with chat/h100's
// TTFT re-sealed as 12345 ms, a figure the simulator does not give: a
// result the Action reuses keeps it, one it runs again loses it.
func newLBRepo(t *testing.T) *lbRepo {
	t.Helper()
	r := &lbRepo{standin: harnesstest.StandinRepo(t), cache: t.TempDir()}
	r.hdir, r.hcommit = harnessRepo(t)
	r.dir = filepath.Join(t.TempDir(), "leaderboards")
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	harnesstest.GitInit(t, r.dir)
	writeFile(t, filepath.Join(r.dir, ".github", "accuracy-harness.yaml"), "harness:\n  repository: "+r.hdir+"\n  tag: "+harnessTag+"\n  commit: "+r.hcommit+"\n"+
		"leaderboard:\n  simulator:\n    repository: "+r.standin.Dir+"\n    tag: v0.2.0\n    commit: "+r.standin.V020+"\n  catalog:\n    source: none\n")
	runs := filepath.Join(r.dir, "leaderboard", "runs.yaml")
	writeFile(t, runs, leaderboardtest.StandinRuns)
	// The results as the pinned harness's own `leaderboard run` files
	// them (its build is cached for the Action's runs).
	var log bytes.Buffer
	p := pin.Pin{Harness: pin.Harness{Repository: r.hdir, Tag: harnessTag, Commit: r.hcommit}}
	h, err := pinned.Prepare(context.Background(), p, r.hdir, r.cache, harness.CleanEnv(os.Environ()), &log, &log)
	if err == nil {
		err = h.RunCommand(context.Background(), []string{"leaderboard", "run", "--runs", runs, "--sim-repo", r.standin.Dir, "--sim", r.standin.V020,
			"--harness-dir", r.hdir, "--cache-dir", r.cache, "--quiet", "--jobs", "2"})
	}
	if err != nil {
		t.Fatalf("leaderboard run: %v\n%s", err, log.String())
	}
	leaderboardtest.PlantTTFT(t, filepath.Join(r.dir, "leaderboard", "results", "chat", "h100.json"))
	r.base = harnesstest.CommitAll(t, r.dir, "leaderboard with results")
	return r
}

// change commits files (path → content) on top of the base on a new
// branch and returns the head commit.
func (r *lbRepo) change(t *testing.T, branch string, files map[string]string) string {
	t.Helper()
	harnesstest.Run(t, r.dir, "git", "checkout", "--quiet", "-B", branch, r.base)
	for p, content := range files {
		writeFile(t, filepath.Join(r.dir, p), content)
	}
	return harnesstest.CommitAll(t, r.dir, "change "+branch)
}

func (r *lbRepo) env(t *testing.T, fake *githubfake.Server, number int, head string) actionEnv {
	t.Helper()
	return newActionEnv(t, fake, r.dir, r.cache, pullRequestEvent(t, "synchronize", "octo/boards", number, head, r.base),
		map[string]string{"INPUT_MODE": "leaderboard", "GITHUB_REPOSITORY": "octo/boards"})
}

func newLBFake(t *testing.T, head string) (*githubfake.Server, int) {
	fake := githubfake.New(t, githubfake.Options{Token: "test-token", ActionsToken: true})
	fake.AddRepo("octo/boards", "main")
	return fake, fake.AddPullRequest("octo/boards", githubfake.PullRequest{Title: "more candidates", Head: "feature", HeadRepo: "octo/boards", HeadSHA: head})
}

func TestGitHubActionLeaderboard(t *testing.T) {
	r := newLBRepo(t)
	committed, _ := os.ReadFile(filepath.Join(r.dir, "leaderboard", "results", "chat", "h100.json"))
	// The pull request changes a100-tp2's engine settings and adds a
	// candidate to group chat (leaderboardtest.StandinRuns); the rest is unchanged.
	nomodel := "      - {id: nomodel, model: org/no-such-model, hardware: H100, tp: 1}\n"
	changed := strings.Replace(strings.Replace(leaderboardtest.StandinRuns, "max_num_seqs: 128", "max_num_seqs: 64", 1),
		nomodel, nomodel+"      - {id: h100-tp2, model: org/test-model-7b, hardware: H100, tp: 2}\n", 1)
	head := r.change(t, "feature", map[string]string{"leaderboard/runs.yaml": changed, "NOTES.md": "notes\n"})
	fake, number := newLBFake(t, head)
	// The accuracy comment of the same pull request, and someone's paste
	// of the leaderboard marker: neither is the leaderboard's to edit.
	accuracy := render.PRMarker + "\n### Simulator accuracy of this pull request\n"
	fake.AddComment("octo/boards", number, "github-actions[bot]", accuracy)
	fake.AddComment("octo/boards", number, "mallory", lbview.Marker+" pasted")

	e := r.env(t, fake, number, head)
	stdout, err := e.run(t)
	if err != nil {
		t.Fatalf("leaderboard mode: %v\nstdout:\n%s", err, stdout)
	}
	for _, want := range []string{"::group::Prepare the pinned harness " + harnessTag, "::group::Run the leaderboard leaderboard/runs.yaml",
		"reused 6 unchanged results from ", ", ran 3\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	out := readOutputs(t, e.output)
	results := filepath.Join(filepath.Dir(e.output), "report", "leaderboard", "results")
	if out["results-dir"] != results || out["runs"] != "leaderboard/runs.yaml" || out["groups"] != "2" || out["disqualified"] != "1" || out["failed"] != "3" || out["comment-url"] == "" {
		t.Errorf("outputs %v", out)
	}
	// Reused: byte for byte the committed file (a re-run would not give
	// 12345 ms). Run again: the changed and the new candidate.
	if got, _ := os.ReadFile(filepath.Join(results, "chat", "h100.json")); !bytes.Equal(got, committed) {
		t.Error("chat/h100.json was run again, not reused")
	}
	raw, _ := os.ReadFile(filepath.Join(results, "chat", "a100-tp2.json"))
	if a100, err := leaderboard.ParseResult(raw, "a100-tp2.json"); err != nil || !strings.Contains(strings.Join(a100.Command, " "), "--max-num-seqs 64") {
		t.Errorf("chat/a100-tp2.json did not run with its new declaration: %v", err)
	}
	for _, f := range []string{"README.md", "index.html", filepath.Join("results", "chat", "h100-tp2.json")} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(results), f)); err != nil {
			t.Error(err)
		}
	}

	comments := fake.Comments("octo/boards", number)
	if len(comments) != 3 || comments[0].Body != accuracy || comments[1].User != "mallory" {
		t.Fatalf("comments: %+v", comments)
	}
	board := comments[2]
	if board.User != "github-actions[bot]" || !strings.HasPrefix(board.Body, lbview.Marker+"\n") {
		t.Fatalf("leaderboard comment: %+v", board)
	}
	for _, want := range []string{"#### leaderboard/runs.yaml", "9 results in 2 groups: ", ", 1 disqualified, 3 failed. 7 as committed, 2 new or changed.",
		"| h100 | org/test-model-7b | H100 | 1 | default | 1 | 12345.0 (#", "**Disqualified**", "hardware-unknown-to-simulator", "BLIS " + r.standin.V020 + " (v0.2.0)"} {
		if !strings.Contains(board.Body, want) {
			t.Errorf("comment lacks %q:\n%s", want, board.Body)
		}
	}
	if md, _ := os.ReadFile(out["markdown-path"]); string(md) != board.Body {
		t.Error("markdown-path does not hold the comment")
	}
	if s, _ := os.ReadFile(e.summary); string(s) != board.Body+"\n" {
		t.Errorf("job summary is not the report:\n%s", s)
	}

	// A push that changes the declaration again and edits a committed
	// result of the unchanged sweep: the result shown is the base's, a
	// note says the edit is not used, the same comment is edited, and the
	// accuracy comment is still left alone.
	sweep := filepath.Join("leaderboard", "results", "sweep", "h100--rate-2.json")
	baseSweep, _ := os.ReadFile(filepath.Join(r.dir, sweep))
	edited := filepath.Join(t.TempDir(), "edited.json")
	writeFile(t, edited, string(baseSweep))
	head2 := r.change(t, "feature2", map[string]string{"leaderboard/runs.yaml": strings.Replace(changed, "rate: 4", "rate: 5", 1), sweep: string(leaderboardtest.PlantTTFT(t, edited))})
	e2 := r.env(t, fake, number, head2)
	if stdout, err := e2.run(t); err != nil || !strings.Contains(stdout, "reused 2 unchanged results") {
		t.Fatalf("second run: %v\n%s", err, stdout)
	}
	if got, _ := os.ReadFile(filepath.Join(results, "sweep", "h100--rate-2.json")); !bytes.Equal(got, baseSweep) {
		t.Error("the pull request's edit of a committed result was used")
	}
	after := fake.Comments("octo/boards", number)
	if len(after) != 3 || after[0].Body != accuracy || after[2].ID != board.ID || !strings.Contains(after[2].Body, "Poisson arrivals at 5 req/s") ||
		!strings.Contains(after[2].Body, "**Note:** This pull request edits committed results beside leaderboard/runs.yaml. They are not used") {
		t.Errorf("second run did not edit its own comment in place: %+v", after)
	}
	if n := fake.Calls("issues/create-comment"); n != 1 {
		t.Errorf("create-comment called %d times, want 1", n)
	}
	if n := fake.Calls("issues/update-comment"); n != 1 {
		t.Errorf("update-comment called %d times, want 1", n)
	}

	// A push to the default branch (no pull request): every tracked
	// runs.yaml runs, reusing the checkout's results; no comment.
	harnesstest.Run(t, r.dir, "git", "checkout", "--quiet", r.base)
	push, err := json.Marshal(githubfake.WebhookExample(t, "push", ""))
	if err != nil {
		t.Fatal(err)
	}
	e3 := newActionEnv(t, fake, r.dir, r.cache, push, map[string]string{"INPUT_MODE": "leaderboard", "GITHUB_REPOSITORY": "octo/boards", "GITHUB_EVENT_NAME": "push"})
	stdout, err = e3.run(t)
	if err != nil || !strings.Contains(stdout, "reused 7 unchanged results from "+filepath.Join(r.dir, "leaderboard", "results")+", ran 1\n") {
		t.Fatalf("push run: %v\n%s", err, stdout)
	}
	out3 := readOutputs(t, e3.output)
	if got, _ := os.ReadFile(filepath.Join(out3["results-dir"], "chat", "h100.json")); !bytes.Equal(got, committed) || out3["comment-url"] != "" || out3["runs"] != "leaderboard/runs.yaml" {
		t.Errorf("push run: outputs %v, chat/h100.json not the committed one", out3)
	}
	if n := fake.Calls("issues/create-comment") + fake.Calls("issues/update-comment"); n != 2 {
		t.Errorf("the push run commented (%d comment writes in all, want 2)", n)
	}
}

// A pull request that changes no runs.yaml: a no-op line, no comment, no
// harness built. A bad runs.yaml: the summary and the comment name file,
// line and field, an annotation marks the line, and the step fails.
func TestGitHubActionLeaderboardNoOpAndRefusal(t *testing.T) {
	r := newLBRepo(t)
	head := r.change(t, "docs", map[string]string{"NOTES.md": "only notes\n"})
	fake, number := newLBFake(t, head)
	e := r.env(t, fake, number, head)
	stdout, err := e.run(t)
	if err != nil {
		t.Fatalf("no-op run: %v\n%s", err, stdout)
	}
	s, _ := os.ReadFile(e.summary)
	if !strings.Contains(string(s), "This pull request changes no `runs.yaml`, no trace one names, no committed results and not the pin file: nothing to run.") || strings.Contains(stdout, "pinned harness") {
		t.Errorf("no-op run: summary %q\nstdout:\n%s", s, stdout)
	}
	if c := fake.Comments("octo/boards", number); len(c) != 0 {
		t.Errorf("no-op run commented: %+v", c)
	}
	if out := readOutputs(t, e.output); out["runs"] != "" || out["groups"] != "0" {
		t.Errorf("no-op outputs %v", out)
	}

	// A later push that reverted the pull request's leaderboard changes:
	// the earlier tables must not stand; the comment says nothing runs now.
	fake, number = newLBFake(t, head)
	fake.AddComment("octo/boards", number, "github-actions[bot]", lbview.Marker+"\n### Leaderboard of this pull request\n\nold tables\n")
	e = r.env(t, fake, number, head)
	if stdout, err = e.run(t); err != nil {
		t.Fatalf("no-op run after tables: %v\n%s", err, stdout)
	}
	if c := fake.Comments("octo/boards", number); len(c) != 1 || strings.Contains(c[0].Body, "old tables") ||
		!strings.HasPrefix(c[0].Body, lbview.Marker+"\n") || !strings.Contains(c[0].Body, "nothing to run") {
		t.Errorf("the earlier leaderboard comment was not refreshed: %+v", c)
	}
	if out := readOutputs(t, e.output); out["comment-url"] == "" {
		t.Errorf("refreshed comment's url not in the outputs: %v", out)
	}

	bad := strings.Replace(leaderboardtest.StandinRuns, "{id: h100, model: org/test-model-7b, hardware: H100, tp: 1}", "{id: h100, model: org/test-model-7b, hardware: H100, tpp: 1}", 1)
	head = r.change(t, "bad", map[string]string{"leaderboard/runs.yaml": bad})
	fake, number = newLBFake(t, head)
	e = r.env(t, fake, number, head)
	stdout, err = e.run(t)
	want := "leaderboard/runs.yaml:11: groups[0].candidates[0]"
	if err == nil || !strings.Contains(err.Error(), "leaderboard refused: leaderboard/runs.yaml") {
		t.Fatalf("bad runs.yaml: err = %v", err)
	}
	if !strings.Contains(stdout, "::error file=leaderboard/runs.yaml,line=11::"+want) {
		t.Errorf("no annotation on the line:\n%s", stdout)
	}
	s, _ = os.ReadFile(e.summary)
	c := fake.Comments("octo/boards", number)
	if len(c) != 1 || !strings.Contains(string(s), "**Refused**") || !strings.Contains(string(s), "tpp") || string(s) != c[0].Body+"\n" {
		t.Errorf("refusal: summary\n%s\ncomments %+v", s, c)
	}
	if !strings.Contains(c[0].Body, "leaderboard/runs.yaml:11: groups\\[0\\].candidates\\[0\\]") {
		t.Errorf("the comment does not name file, line and field:\n%s", c[0].Body)
	}
}

// A pinned harness release older than `leaderboard run --reuse` is named
// as such before anything runs.
func TestLeaderboardModeNeedsReuse(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "action")
	writeFile(t, old, "#!/bin/sh\necho 'Usage: action leaderboard run --runs runs.yaml [flags]'\necho '  -out directory'\nexit 2\n")
	if err := os.Chmod(old, 0o755); err != nil {
		t.Fatal(err)
	}
	h := &pinned.Harness{Dir: dir, Bin: old}
	err := needsLeaderboardReuse(context.Background(), h, pin.Harness{Tag: "v0.1.0", Commit: strings.Repeat("a", 40)})
	if err == nil || !strings.Contains(err.Error(), "the pinned harness v0.1.0 ("+strings.Repeat("a", 40)+") has no `leaderboard run --reuse`") {
		t.Errorf("err = %v", err)
	}
	writeFile(t, old, "#!/bin/sh\necho '  -reuse directory'\n")
	if err := needsLeaderboardReuse(context.Background(), h, pin.Harness{}); err != nil {
		t.Errorf("a harness with --reuse: %v", err)
	}
}
