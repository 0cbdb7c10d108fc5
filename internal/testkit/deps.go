package testkit

import (
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
)

// Missing stops a test that cannot run without dep, a program or files
// from outside the module (node_modules, chromium, PostgreSQL, act,
// actionlint): why is what looking for it found, install how to get it.
// Under CI (CI=true), which installs every dependency, the test fails.
// Elsewhere it is skipped, and the first test of the process to miss dep
// also prints one line to standard error naming dep and how to install it
// ('go test' shows it when run in the package's directory or with -v; in
// package-list mode it shows no output of a passing package). The line
// is "missing test dependency <dep> (<why>); <install>", in the failure
// and in every skip message too.
func Missing(t testing.TB, dep string, why error, install string) {
	t.Helper()
	missingDeps.stop(t, os.Getenv("CI") == "true", os.Stderr, dep, why, install)
}

// missingDeps holds the dependencies whose absence this process printed.
var missingDeps warnings

// warnings prints each dependency's line once.
type warnings struct{ seen sync.Map }

func (ws *warnings) stop(t testing.TB, ci bool, stderr io.Writer, dep string, why error, install string) {
	t.Helper()
	line := fmt.Sprintf("missing test dependency %s (%v); %s", dep, why, install)
	if ci {
		t.Fatalf("%s (CI=true: CI installs every test dependency)", line)
		return
	}
	if _, seen := ws.seen.LoadOrStore(dep, true); !seen {
		fmt.Fprintln(stderr, line+": the tests that need it are skipped")
	}
	t.Skip(line)
}
