package lbrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/leaderboardtest"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

const (
	pairSim      = "f90a1e3a6787da17c2cd463dab6fb2660b1b1760"
	pairOtherSim = "3260837d16048bdfe7cd45d0dc3d3c6a688c645b"
)

// validatePin is `leaderboard validate --pin` of the repository at root:
// its pin file, its catalog path relative to root.
func validatePin(root string) (map[string]*leaderboard.Result, error) {
	return Validate(context.Background(), ValidateConfig{Runs: filepath.Join(root, "leaderboard", "runs.yaml"),
		Results: filepath.Join(root, "leaderboard", "results"), PinFile: filepath.Join(root, ".github", "accuracy-harness.yaml"), RepoRoot: root})
}

// Validate with a pin file: results that ran on the pinned pair pass; a
// simulator or a catalog moved alone is a half-moved pin, both moved is
// drift, a catalog edited on disk without moving the pin is half-moved,
// and a pin file with half a pair is refused.
func TestValidatePinPair(t *testing.T) {
	t.Parallel()
	const otherDigest = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	root, digest := leaderboardtest.PairFixture(t, pairSim)
	pinFile := filepath.Join(root, ".github", "accuracy-harness.yaml")

	leaderboardtest.WritePairPin(t, root, pairSim, digest)
	if res, err := validatePin(root); err != nil || len(res) == 0 {
		t.Fatalf("validate on the pinned pair: %v, %d results", err, len(res))
	}

	cases := []struct {
		name, sim, digest string
		want              []string
	}{
		{"simulator moved alone", pairOtherSim, digest, []string{
			"half-moved-pin: chat-4rps/h100-tp1.json: ran on simulator " + pairSim + " with catalog " + digest + "; the pinned pair is simulator " + pairOtherSim + " with catalog " + digest + ": only the simulator differs",
		}},
		{"catalog moved alone", pairSim, otherDigest, []string{
			"half-moved-pin: catalog leaderboard/catalog now hashes to " + digest + " but " + pinFile + " pins " + otherDigest + ": the catalog changed without moving the pin pair",
			"half-moved-pin: chat-4rps/h100-tp1.json: ran on simulator " + pairSim + " with catalog " + digest + "; the pinned pair is simulator " + pairSim + " with catalog " + otherDigest + ": only the catalog differs",
		}},
		{"pair moved, results not re-run", pairOtherSim, otherDigest, []string{
			"simulator-drift: chat-4rps/h100-tp1.json: ran on simulator " + pairSim + " with catalog " + digest + "; the pinned pair is simulator " + pairOtherSim + " with catalog " + otherDigest + " (re-run it on the pinned pair)",
		}},
	}
	for _, c := range cases {
		leaderboardtest.WritePairPin(t, root, c.sim, c.digest)
		_, err := validatePin(root)
		// A problem, not another error: the command exits 1.
		var pe *leaderboard.ProblemsError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v, want the problems", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error lacks %q:\n%v", c.name, w, err)
			}
		}
	}

	// The catalog edited on disk while the pin stays: a half-moved pair.
	leaderboardtest.WritePairPin(t, root, pairSim, digest)
	if err := os.WriteFile(filepath.Join(root, "leaderboard", "catalog", "models", "m", "config.json"), []byte(`{"num_hidden_layers": 48}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := validatePin(root); err == nil || !strings.Contains(err.Error(), "half-moved-pin: catalog leaderboard/catalog now hashes to sha256:") {
		t.Errorf("catalog edited without moving the pin: %v", err)
	}

	// A pin file with a half pair.
	half := "harness:\n  repository: o/r\n  tag: v1.0.0\n  commit: " + strings.Repeat("0", 40) + "\nleaderboard:\n  simulator:\n    repository: o/sim\n    commit: " + pairSim + "\n"
	if err := os.WriteFile(pinFile, []byte(half), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := validatePin(root); err == nil || !strings.Contains(err.Error(), pinFile+":5: leaderboard: missing leaderboard.catalog; the leaderboard pins its simulator and catalog as a pair") {
		t.Errorf("half pair in the pin file: %v", err)
	}
}

// A runs.yaml and a pin file are read as regular files within their caps:
// a named pipe (which would block), a link to /dev/zero (which would
// exhaust memory) or to /etc/passwd, and a 100 MB pin file are refused,
// naming the file.
func TestFlowsRefuseUntrustedFiles(t *testing.T) {
	t.Parallel()
	root, digest := leaderboardtest.PairFixture(t, pairSim)
	leaderboardtest.WritePairPin(t, root, pairSim, digest)
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
	render := func(runs string) func() error {
		return func() error { _, err := Render(runs, DefaultResults(runs), ""); return err }
	}
	validate := func(pinFile string) func() error {
		return func() error {
			_, err := Validate(context.Background(), ValidateConfig{Runs: runs, Results: DefaultResults(runs), PinFile: pinFile, RepoRoot: root})
			return err
		}
	}
	for _, c := range []struct {
		name string
		call func() error
		want string
	}{
		{"render --runs fifo", render(at("fifo.yaml")), at("fifo.yaml") + " is a named pipe (FIFO), not a regular file"},
		{"render --runs /dev/zero", render(at("zero.yaml")), at("zero.yaml") + " is a symbolic link"},
		{"render --runs /etc/passwd", render(at("passwd.yaml")), at("passwd.yaml") + " is a symbolic link"},
		{"validate --pin fifo", validate(at("fifo.yaml")), at("fifo.yaml") + " is a named pipe (FIFO), not a regular file"},
		{"validate --pin /dev/zero", validate(at("zero.yaml")), at("zero.yaml") + " is a symbolic link"},
		{"validate --pin big", validate(big), big + " is larger than 65536 bytes"},
	} {
		testkit.Refuses(t, c.name, c.want, c.call)
	}
}
