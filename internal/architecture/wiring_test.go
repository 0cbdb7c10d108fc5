package architecture

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxWiringLines bounds each program's non-test code (issue #19): a program
// is wiring (flags, usage, one or two calls into packages, printing), and a
// flow or policy that grows in cmd/ belongs in the package owning it.
const maxWiringLines = 1500

// TestProgramsAreWiring: each program under cmd/ has at most maxWiringLines
// lines of non-test Go code.
func TestProgramsAreWiring(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	_, files := goList(t, root)
	for pkg, paths := range files {
		if !strings.HasPrefix(pkg, "cmd/") {
			continue
		}
		lines := 0
		for _, p := range paths {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			lines += bytes.Count(src, []byte("\n"))
		}
		t.Logf("%s: %d lines of non-test code", pkg, lines)
		if lines > maxWiringLines {
			t.Errorf("%s has %d lines of non-test code, more than %d: move the flow or policy that grew "+
				"into the package that owns it (docs/ARCHITECTURE.md)", pkg, lines, maxWiringLines)
		}
	}
}
