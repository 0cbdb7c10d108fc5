package lbview

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/golden"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// sampleBoard is the leaderboard package's test declaration with results:
// chat-4rps has two qualified runs and a disqualified one, the sweep keeps
// up at C=1 and C=4, fails at C=16 with a hostile simulator message.
func sampleBoard(t testing.TB) leaderboard.Board {
	t.Helper()
	src, err := os.ReadFile("../testdata/runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := leaderboard.Decode(src, "runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	runs := d.Runs()
	prov := leaderboard.Provenance{Simulator: leaderboard.Simulator{Commit: strings.Repeat("f", 40), Tag: "v0.7.15"},
		Harness: runresult.Harness{Commit: strings.Repeat("a", 40), Source: "checkout", Version: "dev"}}
	res := map[string]*leaderboard.Result{}
	ok := func(r leaderboard.DeclaredRun, ttft, tps float64, completed, timedOut int) {
		f := leaderboard.Figures{TTFTMeanMs: ttft, TTFTP99Ms: 2 * ttft, ITLMeanMs: 10.25, ITLP99Ms: 12.5, E2EMeanMs: 1000 + ttft, E2EP99Ms: 2500,
			OutputTokensPerS: tps, ResponsesPerS: tps / 256, Injected: r.Workload.Requests, Completed: completed, TimedOut: timedOut,
			Preemptions: int(ttft) % 3, TotalOutputTokens: 250 * completed}
		c := leaderboard.Compute(r, f)
		x := &leaderboard.Result{Group: r.Group, Run: r.ID, Declaration: r, Command: []string{"blis", "run"}, Provenance: prov, Status: leaderboard.StatusOK, BLIS: &f, Computed: &c}
		if err := x.Seal(); err != nil {
			t.Fatal(err)
		}
		res[r.Group+"/"+r.ID] = x
	}
	ok(runs[0], 30.04, 1000, 100, 0)
	ok(runs[1], 10, 900, 95, 5)
	ok(runs[2], 20, 1050.5, 100, 0)
	ok(runs[3], 12, 300, 50, 0)
	ok(runs[4], 15, 1100, 50, 0)
	fail := &leaderboard.Result{Group: runs[5].Group, Run: runs[5].ID, Declaration: runs[5], Command: []string{"blis", "run"}, Provenance: prov,
		Status: leaderboard.StatusFailed, Failure: &leaderboard.Failure{Reason: "simulator-run-error", Message: "exit status 2: panic | <script>alert(1)</script> @someone #12"}}
	if err := fail.Seal(); err != nil {
		t.Fatal(err)
	}
	res[runs[5].Group+"/"+runs[5].ID] = fail
	return leaderboard.BuildBoard(d, res)
}

func TestLeaderboardMarkdownGolden(t *testing.T) {
	t.Parallel()
	md := Markdown(sampleBoard(t))
	golden.Assert(t, filepath.Join("testdata", "leaderboard.md.golden"), []byte(md))
	for _, want := range []string{
		"| h100-tp1 | test/test-model-7b | H100 | 1 | default | 1 | 30.0 (#2) |", // value and rank
		"[#1]", // a disqualified run's would-be rank
		"completed 95 of 100 offered requests; 5 timed out",
		"GPUs†", "served†", "- **GPUs** = TP × DP × replicas", // computed markers and legend
		leaderboard.LoadNote,
		"### Capacity", "| h100 | test/test-model-7b | H100 | 2 replicas | C=4 | 1100.0 | 4.297 | at C=16: failed (simulator-run-error) |",
		"&lt;script&gt;", "@\u200dsomeone", // untrusted text escaped
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	if strings.Contains(md, "<script>") {
		t.Error("a simulator message injected HTML into the Markdown")
	}
}

func TestLeaderboardHTMLGolden(t *testing.T) {
	t.Parallel()
	page, err := HTML(sampleBoard(t))
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, filepath.Join("testdata", "leaderboard.html.golden"), []byte(page))
	for _, want := range []string{
		`<span class="computed" title="TP × DP × replicas">GPUs</span>`,
		`<tr data-run="h100-tp1">`, `<span class="rank">#2</span>`, `<span class="rank">[#1]</span>`,
		`id="t-sweep-capacity"`, "&lt;script&gt;alert(1)&lt;/script&gt;",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	for _, bad := range []string{"<script src", "<link", "http://", "https://", "<script>alert"} {
		if strings.Contains(page, bad) {
			t.Errorf("HTML has %q: the page must be self-contained and escape untrusted text", bad)
		}
	}
}

func TestLeaderboardCommentGolden(t *testing.T) {
	t.Parallel()
	ok := Report{Path: "leaderboard/runs.yaml", Board: sampleBoard(t), Results: 6, Unchanged: 4,
		Notes: []string{"This pull request edits committed results beside leaderboard/runs.yaml. They are not used."}}
	refused := Report{Path: "other/runs.yaml", Refused: []string{
		"other/runs.yaml:7: groups[0].candidates[0]: missing properties 'hardware', 'tp'",
		"other/runs.yaml:9: groups[0].candidates[1].colour: unknown field | <b>@someone</b> #3",
	}}
	md := Comment([]Report{ok, refused})
	golden.Assert(t, filepath.Join("testdata", "leaderboard-comment.golden"), []byte(md))
	if !strings.HasPrefix(md, Marker+"\n") || strings.Contains(md, render.PRMarker) {
		t.Error("the comment does not start with its own marker alone")
	}
	if strings.Contains(render.PRMarker, Marker) || strings.Contains(Marker, render.PRMarker) {
		t.Error("one marker contains the other: a comment would be taken for the other kind")
	}
	for _, want := range []string{
		"6 results in 2 groups: 4 ranked, 1 disqualified, 1 failed. 4 as committed, 2 new or changed.",
		"##### Chat, 4 req/s (`chat-4rps`)", "###### Capacity", "**Disqualified**", "[#", "† Computed by this project",
		"**Refused**, no tables:", "**Note:** This pull request edits committed results beside leaderboard/runs.yaml. They are not used.", "- other/runs.yaml:7: groups\\[0\\].candidates\\[0\\]: missing properties 'hardware', 'tp'",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("comment lacks %q", want)
		}
	}
	for _, bad := range []string{"<b>", "@someone", "<script>"} {
		if strings.Contains(md, bad) {
			t.Errorf("untrusted text %q is live in the comment", bad)
		}
	}
	if c := ok.Counts(); c != (Counts{Groups: 2, Qualified: 4, Disqualified: 1, Failed: 1}) {
		t.Errorf("counts %+v", c)
	}
}

func TestLeaderboardNothingToRun(t *testing.T) {
	t.Parallel()
	if got := NothingToRun("No `runs.yaml` changed: nothing to run."); got != "### Leaderboard\n\nNo `runs.yaml` changed: nothing to run.\n" {
		t.Errorf("NothingToRun = %q", got)
	}
}
