package prcheck

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/sticky"
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

// fakeScorer writes the canned runresult.Result of each simulator commit and fails the
// test on a commit it was not given.
type fakeScorer struct {
	t      *testing.T
	runs   map[string]runresult.Result
	fail   map[string]error
	scored []string
	merged [][]string
}

func (s *fakeScorer) ScoreCommit(_ context.Context, sim string, shard *runresult.Shard, dir string) error {
	s.scored = append(s.scored, sim+shardSuffix(shard))
	if err := s.fail[sim]; err != nil {
		return err
	}
	r, ok := s.runs[sim]
	if !ok {
		s.t.Errorf("unexpected Score(%s)", sim)
		return errors.New("unexpected")
	}
	r.Summary.Shard = shard
	writeRun(s.t, dir, r)
	return nil
}

func (s *fakeScorer) Merge(_ context.Context, dir string, shards []string) error {
	s.merged = append(s.merged, shards)
	first, err := runresult.Read(shards[0])
	if err != nil {
		return err
	}
	first.Summary.Shard = nil
	writeRun(s.t, dir, first)
	return nil
}

func shardSuffix(s *runresult.Shard) string {
	if s == nil {
		return ""
	}
	return " " + s.String()
}

// fakeComments is an in-memory pull request thread. A call of an operation
// the test did not allow ("self", "list", "create", "update", "delete") or an
// update or delete of a comment the thread does not hold fails the test.
type fakeComments struct {
	t        *testing.T
	allow    map[string]bool
	self     string
	selfErr  error
	writeErr error
	comments []ghmodel.Comment
	nextID   int64
	calls    []string
}

// expectComments returns a thread that allows the operations ops.
func expectComments(t *testing.T, ops ...string) *fakeComments {
	f := &fakeComments{t: t, self: "github-actions[bot]", allow: map[string]bool{}}
	for _, op := range ops {
		f.allow[op] = true
	}
	return f
}

// call records a call and reports whether its operation is allowed.
func (f *fakeComments) call(op, call string) error {
	f.calls = append(f.calls, call)
	if !f.allow[op] {
		f.t.Errorf("unexpected comment API call: %s", call)
		return errors.New("unexpected call " + call)
	}
	return nil
}

func (f *fakeComments) Self(context.Context) (string, error) {
	if err := f.call("self", "self"); err != nil {
		return "", err
	}
	return f.self, f.selfErr
}

func (f *fakeComments) ListComments(_ context.Context, n int) ([]ghmodel.Comment, error) {
	if err := f.call("list", fmt.Sprintf("list %d", n)); err != nil {
		return nil, err
	}
	return append([]ghmodel.Comment(nil), f.comments...), nil
}

func (f *fakeComments) CreateComment(_ context.Context, n int, body string) (ghmodel.Comment, error) {
	if err := f.call("create", fmt.Sprintf("create %d", n)); err != nil {
		return ghmodel.Comment{}, err
	}
	if f.writeErr != nil {
		return ghmodel.Comment{}, f.writeErr
	}
	f.nextID++
	c := ghmodel.Comment{ID: f.nextID, Author: "github-actions[bot]", Body: body, URL: fmt.Sprintf("https://example/c/%d", f.nextID)}
	f.comments = append(f.comments, c)
	return c, nil
}

func (f *fakeComments) UpdateComment(_ context.Context, id int64, body string) (ghmodel.Comment, error) {
	if err := f.call("update", fmt.Sprintf("update %d", id)); err != nil {
		return ghmodel.Comment{}, err
	}
	if f.writeErr != nil {
		return ghmodel.Comment{}, f.writeErr
	}
	for i := range f.comments {
		if f.comments[i].ID == id {
			f.comments[i].Body = body
			return f.comments[i], nil
		}
	}
	f.t.Errorf("update of comment %d, which the thread does not hold", id)
	return ghmodel.Comment{}, errors.New("no such comment")
}

func (f *fakeComments) DeleteComment(_ context.Context, id int64) error {
	if err := f.call("delete", fmt.Sprintf("delete %d", id)); err != nil {
		return err
	}
	for i := range f.comments {
		if f.comments[i].ID == id {
			f.comments = append(f.comments[:i], f.comments[i+1:]...)
			return nil
		}
	}
	f.t.Errorf("delete of comment %d, which the thread does not hold", id)
	return errors.New("no such comment")
}

type fakePRs map[int]string

func (f fakePRs) PullRequestHead(_ context.Context, n int) (string, error) {
	sha, ok := f[n]
	if !ok {
		return "", fmt.Errorf("no pull request %d", n)
	}
	return sha, nil
}

// recordLog is a Log that keeps one line per call: "group: title",
// "endgroup", "notice: msg", "warning: msg", "error: msg".
type recordLog struct{ strings.Builder }

func (l *recordLog) Group(title string) { l.WriteString("group: " + title + "\n") }
func (l *recordLog) EndGroup()          { l.WriteString("endgroup\n") }
func (l *recordLog) Notice(msg string)  { l.WriteString("notice: " + msg + "\n") }
func (l *recordLog) Warning(msg string) { l.WriteString("warning: " + msg + "\n") }
func (l *recordLog) Error(msg string)   { l.WriteString("error: " + msg + "\n") }

// newFlow builds a flow over sc and cm (nil: no comment), its
// configuration edited by edits before NewFlow.
func newFlow(t *testing.T, sc Scorer, cm sticky.Commenter, edits ...func(*FlowConfig)) (*Flow, *recordLog, *strings.Builder) {
	log := &recordLog{}
	summary := &strings.Builder{}
	c := FlowConfig{
		Scorer:  sc,
		Key:     CacheKey{HarnessCommit: harnessCommit, Data: map[string]string{"ledger": "bundled"}},
		Log:     log,
		Summary: func(md string) error { summary.WriteString(md); return nil },
		OutDir:  t.TempDir(),
	}
	if cm != nil {
		c.Comments = cm
	}
	for _, e := range edits {
		e(&c)
	}
	return NewFlow(c), log, summary
}

func canned(t *testing.T) *fakeScorer {
	head, base := comparePair(t)
	return &fakeScorer{t: t, runs: map[string]runresult.Result{headSHA: head, baseSHA: base}}
}

var pr = PR{Number: 7, HeadSHA: headSHA, BaseSHA: baseSHA}

func TestRunPRCommentsThenUpdates(t *testing.T) {
	t.Parallel()
	sc := canned(t)
	cm := expectComments(t, "self", "list", "create", "update")
	cm.comments, cm.nextID = []ghmodel.Comment{{ID: 100, Author: "alice", Body: render.PRMarker + " quoted"}}, 100
	cache := &Cache{Dir: t.TempDir()}
	f, log, summary := newFlow(t, sc, cm, func(c *FlowConfig) { c.Cache = cache })
	out, err := f.RunPR(context.Background(), pr, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.CommentURL != "https://example/c/101" || len(cm.comments) != 2 {
		t.Fatalf("comment url %q, comments %+v", out.CommentURL, cm.comments)
	}
	if !strings.Contains(summary.String(), "| measured + resolved | TTFT |") || summary.String() != out.Markdown {
		t.Errorf("job summary:\n%s", summary.String())
	}
	if b, err := os.ReadFile(out.MarkdownPath); err != nil || string(b) != out.Markdown {
		t.Errorf("comparison.md not written: %v", err)
	}
	if !strings.Contains(log.String(), "group: Score head "+headSHA) || !strings.Contains(log.String(), "endgroup") {
		t.Errorf("log lacks groups:\n%s", log)
	}

	// Second run: same commits come from the cache, the comment is kept
	// (same body); a changed body updates it in place.
	f2, _, _ := newFlow(t, sc, cm, func(c *FlowConfig) { c.Cache, c.DetailsURL = cache, "https://example/run/2" })
	out2, err := f2.RunPR(context.Background(), pr, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.scored) != 2 {
		t.Errorf("scored %v: the second run should use the cache", sc.scored)
	}
	if len(cm.comments) != 2 || out2.CommentURL != "https://example/c/101" || cm.calls[len(cm.calls)-1] != "update 101" {
		t.Errorf("second run did not update comment 101: calls %v", cm.calls)
	}
	if !strings.Contains(cm.comments[1].Body, "reused from the cache") {
		t.Error("cache note missing")
	}
}

func TestRunPRReadOnlyToken(t *testing.T) {
	t.Parallel()
	cm := expectComments(t, "self", "list", "create")
	cm.selfErr = fmt.Errorf("GET /user: 403: %w", ghmodel.ErrForbidden)
	cm.writeErr = fmt.Errorf("POST: 403 Resource not accessible by integration: %w", ghmodel.ErrForbidden)
	f, log, summary := newFlow(t, canned(t), cm)
	out, err := f.RunPR(context.Background(), pr, true, nil)
	if err != nil {
		t.Fatalf("read-only token failed the run: %v", err)
	}
	if !out.ReadOnly || out.CommentURL != "" || summary.Len() == 0 {
		t.Errorf("outcome %+v, summary %d bytes", out, summary.Len())
	}
	if !strings.Contains(log.String(), "notice: Not commenting: the token is read-only") {
		t.Errorf("no notice:\n%s", log)
	}
}

func TestRunPROtherAPIErrorFails(t *testing.T) {
	t.Parallel()
	cm := expectComments(t, "self", "list", "create")
	cm.writeErr = errors.New("500 boom")
	f, _, _ := newFlow(t, canned(t), cm)
	if _, err := f.RunPR(context.Background(), pr, true, nil); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("err = %v", err)
	}
}

func TestRunPRBaseFailureDegrades(t *testing.T) {
	t.Parallel()
	sc := canned(t)
	sc.fail = map[string]error{baseSHA: errors.New("build failed")}
	f, log, _ := newFlow(t, sc, nil)
	out, err := f.RunPR(context.Background(), pr, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.BaseDir != "" || out.Comparison.Base != nil || !strings.Contains(out.Markdown, "could not be scored") {
		t.Errorf("outcome %+v", out)
	}
	if !strings.Contains(log.String(), "warning: The base commit could not be scored") {
		t.Errorf("no warning:\n%s", log)
	}
}

func TestRunPRHeadFailureFails(t *testing.T) {
	t.Parallel()
	sc := canned(t)
	sc.fail = map[string]error{headSHA: errors.New("compile error in sim.go")}
	f, _, _ := newFlow(t, sc, nil)
	if _, err := f.RunPR(context.Background(), pr, true, nil); err == nil || !strings.Contains(err.Error(), "compile error in sim.go") {
		t.Errorf("err = %v", err)
	}
}

func TestRunPRRefusesWrongHarness(t *testing.T) {
	t.Parallel()
	sc := canned(t)
	r := sc.runs[headSHA]
	r.Summary.Provenance.Harness.Commit = baseSHA
	sc.runs[headSHA] = r
	f, _, _ := newFlow(t, sc, nil)
	if _, err := f.RunPR(context.Background(), pr, false, nil); err == nil || !strings.Contains(err.Error(), "want the pinned") {
		t.Errorf("err = %v", err)
	}
}

func TestRunPRFailThreshold(t *testing.T) {
	t.Parallel()
	f, log, _ := newFlow(t, canned(t), nil, func(c *FlowConfig) { c.Thresholds = Thresholds{Alert: f64(1), Fail: f64(3)} })
	out, err := f.RunPR(context.Background(), pr, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Failed() || !strings.Contains(log.String(), "error: TPOT MAPE") || !strings.Contains(log.String(), "warning: TPOT MAPE") {
		t.Errorf("failed=%v log:\n%s", out.Failed(), log)
	}
	if !strings.Contains(out.Markdown, "[!CAUTION]") {
		t.Error("alert not in the report")
	}
}

func TestShardThenMerge(t *testing.T) {
	t.Parallel()
	sc := canned(t)
	shards := t.TempDir()
	for k := 1; k <= 2; k++ {
		cm := expectComments(t) // shards do not comment
		f, _, summary := newFlow(t, sc, cm, func(c *FlowConfig) { c.OutDir = filepath.Join(shards, fmt.Sprintf("accuracy-shard-%d", k)) })
		out, err := f.RunPR(context.Background(), pr, true, &runresult.Shard{Index: k, Count: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(cm.calls) != 0 || !strings.Contains(summary.String(), fmt.Sprintf("shard %d/2", k)) || out.MarkdownPath != "" {
			t.Errorf("shard %d: calls %v, summary %q", k, cm.calls, summary)
		}
		if sh := out.Head.Shard; sh == nil || sh.Index != k || out.Head.Provenance.Simulator.Commit != headSHA {
			t.Errorf("shard %d: outcome's head summary is for shard %v of %s", k, sh, out.Head.Provenance.Simulator.Commit)
		}
	}
	cm := expectComments(t, "self", "list", "create")
	f, _, _ := newFlow(t, sc, cm)
	out, err := f.RunMerge(context.Background(), pr, shards)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.merged) != 2 || len(sc.merged[0]) != 2 || out.CommentURL == "" || out.Comparison.Base == nil {
		t.Errorf("merged %v, outcome %+v", sc.merged, out)
	}
	if out.Head.Shard != nil || !cmp.Equal(out.Head, out.Comparison.Head) {
		t.Errorf("merged outcome's head summary %+v is not the compared one", out.Head)
	}

	// RunMergeSet merges the shards it is given and does not look for them
	// again: deeper than PlanMerge looks, they merge all the same.
	set, err := PlanMerge(shards)
	if err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(t.TempDir(), "a", "b")
	var given ShardSet
	for i, head := range set.Head {
		dst := filepath.Join(deep, fmt.Sprint(i), filepath.Base(filepath.Dir(head)))
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.Rename(filepath.Dir(head), dst); err != nil {
			t.Fatal(err)
		}
		given.Head = append(given.Head, filepath.Join(dst, "head"))
		if len(set.Base) > 0 {
			given.Base = append(given.Base, filepath.Join(dst, "base"))
		}
	}
	if _, err := PlanMerge(filepath.Dir(deep)); err == nil {
		t.Fatal("PlanMerge found the moved shards: the test tests nothing")
	}
	f, _, _ = newFlow(t, sc, expectComments(t, "self", "list", "create"))
	before := len(sc.merged)
	if _, err := f.RunMergeSet(context.Background(), pr, given); err != nil || len(sc.merged) <= before || !slices.Equal(sc.merged[before], given.Head) {
		t.Errorf("RunMergeSet: %v, merged %v, want %v first", err, sc.merged[before:], given.Head)
	}
}

func TestRunComment(t *testing.T) {
	t.Parallel()
	// The untrusted run's artifact.
	sc := canned(t)
	artifact := t.TempDir()
	producer, _, _ := newFlow(t, sc, nil, func(c *FlowConfig) { c.OutDir = artifact })
	if _, err := producer.RunPR(context.Background(), pr, true, nil); err != nil {
		t.Fatal(err)
	}

	newCommenter := func(ops ...string) (*Flow, *fakeComments) {
		cm := expectComments(t, ops...)
		f, _, _ := newFlow(t, &fakeScorer{t: t}, cm, func(c *FlowConfig) { c.Key.HarnessCommit = "" })
		return f, cm
	}
	f, cm := newCommenter("self", "list", "create")
	out, err := f.RunComment(context.Background(), artifact, headSHA, fakePRs{7: headSHA})
	if err != nil {
		t.Fatal(err)
	}
	if out.CommentURL == "" || len(cm.comments) != 1 || !strings.Contains(cm.comments[0].Body, "Δ MAPE") {
		t.Errorf("comment not posted: %+v", cm.comments)
	}

	refusals := map[string]struct {
		head string
		prs  fakePRs
		want string
	}{
		"run for another commit": {baseSHA, fakePRs{7: baseSHA}, "report is for commit"},
		"pull request moved on":  {headSHA, fakePRs{7: baseSHA}, "is at " + baseSHA},
		"no such pull request":   {headSHA, fakePRs{}, "no pull request 7"},
	}
	for name, tt := range refusals {
		f, cm := newCommenter()
		_, err := f.RunComment(context.Background(), artifact, tt.head, tt.prs)
		if err == nil || !strings.Contains(err.Error(), tt.want) || len(cm.calls) != 0 {
			t.Errorf("%s: err = %v, calls %v", name, err, cm.calls)
		}
	}

	// A tampered artifact whose result is for another commit is refused.
	tampered := t.TempDir()
	if err := CopyResult(filepath.Join(artifact, "head"), filepath.Join(tampered, "head")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(tampered, "pr.json"), []byte(`{"number":7,"head_sha":"`+baseSHA+`","base_sha":"`+headSHA+`"}`), 0o644)
	f, cm = newCommenter()
	if _, err := f.RunComment(context.Background(), tampered, baseSHA, fakePRs{7: baseSHA}); err == nil || !strings.Contains(err.Error(), "result is for simulator commit") || len(cm.calls) != 0 {
		t.Errorf("tampered artifact: err = %v, calls %v", err, cm.calls)
	}
}

// The untrusted run's artifact is data: results that do not match their
// schema (a commit that is not one, an unknown field) and a pr.json naming
// something that is not a commit are refused before anything is rendered or
// posted.
func TestRunCommentRefusesTamperedArtifact(t *testing.T) {
	t.Parallel()
	produced := t.TempDir()
	producer, _, _ := newFlow(t, canned(t), nil, func(c *FlowConfig) { c.OutDir = produced })
	if _, err := producer.RunPR(context.Background(), pr, true, nil); err != nil {
		t.Fatal(err)
	}
	const evil = "x` @org/team"
	tests := map[string]struct {
		file     string
		old, new string
		want     string
	}{
		"harness commit":          {"head/summary.json", `"` + harnessCommit + `"`, `"` + evil + `"`, "summary.json: does not match its schema"},
		"base simulator commit":   {"base/summary.json", `"commit": "` + baseSHA + `"`, `"commit": "` + evil + `"`, "summary.json: does not match its schema"},
		"unknown field in points": {"head/points.json", `"id":`, `"note": "hi", "id":`, "points.json: does not match its schema"},
		"base_sha not a commit":   {"pr.json", `"base_sha": "` + baseSHA + `"`, `"base_sha": "` + evil + `"`, "pr.json: base_sha"},
		"head_sha not a commit":   {"pr.json", `"head_sha": "` + headSHA + `"`, `"head_sha": "` + evil + `"`, "pr.json: head_sha"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(produced)); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tt.file)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), tt.old) {
				t.Fatalf("%s lacks %s", tt.file, tt.old)
			}
			if err := os.WriteFile(path, []byte(strings.Replace(string(b), tt.old, tt.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			cm := expectComments(t)
			f, _, _ := newFlow(t, &fakeScorer{t: t}, cm, func(c *FlowConfig) { c.Key.HarnessCommit = "" })
			out, err := f.RunComment(context.Background(), dir, headSHA, fakePRs{7: headSHA})
			if err == nil || !strings.Contains(err.Error(), tt.want) || len(cm.calls) != 0 {
				t.Errorf("err = %v (want %q), calls %v, markdown:\n%s", err, tt.want, cm.calls, out.Markdown)
			}
		})
	}
}

// boardMarker is the leaderboard's comment marker (lbview.Marker): another
// kind of sticky comment on the same pull request.
const boardMarker = "<!-- accuracy-dashboard:leaderboard -->"

// Each kind of report keeps its own sticky comment: with the accuracy
// comment and the leaderboard comment both on a pull request, posting one
// kind edits only the comment with its marker.
// Refresh edits the marker's existing comment and never opens one.
func TestRefreshCreatesNoComment(t *testing.T) {
	t.Parallel()
	cm := expectComments(t, "self", "list", "self", "list", "update")
	f, _, _ := newFlow(t, &fakeScorer{t: t}, cm)
	ctx := context.Background()
	if url, _, err := f.Sticky(boardMarker).Refresh(ctx, 7, boardMarker+"\nnothing"); err != nil || url != "" || len(cm.comments) != 0 {
		t.Fatalf("refresh without a comment: url %q, err %v, comments %+v", url, err, cm.comments)
	}
	cm.comments, cm.nextID = []ghmodel.Comment{{ID: 1, Author: "github-actions[bot]", Body: boardMarker + "\ntables"}}, 1
	if _, _, err := f.Sticky(boardMarker).Refresh(ctx, 7, boardMarker+"\nnothing"); err != nil {
		t.Fatal(err)
	}
	if len(cm.comments) != 1 || cm.comments[0].Body != boardMarker+"\nnothing" {
		t.Errorf("refresh: %+v", cm.comments)
	}
}

func TestPostEditsOnlyItsOwnMarker(t *testing.T) {
	t.Parallel()
	cm := expectComments(t, "self", "list", "update")
	accuracy := ghmodel.Comment{ID: 1, Author: "github-actions[bot]", Body: render.PRMarker + "\naccuracy v1"}
	board := ghmodel.Comment{ID: 2, Author: "github-actions[bot]", Body: boardMarker + "\ntables v1"}
	cm.comments, cm.nextID = []ghmodel.Comment{accuracy, board}, 2
	f, _, _ := newFlow(t, &fakeScorer{t: t}, cm)
	ctx := context.Background()

	if _, _, err := f.Sticky(boardMarker).Post(ctx, 7, boardMarker+"\ntables v2"); err != nil {
		t.Fatal(err)
	}
	if cm.comments[0] != accuracy || cm.comments[1].Body != boardMarker+"\ntables v2" {
		t.Errorf("leaderboard post: %+v", cm.comments)
	}
	if _, _, err := f.Sticky(render.PRMarker).Post(ctx, 7, render.PRMarker+"\naccuracy v2"); err != nil {
		t.Fatal(err)
	}
	if cm.comments[0].Body != render.PRMarker+"\naccuracy v2" || cm.comments[1].Body != boardMarker+"\ntables v2" {
		t.Errorf("accuracy post: %+v", cm.comments)
	}
	// A report past a comment's limit is cut, its marker kept.
	long := boardMarker + "\n" + strings.Repeat("| a | b |\n", textcut.MaxGitHubBody/8)
	if _, _, err := f.Sticky(boardMarker).Post(ctx, 7, long); err != nil {
		t.Fatal(err)
	}
	if b := cm.comments[1].Body; len(b) > textcut.MaxGitHubBody || !strings.HasPrefix(b, boardMarker+"\n") || !strings.Contains(b, "**Truncated:**") || cm.comments[0].Body != render.PRMarker+"\naccuracy v2" {
		t.Errorf("long leaderboard report: %d bytes, marker kept %v", len(b), strings.HasPrefix(b, boardMarker))
	}
	if strings.Contains(render.PRMarker, boardMarker) || strings.Contains(boardMarker, render.PRMarker) {
		t.Error("one marker contains the other: a comment would be taken for the other kind")
	}
	if want := "self list 7 update 2 self list 7 update 1 self list 7 update 2"; strings.Join(cm.calls, " ") != want {
		t.Errorf("calls %q, want %q", cm.calls, want)
	}
}
