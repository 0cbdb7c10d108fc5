package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

const (
	pairSim      = "f90a1e3a6787da17c2cd463dab6fb2660b1b1760"
	pairOtherSim = "3260837d16048bdfe7cd45d0dc3d3c6a688c645b"
)

// pairFixture writes a leaderboard (runs.yaml, a catalog directory, one
// failed result per declared run, run on simulator sim with that catalog)
// into a temporary repository root and returns the root and the catalog's
// digest.
func pairFixture(t *testing.T, sim string) (string, string) {
	t.Helper()
	root := t.TempDir()
	runsSrc, err := os.ReadFile("../../internal/leaderboard/testdata/runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	lb := filepath.Join(root, "leaderboard")
	catDir := filepath.Join(lb, "catalog", "models", "m")
	for _, dir := range []string{catDir, filepath.Join(root, ".github")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(lb, "runs.yaml"), runsSrc, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(catDir, "config.json"), []byte(`{"num_hidden_layers": 40}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, err := harness.DirVersion(context.Background(), "catalog", filepath.Join(lb, "catalog"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := leaderboard.Decode(runsSrc, "runs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Runs() {
		res := &leaderboard.Result{Group: r.Group, Run: r.ID, Declaration: r, Command: []string{"blis", "run"},
			Provenance: leaderboard.Provenance{Simulator: leaderboard.Simulator{Commit: sim}, Catalog: &cat,
				Harness: report.Harness{Commit: strings.Repeat("a", 40), Source: "checkout", Version: "dev"}},
			Status: leaderboard.StatusFailed, Failure: &leaderboard.Failure{Reason: "simulator-crash", Message: "exit status 2"}}
		if err := res.Seal(); err != nil {
			t.Fatal(err)
		}
		raw, err := res.Encode()
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(lb, "results", r.Group)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, r.ID+".json"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, cat.Digest
}

func writePairPin(t *testing.T, root, sim, digest string) {
	t.Helper()
	src := "harness:\n  repository: inference-sim/accuracy-dashboard\n  tag: v1.0.0\n  commit: " + strings.Repeat("0", 40) + "\n" +
		"leaderboard:\n  simulator:\n    repository: inference-sim/inference-sim\n    commit: " + sim + "\n" +
		"  catalog:\n    source: leaderboard/catalog\n    digest: " + digest + "\n"
	if err := os.WriteFile(filepath.Join(root, ".github", "accuracy-harness.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

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

// Not parallel: validate --pin reads the catalog relative to the working
// directory.
func TestLeaderboardValidatePinPair(t *testing.T) {
	const otherDigest = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	root, digest := pairFixture(t, pairSim)

	writePairPin(t, root, pairSim, digest)
	if out, err := validateIn(t, root); err != nil {
		t.Fatalf("validate on the pinned pair: %v\n%s", err, out)
	} else if !strings.HasPrefix(out, "ok: ") {
		t.Errorf("validate output = %q", out)
	}

	cases := []struct {
		name, sim, digest string
		want              []string
	}{
		{"simulator moved alone", pairOtherSim, digest, []string{
			"half-moved-pin: chat-4rps/h100-tp1.json: ran on simulator " + pairSim + " with catalog " + digest + "; the pinned pair is simulator " + pairOtherSim + " with catalog " + digest + ": only the simulator differs",
		}},
		{"catalog moved alone", pairSim, otherDigest, []string{
			"half-moved-pin: catalog leaderboard/catalog now hashes to " + digest + " but .github/accuracy-harness.yaml pins " + otherDigest + ": the catalog changed without moving the pin pair",
			"half-moved-pin: chat-4rps/h100-tp1.json: ran on simulator " + pairSim + " with catalog " + digest + "; the pinned pair is simulator " + pairSim + " with catalog " + otherDigest + ": only the catalog differs",
		}},
		{"pair moved, results not re-run", pairOtherSim, otherDigest, []string{
			"simulator-drift: chat-4rps/h100-tp1.json: ran on simulator " + pairSim + " with catalog " + digest + "; the pinned pair is simulator " + pairOtherSim + " with catalog " + otherDigest + " (re-run it on the pinned pair)",
		}},
	}
	for _, c := range cases {
		writePairPin(t, root, c.sim, c.digest)
		out, err := validateIn(t, root)
		if err == nil {
			t.Errorf("%s: validate passed:\n%s", c.name, out)
			continue
		}
		if got := exitCode(err); got != 1 {
			t.Errorf("%s: exit code %d, want 1", c.name, got)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error lacks %q:\n%v", c.name, w, err)
			}
		}
	}

	// The catalog edited on disk while the pin stays: a half-moved pair.
	writePairPin(t, root, pairSim, digest)
	if err := os.WriteFile(filepath.Join(root, "leaderboard", "catalog", "models", "m", "config.json"), []byte(`{"num_hidden_layers": 48}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := validateIn(t, root); err == nil || !strings.Contains(err.Error(), "half-moved-pin: catalog leaderboard/catalog now hashes to sha256:") {
		t.Errorf("catalog edited without moving the pin: %v", err)
	}

	// A pin file with a half pair, and --sim with --pin.
	half := "harness:\n  repository: o/r\n  tag: v1.0.0\n  commit: " + strings.Repeat("0", 40) + "\nleaderboard:\n  simulator:\n    repository: o/sim\n    commit: " + pairSim + "\n"
	if err := os.WriteFile(filepath.Join(root, ".github", "accuracy-harness.yaml"), []byte(half), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := validateIn(t, root); err == nil || !strings.Contains(err.Error(), ".github/accuracy-harness.yaml:5: leaderboard: missing leaderboard.catalog; the leaderboard pins its simulator and catalog as a pair") {
		t.Errorf("half pair in the pin file: %v", err)
	}
	if _, err := validateIn(t, root, "--sim", pairSim); exitCode(err) != 2 {
		t.Errorf("--sim with --pin: %v (exit %d), want a usage error", err, exitCode(err))
	}
}

// TestLeaderboardRefusesUntrustedFiles: a runs.yaml and a pin file are read
// as regular files within their caps: a named pipe (which would block), a
// link to /dev/zero (which would exhaust memory) or to /etc/passwd, and a
// 100 MB pin file are refused, naming the file.
func TestLeaderboardRefusesUntrustedFiles(t *testing.T) {
	t.Parallel()
	root, digest := pairFixture(t, pairSim)
	writePairPin(t, root, pairSim, digest)
	runs := filepath.Join(root, "leaderboard", "runs.yaml")
	pinFile := filepath.Join(root, ".github", "accuracy-harness.yaml")
	odd := t.TempDir()
	testkit.Fifo(t, filepath.Join(odd, "fifo.yaml"))
	testkit.Symlink(t, "/dev/zero", filepath.Join(odd, "zero.yaml"))
	testkit.Symlink(t, "/etc/passwd", filepath.Join(odd, "passwd.yaml"))
	big := filepath.Join(odd, "big.yaml")
	src, _ := os.ReadFile(pinFile)
	testkit.Sparse(t, big, src, 100<<20)
	at := func(n string) string { return filepath.Join(odd, n) }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"render", "--runs", at("fifo.yaml")}, at("fifo.yaml") + " is a named pipe (FIFO), not a regular file"},
		{[]string{"render", "--runs", at("zero.yaml")}, at("zero.yaml") + " is a symbolic link"},
		{[]string{"render", "--runs", at("passwd.yaml")}, at("passwd.yaml") + " is a symbolic link"},
		{[]string{"validate", "--runs", runs, "--pin", at("fifo.yaml")}, at("fifo.yaml") + " is a named pipe (FIFO), not a regular file"},
		{[]string{"validate", "--runs", runs, "--pin", at("zero.yaml")}, at("zero.yaml") + " is a symbolic link"},
		{[]string{"validate", "--runs", runs, "--pin", big}, big + " is larger than 65536 bytes"},
	} {
		testkit.Refuses(t, fmt.Sprint(c.args), c.want, func() error {
			var stdout, stderr bytes.Buffer
			return run(context.Background(), append([]string{"leaderboard"}, c.args...), func(string) string { return "" }, &stdout, &stderr)
		})
	}
}
