package webhook

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// edited is a payload with edit applied to its decoded JSON.
func edited(t *testing.T, payload []byte, edit func(map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReleaseWithoutAReleaseTagIsIgnored: a published release of the
// harness whose tag is not a release tag (a branch name, a moving v1, a
// nightly tag) bumps nothing; it is answered ignored and never queued.
func TestReleaseWithoutAReleaseTagIsIgnored(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	for i, tag := range []string{"main", "v1", "nightly-2026-12-01", "v1.2", "v1.2.3+build", strings.Repeat("v1.2.3-", 100)} {
		body := edited(t, example(t, "release", "published", nil), func(m map[string]any) {
			m["release"].(map[string]any)["tag_name"] = tag
		})
		w := h.post("release", "tag-"+string(rune('a'+i)), body)
		if w.Code != http.StatusOK || !strings.HasPrefix(w.Body.String(), "ignored: ") || !strings.Contains(w.Body.String(), "is not a release tag") {
			t.Errorf("tag %.20q: %d %q, want 200 ignored: not a release tag", tag, w.Code, w.Body)
		}
		if len(w.Body.String()) > 300 {
			t.Errorf("tag %.20q: the answer quotes %d bytes", tag, len(w.Body.String()))
		}
	}
	h.noneHandled(t, "a release without a release tag")
}

// TestWorkflowRunWithoutHeadRepositoryIsIgnored: a completed run of the
// publishing workflow whose head repository is gone (GitHub sends null,
// for instance when the fork it came from was deleted) cannot be shown to
// come from the repository itself: ignored, never queued.
func TestWorkflowRunWithoutHeadRepositoryIsIgnored(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	body := edited(t, runOf(t, "completed", testPublishRepo.String(), testPublishWorkflow, 7), func(m map[string]any) {
		m["workflow_run"].(map[string]any)["head_repository"] = nil
	})
	w := h.post("workflow_run", "no-head", body)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "head repository is unknown") {
		t.Errorf("run without a head repository: %d %q, want 200 ignored", w.Code, w.Body)
	}
	h.noneHandled(t, "a run without a head repository")
}

// TestSimulatorTagIsQueuedAsARelease: GitHub's create payload of a tag the
// simulator pushed (which publishes no GitHub release for it) is queued as
// a bump of that tag when it is a stable release tag; a branch, a tag that
// is no release tag and a pre-release tag are ignored unqueued.
func TestSimulatorTagIsQueuedAsARelease(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.rec.allow = true
	tagged := func(refType, ref string) []byte {
		return edited(t, example(t, "create", "", nil), func(m map[string]any) { m["ref_type"], m["ref"] = refType, ref })
	}
	for i, tc := range []struct{ refType, ref, reason string }{
		{"tag", "simple-tag", "is not a release tag"},
		{"tag", "v0.8.0-rc.1", "is a pre-release"},
		{"branch", "v0.7.16", "create of a branch"},
	} {
		w := h.post("create", "ignored-"+string(rune('a'+i)), tagged(tc.refType, tc.ref))
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), tc.reason) {
			t.Errorf("%s %s: %d %q, want 200 ignored: %s", tc.refType, tc.ref, w.Code, w.Body, tc.reason)
		}
	}
	h.noneHandled(t, "an ignored create")
	if w := h.post("create", "tag", tagged("tag", "v0.7.16")); w.Code != http.StatusAccepted {
		t.Fatalf("release tag: %d %q", w.Code, w.Body)
	}
	if r := h.wait(t); r.err != nil {
		t.Fatal(r.err)
	}
	h.rec.mu.Lock()
	defer h.rec.mu.Unlock()
	if len(h.rec.releases) != 1 || h.rec.releases[0].Tag != "v0.7.16" || h.rec.releases[0].Repo != testHarness {
		t.Errorf("bumped %+v, want the tag v0.7.16 of %s", h.rec.releases, testHarness)
	}
}
