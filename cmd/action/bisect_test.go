package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/bisect"
	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
)

// The stand-in's TTFT model starts with this line; commit changeAt of the
// bisect repository scales the TTFT of open-loop (rate) points by 1.25
// after it, which moves the predictions of the test ledger's one
// inference-perf unit and no other.
const (
	ttftLine  = "\tscale := 1 / math.Sqrt(float64(*s.tp))\n"
	ttftMoved = ttftLine + "\tif !closed {\n\t\tscale *= 1.25\n\t}\n"
	changeAt  = 37
	// The bisect repository's commits: 0 is the good end, 63 the bad.
	historyLen = 64
	// brokenAt is the first commit the search picks (the middle of 0..63).
	brokenAt = 31
	// movedUnit is the unit whose predictions commit changeAt moves.
	movedUnit = "test/ip/test-model-7b/h100"
)

// bisectRepo is a git repository of the stand-in simulator of historyLen
// commits, each its own (a STEP file counts them), where commit changeAt
// changes the TTFT of rate points and, when broken, commit brokenAt does
// not compile (the next one repairs it). It returns the commits, oldest
// first.
func bisectRepo(t testing.TB, broken bool) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	harnesstest.GitInit(t, dir)
	var commits []string
	for i := range historyLen {
		harnesstest.CopyStandin(t, dir, "metrics")
		main := filepath.Join(dir, "main.go")
		src, err := os.ReadFile(main)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(src, []byte(ttftLine)) {
			t.Fatalf("the stand-in's main.go lacks %q", ttftLine)
		}
		if i >= changeAt {
			src = bytes.Replace(src, []byte(ttftLine), []byte(ttftMoved), 1)
		}
		if broken && i == brokenAt {
			src = append(src, "\nfunc broken() { this does not compile }\n"...)
		}
		if err := os.WriteFile(main, src, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "STEP"), fmt.Appendf(nil, "%d\n", i), 0o644); err != nil {
			t.Fatal(err)
		}
		commits = append(commits, harnesstest.CommitAll(t, dir, fmt.Sprintf("step %d", i)))
	}
	return dir, commits
}

// runBisectStandin bisects the repository's two ends on the test ledger
// and returns the answer action bisect wrote with --out and its Markdown.
func runBisectStandin(t testing.TB, repo string, commits []string, extra ...string) (*bisect.Result, string) {
	t.Helper()
	hdir, _ := harnesstest.HarnessCheckout(t)
	out := filepath.Join(t.TempDir(), "bisect.json")
	args := append([]string{"bisect", "--harness-dir", hdir, "--sim-repo", repo, "--good", commits[0], "--bad", commits[len(commits)-1],
		"--ledger", testLedger, "--catalog", "none", "--cache-dir", t.TempDir(), "--jobs", "2", "--quiet", "--out", out}, extra...)
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, fakeEnv(map[string]string{"HOME": t.TempDir()}), &stdout, &stderr); err != nil {
		t.Fatalf("action bisect: %v\n%s", err, stderr.String())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res bisect.Result
	if err := jsoncodec.Decode(raw, &res); err != nil {
		t.Fatal(err)
	}
	return &res, stdout.String()
}

// checkFound checks that the answer names commit changeAt alone, with
// only movedUnit's points moved, and that md, when given, names it.
func checkFound(t testing.TB, res *bisect.Result, commits []string, md string) {
	t.Helper()
	if len(res.Changes) != 1 || res.Changes[0].Commit.Hash != commits[changeAt] || res.Changes[0].Parent.Hash != commits[changeAt-1] {
		t.Fatalf("changes %+v, ranges %+v; want commit %d (%s) alone", res.Changes, res.Ranges, changeAt, commits[changeAt])
	}
	if len(res.Moved) == 0 {
		t.Fatal("no point moved")
	}
	for _, id := range res.Moved {
		if !strings.HasPrefix(id, movedUnit+"@") {
			t.Errorf("point %s moved; only %s's should", id, movedUnit)
		}
	}
	for _, m := range res.Changes[0].Moves {
		if b, a := m.Before.Predicted["ttft_ms"], m.After.Predicted["ttft_ms"]; !(a > b*1.2) {
			t.Errorf("%s: TTFT %v → %v, want about 1.25×", m.Point, b, a)
		}
	}
	if md != "" && (!strings.Contains(md, commits[changeAt]) || !strings.Contains(md, fmt.Sprintf("step %d", changeAt))) {
		t.Errorf("the Markdown does not name commit %d:\n%s", changeAt, md)
	}
}

// TestBisectStandin: over 63 candidate commits the bisect names commit 37
// after at most ⌈log2 63⌉ + 2 = 8 builds and simulates, between the two
// ends, only the moved unit's points.
func TestBisectStandin(t *testing.T) {
	repo, commits := bisectRepo(t, false)
	res, md := runBisectStandin(t, repo, commits)
	checkFound(t, res, commits, md)
	if res.Builds > 8 || len(res.Skipped) != 0 {
		t.Errorf("%d builds, %d skipped; want at most 8, none skipped", res.Builds, len(res.Skipped))
	}
	ends := res.Steps[0].Simulated + res.Steps[1].Simulated
	if res.Steps[0].Points != 10 || res.Steps[1].Points != 10 {
		t.Errorf("the ends scored %d and %d points, want the test ledger's 10", res.Steps[0].Points, res.Steps[1].Points)
	}
	for _, s := range res.Steps[2:] {
		if s.Points != len(res.Moved) {
			t.Errorf("step %s scored %d points, want the %d moved", s.Commit.Subject, s.Points, len(res.Moved))
		}
	}
	if want := ends + (len(res.Steps)-2)*len(res.Moved); res.Simulated != want {
		t.Errorf("simulated %d points, want %d", res.Simulated, want)
	}
}

// TestBisectStandinSkipsUnbuildable: the first commit the search picks does
// not build; it is skipped, named, and the answer is still found with one
// build more.
func TestBisectStandinSkipsUnbuildable(t *testing.T) {
	repo, commits := bisectRepo(t, true)
	res, md := runBisectStandin(t, repo, commits)
	checkFound(t, res, commits, md)
	if len(res.Skipped) != 1 || res.Skipped[0].Commit.Hash != commits[brokenAt] || !strings.Contains(res.Skipped[0].Reason, "go build failed") {
		t.Fatalf("skipped %+v, want commit %d for its failed build", res.Skipped, brokenAt)
	}
	if res.Builds > 9 {
		t.Errorf("%d builds, want at most 9", res.Builds)
	}
	if !strings.Contains(md, "### Skipped") || !strings.Contains(md, fmt.Sprintf("step %d", brokenAt)) {
		t.Errorf("the Markdown does not name the skipped commit:\n%s", md)
	}
}

// BenchmarkBisectStandin reports what the bisect of the 64-commit
// repository costs, builds and simulated points per bisect: as generated,
// and with commit brokenAt, the first the search picks, not building.
func BenchmarkBisectStandin(b *testing.B) {
	for _, broken := range []bool{false, true} {
		b.Run(fmt.Sprintf("unbuildable-%v", broken), func(b *testing.B) {
			repo, commits := bisectRepo(b, broken)
			var res *bisect.Result
			for b.Loop() {
				res, _ = runBisectStandin(b, repo, commits)
			}
			checkFound(b, res, commits, "")
			b.ReportMetric(float64(res.Builds), "builds/op")
			b.ReportMetric(float64(len(res.Skipped)), "skipped/op")
			b.ReportMetric(float64(res.Simulated), "simulated-points/op")
			b.ReportMetric(float64(len(res.Moved)), "moved-points/op")
		})
	}
}

func TestBisectRefusals(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	base := []string{"bisect", "--harness-dir", hdir, "--sim-repo", repo.Dir, "--ledger", testLedger, "--catalog", "none", "--cache-dir", t.TempDir(), "--quiet"}
	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--good", "v0.1.0", "--bad", "feature"}, "is a branch", 1},
		{[]string{"--good", "v0.2.0", "--bad", "v0.1.0"}, "is not older than", 1},
		{[]string{"--good", "v0.1.0", "--bad", "v0.2.0", "--metric", "speed"}, `"speed" is not a metric`, 2},
		{[]string{"--good", "v0.1.0", "--bad", "v0.2.0", "--threshold", "2"}, "need --metric", 2},
		{[]string{"--good", "v0.1.0"}, "-bad", 2},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append(base, tc.args...), fakeEnv(map[string]string{"HOME": t.TempDir()}), &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error()+stderr.String(), tc.want) || cli.ExitCode(err) != tc.code {
			t.Errorf("%v: err %v (exit %d), want %q and exit %d", tc.args, err, cli.ExitCode(err), tc.want, tc.code)
		}
	}
}
