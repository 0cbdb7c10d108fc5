package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/browsertest"
	"github.com/inference-sim/accuracy-dashboard/internal/dashboard"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

const exampleDashboard = "../../docs/examples/dashboard"

// TestDashboardExample: the committed example site is what `action site`
// builds from the committed example data, byte for byte, and in headless
// chromium its comparison of the two real runs equals `action compare`.
func TestDashboardExample(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "site")
	if o, err := runAction(t, "site", "--dashboard", exampleDashboard, "--out", out); err != nil {
		t.Fatalf("action site: %v\n%s", err, o)
	}
	committed := filepath.Join(exampleDashboard, "site")
	got, want := testkit.Paths(t, committed), testkit.Paths(t, out)
	if !slices.Equal(got, want) {
		t.Fatalf("docs/examples/dashboard/site holds %v, action site builds %v (run docs/examples/dashboard/regenerate.sh)", got, want)
	}
	for _, f := range want {
		a, _ := os.ReadFile(filepath.Join(committed, f))
		b, _ := os.ReadFile(filepath.Join(out, f))
		if !bytes.Equal(a, b) {
			t.Errorf("docs/examples/dashboard/site/%s differs from what action site builds", f)
		}
	}

	snaps, _, err := dashboard.Load(os.DirFS(exampleDashboard))
	if err != nil {
		t.Fatal(err)
	}
	if len(snaps) < 2 {
		t.Fatalf("the example holds %d snapshots, want at least the two runs it compares", len(snaps))
	}
	bin := browsertest.Chromium(t)
	tab := browsertest.Open(t, bin, 1280, 900)
	abs, _ := filepath.Abs(filepath.Join(committed, "index.html"))
	checkComparison(t, tab, "file://"+abs, snaps[1].Result, snaps[0].Result, snaps[1].ID, snaps[0].ID)
	if errs := tab.Errors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
