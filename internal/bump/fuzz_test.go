package bump

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

// FuzzPlanBump plans a bump from arbitrary consumer files and release
// notes (the consumer's YAML and the notes are untrusted): no input panics,
// and a plan's pull request body stays within GitHub's limit, and valid
// UTF-8 when its inputs are.
func FuzzPlanBump(f *testing.F) {
	f.Add([]byte(pinV100), []byte(workflowV100), "Faster. Thanks @alice, fixes #12.")
	f.Add([]byte(nil), []byte("steps:\n  - {uses: "+harnessName+"/"+strings.Repeat("x", 2000)+"@"+oldCommit+", with: {a: b}}\n"), "")
	f.Add([]byte(pinV100), []byte("on: [push\n"), strings.Repeat("<details>", 1000))
	commit := strings.Repeat("a", 40)
	f.Fuzz(func(t *testing.T, pinFile, workflow []byte, notes string) {
		files := ConsumerFiles{PinPath: ".github/accuracy-harness.yaml", Pin: pinFile,
			Workflows: map[string][]byte{".github/workflows/a.yml": workflow, ".github/workflows/b.yml": workflow}}
		plan, err := PlanBump(files, Target{Harness: ident.Repo{Owner: "inference-sim", Name: "accuracy-dashboard"}, Tag: "v1.1.0", Commit: commit,
			Release: ghmodel.Release{Notes: notes}, WebURL: "https://github.com"})
		if err != nil {
			return
		}
		if len(plan.Body) > textcut.MaxGitHubBody {
			t.Fatalf("body of %d bytes", len(plan.Body))
		}
		if utf8.Valid(pinFile) && utf8.Valid(workflow) && utf8.ValidString(notes) && !utf8.ValidString(plan.Body) {
			t.Fatal("body is not valid UTF-8")
		}
	})
}
