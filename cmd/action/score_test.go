package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

const testLedger = "../../internal/harness/testdata/ledger"

func fakeEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func runScoreCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"score"}, args...), fakeEnv(map[string]string{"HOME": t.TempDir()}), &out, &errb)
	return out.String(), errb.String(), err
}

func TestScoreCommandWritesValidatedOutputs(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	hdir, hcommit := harnesstest.HarnessCheckout(t)
	cache := t.TempDir()
	outA, outB := t.TempDir(), t.TempDir()
	args := []string{"--harness-dir", hdir, "--sim-repo", repo.Dir, "--sim", "v0.2.0", "--ledger", testLedger,
		"--catalog", "none", "--cache-dir", cache, "--jobs", "2", "--quiet"}
	stdout, _, err := runScoreCmd(t, append(args, "--out", outA)...)
	if err != nil {
		t.Fatal(err)
	}
	// The bundled hardware registry supplies the test ledger's H200, which
	// the stand-in does not know: 9 scored, the speculative point not.
	for _, want := range []string{"## BLIS simulator accuracy", "| Mean TTFT |", "### Coverage", "10 corpus points: 9 scored, 1 not scored", hcommit, repo.V020,
		"Hardware registry: blis-hardware (bundled) 2026.12.0 (release"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	rr, err := runresult.Read(outA)
	s, pts := rr.Summary, rr.Points
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 10 || s.Provenance.Harness.Commit != hcommit {
		t.Errorf("outputs: %d points, harness %s", len(pts), s.Provenance.Harness.Commit)
	}
	// The test ledger's manifest claims a release, but a directory given by
	// path is one only as a clean checkout at a tag: its version names the content.
	if lv := s.Provenance.Ledger; lv.Release || !strings.HasPrefix(lv.Version, "0.0.1+") || s.Label != runresult.LabelExperimental {
		t.Errorf("ledger version %+v, label %s; want 0.0.1+<digest>, not a release, experimental", lv, s.Label)
	}
	if hw := s.Provenance.Hardware; hw == nil || hw.Name != "blis-hardware (bundled)" || !hw.Release || strings.Join(s.Provenance.HardwareSupplied, ",") != "B200,H200" {
		t.Errorf("hardware provenance %+v, supplied %v", hw, s.Provenance.HardwareSupplied)
	}
	md, _ := os.ReadFile(filepath.Join(outA, runresult.MarkdownFile))
	if string(md) != stdout {
		t.Error("summary.md differs from the table printed on stdout")
	}

	// Same inputs, byte-identical summary.json and points.json.
	if _, _, err := runScoreCmd(t, append(args, "--out", outB, "--jobs", "1")...); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{runresult.SummaryFile, runresult.PointsFile} {
		a, _ := os.ReadFile(filepath.Join(outA, f))
		b, _ := os.ReadFile(filepath.Join(outB, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs of the same inputs", f)
		}
	}
}

// TestScoreCommandHardwareRegistryNone: without the registry the stand-in
// does not know the test ledger's H200, and nothing about hardware is
// recorded; a registry file by path is read and versioned by its content.
func TestScoreCommandHardwareRegistryNone(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	args := []string{"--harness-dir", hdir, "--sim-repo", repo.Dir, "--sim", "v0.2.0", "--ledger", testLedger,
		"--catalog", "none", "--cache-dir", t.TempDir(), "--jobs", "2", "--quiet"}
	out := t.TempDir()
	if _, _, err := runScoreCmd(t, append(args, "--out", out, "--hardware-registry", "none")...); err != nil {
		t.Fatal(err)
	}
	rr, err := runresult.Read(out)
	s := rr.Summary
	if err != nil {
		t.Fatal(err)
	}
	if s.Coverage.Scored != 8 || s.Coverage.NotScoredByReason[harness.ReasonUnknownHardware] != 1 || s.Provenance.Hardware != nil {
		t.Errorf("--hardware-registry none: coverage %+v, hardware %+v", s.Coverage, s.Provenance.Hardware)
	}
	reg := filepath.Join(t.TempDir(), "registry.json")
	raw, err := os.ReadFile("../../corpus/hardware/registry.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(reg, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	out = t.TempDir()
	if _, _, err := runScoreCmd(t, append(args, "--out", out, "--hardware-registry", reg)...); err != nil {
		t.Fatal(err)
	}
	rr, err = runresult.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	s = rr.Summary
	if hw := s.Provenance.Hardware; s.Coverage.Scored != 9 || hw == nil || hw.Release || !strings.HasPrefix(hw.Version, "2026.12.0+") {
		t.Errorf("--hardware-registry FILE: coverage %+v, hardware %+v; want 9 scored, a version naming the content", s.Coverage, hw)
	}
	if !slices.Contains(s.LabelReasons, "hardware registry "+s.Provenance.Hardware.Version+" is not a release") {
		t.Errorf("label reasons %v should name the registry", s.LabelReasons)
	}
	if _, _, err := runScoreCmd(t, append(args, "--hardware-registry", filepath.Join(t.TempDir(), "missing.json"))...); err == nil || !strings.Contains(err.Error(), "hardware registry") {
		t.Errorf("a missing registry: %v", err)
	}
}

func TestScoreCommandShardsAndMerge(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	cache := t.TempDir()
	base := []string{"--harness-dir", hdir, "--sim-repo", repo.Dir, "--sim", repo.V020, "--ledger", testLedger, "--catalog", "none", "--cache-dir", cache, "--quiet"}
	whole := t.TempDir()
	if _, _, err := runScoreCmd(t, append(base, "--out", whole)...); err != nil {
		t.Fatal(err)
	}
	var shards []string
	for _, k := range []string{"1/2", "2/2"} {
		d := t.TempDir()
		if _, _, err := runScoreCmd(t, append(base, "--shard", k, "--out", d)...); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, d)
	}
	merged := t.TempDir()
	var out, errb bytes.Buffer
	if err := run(context.Background(), append([]string{"merge", "--out", merged}, shards...), fakeEnv(nil), &out, &errb); err != nil {
		t.Fatalf("merge: %v\n%s", err, errb.String())
	}
	for _, f := range []string{runresult.SummaryFile, runresult.PointsFile, runresult.MarkdownFile} {
		a, _ := os.ReadFile(filepath.Join(whole, f))
		b, _ := os.ReadFile(filepath.Join(merged, f))
		if !bytes.Equal(a, b) {
			t.Errorf("merged %s differs from the unsharded run's", f)
		}
	}
	// Merging one shard twice is refused.
	err := run(context.Background(), []string{"merge", "--out", t.TempDir(), shards[0], shards[0]}, fakeEnv(nil), &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "both shard 1/2") {
		t.Errorf("merge of a repeated shard: %v", err)
	}
}

func TestScoreCommandBadInput(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	cache := t.TempDir()
	base := []string{"--harness-dir", hdir, "--sim-repo", repo.Dir, "--ledger", testLedger, "--catalog", "none", "--cache-dir", cache, "--quiet"}

	_, _, err := runScoreCmd(t, append(base, "--sim", "feature")...)
	if !errors.Is(err, harness.ErrNotPinned) {
		t.Errorf("--sim feature: %v, want ErrNotPinned", err)
	}
	if _, _, err := runScoreCmd(t, append(base, "--sim", "v0.2.0", "--shard", "3/2")...); err == nil || !strings.Contains(err.Error(), "--shard") {
		t.Errorf("--shard 3/2: %v", err)
	}
	if _, _, err := runScoreCmd(t, append(base, "--sim", "v0.2.0", "--closed-loop-driver", "replay")...); err == nil || !strings.Contains(err.Error(), "--closed-loop-driver \"replay\"") || !strings.Contains(err.Error(), "run-closed-loop") {
		t.Errorf("--closed-loop-driver replay: %v, want an error naming the value and the choices", err)
	}
	if _, _, err := runScoreCmd(t, append(base, "--sim", "v0.2.0", "--units", "nothing/*")...); err == nil || !strings.Contains(err.Error(), "matches no unit") {
		t.Errorf("--units nothing/*: %v", err)
	}

	// A malformed ledger file is named with its field.
	bad := t.TempDir()
	if err := os.CopyFS(bad, os.DirFS(testLedger)); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(bad, "units", "test", "ix", "test-model-7b", "h200.json")
	raw, _ := os.ReadFile(f)
	os.WriteFile(f, bytes.Replace(raw, []byte(`"ttft_ms": 9.0`), []byte(`"ttft_ms": "fast"`), 1), 0o644)
	_, _, err = runScoreCmd(t, "--harness-dir", hdir, "--sim-repo", repo.Dir, "--sim", "v0.2.0", "--ledger", bad, "--catalog", "none", "--cache-dir", cache, "--quiet")
	if err == nil || !strings.Contains(err.Error(), "h200.json") || !strings.Contains(err.Error(), "ttft_ms") {
		t.Errorf("malformed ledger: %v, want an error naming the file and the field", err)
	}

	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"score", "--help"}, fakeEnv(nil), &out, &errb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--sim-repo", "--sim-bin", "--units", "--shard", "--jobs", "Examples:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("score --help lacks %q", want)
		}
	}
	// Every flag comes with an example.
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "    \t") && !strings.Contains(line, "e.g. --") {
			t.Errorf("flag help without an example: %q", line)
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	harnesstest.Cleanup()
	os.Exit(code)
}

// Usage errors exit 2, as the README documents; they are found before any
// work (no clone, no build).
func TestScoreUsageErrorsExit2(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"score", "--shard", "0/0"},
		{"score", "--shard", "3/2"},
		{"score", "--shard", "x"},
		{"score", "--jobs", "-1"},
		{"score", "--jobs", "0"},
		{"score", "--sim", "v1.0.0", "--sim-bin", "./blis"},
		{"score", "--closed-loop-driver", "nope"},
		{"score", "--no-such-flag"},
		{"score", "extra-argument"},
		{"merge"},
		{"nope"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, func(string) string { return "" }, &stdout, &stderr)
		if got := cli.ExitCode(err); got != 2 {
			t.Errorf("%v: exit %d (%v), want 2", args, got, err)
		}
	}
}

// TestScoreRefusesACorpusOtherThanTheCommits: the binary's embedded corpus
// must be the harness checkout's HEAD's; here HEAD has a unit file the
// binary does not embed (the same check names an untracked file the binary
// embeds), and score refuses before building anything.
func TestScoreRefusesACorpusOtherThanTheCommits(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	extra := filepath.Join(hdir, "corpus", "ledger", "units", "extra.json")
	if err := os.WriteFile(extra, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	harnesstest.CommitAll(t, hdir, "a unit the binary does not embed")
	_, _, err := runScoreCmd(t, "--harness-dir", hdir, "--sim-repo", repo.Dir, "--sim", "v0.2.0", "--catalog", "none",
		"--cache-dir", t.TempDir(), "--jobs", "1", "--quiet", "--units", "nothing")
	if !errors.Is(err, harness.ErrEmbeddedCorpusDiffers) || !strings.Contains(err.Error(), "corpus/ledger/units/extra.json is committed but not embedded") {
		t.Errorf("error %v, want the embedded corpus refused, naming the file", err)
	}
}
