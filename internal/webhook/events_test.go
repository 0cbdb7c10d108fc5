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
