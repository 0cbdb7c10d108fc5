package main

// Regression tests of issue 11 against the OpenAPI-checked fake GitHub.

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// Defect 6: a pull request GitHub opened but whose answer was lost is not
// opened again (the retry used to end in 422 "A pull request already
// exists"): the bump looks before it fails.
func TestBumpSurvivesALostPullRequestResponse(t *testing.T) {
	w := newWorld(t)
	w.fake.FailNext("pulls/create", 1, githubfake.LostResponse())
	if err := w.run(t, "bump", "--release", "v1.1.0"); err != nil {
		t.Fatalf("bump: %v\n%s", err, w.stderr)
	}
	for _, repo := range []string{"org/app", "org/lib"} {
		if n := len(w.fake.PullRequests(repo)); n != 1 {
			t.Errorf("%s: %d pull requests, want 1", repo, n)
		}
	}
	if n := w.fake.Calls("pulls/create"); n != 2 {
		t.Errorf("pulls/create called %d times, want once per repository", n)
	}
	if !strings.Contains(w.stdout.String(), "org/app: created") {
		t.Errorf("stdout:\n%s", w.stdout)
	}
}

// Defect 6: a refusal comment whose answer was lost is not posted twice.
func TestRefusalCommentNotRepeatedAfterALostResponse(t *testing.T) {
	w := newWorld(t)
	head := w.releaseAt
	run := w.fake.AddWorkflowRun(harnessRepo, githubfake.WorkflowRun{HeadSHA: head, HeadBranch: "main"})
	experimental := summary(t, func(s *runresult.Summary) {
		s.Provenance.Ledger.Release = false
		s.Label, s.LabelReasons = runresult.Label(s.Provenance)
	})
	w.fake.AddArtifact(harnessRepo, run, "accuracy-report", testkit.Zip(t, map[string][]byte{"summary.json": experimental}), false)
	w.fake.FailNext("repos/create-commit-comment", 1, githubfake.LostResponse())
	addr, done := w.serve(t)
	if code := post(t, addr, "workflow_run", "run", runEvent(t, run, head)); code != http.StatusAccepted {
		t.Fatal(code)
	}
	waitDelivery(t, done)
	if n := len(w.fake.CommitComments(harnessRepo, head)); n != 1 {
		t.Errorf("%d refusal comments, want 1", n)
	}
}

// Defect 6: once GitHub rate-limits a bump beyond what the client waits
// for, no further repository is tried, and the ones not bumped are named.
func TestBumpStopsWhenRateLimited(t *testing.T) {
	w := newWorld(t)
	// org/app is bumped first; its default branch lookup is refused until
	// a reset 10 minutes away.
	w.fake.FailNext("repos/get", 1, githubfake.RateLimitExhausted(time.Now().Add(10*time.Minute)))
	before := w.fake.CallCounts()
	err := w.run(t, "bump", "--release", "v1.1.0")
	if !errors.Is(err, ghmodel.ErrRateLimited) {
		t.Fatalf("bump: %v, want rate limited", err)
	}
	for _, repo := range []string{"org/app", "org/lib", "org/plain"} {
		if !strings.Contains(err.Error(), repo) || !strings.Contains(w.stdout.String(), repo+": not bumped") {
			t.Errorf("%s not reported as not bumped: %v\n%s", repo, err, w.stdout)
		}
	}
	after := w.fake.CallCounts()
	if n := after["repos/get"] - before["repos/get"]; n != 1 {
		t.Errorf("repos/get called %d times, want 1 (nothing after the limit)", n)
	}
	if after["pulls/create"] != 0 || after["git/create-commit"] != 0 {
		t.Errorf("writes after the limit: %v", after)
	}
}

// Defect 7: after a maintainer closes the bump pull request without
// merging, a redelivery of the same release opens nothing.
func TestClosedBumpPullRequestStaysClosed(t *testing.T) {
	w := newWorld(t)
	if err := w.run(t, "bump", "--release", "v1.1.0"); err != nil {
		t.Fatal(err)
	}
	pulls := openPulls(w.fake, "org/app")
	if len(pulls) != 1 {
		t.Fatalf("%d pull requests", len(pulls))
	}
	w.fake.ClosePullRequest("org/app", pulls[0].Number)
	for range 2 {
		if err := w.run(t, "bump", "--release", "v1.1.0"); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(w.fake.PullRequests("org/app")); n != 1 {
		t.Errorf("org/app has %d pull requests after redeliveries, want the closed one only", n)
	}
	if !strings.Contains(w.stdout.String(), "org/app: skipped (bump pull request #") {
		t.Errorf("stdout:\n%s", w.stdout)
	}
}

// Defect 6: the pause lasts across deliveries: a bump made while the limit
// holds sends nothing to GitHub's repository endpoints.
func TestNoCallsWhileRateLimited(t *testing.T) {
	w := newWorld(t)
	addr, done := w.serve(t)
	w.fake.FailNext("repos/get", 1, githubfake.RateLimitExhausted(time.Now().Add(10*time.Minute)))
	if code := post(t, addr, "release", "first", releaseEvent(t)); code != http.StatusAccepted {
		t.Fatal(code)
	}
	if err := <-done; !errors.Is(err, ghmodel.ErrRateLimited) {
		t.Fatalf("first delivery: %v, want rate limited", err)
	}
	before := w.fake.CallCounts()
	if code := post(t, addr, "release", "second", append(releaseEvent(t), ' ')); code != http.StatusAccepted {
		t.Fatal(code)
	}
	if err := <-done; !errors.Is(err, ghmodel.ErrRateLimited) || !strings.Contains(err.Error(), "not calling GitHub until") {
		t.Fatalf("second delivery: %v, want refused without calling GitHub", err)
	}
	after := w.fake.CallCounts()
	for op, n := range after {
		if n != before[op] && op != "apps/get-authenticated" {
			t.Errorf("%s called %d times while rate-limited", op, n-before[op])
		}
	}
}
