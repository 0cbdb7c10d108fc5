package ghaction

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/pinned"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// actionEnv is the environment of one Action run against a fake GitHub.
type actionEnv struct {
	vars            map[string]string
	output, summary string
}

func newActionEnv(t *testing.T, fake *githubfake.Server, sim, cache string, event []byte, extra map[string]string) actionEnv {
	t.Helper()
	dir := t.TempDir()
	e := actionEnv{output: filepath.Join(dir, "output"), summary: filepath.Join(dir, "summary.md")}
	evPath := filepath.Join(dir, "event.json")
	if err := os.WriteFile(evPath, event, 0o644); err != nil {
		t.Fatal(err)
	}
	e.vars = map[string]string{
		"INPUT_GITHUB_TOKEN":   "test-token",
		"INPUT_SIMULATOR_PATH": sim,
		"INPUT_CACHE_DIR":      cache,
		"INPUT_OUT_DIR":        filepath.Join(dir, "report"),
		"INPUT_JOBS":           "2",
		"GITHUB_EVENT_PATH":    evPath,
		"GITHUB_EVENT_NAME":    "pull_request",
		"GITHUB_OUTPUT":        e.output,
		"GITHUB_STEP_SUMMARY":  e.summary,
		"GITHUB_API_URL":       fake.URL(),
		"GITHUB_SERVER_URL":    "https://github.example",
		"GITHUB_REPOSITORY":    "octo/sim",
		"GITHUB_RUN_ID":        "42",
		"GITHUB_WORKSPACE":     sim,
		"HOME":                 dir,
	}
	for k, v := range extra {
		e.vars[k] = v
	}
	return e
}

func (e actionEnv) run(t *testing.T) (stdout string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	err = Run(context.Background(), fakeEnv(e.vars), &out, &errb, leaderboardFlow)
	t.Logf("stderr:\n%s", errb.String())
	return out.String(), err
}

// logLine is one line of a step's stdout: a workflow command (Name, its
// Value unescaped) or plain text (Name "").
type logLine struct{ Name, Value string }

// parseLog splits a step's stdout into its lines, each workflow command
// ("::name::value" or "::name props::value") parsed, as the runner reads it.
func parseLog(stdout string) []logLine {
	unescape := strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%")
	var out []logLine
	for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		rest, ok := strings.CutPrefix(line, "::")
		head, value, isCmd := strings.Cut(rest, "::")
		if !ok || !isCmd {
			out = append(out, logLine{Value: line})
			continue
		}
		name, _, _ := strings.Cut(head, " ")
		out = append(out, logLine{Name: name, Value: unescape.Replace(value)})
	}
	return out
}

// commands lists the values of the workflow commands called name in log.
func commands(log []logLine, name string) []string {
	var out []string
	for _, l := range log {
		if l.Name == name {
			out = append(out, l.Value)
		}
	}
	return out
}

// expectedComment is the comment the Action's results in outDir make: the
// comparison of head with base (both read back with runresult.Read) drawn by
// render, with the flow's notes.
func expectedComment(t *testing.T, outDir string, notes []string) string {
	t.Helper()
	head, err := runresult.Read(filepath.Join(outDir, "head"))
	if err != nil {
		t.Fatal(err)
	}
	base, err := runresult.Read(filepath.Join(outDir, "base"))
	if err != nil {
		t.Fatal(err)
	}
	c := runresult.Compare(head, &base)
	v := prcheck.Evaluate(c, prcheck.Thresholds{})
	return render.CompareMarkdown(render.Comparison{Comparison: c, Alerts: append(v.Failures, v.Alerts...), Notes: notes,
		DetailsURL: "https://github.example/octo/sim/actions/runs/42"})
}

// TestGitHubActionPullRequest runs mode pr three times on one pull request
// against the fake GitHub, with the real pinned harness and the stand-in
// simulator: opened, pushed to (the cache), and from a fork's read-only
// token. Each asserts on what it parsed: the workflow commands, the
// outputs file, the comments and the result files.
func TestGitHubActionPullRequest(t *testing.T) {
	hdir, hcommit := harnessRepo(t)
	sim, head, base := consumerRepo(t, hdir, hcommit)
	cache := t.TempDir()

	fake := githubfake.New(t, githubfake.Options{Token: "test-token", ActionsToken: true})
	fake.AddRepo("octo/sim", "main")
	number := fake.AddPullRequest("octo/sim", githubfake.PullRequest{Title: "faster decode", Head: "feature", HeadRepo: "someone/sim", HeadSHA: head})
	fake.AddComment("octo/sim", number, "mallory", render.PRMarker+" a pasted marker is not ours")

	var first map[string]string // the first run's outputs
	var firstComment int64
	if !t.Run("opened: scores head and base with the pinned harness and comments", func(t *testing.T) {
		e := newActionEnv(t, fake, sim, cache, pullRequestEvent(t, "opened", "octo/sim", number, head, base), nil)
		stdout, err := e.run(t)
		if err != nil {
			t.Fatalf("%v\nstdout:\n%s", err, stdout)
		}
		log := parseLog(stdout)
		if log[0] != (logLine{"add-mask", "test-token"}) {
			t.Errorf("the first line is %+v, want the token masked", log[0])
		}
		wantGroups := []string{"Prepare the pinned harness " + harnessTag + " (" + hcommit + ")", "Score head " + head, "Score base " + base}
		if d := cmp.Diff(wantGroups, commands(log, "group")); d != "" {
			t.Errorf("log groups (-want +got):\n%s", d)
		}
		if n := len(commands(log, "endgroup")); n != len(wantGroups) {
			t.Errorf("%d groups closed, want %d", n, len(wantGroups))
		}

		first = readOutputs(t, e.output)
		rr, err := runresult.Read(filepath.Dir(first["summary-path"]))
		hs := rr.Summary
		if err != nil {
			t.Fatalf("summary-path: %v", err)
		}
		_, tier, _ := runresult.Headline(hs.Tiers)
		var wantTTFT string
		for _, d := range metric.Headline() {
			if m, _ := tier.Of(d); d.Key == "ttft" && m.MAPE != nil {
				wantTTFT = strconv.FormatFloat(*m.MAPE, 'f', 2, 64)
			}
		}
		if first["label"] != hs.Label || hs.Label != "experimental" || first["ttft-mape"] != wantTTFT || wantTTFT == "" {
			t.Errorf("outputs label %q ttft-mape %q; the head summary says %q and %q", first["label"], first["ttft-mape"], hs.Label, wantTTFT)
		}
		// The cache key names the ledger by the digest its provenance records.
		key, err := pinned.DataKey(pin.Pin{Data: pin.Data{Ledger: "accuracy/ledger", Catalog: pin.None, Registry: pin.None}}, sim)
		if err != nil || key["ledger"] != hs.Provenance.Ledger.Digest {
			t.Errorf("cache key ledger %q (err %v), provenance digest %q", key["ledger"], err, hs.Provenance.Ledger.Digest)
		}

		comments := fake.Comments("octo/sim", number)
		if len(comments) != 2 || comments[0].User != "mallory" || comments[1].User != "github-actions[bot]" {
			t.Fatalf("comments: %+v, want mallory's and one of the Action", comments)
		}
		firstComment = comments[1].ID
		want := expectedComment(t, filepath.Dir(filepath.Dir(first["summary-path"])), nil)
		if d := cmp.Diff(want, comments[1].Body); d != "" {
			t.Errorf("comment is not the comparison of the results (-want +got):\n%s", d)
		}
		if want := fmt.Sprintf("/octo/sim/pull/%d#issuecomment-%d", number, comments[1].ID); !strings.HasSuffix(first["comment-url"], want) {
			t.Errorf("comment-url %q, want the comment's address (…%s)", first["comment-url"], want)
		}
		if md, err := os.ReadFile(first["markdown-path"]); err != nil || string(md) != want {
			t.Errorf("markdown-path does not hold the comment (err %v)", err)
		}
		if summary, _ := os.ReadFile(e.summary); string(summary) != want+"\n" {
			t.Errorf("the job summary is not the report and a line break:\n%s", summary)
		}
	}) {
		return
	}

	t.Run("synchronize: reuses the cache and edits the comment", func(t *testing.T) {
		e := newActionEnv(t, fake, sim, cache, pullRequestEvent(t, "synchronize", "octo/sim", number, head, base), nil)
		stdout, err := e.run(t)
		if err != nil {
			t.Fatalf("%v\nstdout:\n%s", err, stdout)
		}
		log := parseLog(stdout)
		if d := cmp.Diff([]string{"Prepare the pinned harness " + harnessTag + " (" + hcommit + ")"}, commands(log, "group")); d != "" {
			t.Errorf("log groups (-want +got): nothing scored again\n%s", d)
		}
		wantNotices := []string{"Using the cached head result for " + head + ".", "Using the cached base result for " + base + "."}
		if d := cmp.Diff(wantNotices, commands(log, "notice")); d != "" {
			t.Errorf("notices (-want +got):\n%s", d)
		}
		if !slices.ContainsFunc(log, func(l logLine) bool {
			return l.Name == "" && strings.HasPrefix(l.Value, "Reusing the pinned harness "+harnessTag)
		}) {
			t.Error("the pinned harness was not reused from the cache")
		}
		comments := fake.Comments("octo/sim", number)
		out := readOutputs(t, e.output)
		want := expectedComment(t, filepath.Dir(filepath.Dir(out["summary-path"])), []string{
			"Head result reused from the cache (same harness, simulator commit and data).",
			"Base result reused from the cache (same harness, simulator commit and data).",
		})
		if len(comments) != 2 || comments[1].ID != firstComment {
			t.Fatalf("comments %+v: want the first run's edited in place", comments)
		}
		if d := cmp.Diff(want, comments[1].Body); d != "" {
			t.Errorf("edited comment (-want +got):\n%s", d)
		}
		if c, u := fake.Calls("issues/create-comment"), fake.Calls("issues/update-comment"); c != 1 || u != 1 {
			t.Errorf("%d comments created and %d updated over two runs, want 1 and 1", c, u)
		}
		if out["comment-url"] != first["comment-url"] {
			t.Errorf("comment-url changed: %q then %q", first["comment-url"], out["comment-url"])
		}
	})

	t.Run("fork: a read-only token reports in the job summary only", func(t *testing.T) {
		fork := githubfake.New(t, githubfake.Options{Token: "test-token", ActionsToken: true, ReadOnly: true})
		fork.AddRepo("octo/sim", "main")
		n := fork.AddPullRequest("octo/sim", githubfake.PullRequest{Title: "from a fork", Head: "feature", HeadRepo: "someone/sim", HeadSHA: head})
		e := newActionEnv(t, fork, sim, cache, pullRequestEvent(t, "opened", "octo/sim", n, head, base), nil)
		stdout, err := e.run(t)
		if err != nil {
			t.Fatalf("a fork's run failed: %v", err)
		}
		notices := commands(parseLog(stdout), "notice")
		if len(notices) == 0 || !strings.HasPrefix(notices[len(notices)-1], "Not commenting: the token is read-only") {
			t.Errorf("notices %q: want the last to say why nothing was commented", notices)
		}
		if c := fork.Comments("octo/sim", n); len(c) != 0 {
			t.Errorf("comments on a fork's pull request: %+v", c)
		}
		out := readOutputs(t, e.output)
		md, err := os.ReadFile(out["markdown-path"])
		if err != nil {
			t.Fatal(err)
		}
		if summary, _ := os.ReadFile(e.summary); string(summary) != string(md)+"\n" || len(md) == 0 {
			t.Errorf("the job summary is not the report:\n%s", summary)
		}
		if out["comment-url"] != "" || out["summary-path"] == "" {
			t.Errorf("outputs %v: want no comment-url and a summary-path", out)
		}
	})
}

func TestGitHubActionRefusesBadPin(t *testing.T) {
	hdir, hcommit := harnessRepo(t)
	sim, head, base := consumerRepo(t, hdir, hcommit)
	fake := githubfake.New(t, githubfake.Options{Token: "test-token", ActionsToken: true})
	tests := map[string]struct {
		pin  string
		want string
	}{
		"tag names another commit": {
			"harness:\n  repository: " + hdir + "\n  tag: " + harnessTag + "\n  commit: " + strings.Repeat("0", 40) + "\n",
			"has no commit " + strings.Repeat("0", 40),
		},
		"branch": {
			"harness:\n  repository: " + hdir + "\n  tag: main\n  commit: " + hcommit + "\n",
			"pins.yaml:3: harness.tag: \"main\" is not a release tag",
		},
		"lying tag": {
			"harness:\n  repository: " + hdir + "\n  tag: v0.0.1\n  commit: " + hcommit + "\n",
			"no tag v0.0.1",
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			pinPath := filepath.Join(t.TempDir(), "pins.yaml")
			writeFile(t, pinPath, tt.pin)
			e := newActionEnv(t, fake, sim, t.TempDir(), pullRequestEvent(t, "opened", "octo/sim", 1, head, base),
				map[string]string{"INPUT_PIN_FILE": pinPath, "INPUT_COMMENT": "false"})
			_, err := e.run(t)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// readMode reads the inputs as action does: the shared ones, then
// the mode's own (and the event check).
func readMode(vars map[string]string) (actionInputs, error) {
	r := newRunner(fakeEnv(vars), io.Discard)
	in, err := readInputs(r)
	if err != nil {
		return in, err
	}
	_, err = startMode(r, in)
	return in, err
}

func TestReadInputs(t *testing.T) {
	t.Parallel()
	base := map[string]string{"GITHUB_EVENT_PATH": "/e.json", "GITHUB_EVENT_NAME": "pull_request", "INPUT_GITHUB_TOKEN": "t", "GITHUB_WORKSPACE": "/ws", "HOME": "/home/u"}
	r := newRunner(fakeEnv(base), io.Discard)
	in, err := readInputs(r)
	if err != nil {
		t.Fatal(err)
	}
	md, err := readPRMode(r, in)
	pr, _ := md.(prModeOptions)
	if err != nil || in.mode != modePR || !pr.baseline || !in.comment || pr.shard != nil || in.thresholds.Alert != nil ||
		in.pinFile != "/ws/.github/accuracy-harness.yaml" || in.cacheDir != "/home/u/.cache/accuracy-dashboard" {
		t.Errorf("defaults: %+v %+v, %v", in, pr, err)
	}
	bad := map[string]string{
		"INPUT_MODE":            "input mode",
		"INPUT_BASELINE":        "input baseline",
		"INPUT_SHARD":           "input shard",
		"INPUT_ALERT_THRESHOLD": "input alert-threshold",
		"INPUT_FAIL_THRESHOLD":  "input fail-threshold",
		"INPUT_COMMENT":         "input comment",
		"INPUT_JOBS":            "input jobs",
	}
	for env, want := range bad {
		m := map[string]string{env: "bogus"}
		for k, v := range base {
			m[k] = v
		}
		if _, err := readMode(m); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s=bogus: err = %v, want %q", env, err, want)
		}
	}
	for name, c := range map[string]struct {
		vars map[string]string
		want string
	}{
		"comment mode without report-dir": {map[string]string{"INPUT_MODE": "comment", "GITHUB_EVENT_NAME": "workflow_run"}, "input report-dir: required"},
		"merge mode without shards-dir":   {map[string]string{"INPUT_MODE": "merge"}, "input shards-dir: required"},
		"no token":                        {map[string]string{"INPUT_GITHUB_TOKEN": ""}, "input github-token"},
		"no event":                        {map[string]string{"GITHUB_EVENT_PATH": ""}, "GITHUB_EVENT_NAME or GITHUB_EVENT_PATH"},
		"no event name":                   {map[string]string{"GITHUB_EVENT_NAME": ""}, "GITHUB_EVENT_NAME or GITHUB_EVENT_PATH"},
		"negative threshold":              {map[string]string{"INPUT_FAIL_THRESHOLD": "-1"}, "input fail-threshold"},
		"plan with mode pr":               {map[string]string{"INPUT_PLAN": "{}"}, "input plan: only with mode: merge or nightly"},
		"ledger-dir outside nightly":      {map[string]string{"INPUT_LEDGER_DIR": "ledger"}, "input ledger-dir: only with mode: merge or nightly"},
		"ledger-dir with a pr merge":      {map[string]string{"INPUT_MODE": "merge", "INPUT_SHARDS_DIR": "shards", "INPUT_LEDGER_DIR": "ledger"}, "input ledger-dir: with mode: merge, only with input plan"},
		"what-if with a pr merge":         {map[string]string{"INPUT_MODE": "merge", "INPUT_SHARDS_DIR": "shards", "INPUT_WHAT_IF": "all"}, "input what-if: with mode: merge, only with input plan"},
		"what-if outside merge":           {map[string]string{"INPUT_MODE": "nightly", "INPUT_PLAN": "{}", "INPUT_WHAT_IF": "all", "GITHUB_EVENT_NAME": "schedule"}, "input what-if: only with mode: merge"},
		"shard with mode merge":           {map[string]string{"INPUT_MODE": "merge", "INPUT_SHARDS_DIR": "shards", "INPUT_SHARD": "1/2"}, "input shard: only with mode: pr or nightly"},
		"runs outside leaderboard":        {map[string]string{"INPUT_RUNS": "runs.yaml"}, "input runs: only with mode: leaderboard"},
		"nightly without a plan":          {map[string]string{"INPUT_MODE": "nightly", "GITHUB_EVENT_NAME": "schedule"}, "input plan: required"},
	} {
		all := map[string]string{}
		for k, v := range base {
			all[k] = v
		}
		for k, v := range c.vars {
			all[k] = v
		}
		if _, err := readMode(all); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", name, err, c.want)
		}
	}
	m := map[string]string{"INPUT_ALERT_THRESHOLD": "2.5", "INPUT_FAIL_THRESHOLD": "5pp", "INPUT_SHARD": "2/3", "INPUT_BASELINE": "none", "INPUT_COMMENT": "false"}
	for k, v := range base {
		m[k] = v
	}
	r = newRunner(fakeEnv(m), io.Discard)
	in, err = readInputs(r)
	if err == nil {
		md, err = readPRMode(r, in)
		pr, _ = md.(prModeOptions)
	}
	if err != nil || *in.thresholds.Alert != 2.5 || *in.thresholds.Fail != 5 || pr.shard.Index != 2 || pr.baseline || in.comment {
		t.Errorf("explicit inputs: %+v %+v, %v", in, pr, err)
	}
}

// TestGitHubActionEventsPerMode: each mode runs only on the events it is
// meant for and refuses every other one before reading the pin, naming
// the event and the mode (workflow_run and issue_comment reached the modes
// that read the pin and build pull-request code).
func TestGitHubActionEventsPerMode(t *testing.T) {
	t.Parallel()
	events := []string{"pull_request", "pull_request_target", "push", "schedule", "workflow_dispatch", "workflow_run", "issue_comment", "release"}
	branch := []string{"push", "schedule", "workflow_dispatch"}
	for _, c := range []struct {
		mode   string
		inputs map[string]string
		accept []string
	}{
		{"pr", nil, append([]string{"pull_request"}, branch...)},
		{"merge", map[string]string{"INPUT_SHARDS_DIR": "shards"}, []string{"pull_request"}},
		{"merge", map[string]string{"INPUT_SHARDS_DIR": "shards", "INPUT_PLAN": "{}"}, branch},
		{"comment", map[string]string{"INPUT_REPORT_DIR": "report"}, []string{"workflow_run"}},
		{"nightly-plan", nil, branch},
		{"nightly", map[string]string{"INPUT_PLAN": "{}"}, branch},
		{"leaderboard", nil, []string{"pull_request", "push", "workflow_dispatch"}},
	} {
		for _, name := range events {
			dir := t.TempDir()
			ev := filepath.Join(dir, "event.json")
			os.WriteFile(ev, []byte(`{}`), 0o644)
			vars := map[string]string{"INPUT_MODE": c.mode, "INPUT_COMMENT": "false", "GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": ev,
				"GITHUB_WORKSPACE": dir, "HOME": dir}
			for k, v := range c.inputs {
				vars[k] = v
			}
			var stdout, stderr bytes.Buffer
			err := Run(context.Background(), fakeEnv(vars), &stdout, &stderr, leaderboardFlow)
			refusal := "mode " + c.mode + " refuses the " + name + " event"
			refused := err != nil && strings.Contains(err.Error(), refusal)
			if want := !slices.Contains(c.accept, name); refused != want {
				t.Errorf("mode %s %v on %s: err = %v; want refused %v", c.mode, c.inputs, name, err, want)
			}
			if refused && name != "pull_request_target" && !strings.Contains(err.Error(), "it runs on "+strings.Join(c.accept, ", ")) {
				t.Errorf("mode %s on %s: the refusal does not list the events the mode runs on: %v", c.mode, name, err)
			}
		}
	}
}

// TestOutputsFile checks the bytes go-githubactions appends to
// $GITHUB_OUTPUT, in the heredoc form the runner reads. The library's
// delimiter is fixed (the hand-written writer used a random one), so a value
// that holds it is refused before anything is written.
func TestOutputsFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out")
	gha := newRunner(fakeEnv(map[string]string{"GITHUB_OUTPUT": path}), io.Discard)
	if err := gha.setOutputs([][2]string{{"label", "experimental"}, {"ttft-mape", "1.25"}, {"comment-url", ""}}); err != nil {
		t.Fatal(err)
	}
	const d = "_GitHubActionsFileCommandDelimeter_"
	want := "label<<" + d + "\nexperimental\n" + d + "\n" +
		"ttft-mape<<" + d + "\n1.25\n" + d + "\n" +
		"comment-url<<" + d + "\n\n" + d + "\n"
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Errorf("GITHUB_OUTPUT:\n%q\nwant\n%q", got, want)
	}
	evil := "x\n" + d + "\ninjected<<" + d + "\n1\n" + d
	if err := gha.setOutputs([][2]string{{"a", "ok"}, {"label", evil}}); err == nil || !strings.Contains(err.Error(), "output label") {
		t.Errorf("a value holding the delimiter: err = %v", err)
	}
	if err := gha.setOutputs([][2]string{{"bad\nname", "v"}}); err == nil {
		t.Error("output name with a newline accepted")
	}
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Errorf("refused outputs were written:\n%q", got)
	}
	// A file the runner cannot write is an error, not a panic.
	bad := newRunner(fakeEnv(map[string]string{"GITHUB_OUTPUT": filepath.Join(path, "not-a-dir", "out")}), io.Discard)
	if err := bad.setOutputs([][2]string{{"label", "x"}}); err == nil {
		t.Error("unwritable GITHUB_OUTPUT: no error")
	}
	// Without GITHUB_OUTPUT (not on a runner) nothing is written.
	if err := newRunner(fakeEnv(nil), io.Discard).setOutputs([][2]string{{"label", "x"}}); err != nil {
		t.Error(err)
	}
}

// TestWorkflowCommands checks the log lines of groups, annotations and
// masking: untrusted text cannot end a command or start another one.
func TestWorkflowCommands(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	gha := newRunner(fakeEnv(nil), &out)
	gha.mask("s3cret")
	gha.mask("")
	gha.Group("Score head 100%")
	gha.EndGroup()
	gha.Notice("a\n::error::forged")
	gha.Warning("50% %s")
	gha.Error("x\r\ny")
	want := "::add-mask::s3cret\n::group::Score head 100%25\n::endgroup::\n::notice::a%0A::error::forged\n::warning::50%25 %25s\n::error::x%0D%0Ay\n"
	if out.String() != want {
		t.Errorf("log:\n%q\nwant\n%q", out.String(), want)
	}
}

func TestGitHubActionOutputs(t *testing.T) {
	t.Parallel()
	fp := func(v float64) *float64 { return &v }
	// A secondary metric (e2e) is in the summary but never in the outputs.
	mr := runresult.TierScores{"ttft": runresult.Metric{MAPE: fp(12.5), N: 3}, "tpot": runresult.Metric{MAPE: fp(2), N: 3}, "e2e": runresult.Metric{MAPE: fp(7), N: 3}}
	all := runresult.TierScores{"ttft": runresult.Metric{MAPE: fp(30), N: 5}, "tpot": runresult.Metric{MAPE: fp(4.25), N: 5}, "e2e": runresult.Metric{MAPE: fp(8), N: 5}}
	head := runresult.Summary{Label: runresult.LabelExperimental, Tiers: runresult.Tiers{All: all, MeasuredResolved: mr}}
	fallBack := head
	fallBack.Tiers.MeasuredResolved = runresult.TierScores{}
	shard := head
	shard.Shard = &runresult.Shard{Index: 1, Count: 2}
	tests := map[string]struct {
		head                   runresult.Summary
		label, ttft, tpot, url string
	}{
		"headline measured_resolved": {head, "experimental", "12.50", "2.00", "https://c/1"},
		"falls back to all":          {fallBack, "experimental", "30.00", "4.25", "https://c/1"},
		"shard: label only":          {shard, "experimental", "", "", ""},
	}
	for name, tt := range tests {
		o := prcheck.Outcome{HeadDir: "/out/head", Head: tt.head, MarkdownPath: "/out/comparison.md", CommentURL: tt.url}
		if tt.head.Shard != nil {
			o.MarkdownPath = ""
		}
		want := [][2]string{
			{"summary-path", "/out/head/summary.json"},
			{"markdown-path", o.MarkdownPath},
			{"label", tt.label},
			{"ttft-mape", tt.ttft},
			{"tpot-mape", tt.tpot},
			{"comment-url", tt.url},
		}
		if d := cmp.Diff(want, outputsOf(o)); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
}

// Under pull_request_target the workflow holds a write token and secrets
// while the checkout may be the pull request's head: modes that build or run
// the pull request's code (the pinned harness from its pin file, the
// simulator) refuse it before reading anything, pointing to the fork-safe
// pair. The refusal happens before the pin is read, so no harness is needed.
func TestGitHubActionRefusesPullRequestTarget(t *testing.T) {
	t.Parallel()
	fake := githubfake.New(t, githubfake.Options{Token: "test-token", ActionsToken: true})
	sim := t.TempDir()
	head, base := strings.Repeat("a", 40), strings.Repeat("b", 40)
	for mode, dir := range map[string]string{modePR: "", modeMerge: t.TempDir()} {
		e := newActionEnv(t, fake, sim, t.TempDir(), pullRequestEvent(t, "opened", "octo/sim", 1, head, base),
			map[string]string{"GITHUB_EVENT_NAME": "pull_request_target", "INPUT_MODE": mode, "INPUT_SHARDS_DIR": dir})
		stdout, err := e.run(t)
		if err == nil || !strings.Contains(err.Error(), "pull_request_target") || !strings.Contains(err.Error(), "accuracy-fork-run.yml") {
			t.Errorf("mode %s under pull_request_target: err = %v, want a refusal naming the fork-safe pair", mode, err)
		}
		if !strings.Contains(stdout, "::error::mode "+mode+" refuses the pull_request_target event") {
			t.Errorf("mode %s: the refusal is not annotated:\n%s", mode, stdout)
		}
		if n := fake.Calls("issues/create-comment"); n != 0 {
			t.Errorf("mode %s: %d comments created", mode, n)
		}
	}
}
