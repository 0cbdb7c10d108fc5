package ghaction

import (
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/internal/github"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"github.com/inference-sim/accuracy-dashboard/internal/sticky"
)

// newGitHub builds the API client of the Action, bound to the workflow's
// repository: GITHUB_API_URL (GitHub Enterprise too), the input token, and
// github-actions[bot] as the identity of a workflow token that cannot read
// its own user.
func newGitHub(in actionInputs) (*github.PullComments, error) {
	repo, err := ident.ParseRepo(in.repository)
	if err != nil {
		return nil, fmt.Errorf("GITHUB_REPOSITORY: %w", err)
	}
	c, err := github.New(github.Options{Token: in.token, BaseURL: in.apiURL, Login: sticky.DefaultBotLogin})
	if err != nil {
		return nil, err
	}
	return c.PullComments(repo), nil
}

// The GitHub client is the pull-request flow's and the nightly plan's GitHub.
var (
	_ sticky.Commenter     = (*github.PullComments)(nil)
	_ prcheck.PullRequests = (*github.PullComments)(nil)
	_ nightly.Tags         = github.Tags{}
)
