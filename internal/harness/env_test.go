package harness

import (
	"slices"
	"testing"
)

func TestCleanEnv(t *testing.T) {
	t.Parallel()
	in := []string{
		"PATH=/usr/bin", "HOME=/home/runner", "GOPATH=/go", "GOCACHE=/c", "LC_ALL=C", "HTTPS_PROXY=http://proxy:3128", "SSL_CERT_FILE=/ca.pem",
		"GITHUB_TOKEN=t", "INPUT_GITHUB_TOKEN=t", "GH_TOKEN=t", "ACTIONS_RUNTIME_TOKEN=t", "ACTIONS_ID_TOKEN_REQUEST_URL=u",
		"GITHUB_ENV=/f/env", "GITHUB_OUTPUT=/f/out", "GITHUB_PATH=/f/path", "GITHUB_STATE=/f/state", "GITHUB_STEP_SUMMARY=/f/sum",
		"AWS_SECRET_ACCESS_KEY=k", "NPM_TOKEN=n", "LD_PRELOAD=/evil.so", "GOAUTH=git", "=weird",
	}
	want := []string{"PATH=/usr/bin", "HOME=/home/runner", "GOPATH=/go", "GOCACHE=/c", "LC_ALL=C", "HTTPS_PROXY=http://proxy:3128", "SSL_CERT_FILE=/ca.pem"}
	if got := CleanEnv(in); !slices.Equal(got, want) {
		t.Errorf("CleanEnv = %q\nwant %q", got, want)
	}
}
