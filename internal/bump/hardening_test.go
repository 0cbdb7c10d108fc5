package bump

// Regression tests of issue 11 (the bot under hostile input and GitHub's
// failures).

import (
	"context"
	"errors"
	"fmt"
	"github.com/inference-sim/accuracy-dashboard/internal/bump/bumpfake"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

// Defect 2: a long note about a file the bot could not edit (one workflow
// line of about 70 KB) made the pull request body's budget negative and
// cutting the release notes panicked, which ended the bumps of every
// repository after it. The body now stays within GitHub's limit and every
// repository gets its bump.
func TestLongNoteDoesNotStopOtherBumps(t *testing.T) {
	t.Parallel()
	w := newBumpWorld(t)
	long := "      - {uses: " + harnessName + "/" + strings.Repeat("é", 35000) + "@" + oldCommit + ", with: {mode: pr}}\n"
	// Installed first, so that it is bumped before the others.
	huge := w.gh.AddRepo("org/aaa-huge", map[string]string{
		".github/accuracy-harness.yaml": pinV100,
		".github/workflows/flow.yml":    "on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n" + long,
	}, true)
	w.gh.Installed = append([]ident.Repo{huge}, w.gh.Installed[:len(w.gh.Installed)-1]...)
	rel, _ := w.gh.AddRelease(w.harness, "v1.1.0", strings.Repeat("Long notes. ", 10000))
	got, err := w.bumper.BumpRelease(context.Background(), rel, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"org/aaa-huge": OutcomeCreated, "org/app": OutcomeCreated, "org/lib": OutcomeCreated,
		"org/plain": OutcomeSkipped, "org/newer": OutcomeSkipped}
	for repo, o := range want {
		if outcomes(got)[repo] != o {
			t.Errorf("%s: %q, want %q (all: %v)", repo, outcomes(got)[repo], o, outcomes(got))
		}
	}
	for _, o := range got {
		if o.Plan == nil {
			continue
		}
		if len(o.Plan.Body) > textcut.MaxGitHubBody || !utf8.ValidString(o.Plan.Body) {
			t.Errorf("%s: body of %d bytes (valid UTF-8: %v), want at most %d", o.Repo, len(o.Plan.Body), utf8.ValidString(o.Plan.Body), textcut.MaxGitHubBody)
		}
	}
}

// Defect 2: a failure in one repository, even a panic, is logged and
// reported, and the others still get their bump.
func TestPanicInOneRepositoryIsItsFailureOnly(t *testing.T) {
	t.Parallel()
	w := newBumpWorld(t)
	w.gh.FailRepo["org/app"] = bumpfake.ErrPanic
	rel, _ := w.gh.AddRelease(w.harness, "v1.1.0", "notes")
	got, err := w.bumper.BumpRelease(context.Background(), rel, nil)
	if err == nil || !strings.Contains(err.Error(), "org/app") || !strings.Contains(err.Error(), "panic") {
		t.Errorf("err = %v, want org/app's panic reported", err)
	}
	if o := outcomes(got); o["org/lib"] != OutcomeCreated || o["org/plain"] != OutcomeSkipped {
		t.Errorf("outcomes %v: the others were not bumped", o)
	}
}

// Defect 6: once GitHub rate-limits a bump, the bot stops calling it and
// reports which repositories were not bumped.
func TestRateLimitStopsTheBump(t *testing.T) {
	t.Parallel()
	w := newBumpWorld(t)
	rel, _ := w.gh.AddRelease(w.harness, "v1.1.0", "notes")
	// Installed order: org/app, org/lib, org/plain, org/newer.
	w.gh.FailRepo["org/lib"] = fmt.Errorf("GitHub said 403, retry after 600 s: %w", ghmodel.ErrRateLimited)
	got, err := w.bumper.BumpRelease(context.Background(), rel, nil)
	if !errors.Is(err, ghmodel.ErrRateLimited) {
		t.Fatalf("err = %v, want ErrRateLimited", err)
	}
	for _, name := range []string{"org/lib", "org/plain", "org/newer"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name %s as not bumped: %v", name, err)
		}
	}
	for _, repo := range []ident.Repo{w.plain, w.newer} {
		if n := w.gh.Calls(repo); n != 0 {
			t.Errorf("%s: %d calls after the rate limit", repo, n)
		}
	}
	o := outcomes(got)
	if o["org/app"] != OutcomeCreated || o["org/plain"] != OutcomeNotBumped || o["org/newer"] != OutcomeNotBumped || o["org/lib"] != OutcomeNotBumped {
		t.Errorf("outcomes %v", o)
	}
}

// Defect 7: a bump pull request a maintainer closed without merging stays
// closed for that release (a redelivery opens nothing); a newer release
// opens a new one.
func TestClosedBumpIsLeftAloneUntilANewerRelease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newBumpWorld(t)
	rel, _ := w.gh.AddRelease(w.harness, "v1.1.0", "notes")
	if _, err := w.bumper.BumpRelease(ctx, rel, nil); err != nil {
		t.Fatal(err)
	}
	first := w.gh.OpenPullsOf(w.app)[0]
	w.gh.MarkClosed(w.app, first.Number)
	for range 3 { // redeliveries
		got, err := w.bumper.BumpRelease(ctx, rel, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range got {
			if o.Repo == w.app && (o.Outcome != OutcomeSkipped || !strings.Contains(o.Reason, fmt.Sprintf("#%d", first.Number))) {
				t.Errorf("redelivery: %+v, want skipped naming the closed #%d", o, first.Number)
			}
		}
	}
	if n := len(w.gh.OpenPullsOf(w.app)); n != 0 {
		t.Fatalf("%d pull requests reopened for the closed release", n)
	}
	newer, _ := w.gh.AddRelease(w.harness, "v1.2.0", "more")
	got, err := w.bumper.BumpRelease(ctx, newer, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := outcomes(got); o["org/app"] != OutcomeCreated {
		t.Errorf("newer release: %v, want a new pull request in org/app", o)
	}
	if p := w.gh.OpenPullsOf(w.app); len(p) != 1 || p[0].Title != "Bump accuracy harness to v1.2.0" {
		t.Errorf("open pulls after the newer release: %+v", p)
	}
}
