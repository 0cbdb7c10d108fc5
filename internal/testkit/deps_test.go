package testkit

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// stopRecorder is a testing.TB that records how a test was stopped
// instead of stopping.
type stopRecorder struct {
	testing.TB
	failed, skipped string
}

func (r *stopRecorder) Helper()                           {}
func (r *stopRecorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }
func (r *stopRecorder) Skip(args ...any)                  { r.skipped = fmt.Sprint(args...) }

// TestMissing: under CI a missing dependency fails the test; elsewhere it
// skips it, and the first skip per dependency prints its one line.
func TestMissing(t *testing.T) {
	t.Parallel()
	why := errors.New("stat node_modules: no such file or directory")
	want := "missing test dependency node_modules (stat node_modules: no such file or directory); run npm ci"

	var ws warnings
	var stderr bytes.Buffer
	ci := &stopRecorder{}
	ws.stop(ci, true, &stderr, "node_modules", why, "run npm ci")
	if !strings.HasPrefix(ci.failed, want) || ci.skipped != "" {
		t.Errorf("under CI: failed %q, skipped %q; want a failure starting %q", ci.failed, ci.skipped, want)
	}
	if stderr.Len() != 0 {
		t.Errorf("under CI it printed %q: the failure says it", stderr.String())
	}

	for i := range 3 {
		r := &stopRecorder{}
		ws.stop(r, false, &stderr, "node_modules", why, "run npm ci")
		if r.skipped != want || r.failed != "" {
			t.Errorf("skip %d: skipped %q, failed %q; want skipped %q", i, r.skipped, r.failed, want)
		}
	}
	r := &stopRecorder{}
	ws.stop(r, false, &stderr, "chromium", errors.New("not on PATH"), "apt-get install chromium")
	wantOut := want + ": the tests that need it are skipped\n" +
		"missing test dependency chromium (not on PATH); apt-get install chromium: the tests that need it are skipped\n"
	if stderr.String() != wantOut {
		t.Errorf("printed\n%s\nwant one line per dependency\n%s", stderr.String(), wantOut)
	}
}
