package bump

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
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

// FuzzPlanLeaderboardBump plans a leaderboard-pair bump from an arbitrary
// pin file, catalog digest and release notes (all untrusted): no input
// panics; a plan changes the pin file only, which still parses, moves the
// pair as pin.CheckPairMove allows, and its body stays within GitHub's
// limit.
func FuzzPlanLeaderboardBump(f *testing.F) {
	f.Add([]byte(lbPin("    source: none\n")), "", "Qwen3 fixes. Thanks @bob (#7).")
	f.Add([]byte(lbPin(catalogPath("sha256:"+strings.Repeat("1", 64)))), "sha256:"+strings.Repeat("2", 64), "")
	f.Add([]byte(lbPin("    source: bundled\n    digest: sha256:"+strings.Repeat("1", 64)+"\n")), "", strings.Repeat("<details>", 1000))
	f.Add([]byte("leaderboard: ["), "x", "")
	sim := ident.Repo{Owner: "inference-sim", Name: "inference-sim"}
	commit := strings.Repeat("a", 40)
	f.Fuzz(func(t *testing.T, pinFile []byte, digest, notes string) {
		files := ConsumerFiles{PinPath: pinPath, Pin: pinFile, CatalogDigest: digest}
		plan, err := PlanLeaderboardBump(files, SimulatorTarget{Simulator: sim, Tag: "v0.7.16", Commit: commit,
			Release: ghmodel.Release{Notes: notes}, WebURL: "https://github.com", PinFile: pinPath})
		if err != nil {
			return
		}
		if len(plan.Files) != 1 || plan.Files[pinPath] == nil {
			t.Fatalf("the plan changes %v", plan.Paths())
		}
		before, err1 := pin.Parse(pinFile, pinPath)
		after, err2 := pin.Parse(plan.Files[pinPath], pinPath)
		if err1 != nil || err2 != nil || before.Leaderboard == nil || after.Leaderboard == nil {
			t.Fatalf("the moved pin does not read back: %v, %v", err1, err2)
		}
		if err := pin.CheckPairMove(*before.Leaderboard, *after.Leaderboard); err != nil || after.Leaderboard.Simulator.Commit != commit || after.Harness != before.Harness {
			t.Fatalf("the pair did not move as one: %v", err)
		}
		if len(plan.Body) > textcut.MaxGitHubBody {
			t.Fatalf("body of %d bytes", len(plan.Body))
		}
	})
}
