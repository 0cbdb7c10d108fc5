package lbpublish

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/bump/bumpfake"
	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbview"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
	"github.com/inference-sim/accuracy-dashboard/internal/publish"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// The leaderboard fixture: the committed example (docs/examples/leaderboard,
// produced by BLIS at f90a1e3a, which no release names) re-sealed as if a
// release had produced it, pinned by a pin file that names that release.
const (
	lbRepoName  = "inference-sim/leaderboard"
	lbWorkflow  = ".github/workflows/leaderboard.yml"
	lbArtifact  = "leaderboard-results"
	lbRuns      = "leaderboard/runs.yaml"
	lbSimTag    = "v0.7.15"
	lbRunID     = 5151
	lbExample   = "../../../docs/examples/leaderboard"
	lbDashboard = "leaderboard"
)

var lbSimCommit = strings.Repeat("5", 40)

func lbPin(tag, commit string) string {
	return "harness:\n  repository: inference-sim/accuracy-dashboard\n  tag: v1.0.0\n  commit: " + strings.Repeat("a", 40) +
		"\nleaderboard:\n  simulator:\n    repository: inference-sim/inference-sim\n    tag: " + tag + "\n    commit: " + commit +
		"\n  catalog:\n    source: none\n"
}

// lbResults reads the example's results (keyed by their path in results/)
// and re-seals each after edit, which gets the group/run key and the
// result; every result first gets the fixture's release build.
func lbResults(t *testing.T, edit func(key string, r *leaderboard.Result)) map[string][]byte {
	t.Helper()
	out := leaderboardtest.Results(t, filepath.Join(lbExample, "results"), leaderboard.Simulator{Commit: lbSimCommit, Tag: lbSimTag}, edit)
	if len(out) < 10 {
		t.Fatalf("the example has %d results", len(out))
	}
	return out
}

func lbExampleRuns(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(lbExample, "runs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// t0 is the fixture's run time.
var t0 = time.Date(2026, 8, 22, 6, 0, 0, 0, time.UTC)

// lbWorld is a fake GitHub holding the harness, the dashboard and the
// leaderboard repository, and a publisher of the harness's snapshots that
// publishes the leaderboard workflow's runs through lb.
type lbWorld struct {
	gh        *bumpfake.GitHub
	dashboard ident.Repo
	lbRepo    ident.Repo
	pub       *publish.Publisher
	lb        *Publisher
	run       publish.WorkflowRun
}

func newLBWorld(t *testing.T) *lbWorld {
	gh := bumpfake.New(t)
	w := &lbWorld{gh: gh}
	harness := gh.AddRepo("inference-sim/accuracy-dashboard", map[string]string{"go.mod": "module x\n"}, false)
	w.dashboard = gh.AddRepo("inference-sim/accuracy-data", map[string]string{"README.md": "# Data\n"}, false)
	w.pub = &publish.Publisher{GH: gh, Cfg: publish.PublishConfig{
		Dashboard: w.dashboard, Harness: harness, WorkflowRepo: harness,
		WorkflowPath: ".github/workflows/publish.yml", Artifact: "accuracy-report",
	}, Now: func() time.Time { return t0 }}
	w.lbRepo = w.gh.AddRepo(lbRepoName, map[string]string{
		lbRuns:                          lbExampleRuns(t),
		".github/accuracy-harness.yaml": lbPin(lbSimTag, lbSimCommit),
	}, false)
	w.lb = &Publisher{Cfg: Config{WorkflowRepo: w.lbRepo, WorkflowPath: lbWorkflow, Artifact: lbArtifact,
		Runs: lbRuns, PinFile: ".github/accuracy-harness.yaml", Dir: lbDashboard}}
	w.pub.Cfg.Leaderboard = w.lb
	w.run = publish.WorkflowRun{Repo: w.lbRepo, ID: lbRunID, WorkflowPath: lbWorkflow, Event: "push", Status: "completed",
		Conclusion: "success", HeadSHA: w.gh.TipSHA(w.lbRepo, "main"), HeadBranch: "main", DefaultBranch: "main", HeadRepo: w.lbRepo,
		URL: "https://github.com/" + lbRepoName + "/actions/runs/5151", UpdatedAt: t0}
	return w
}

func (w *lbWorld) artifact(t *testing.T, run publish.WorkflowRun, results map[string][]byte) {
	w.gh.Mu.Lock()
	defer w.gh.Mu.Unlock()
	w.gh.Artifacts[lbRepoName+"#"+strconv.FormatInt(run.ID, 10)+"/"+lbArtifact] = testkit.Zip(t, results)
}

func TestLeaderboardPublishOneCommit(t *testing.T) {
	t.Parallel()
	w := newLBWorld(t)
	results := lbResults(t, nil)
	w.artifact(t, w.run, results)
	res, err := w.pub.PublishRun(context.Background(), w.run, nil)
	if err != nil || res.Outcome != publish.PublishPublished {
		t.Fatalf("publish: %+v, %v", res, err)
	}
	if n := w.gh.CountWrites("CreateCommit"); n != 1 {
		t.Fatalf("%d commits, want one", n)
	}
	tip := w.gh.Tip(w.dashboard, "main")
	// Every result, canonical, under leaderboard/results/.
	for rel, raw := range results {
		if got := tip[lbDashboard+"/results/"+rel]; !bytes.Equal(got, raw) {
			t.Errorf("%s: published %d bytes, want the artifact's %d", rel, len(got), len(raw))
		}
	}
	// The tables, as `action leaderboard render` draws them from the same
	// declaration and results (computed here independently of the bot).
	d, err := leaderboard.Decode([]byte(lbExampleRuns(t)), "runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	parsed := map[string]*leaderboard.Result{}
	for rel, raw := range results {
		r, err := leaderboard.ParseResult(raw, rel)
		if err != nil {
			t.Fatal(err)
		}
		parsed[r.Group+"/"+r.Run] = r
	}
	want, err := lbview.Files(leaderboard.BuildBoard(d, parsed))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{lbview.MarkdownFile, lbview.HTMLFile} {
		if !bytes.Equal(tip[lbDashboard+"/"+name], want[name]) {
			t.Errorf("%s differs from the rendering of the results", name)
		}
	}
	if !strings.Contains(string(tip[lbDashboard+"/README.md"]), lbSimTag) {
		t.Errorf("README.md does not name the simulator release %s", lbSimTag)
	}
	if string(tip[lbDashboard+"/runs.yaml"]) != lbExampleRuns(t) {
		t.Error("the dashboard's leaderboard directory lacks the declaration the results ran")
	}
	if tip[lbDashboard+"/published.json"] == nil || tip["README.md"] == nil || string(tip["README.md"]) != "# Data\n" {
		t.Error("published.json missing, or the dashboard's own README.md was touched")
	}
	if len(w.gh.Comments) != 0 {
		t.Errorf("a published run got comments: %v", w.gh.Comments)
	}
	head := w.gh.TipSHA(w.dashboard, "main")

	// The same results again — a redelivery, or a re-run (a new run id) —
	// change nothing: no commit at all.
	for _, id := range []int64{lbRunID, lbRunID + 1} {
		run := w.run
		run.ID, run.UpdatedAt = id, t0.Add(time.Duration(id-lbRunID)*time.Hour)
		w.artifact(t, run, results)
		res, err := w.pub.PublishRun(context.Background(), run, nil)
		if err != nil || res.Outcome != publish.PublishUnchanged {
			t.Fatalf("run %d again: %+v, %v", id, res, err)
		}
	}
	if n := w.gh.CountWrites("CreateCommit"); n != 1 || w.gh.TipSHA(w.dashboard, "main") != head {
		t.Errorf("re-publishing the same results wrote %d commits, want none", n-1)
	}
}

func TestLeaderboardPublishDeletesRemovedAndKeepsNewer(t *testing.T) {
	t.Parallel()
	w := newLBWorld(t)
	w.artifact(t, w.run, lbResults(t, nil))
	if res, err := w.pub.PublishRun(context.Background(), w.run, nil); err != nil || res.Outcome != publish.PublishPublished {
		t.Fatalf("publish: %+v, %v", res, err)
	}
	// A maintainer removes the candidate h200-tp1; the next run's results
	// lack it, and its published result goes in the same commit.
	runs := strings.Replace(lbExampleRuns(t), "      - id: h200-tp1\n        model: qwen/qwen3-14b\n        hardware: H200\n        tp: 1\n", "", 1)
	if runs == lbExampleRuns(t) {
		t.Fatal("the example no longer declares h200-tp1 as this test expects")
	}
	next := w.run
	next.ID, next.UpdatedAt = lbRunID+1, t0.Add(time.Hour)
	next.HeadSHA = w.gh.Push(w.lbRepo, "main", map[string]string{lbRuns: runs}, "drop h200", ghmodel.Identity{Login: "human"})
	results := lbResults(t, nil)
	delete(results, "qwen3-14b-chat-8rps/h200-tp1.json")
	w.artifact(t, next, results)
	res, err := w.pub.PublishRun(context.Background(), next, nil)
	if err != nil || res.Outcome != publish.PublishPublished {
		t.Fatalf("publish after the removal: %+v, %v", res, err)
	}
	removed := lbDashboard + "/results/qwen3-14b-chat-8rps/h200-tp1.json"
	if raw, ok := res.Files[removed]; !ok || raw != nil {
		t.Errorf("the removed result is not deleted by the commit")
	}
	tip := w.gh.Tip(w.dashboard, "main")
	if _, ok := tip[removed]; ok {
		t.Error("the removed candidate's result is still published")
	}
	if strings.Contains(string(tip[lbDashboard+"/README.md"]), "h200-tp1") {
		t.Error("the table still shows the removed candidate")
	}
	// Only what changed is written: unchanged results are not in the commit.
	if _, ok := res.Files[lbDashboard+"/results/qwen3-14b-chat-8rps/h100-tp1.json"]; ok {
		t.Error("an unchanged result was written again")
	}

	// The older run, delivered late, does not move the leaderboard back.
	w.artifact(t, w.run, lbResults(t, nil))
	res, err = w.pub.PublishRun(context.Background(), w.run, nil)
	if err != nil || res.Outcome != publish.PublishUnchanged || len(res.Reasons) != 1 || !strings.Contains(res.Reasons[0], "newer run") {
		t.Fatalf("late older run: %+v, %v", res, err)
	}
	if _, ok := w.gh.Tip(w.dashboard, "main")[removed]; ok {
		t.Error("a late older run put the removed result back")
	}
}

func TestLeaderboardRefusals(t *testing.T) {
	t.Parallel()
	retag := func(tag string) func(string, *leaderboard.Result) {
		return func(_ string, r *leaderboard.Result) { r.Provenance.Simulator.Tag = tag }
	}
	cases := []struct {
		name string
		// results returns the artifact's results directory.
		results func(t *testing.T) map[string][]byte
		pin     string
		want    string
	}{
		{name: "tampered result", results: func(t *testing.T) map[string][]byte {
			res := lbResults(t, nil)
			p := "qwen3-14b-chat-8rps/h100-tp1.json"
			res[p] = bytes.Replace(res[p], []byte(`"ttft_mean_ms": `), []byte(`"ttft_mean_ms": 1`), 1)
			return res
		}, want: "tampered: qwen3-14b-chat-8rps/h100-tp1.json"},
		{name: "result copied from another candidate", results: func(t *testing.T) map[string][]byte {
			// The TP 2 result filed as the TP 1 candidate's: ids and
			// declaration edited, computed values redone, resealed; its
			// command still says --tp 2.
			res := lbResults(t, nil)
			p1, p2 := "qwen3-14b-chat-8rps/h100-tp1.json", "qwen3-14b-chat-8rps/h100-tp2.json"
			tp1, err := leaderboard.ParseResult(res[p1], p1)
			if err != nil {
				t.Fatal(err)
			}
			c, err := leaderboard.ParseResult(res[p2], p2)
			if err != nil {
				t.Fatal(err)
			}
			c.Group, c.Run, c.Declaration = tp1.Group, tp1.Run, tp1.Declaration
			comp := leaderboard.Compute(c.Declaration, *c.BLIS)
			c.Computed = &comp
			if err := c.Seal(); err != nil {
				t.Fatal(err)
			}
			if res[p1], err = c.Encode(); err != nil {
				t.Fatal(err)
			}
			return res
		}, want: `unplanned-command: qwen3-14b-chat-8rps/h100-tp1.json: the recorded command is not the one its declaration plans (command[7]: planned "1", recorded "2")`},
		{name: "misfiled result", results: func(t *testing.T) map[string][]byte {
			res := lbResults(t, nil)
			res["qwen3-14b-chat-8rps/h100-tp9.json"] = res["qwen3-14b-chat-8rps/h100-tp1.json"]
			delete(res, "qwen3-14b-chat-8rps/h100-tp1.json")
			return res
		}, want: "misfiled: qwen3-14b-chat-8rps/h100-tp9.json"},
		{name: "mixed offered load", results: func(t *testing.T) map[string][]byte {
			return lbResults(t, func(key string, r *leaderboard.Result) {
				if key == "qwen3-14b-chat-8rps/a100-tp1" {
					r.Declaration.Load.Rate = 16
				}
			})
		}, want: "mixed-offered-work: qwen3-14b-chat-8rps/a100-tp1.json"},
		{name: "missing result", results: func(t *testing.T) map[string][]byte {
			res := lbResults(t, nil)
			delete(res, "qwen3-14b-chat-8rps/h100-tp2.json")
			return res
		}, want: "missing-result: qwen3-14b-chat-8rps/h100-tp2.json"},
		{name: "non-release build", results: func(t *testing.T) map[string][]byte {
			return lbResults(t, retag("v0.8.0-rc.1"))
		}, pin: lbPin("v0.8.0-rc.1", lbSimCommit), want: `not a release (tag "v0.8.0-rc.1"`},
		{name: "build no release names", results: func(t *testing.T) map[string][]byte {
			return lbResults(t, retag(""))
		}, want: `not a release (tag ""`},
		{name: "drifted simulator commit", results: func(t *testing.T) map[string][]byte {
			return lbResults(t, func(key string, r *leaderboard.Result) {
				if key == "llama-3.1-8b-sweep/h100-tp1--rate-8" {
					r.Provenance.Simulator.Commit = strings.Repeat("6", 40)
				}
			})
		}, want: "simulator-drift: llama-3.1-8b-sweep/h100-tp1--rate-8.json"},
		{name: "no leaderboard pin", results: func(t *testing.T) map[string][]byte { return lbResults(t, nil) },
			pin: strings.SplitN(lbPin(lbSimTag, lbSimCommit), "leaderboard:", 2)[0], want: "pins no leaderboard pair"},
		{name: "symlink in the artifact", results: nil, want: "is a symlink"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newLBWorld(t)
			if tc.pin != "" {
				w.run.HeadSHA = w.gh.Push(w.lbRepo, "main", map[string]string{".github/accuracy-harness.yaml": tc.pin}, "pin", ghmodel.Identity{Login: "human"})
			}
			if tc.results == nil {
				w.gh.Artifacts[lbRepoName+"#"+strconv.FormatInt(w.run.ID, 10)+"/"+lbArtifact] = zipWithSymlink(t)
			} else {
				w.artifact(t, w.run, tc.results(t))
			}
			res, err := w.pub.PublishRun(context.Background(), w.run, nil)
			if err != nil || res.Outcome != publish.PublishRefused {
				t.Fatalf("got %+v, %v; want refused", res, err)
			}
			if !slices.ContainsFunc(res.Reasons, func(r string) bool { return strings.Contains(r, tc.want) }) {
				t.Errorf("reasons %q lack %q", res.Reasons, tc.want)
			}
			if n := w.gh.CountWrites("CreateCommit"); n != 0 {
				t.Errorf("a refused leaderboard wrote %d commits", n)
			}
			if len(w.gh.Comments) != 1 || !strings.HasPrefix(w.gh.Comments[0], lbRepoName+"@"+w.run.HeadSHA+": "+render.RefusalMarker(lbRunID)) ||
				!strings.Contains(w.gh.Comments[0], "**Leaderboard not published.** The results artifact `"+lbArtifact+"`") {
				t.Errorf("refusal comment: %q", w.gh.Comments)
			}
		})
	}
}

func zipWithSymlink(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	h := &zip.FileHeader{Name: "qwen3-14b-chat-8rps/h100-tp1.json"}
	h.SetMode(fs.ModeSymlink | 0o777)
	w, err := zw.CreateHeader(h)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("/etc/passwd"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestLeaderboardPublishTrace: a declaration that replays a recorded trace
// is resolved from the run's head commit (the trace files beside runs.yaml)
// and the stored trace is published with the result; a trace missing from
// the commit refuses the run, naming it.
func TestLeaderboardPublishTrace(t *testing.T) {
	t.Parallel()
	const runs = "version: 1\ngroups:\n  - id: recorded\n    workload: {trace: {format: tracev2, header: traces/chat.yaml, data: traces/chat.csv}}\n" +
		"    load: {arrival: recorded}\n    candidates:\n      - {id: h100, model: qwen/qwen3-14b, hardware: H100, tp: 1}\n"
	header, data := "version: 2\ntime_unit: us\n", "request_id,arrival\n0,0\n1,500\n"
	d, err := leaderboard.Decode([]byte(runs), "runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	traces, err := leaderboard.ResolveTraces(d, fstest.MapFS{"traces/chat.yaml": {Data: []byte(header)}, "traces/chat.csv": {Data: []byte(data)}})
	if err != nil || len(traces) != 1 {
		t.Fatalf("traces %v, %v", traces, err)
	}
	run := d.Runs()[0]
	res := &leaderboard.Result{Group: run.Group, Run: run.ID, Declaration: run, Command: []string{"blis", "replay"},
		Provenance: leaderboard.Provenance{Simulator: leaderboard.Simulator{Commit: lbSimCommit, Tag: lbSimTag},
			Harness: runresult.Harness{Commit: strings.Repeat("9", 40), Source: runresult.HarnessCheckout}},
		Status: leaderboard.StatusFailed, Failure: &leaderboard.Failure{Reason: "simulator-run-error", Message: "exit status 2"}}
	if err := res.Seal(); err != nil {
		t.Fatal(err)
	}
	raw, err := res.Encode()
	if err != nil {
		t.Fatal(err)
	}
	sum := run.Workload.Trace.SHA256
	artifact := map[string][]byte{"recorded/h100.json": raw,
		"traces/" + sum + "/header.yaml": []byte(header), "traces/" + sum + "/data.csv": []byte(data)}

	// GitHub rate-limits the trace's read: the publish fails (a
	// redelivery retries it); the run is not refused for it.
	w := newLBWorld(t)
	w.run.HeadSHA = w.gh.Push(w.lbRepo, "main", map[string]string{lbRuns: runs, "leaderboard/traces/chat.yaml": header, "leaderboard/traces/chat.csv": data}, "a recorded trace", ghmodel.Identity{Login: "human"})
	w.artifact(t, w.run, artifact)
	w.gh.FailPath = map[string]error{"leaderboard/traces/chat.csv": fmt.Errorf("fake: %w", ghmodel.ErrRateLimited)}
	if got, err := w.pub.PublishRun(context.Background(), w.run, nil); !errors.Is(err, ghmodel.ErrRateLimited) || len(w.gh.Comments) != 0 {
		t.Errorf("rate-limited trace read: %+v, %v, comments %q; want the error, no refusal", got, err, w.gh.Comments)
	}

	for _, withTrace := range []bool{true, false} {
		w := newLBWorld(t)
		files := map[string]string{lbRuns: runs}
		if withTrace {
			files["leaderboard/traces/chat.yaml"], files["leaderboard/traces/chat.csv"] = header, data
		}
		w.run.HeadSHA = w.gh.Push(w.lbRepo, "main", files, "a recorded trace", ghmodel.Identity{Login: "human"})
		w.artifact(t, w.run, artifact)
		got, err := w.pub.PublishRun(context.Background(), w.run, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !withTrace {
			// The reason names runs.yaml's line once, as validate does.
			if got.Outcome != publish.PublishRefused || !slices.ContainsFunc(got.Reasons, func(r string) bool {
				return strings.Contains(r, "traces/chat.yaml") && strings.HasPrefix(r, lbRuns+":4: ") && strings.Count(r, lbRuns) == 1
			}) {
				t.Errorf("trace missing from the commit: %+v", got)
			}
			continue
		}
		if got.Outcome != publish.PublishPublished {
			t.Fatalf("publish: %+v", got)
		}
		tip := w.gh.Tip(w.dashboard, "main")
		for name, want := range map[string]string{"header.yaml": header, "data.csv": data} {
			if p := lbDashboard + "/results/traces/" + sum + "/" + name; string(tip[p]) != want {
				t.Errorf("%s = %q, want the stored trace", p, tip[p])
			}
		}
		if !bytes.Equal(tip[lbDashboard+"/results/recorded/h100.json"], raw) {
			t.Error("the result is not published")
		}
	}
}
