package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/importer"
	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

const importFixtures = "../../internal/importer/testdata/fixture"

func runImportCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), append([]string{"ledger", "import"}, args...), func(string) string { return "" }, &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

func TestLedgerImportHelp(t *testing.T) {
	t.Parallel()
	stdout, _, err := runImportCmd(t, "--help")
	if err != nil {
		t.Fatalf("--help: %v", err)
	}
	for _, flag := range []string{"--out", "--root", "--versions", "--name", "--ledger-version", "--release", "--description",
		"--inference-perf-hardware", "--inference-perf-engine-version", "--source-note", "--run-date", "--postgres", "--max-failed-fraction"} {
		line := ""
		for _, l := range strings.Split(stdout, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), flag+" ") || strings.TrimSpace(l) == flag {
				line = l
			}
		}
		if line == "" {
			t.Errorf("help does not list %s", flag)
		}
	}
	if strings.Count(stdout, "e.g. --") < 11 {
		t.Errorf("help should give an example for every flag:\n%s", stdout)
	}
}

func TestLedgerImportUsageErrors(t *testing.T) {
	t.Parallel()
	for name, args := range map[string][]string{
		"no out":       {importFixtures},
		"no source":    {"--out", t.TempDir()},
		"unknown flag": {"--colour", "red"},
	} {
		_, stderr, err := runImportCmd(t, args...)
		if !errors.Is(err, cli.ErrUsageShown) || !strings.Contains(stderr, "Usage: action ledger import") {
			t.Errorf("%s: error %v, stderr %q; want usage", name, err, stderr)
		}
	}
}

func TestLedgerImportFixture(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "ledger")
	stdout, _, err := runImportCmd(t, "--out", out, "--versions", "3",
		"--run-date", "100=2026-01-05", "--run-date", "90=2025-12-20", "--run-date", "300=2026-02-10",
		"--inference-perf-hardware", "h100", "--inference-perf-engine-version", "v0.15.1",
		"--name", "fixture", "--ledger-version", "0.0.1", "--source-note", "test fixtures",
		importFixtures)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ledger.Load(os.DirFS(out))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(out, importreport.File))
	if err != nil {
		t.Fatal(err)
	}
	var r importreport.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	if r.PointsOut != l.NumPoints() || r.Units != len(l.Units) {
		t.Errorf("report: %d points in %d units; ledger: %d in %d", r.PointsOut, r.Units, l.NumPoints(), len(l.Units))
	}
	if r.Options.Sources[0] != "." || r.Options.RunDates["90"] != "2025-12-20" {
		t.Errorf("options recorded: %+v", r.Options)
	}
	if l.Manifest.Name != "fixture" || l.Manifest.Version != "0.0.1" || l.Manifest.Sources[0] != "test fixtures" {
		t.Errorf("manifest: %+v", l.Manifest)
	}
	// The expected import: the flags above as options over the fixture
	// directory (the sources' common directory, so the one source is ".").
	want, err := importer.Import(os.DirFS(importFixtures), importreport.Options{
		Sources:                    []string{"."},
		Versions:                   3,
		RunDates:                   map[string]string{"100": "2026-01-05", "90": "2025-12-20", "300": "2026-02-10"},
		InferencePerfHardware:      "h100",
		InferencePerfEngineVersion: "v0.15.1",
		Name:                       "fixture",
		Version:                    "0.0.1",
		SourceNotes:                []string{"test fixtures"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want.Report, r); d != "" {
		t.Errorf("import report (-want +got):\n%s", d)
	}
	if d := cmp.Diff(importer.Summary(&want.Report, out), stdout); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	// Artifact paths are relative to the sources' common directory.
	if p := l.Units[0].Points[0].Provenance.Artifact; strings.HasPrefix(p, "/") || strings.Contains(p, "..") {
		t.Errorf("artifact path %q is not relative to the import root", p)
	}
}

func TestLedgerImportBadInputWritesNothing(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "run_1.json"), []byte(`[{"hw": "h100", "conc": "four"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "ledger")
	_, _, err := runImportCmd(t, "--out", out, src)
	if err == nil || !strings.Contains(err.Error(), "run_1.json row 0") || !strings.Contains(err.Error(), `"conc"`) {
		t.Fatalf("error %v, want one naming the file, row and field", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output written despite the error: %v", err)
	}
}

// TestLedgerImportFlagsAfterSources: flags may follow the sources; after
// "--" every argument is a source.
func TestLedgerImportFlagsAfterSources(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "ledger")
	stdout, stderr, err := runImportCmd(t, "--out", out, importFixtures, "--versions", "3", "--run-date", "100=2026-01-05",
		"--inference-perf-hardware", "H100", "--inference-perf-engine-version", "v0.15.1")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "vLLM versions kept: v0.11.2, v0.13.0, v0.15.1") {
		t.Errorf("--versions after the source was not applied:\n%s", stdout)
	}
	_, _, err = runImportCmd(t, "--out", filepath.Join(t.TempDir(), "l"), "--", "--versions")
	if err == nil || !strings.Contains(err.Error(), "source --versions: no such file or directory") {
		t.Errorf("after --: error %v, want --versions taken as a source", err)
	}
}

// TestLedgerImportNoPointsIsAnError: an import whose rows are all excluded
// writes nothing and says why, with a hint (a run of unknown date here).
func TestLedgerImportNoPointsIsAnError(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "ledger")
	_, _, err := runImportCmd(t, "--out", out, filepath.Join(importFixtures, "inferencex", "run_200.json"))
	if err == nil || !strings.Contains(err.Error(), "no points") || !strings.Contains(err.Error(), "1 run date unknown") ||
		!strings.Contains(err.Error(), "--run-date RUNID=YYYY-MM-DD") || !strings.Contains(err.Error(), "run 200") {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a ledger without points was written: %v", err)
	}
}

// TestLedgerImportErrorsArePlain: errors name the file and field without
// Go type names, and a problem shared by many run folders is said once.
func TestLedgerImportErrorsArePlain(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	if err := os.CopyFS(src, os.DirFS(filepath.Join(importFixtures, "inference-perf"))); err != nil {
		t.Fatal(err)
	}
	_, _, err := runImportCmd(t, "--out", filepath.Join(t.TempDir(), "l"), "--inference-perf-hardware", "H100", src)
	if err == nil || strings.Count(err.Error(), "vLLM version is not recorded") != 1 || !strings.Contains(err.Error(), "runs ") {
		t.Errorf("missing version: error %v, want one line naming the runs", err)
	}
	stage := filepath.Join(src, "20260301-120000-tiny-lm-tp1-chat", "results", "stage_0_lifecycle_metrics.json")
	b, err := os.ReadFile(stage)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte(`"count": 90`), []byte(`"count": "90"`), 1)
	if err := os.WriteFile(stage, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = runImportCmd(t, "--out", filepath.Join(t.TempDir(), "l"), "--inference-perf-hardware", "H100", "--inference-perf-engine-version", "v0.15.1", src)
	if err == nil || strings.Contains(err.Error(), "Go struct") || strings.Contains(err.Error(), " of type ") ||
		!strings.Contains(err.Error(), "stage_0_lifecycle_metrics.json: field load_summary.count: a JSON string where an integer belongs") {
		t.Errorf("wrong type: error %v", err)
	}
}

// TestGoGenerateRegeneratesBundledLedger runs the documented regeneration
// command, the go:generate line of corpus/corpus.go, exactly as written (go
// run in corpus/, as go generate does), with only --out redirected, and
// checks that it writes corpus/ledger byte for byte from corpus/sources: a
// clone can regenerate the bundled ledger, and the bundle cannot drift from
// its sources.
func TestGoGenerateRegeneratesBundledLedger(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join("..", "..", "corpus", "corpus.go"))
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "//go:generate go run ../cmd/action ledger import "
	var line string
	for _, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(l, prefix) {
			if line != "" {
				t.Fatal("corpus/corpus.go has two ledger import go:generate lines")
			}
			line = strings.TrimPrefix(l, prefix)
		}
	}
	if line == "" {
		t.Fatalf("corpus/corpus.go has no %q line", prefix)
	}
	args, err := splitGenerateArgs(line)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "ledger")
	redirected := false
	for i := range args {
		if args[i] == "--out" && i+1 < len(args) && args[i+1] == "ledger" {
			args[i+1], redirected = out, true
		}
		if strings.Contains(args[i], "..") {
			t.Errorf("the go:generate line reads outside the repository: %q", args[i])
		}
	}
	if !redirected {
		t.Fatalf("the go:generate line does not write --out ledger: %q", line)
	}
	corpus := filepath.Join("..", "..", "corpus")
	gen := exec.Command("go", append(strings.Fields(strings.TrimPrefix(prefix, "//go:generate go ")), args...)...)
	gen.Dir = corpus
	if log, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	got, want := testkit.Files(t, os.DirFS(out)), testkit.Files(t, os.DirFS(filepath.Join(corpus, "ledger")))
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("go generate ./corpus does not reproduce corpus/ledger (-committed +regenerated):\n%s", d)
	}
}

// splitGenerateArgs splits a go:generate line's arguments as go generate
// does: space-separated words, double-quoted strings in Go syntax.
func splitGenerateArgs(line string) ([]string, error) {
	var args []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] != '"' {
			word, rest, _ := strings.Cut(line, " ")
			args, line = append(args, word), rest
			continue
		}
		end := 1
		for ; end < len(line) && line[end] != '"'; end++ {
			if line[end] == '\\' {
				end++
			}
		}
		if end >= len(line) {
			return nil, fmt.Errorf("unterminated quoted string in %q", line)
		}
		word, err := strconv.Unquote(line[:end+1])
		if err != nil {
			return nil, err
		}
		args, line = append(args, word), line[end+1:]
	}
	return args, nil
}
