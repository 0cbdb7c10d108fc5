package architecture

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testHelpers are the packages that exist for tests: only they may import
// the standard library's testing packages in non-test code.
var testHelpers = []string{
	"internal/testkit", "internal/leaderboard/leaderboardtest", "internal/harness/harnesstest",
	"internal/importer/importertest", "internal/inferencexdb/inferencexdbtest", "internal/golden",
	"internal/githubfake", "internal/browsertest", "internal/bump/bumpfake", "internal/dashboard/dashboardtest",
}

// TestNoTestingInProductionCode: no package's non-test code imports
// testing or its subpackages (testing/fstest, testing/iotest, ...) but the
// test helpers, so a production binary carries no test machinery.
func TestNoTestingInProductionCode(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		if slices.Contains(testHelpers, pkg) || pkg == "internal/architecture" {
			continue
		}
		for _, imp := range fields[1:] {
			if imp == "testing" || strings.HasPrefix(imp, "testing/") {
				t.Errorf("%s imports %s in non-test code (move the code into a test file or a test helper package)", pkg, imp)
			}
		}
	}
}
