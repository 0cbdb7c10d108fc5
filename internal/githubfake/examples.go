package githubfake

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// ExamplesPath is the location, relative to the module root, of the real
// webhook payloads installed by npm @octokit/webhooks-examples.
const ExamplesPath = "node_modules/@octokit/webhooks-examples/api.github.com/index.json"

// examples maps an event name to its payloads, undecoded.
var (
	examplesOnce sync.Once
	examples     map[string][]json.RawMessage
	examplesErr  error
)

func loadExamples() (map[string][]json.RawMessage, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	path, err := underModule(wd, ExamplesPath)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var index []struct {
		Name     string            `json:"name"`
		Examples []json.RawMessage `json:"examples"`
	}
	if err := json.Unmarshal(raw, &index); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	out := map[string][]json.RawMessage{}
	for _, e := range index {
		out[e.Name] = append(out[e.Name], e.Examples...)
	}
	return out, nil
}

// WebhookExamples returns every real payload of event whose action is action
// ("" for events without one, such as ping), in the package's order, each
// decoded afresh so that callers may edit it. The payloads come from npm
// @octokit/webhooks-examples (ExamplesPath under the module root), read once
// per test binary. When the package is not installed the test is skipped,
// or fails when the environment has CI=true; no matching payload fails the
// test.
func WebhookExamples(t testing.TB, event, action string) []map[string]any {
	t.Helper()
	examplesOnce.Do(func() { examples, examplesErr = loadExamples() })
	if examplesErr != nil {
		testkit.Missing(t, "node_modules", examplesErr, "run npm ci at the module root")
	}
	var out []map[string]any
	for _, raw := range examples[event] {
		var ex map[string]any
		if err := json.Unmarshal(raw, &ex); err != nil {
			t.Fatalf("githubfake: %s webhook example: %v", event, err)
		}
		if a, _ := ex["action"].(string); a == action {
			out = append(out, ex)
		}
	}
	if len(out) == 0 {
		t.Fatalf("githubfake: no %s webhook example with action %q", event, action)
	}
	return out
}

// WebhookExample returns the first real payload of event with action (see
// WebhookExamples), decoded.
func WebhookExample(t testing.TB, event, action string) map[string]any {
	t.Helper()
	return WebhookExamples(t, event, action)[0]
}

// PullRequestEvent is a real pull_request webhook payload with action (see
// WebhookExample) with its pull request's number, head and base commits and
// its repository (owner/name) set, encoded as $GITHUB_EVENT_PATH holds it.
func PullRequestEvent(t testing.TB, action, repo string, number int, head, base string) []byte {
	t.Helper()
	ev := WebhookExample(t, "pull_request", action)
	pr := ev["pull_request"].(map[string]any)
	pr["number"] = number
	ev["number"] = number
	pr["head"].(map[string]any)["sha"] = head
	pr["base"].(map[string]any)["sha"] = base
	ev["repository"].(map[string]any)["full_name"] = repo
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
