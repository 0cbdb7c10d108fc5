package webhook

// Regression tests of issue 11 (the bot under hostile input and load).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
)

// runOf returns a real workflow_run payload of action, edited: repository
// full name, workflow path and run id. The examples have no in_progress
// payload: one is made from a requested one.
func runOf(t testing.TB, action, repo, path string, id int) []byte {
	t.Helper()
	source := action
	if action == "in_progress" {
		source = "requested"
	}
	var ex map[string]any
	for _, e := range githubfake.WebhookExamples(t, "workflow_run", source) {
		if r, _ := e["workflow_run"].(map[string]any); r["path"] != nil && (action != "completed" || r["conclusion"] == "success") {
			ex = e
			break
		}
	}
	if ex == nil {
		t.Fatalf("no workflow_run %s example with a path", action)
	}
	ex["action"] = action
	ex["repository"].(map[string]any)["full_name"] = repo
	r := ex["workflow_run"].(map[string]any)
	r["path"], r["id"] = path, id
	if hr, ok := r["head_repository"].(map[string]any); ok {
		hr["full_name"] = repo
	}
	b, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// holdBumps makes bumps wait until the returned function is called (at the
// latest when the test ends, before the server is closed).
func (h *harness) holdBumps(t *testing.T) func() {
	h.rec.hold = make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(h.rec.hold) }) }
	t.Cleanup(release)
	return release
}

// Defect 3: unrelated events (other actions, other repositories, other
// workflows) are acknowledged without being queued, so that with every
// worker busy they cannot fill the queue and push out the publish delivery.
func TestUnrelatedEventsAreNotQueued(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(o *Options) { o.Workers, o.QueueSize = 1, 4 })
	h.rec.allow = true
	h.holdBumps(t)
	// The only worker is busy with a release.
	if w := h.post("release", "rel", example(t, "release", "published", nil)); w.Code != http.StatusAccepted {
		t.Fatalf("release: %d %s", w.Code, w.Body)
	}
	n := 0
	for _, action := range []string{"requested", "in_progress", "completed"} {
		for _, repo := range []string{"other/repo", testPublishRepo.String()} {
			path := testPublishWorkflow
			if repo == testPublishRepo.String() {
				path = ".github/workflows/ci.yml" // the right repository, another workflow
			}
			if action != "completed" {
				path = testPublishWorkflow
			}
			for range 12 {
				n++
				w := h.post("workflow_run", fmt.Sprint("noise-", n), runOf(t, action, repo, path, 1000+n))
				if w.Code != http.StatusOK || !strings.HasPrefix(w.Body.String(), "ignored: ") {
					t.Fatalf("unrelated %s run of %s (%s): %d %q, want 200 ignored", action, repo, path, w.Code, w.Body)
				}
			}
		}
	}
	for _, p := range []struct{ event, action string }{{"release", "created"}, {"release", "prereleased"}, {"release", "deleted"}} {
		n++
		if w := h.post(p.event, fmt.Sprint("noise-", n), example(t, p.event, p.action, nil)); w.Code != http.StatusOK {
			t.Fatalf("%s/%s: %d, want 200 ignored", p.event, p.action, w.Code)
		}
	}
	// The publish delivery still finds room.
	w := h.post("workflow_run", "publish", runOf(t, "completed", testPublishRepo.String(), testPublishWorkflow, 42))
	if w.Code != http.StatusAccepted {
		t.Fatalf("publish delivery after %d unrelated ones: %d %s", n, w.Code, w.Body)
	}
	if q := h.srv.Queued(); q != 1 {
		t.Errorf("%d deliveries queued, want only the publish", q)
	}
}

// Defect 3: a second release waits for the first without holding a worker,
// and only within its own deadline.
func TestSecondReleaseWaitsWithoutHoldingAWorker(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(o *Options) { o.Workers, o.QueueSize = 2, 8 })
	h.rec.allow = true
	release := h.holdBumps(t)
	rel := example(t, "release", "published", nil)
	if w := h.post("release", "rel-1", rel); w.Code != http.StatusAccepted {
		t.Fatal(w.Code)
	}
	second := bytes.Replace(rel, []byte(`"tag_name":"v0.0.1"`), []byte(`"tag_name":"v0.0.2"`), 1)
	if bytes.Equal(second, rel) {
		t.Fatal("could not make a second release")
	}
	if w := h.post("release", "rel-2", second); w.Code != http.StatusAccepted {
		t.Fatal(w.Code)
	}
	// While the first bump runs and the second waits, a publish is handled.
	if w := h.post("workflow_run", "publish", runOf(t, "completed", testPublishRepo.String(), testPublishWorkflow, 42)); w.Code != http.StatusAccepted {
		t.Fatal(w.Code)
	}
	r := h.wait(t)
	if r.err != nil || r.d.Event != "workflow_run" {
		t.Fatalf("first delivery handled: %+v, want the publish while the bumps wait", r)
	}
	release()
	for range 2 {
		if r := h.wait(t); r.err != nil || r.d.Event != "release" {
			t.Fatalf("release handled: %+v", r)
		}
	}
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	if len(h.rec.releases) != 2 || h.rec.releases[0].Tag != "v0.0.1" || h.rec.releases[1].Tag != "v0.0.2" {
		t.Errorf("releases bumped %+v, want v0.0.1 then v0.0.2", h.rec.releases)
	}
}

// A job's deadline is its queued time plus HandleTimeout, by the server's
// clock: when the clock passes it, the running job's context ends, and a
// job still waiting then fails without running. Both releases are queued at
// the same instant of an injected clock, so both deadlines pass at once
// when the clock is moved on, whatever the machine's speed (issue 18: with
// the wall clock the second was queued a moment later and sometimes ran).
func TestQueuedWorkExpiresAtItsDeadline(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	const timeout = time.Hour // by the fake clock; no wall-clock wait
	h := newHarness(t, func(o *Options) { o.Workers, o.HandleTimeout, o.Clock = 2, timeout, clock })
	h.rec.allow = true
	h.holdBumps(t) // the first bump runs until its context ends
	rel := example(t, "release", "published", nil)
	for i, body := range [][]byte{rel, bytes.Replace(rel, []byte(`"tag_name":"v0.0.1"`), []byte(`"tag_name":"v0.0.2"`), 1)} {
		if w := h.post("release", fmt.Sprint("rel-", i+1), body); w.Code != http.StatusAccepted {
			t.Fatalf("rel-%d: %d %s", i+1, w.Code, w.Body)
		}
	}
	// The first bump runs (its deadline timer is set); the second waits
	// for the bump serial key.
	clock.waitArmed(t, 1, "running bumps")
	clock.Advance(timeout)
	got := map[string]error{}
	for range 2 {
		r := h.wait(t)
		got[r.d.ID] = r.err
	}
	if got["rel-1"] == nil || errors.Is(got["rel-1"], ErrExpired) {
		t.Errorf("rel-1: %v, want cut off by its context", got["rel-1"])
	}
	if !errors.Is(got["rel-2"], ErrExpired) {
		t.Errorf("rel-2: %v, want %v", got["rel-2"], ErrExpired)
	}
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	if h.rec.bumpsStarted != 1 || len(h.rec.releases) != 0 {
		t.Errorf("%d bumps started, %d completed; want the first started and cut off, the second never started",
			h.rec.bumpsStarted, len(h.rec.releases))
	}
}

// Defect 4: the signed body is de-duplicated too, so a captured delivery
// replayed under a new X-GitHub-Delivery is not acted on again.
func TestReplayUnderNewDeliveryIDIsDropped(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.rec.allow = true
	run := runOf(t, "completed", testPublishRepo.String(), testPublishWorkflow, 42)
	if w := h.post("workflow_run", "original", run); w.Code != http.StatusAccepted {
		t.Fatal(w.Code)
	}
	if r := h.wait(t); r.err != nil {
		t.Fatal(r.err)
	}
	for i := range 5 {
		if w := h.post("workflow_run", fmt.Sprint("replay-", i), run); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "duplicate") {
			t.Errorf("replay %d: %d %q, want 200 duplicate", i, w.Code, w.Body)
		}
	}
	h.noneHandled(t, "a replay was handled")
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	if len(h.rec.runs) != 1 {
		t.Errorf("PublishRun called %d times, want 1", len(h.rec.runs))
	}
}

// Defect 4: delivery ids are GitHub's GUIDs; a long one is refused, not kept.
func TestLongDeliveryIDRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	body := example(t, "ping", "", nil)
	for _, id := range []string{strings.Repeat("a", 1<<20), strings.Repeat("a", MaxDeliveryIDBytes+1), "bad id\x00"} {
		if w := h.post("ping", id, body); w.Code != http.StatusBadRequest {
			t.Errorf("delivery id of %d bytes: %d, want 400", len(id), w.Code)
		}
	}
	if w := h.post("ping", "72d3162e-cc78-11e3-81ab-4c9367dc0958", body); w.Code != http.StatusOK {
		t.Errorf("a GUID delivery id: %d", w.Code)
	}
}
