package main

// Issue 31, point 6: crashes lose nothing. `bot serve` runs in a process
// of its own (the test binary re-executed, serveChild) against the fake
// GitHub, which holds the call of a named point of the work (HoldNext):
// the child is blocked there, with everything before it done and nothing
// after, and is killed with SIGKILL. A new process on the same state
// directory finishes the delivery from its journal.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// childEnv names, in a re-executed test binary, the child it is to be
// instead of running the tests (TestMain).
const childEnv = "BOT_TEST_CHILD"

// children are what a re-executed test binary can be; each returns the
// process's exit code.
var children = map[string]func() int{"serve": serveChild}

// serveChild runs `bot serve` with the process's environment, printing
// the address it listens on, until SIGTERM.
func serveChild() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	e := env{getenv: os.Getenv, stdout: os.Stdout, stderr: os.Stderr, readFile: os.ReadFile,
		transport: http.DefaultTransport, now: time.Now, listening: func(a string) { fmt.Println(a) }}
	if err := runEnv(ctx, []string{"serve"}, e); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// botProcess is `bot serve` in a child process.
type botProcess struct {
	cmd  *exec.Cmd
	addr string
	logs *testkit.SyncBuffer // its JSON log lines
}

// startBot starts `bot serve` in a child process with w's settings and
// the state directory state, and waits until it listens; the fake
// delivers to it from then on. It is killed when the test ends.
func (w *world) startBot(t *testing.T, state string) *botProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=serve", "BOT_STATE_DIR="+state)
	for k, v := range w.vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	b := &botProcess{cmd: cmd, logs: &testkit.SyncBuffer{}}
	cmd.Stderr = b.logs
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(l)
		io.Copy(io.Discard, stdout)
	}()
	select {
	case b.addr = <-line:
	case <-time.After(30 * time.Second):
		t.Fatalf("bot serve did not start:\n%s", b.logs)
	}
	if b.addr == "" {
		t.Fatalf("bot serve exited:\n%s", b.logs)
	}
	w.fake.SetWebhook("http://"+b.addr+"/webhook", secret)
	return b
}

// kill kills the bot with SIGKILL and waits for it to end.
func (b *botProcess) kill(t *testing.T) {
	t.Helper()
	if err := b.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for b.cmd.ProcessState == nil {
		time.Sleep(10 * time.Millisecond)
	}
}

// await waits (at most a minute) for a log line of the bot whose message
// is msg and whose delivery is delivery, and returns it.
func (b *botProcess) await(t *testing.T, msg, delivery string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, l := range strings.Split(b.logs.String(), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == msg && m["delivery"] == delivery {
				return m
			}
		}
	}
	t.Fatalf("the bot did not log %q for delivery %s in a minute:\n%s", msg, delivery, b.logs)
	return nil
}

// reached waits (at most a minute) for the held call.
func reached(t *testing.T, held <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-held:
	case <-time.After(time.Minute):
		t.Fatalf("the bot never reached %s", what)
	}
}

// journal lists the state directory's journal.
func journal(t *testing.T, state string) []string {
	t.Helper()
	return testkit.Paths(t, filepath.Join(state, "journal"))
}

// Killed in the middle of a publish, after the snapshot's files were
// written to GitHub (blobs, tree, commit) and before the dashboard's
// branch moved to them (git/update-ref, held): nothing is published, the
// delivery is in the journal, and the bot started again (beside the
// temporary file of a journal write a kill interrupted) publishes it, one
// commit, and empties the journal.
func TestKilledMidPublishPublishesOnRestart(t *testing.T) {
	w := newWorld(t)
	state := t.TempDir()
	run := w.fake.AddWorkflowRun(harnessRepo, githubfake.WorkflowRun{HeadSHA: w.releaseAt, HeadBranch: "main"})
	sum, points := runFiles(t, nil)
	w.fake.AddArtifact(harnessRepo, run, "accuracy-report", testkit.Zip(t, map[string][]byte{"summary.json": sum, "points.json": points}), false)
	before := len(w.fake.Commits(dashboardRepo, "refs/heads/main"))

	bot := w.startBot(t, state)
	held := w.fake.HoldNext("git/update-ref")
	if code := w.fake.Deliver("workflow_run", "completed", "publish-1", runEvent(t, run, w.releaseAt)); code != http.StatusAccepted {
		t.Fatalf("the delivery was answered %d, want 202", code)
	}
	reached(t, held, "the dashboard's ref update")
	if w.fake.Calls("git/create-commit") == 0 || w.fake.Calls("git/create-tree") == 0 {
		t.Fatalf("held before the snapshot's files were written: %v", w.fake.CallCounts())
	}
	bot.kill(t)

	if n := len(w.fake.Commits(dashboardRepo, "refs/heads/main")); n != before {
		t.Fatalf("the dashboard has %d commits after the kill, want %d (no partial publish)", n, before)
	}
	if got := journal(t, state); strings.Join(got, " ") != "delivery-publish-1.json" {
		t.Fatalf("the journal holds %q after the kill, want the accepted delivery", got)
	}
	// What a process killed while it recorded another delivery leaves (it
	// never answered that one): the next must not trip on it.
	testkit.WriteFile(t, filepath.Join(state, "journal", ".delivery-other.json.tmp-4242"), `{"id":"oth`)

	bot = w.startBot(t, state)
	bot.await(t, "delivery handled", "publish-1")
	bot.await(t, "delivery recovered: accepted by a bot that stopped before its work ended; queued again", "publish-1")
	assertOneSnapshotCommit(t, w.fake, before, fmt.Sprintf("%s_run-%d", snapshotID, run))
	if got := journal(t, state); len(got) != 0 {
		t.Errorf("the journal holds %q once the publish is done, want nothing", got)
	}
}

// Killed in the middle of a pin bump, after org/app's bump branch was
// written and before its pull request was opened (pulls/create, held):
// the bot started again opens exactly one bump pull request in each
// pinning repository, on the branch the killed one wrote.
func TestKilledMidBumpFinishesOnRestart(t *testing.T) {
	w := newWorld(t)
	state := t.TempDir()
	bot := w.startBot(t, state)
	held := w.fake.HoldNext("pulls/create")
	if code := w.fake.Deliver("release", "published", "bump-1", releaseEvent(t)); code != http.StatusAccepted {
		t.Fatalf("the delivery was answered %d, want 202", code)
	}
	reached(t, held, "opening the first bump pull request")
	bot.kill(t)
	branches := 0
	for _, repo := range []string{"org/app", "org/lib"} {
		if len(w.fake.Commits(repo, "refs/heads/accuracy-bot/harness")) > 0 {
			branches++
		}
		if n := len(w.fake.PullRequests(repo)); n != 0 {
			t.Fatalf("%s has %d pull requests after the kill, want none", repo, n)
		}
	}
	if branches != 1 {
		t.Fatalf("%d bump branches written before the kill, want 1 (killed between the branch and its pull request)", branches)
	}
	if got := journal(t, state); strings.Join(got, " ") != "delivery-bump-1.json" {
		t.Fatalf("the journal holds %q after the kill, want the accepted delivery", got)
	}

	bot = w.startBot(t, state)
	bot.await(t, "delivery handled", "bump-1")
	for _, repo := range []string{"org/app", "org/lib"} {
		pulls := openPulls(w.fake, repo)
		if len(pulls) != 1 || pulls[0].Head != "accuracy-bot/harness" {
			t.Errorf("%s: bump pull requests %+v, want one on accuracy-bot/harness", repo, pulls)
		}
		got, _ := w.fake.File(repo, "refs/heads/accuracy-bot/harness", map[string]string{
			"org/app": ".github/accuracy-harness.yaml", "org/lib": ".github/workflows/ci.yml"}[repo])
		if !strings.Contains(got, w.releaseAt) {
			t.Errorf("%s: the bump branch does not pin %s:\n%s", repo, w.releaseAt, got)
		}
	}
	if got := journal(t, state); len(got) != 0 {
		t.Errorf("the journal holds %q once the bump is done, want nothing", got)
	}
}
