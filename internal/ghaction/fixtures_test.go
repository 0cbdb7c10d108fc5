package ghaction

import (
	"os"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// The fixtures the Action's tests share with cmd/action's, one copy each:
// the harness under test (this module's working tree, tagged), the
// simulator repository a pull request runs in, a real pull_request payload.
const harnessTag = harnesstest.ModuleTag

var (
	harnessRepo      = harnesstest.ModuleRepo
	consumerRepo     = harnesstest.ConsumerRepo
	pullRequestEvent = githubfake.PullRequestEvent
	writeFile        = testkit.WriteFile
)

// testLedger is the harness's test ledger.
const testLedger = "../harness/testdata/ledger"

// fakeEnv is a getenv over m.
func fakeEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// readOutputs parses a $GITHUB_OUTPUT file written with heredoc delimiters.
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			continue
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}
