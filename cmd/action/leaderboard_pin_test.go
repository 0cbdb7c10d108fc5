package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
)

const (
	pairSim      = "f90a1e3a6787da17c2cd463dab6fb2660b1b1760"
	pairOtherSim = "3260837d16048bdfe7cd45d0dc3d3c6a688c645b"
)

// validateIn runs `action leaderboard validate --pin` in root (the pin's
// catalog path is relative to the repository root).
func validateIn(t *testing.T, root string, extra ...string) (string, error) {
	t.Helper()
	t.Chdir(root)
	var stdout, stderr bytes.Buffer
	args := append([]string{"leaderboard", "validate", "--runs", "leaderboard/runs.yaml", "--pin", ".github/accuracy-harness.yaml"}, extra...)
	err := run(context.Background(), args, func(string) string { return "" }, &stdout, &stderr)
	return stdout.String() + stderr.String(), err
}

// `validate --pin` end to end (every case of the pair check is
// lbrun.TestValidatePinPair's): results on the pinned pair print ok, a pair
// moved without re-running them exits 1 naming the drift, a pin file with
// half a pair is named by its path as given, and --sim with --pin is a
// usage error. Not parallel: the catalog is read relative to the working
// directory.
func TestLeaderboardValidatePinPair(t *testing.T) {
	const otherDigest = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	root, digest := leaderboardtest.PairFixture(t, pairSim)

	leaderboardtest.WritePairPin(t, root, pairSim, digest)
	if out, err := validateIn(t, root); err != nil {
		t.Fatalf("validate on the pinned pair: %v\n%s", err, out)
	} else if !strings.HasPrefix(out, "ok: ") {
		t.Errorf("validate output = %q", out)
	}

	leaderboardtest.WritePairPin(t, root, pairOtherSim, otherDigest)
	out, err := validateIn(t, root)
	want := "simulator-drift: chat-4rps/h100-tp1.json: ran on simulator " + pairSim + " with catalog " + digest + "; the pinned pair is simulator " + pairOtherSim + " with catalog " + otherDigest + " (re-run it on the pinned pair)"
	if got := cli.ExitCode(err); got != 1 || !strings.Contains(err.Error(), "leaderboard validate: ") || !strings.Contains(err.Error(), want) {
		t.Errorf("pair moved, results not re-run: exit %d (%v)\n%s", got, err, out)
	}

	half := "harness:\n  repository: o/r\n  tag: v1.0.0\n  commit: " + strings.Repeat("0", 40) + "\nleaderboard:\n  simulator:\n    repository: o/sim\n    commit: " + pairSim + "\n"
	if err := os.WriteFile(filepath.Join(root, ".github", "accuracy-harness.yaml"), []byte(half), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := validateIn(t, root); err == nil || !strings.Contains(err.Error(), ".github/accuracy-harness.yaml:5: leaderboard: missing leaderboard.catalog; the leaderboard pins its simulator and catalog as a pair") {
		t.Errorf("half pair in the pin file: %v", err)
	}
	if _, err := validateIn(t, root, "--sim", pairSim); cli.ExitCode(err) != 2 {
		t.Errorf("--sim with --pin: %v (exit %d), want a usage error", err, cli.ExitCode(err))
	}
}
