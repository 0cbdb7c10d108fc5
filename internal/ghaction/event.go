package ghaction

import (
	"encoding/json"
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
)

// event is the part of $GITHUB_EVENT_PATH the Action reads. Webhook payloads
// carry many more fields; they are ignored.
type event struct {
	PullRequest *struct {
		Number int `json:"number"`
		Head   struct {
			SHA string `json:"sha"`
		} `json:"head"`
		Base struct {
			SHA string `json:"sha"`
		} `json:"base"`
	} `json:"pull_request"`
	// WorkflowRun is the run whose report mode comment posts. Its
	// conclusion is not read: the untrusted run decides it itself, so it
	// proves nothing about the artifact (which is validated instead), and a
	// run that failed its fail-threshold has a report worth posting. Which
	// conclusions get a comment is the workflow's choice (its if:).
	WorkflowRun *struct {
		HeadSHA string `json:"head_sha"`
		HTMLURL string `json:"html_url"`
	} `json:"workflow_run"`
}

// decodeEvent reads the fields of event out of the payload go-githubactions
// decoded from path (nil when the file was missing).
func decodeEvent(path string, payload map[string]any) (event, error) {
	var ev event
	if payload == nil {
		return ev, fmt.Errorf("event: %s: no event payload", path)
	}
	b, err := json.Marshal(payload)
	if err == nil {
		err = json.Unmarshal(b, &ev)
	}
	if err != nil {
		return ev, fmt.Errorf("event %s: %w", path, err)
	}
	return ev, nil
}

// pullRequest returns the pull request of a pull_request (or
// pull_request_target) event: its number, head and base commits. The head
// is pull_request.head.sha, not GITHUB_SHA (the synthetic merge commit).
func (ev event) pullRequest() (prcheck.PR, bool, error) {
	if ev.PullRequest == nil {
		return prcheck.PR{}, false, nil
	}
	p := prcheck.PR{Number: ev.PullRequest.Number, HeadSHA: ev.PullRequest.Head.SHA, BaseSHA: ev.PullRequest.Base.SHA}
	if p.Number <= 0 {
		return p, true, fmt.Errorf("event: pull_request has no number")
	}
	for what, sha := range map[string]string{"head": p.HeadSHA, "base": p.BaseSHA} {
		if err := ident.CheckCommit(sha); err != nil {
			return p, true, fmt.Errorf("event: pull_request.%s.sha: %w", what, err)
		}
	}
	return p, true, nil
}
