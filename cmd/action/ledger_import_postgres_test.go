package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/harness"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/importer"
	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/inferencexdb/inferencexdbtest"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// postgresFixtures are real agg_bmk rows (see its README.txt).
const postgresFixtures = "../../internal/importer/testdata/postgres"

// fixtureRunDates are the stand-in dates the database needs (the artifacts
// carry none); the artifact import gets the same as --run-date.
var fixtureRunDates = map[int64]string{
	20218553330: "2025-12-10",
	20286968709: "2025-12-11",
	20316427102: "2025-12-12",
	20321908209: "2025-12-13",
	20662362255: "2026-01-05",
}

// TestLedgerImportPostgresMatchesArtifacts loads the fixture artifacts'
// rows into a real PostgreSQL laid out like the InferenceX database (as
// InferenceX's ingest stores them), imports them with --postgres, and
// imports the artifacts themselves: the two ledgers are the same bytes, file
// by file. The database also holds rows the artifacts cannot have (a
// superseded attempt, failed results, an agentic run); they are counted
// under their own reasons and change nothing else.
func TestLedgerImportPostgresMatchesArtifacts(t *testing.T) {
	t.Parallel()
	conn, connString := inferencexdbtest.OpenWithSchema(t)
	ctx := context.Background()
	artifact := func(id int64) []byte {
		b, err := os.ReadFile(filepath.Join(postgresFixtures, "run_"+itoa(id)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	load := func(run inferencexdbtest.Run) {
		t.Helper()
		if err := inferencexdbtest.Load(ctx, conn, run); err != nil {
			t.Fatal(err)
		}
	}
	// The retries run was re-run: attempt 1 is superseded by attempt 2.
	load(inferencexdbtest.Run{GitHubRunID: 20316427102, Attempt: 1, Date: fixtureRunDates[20316427102], AggBmk: artifact(20316427102)})
	var args []string
	for id, date := range fixtureRunDates {
		attempt := 1
		if id == 20316427102 {
			attempt = 2
		}
		load(inferencexdbtest.Run{GitHubRunID: id, Attempt: attempt, Date: date, AggBmk: artifact(id), ServerLog: "server log of run " + itoa(id)})
		args = append(args, "--run-date", itoa(id)+"="+date)
	}
	// Rows of runs no artifact here has (run ids 1 and 2 are made up).
	load(inferencexdbtest.Run{GitHubRunID: 1, Attempt: 1, Date: "2026-01-06", AggBmk: artifact(20662362255), Error: "benchmark client exited with status 1"})
	load(inferencexdbtest.Run{GitHubRunID: 2, Attempt: 1, Date: "2026-01-07", AggBmk: artifact(20218553330), BenchmarkType: "agentic_traces"})

	common := []string{"--name", "inferencex", "--ledger-version", "2026.12.0", "--versions", "5"}
	fromDB := filepath.Join(t.TempDir(), "db")
	if _, stderr, err := runImportCmd(t, append(append([]string{"--out", fromDB}, common...), "--postgres", connString)...); err != nil {
		t.Fatalf("--postgres: %v\n%s", err, stderr)
	}
	fromFiles := filepath.Join(t.TempDir(), "files")
	if _, stderr, err := runImportCmd(t, append(append(append([]string{"--out", fromFiles}, common...), args...), postgresFixtures)...); err != nil {
		t.Fatalf("artifacts: %v\n%s", err, stderr)
	}

	dbFiles, files := testkit.Files(t, os.DirFS(fromDB)), testkit.Files(t, os.DirFS(fromFiles))
	delete(dbFiles, importreport.File)
	delete(files, importreport.File)
	if len(files) < 4 {
		t.Fatalf("the artifact import wrote only %d files", len(files))
	}
	if d := cmp.Diff(files, dbFiles); d != "" {
		t.Errorf("ledger from the database differs from the artifacts' (-artifacts +database):\n%s", d)
	}

	dbReport, fileReport := readReport(t, fromDB), readReport(t, fromFiles)
	if dbReport.PointsOut == 0 || dbReport.PointsOut != fileReport.PointsOut || dbReport.Units != fileReport.Units {
		t.Errorf("points/units: database %d/%d, artifacts %d/%d", dbReport.PointsOut, dbReport.Units, fileReport.PointsOut, fileReport.Units)
	}
	wantExcluded := map[string]int{}
	for k, v := range fileReport.Excluded {
		wantExcluded[k] = v
	}
	wantExcluded[importer.ReasonSupersededAttempt] += 5 // attempt 1 of the retries run
	wantExcluded[importer.ReasonFailedResult] += 7      // run 1
	wantExcluded[importer.ReasonNotFixedLength] += 10   // run 2
	if d := cmp.Diff(wantExcluded, dbReport.Excluded); d != "" {
		t.Errorf("excluded (-want +got):\n%s", d)
	}
	if dbReport.RowsIn != fileReport.RowsIn+22 {
		t.Errorf("rows in: database %d, artifacts %d + 22", dbReport.RowsIn, fileReport.RowsIn)
	}
	for _, r := range []string{importer.ReasonNotVLLM, importer.ReasonDuplicate} {
		if fileReport.Excluded[r] == 0 {
			t.Errorf("the fixtures exercise no %q", r)
		}
	}
	if !strings.Contains(dbReport.Options.Postgres, "database \"test_") || strings.Contains(dbReport.Options.Postgres, "password") {
		t.Errorf("report names the database as %q", dbReport.Options.Postgres)
	}
	if len(dbReport.Options.Sources) != 0 {
		t.Errorf("report of a database import lists sources %v", dbReport.Options.Sources)
	}

	// Imported from a weekly dump by a harness release: the import report
	// records the dump and the harness, the manifest the dump's date, and
	// the scoring rule counts the ledger as released data when that same
	// harness scores it.
	hdir, hcommit := harnesstest.HarnessCheckout(t)
	harnesstest.Run(t, hdir, "git", "tag", "v1.4.0")
	fromDump := filepath.Join(t.TempDir(), "dump")
	if _, stderr, err := runImportCmd(t, "--out", fromDump, "--name", "inferencex-db", "--versions", "5", "--release",
		"--inferencex-dump", "db-dump/2026-11-24", "--harness-dir", hdir, "--postgres", connString); err != nil {
		t.Fatalf("--inferencex-dump: %v\n%s", err, stderr)
	}
	imp, ok, err := harness.ReadDumpImport(fromDump)
	scorer := runresult.Harness{Commit: hcommit, Source: runresult.HarnessCheckout, Version: "v1.4.0"}
	if err != nil || !ok || imp.Dump != "db-dump/2026-11-24" || imp.Importer != scorer {
		t.Fatalf("dump import read back: %+v, %v, %v", imp, ok, err)
	}
	l, err := ledger.Load(os.DirFS(fromDump))
	if err != nil {
		t.Fatal(err)
	}
	if v, rel, why := harness.DumpLedgerVersion(l.Manifest, l.Digest, imp, scorer); !rel || v != "db-dump/2026-11-24+"+strings.TrimPrefix(l.Digest, "sha256:")[:12] {
		t.Errorf("dump-imported ledger: version %q, release %v (%s)", v, rel, why)
	}
}

func TestLedgerImportPostgresErrors(t *testing.T) {
	t.Parallel()
	_, stderr, err := runImportCmd(t, "--out", t.TempDir(), "--postgres", "host=/tmp", postgresFixtures)
	if !errors.Is(err, cli.ErrUsageShown) || !strings.Contains(stderr, "not both") {
		t.Errorf("--postgres with a SOURCE: %v %q", err, stderr)
	}
	// A database without the InferenceX tables: an error naming them, nothing written.
	_, connString := inferencexdbtest.Open(t)
	out := filepath.Join(t.TempDir(), "ledger")
	_, _, err = runImportCmd(t, "--out", out, "--postgres", connString)
	if err == nil || !strings.Contains(err.Error(), "benchmark_results") {
		t.Errorf("empty database: %v", err)
	}
	if _, serr := os.Stat(out); !errors.Is(serr, fs.ErrNotExist) {
		t.Errorf("a failed import wrote %s", out)
	}
}

func readReport(t *testing.T, dir string) importreport.Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, importreport.File))
	if err != nil {
		t.Fatal(err)
	}
	var r importreport.Report
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestInferenceXDBLedgerWorkflow checks the reusable workflow the nightly
// calls: callable and startable by hand, read-only, a PostgreSQL service
// whose pg_restore (17 or newer) reads the dump, the streaming restore,
// then this command with --postgres, and the ledger uploaded.
func TestInferenceXDBLedgerWorkflow(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../.github/workflows/inferencex-db-ledger.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On          map[string]any    `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Services map[string]struct {
				Image string `yaml:"image"`
			} `yaml:"services"`
			Steps []workflowStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	if _, ok := wf.On["workflow_call"]; !ok {
		t.Error("not callable (on: workflow_call)")
	}
	if _, ok := wf.On["workflow_dispatch"]; !ok {
		t.Error("cannot be started by hand (on: workflow_dispatch)")
	}
	if len(wf.Permissions) != 1 || wf.Permissions["contents"] != "read" {
		t.Errorf("permissions %v, want contents: read only", wf.Permissions)
	}
	job, ok := wf.Jobs["import"]
	if !ok || len(wf.Jobs) != 1 {
		t.Fatalf("want one job, import; got %v", wf.Jobs)
	}
	image := job.Services["postgres"].Image
	major, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(image, "@", 2)[0], "postgres:"))
	if major < 17 {
		t.Errorf("service image %q: the dump needs pg_restore 17 or newer", image)
	}
	var restore, imp, upload int
	for i, s := range job.Steps {
		switch {
		case strings.Contains(s.Run, "scripts/restore-inferencex-dump.sh"):
			restore = i
		case strings.Contains(s.Run, "ledger import") && strings.Contains(s.Run, "--postgres"):
			imp = i
			// The pinned harness imports, recording the dump: the ledger
			// is released data when that harness release scores it.
			if s.WorkingDirectory != ".accuracy-harness" || !strings.Contains(s.Run, `--inferencex-dump "$TAG"`) || !strings.Contains(s.Run, "--release") {
				t.Errorf("the import step does not run the pinned harness with --inferencex-dump and --release:\n%s", s.Run)
			}
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@") && s.With["path"] == "${{ runner.temp }}/inferencex-db-ledger/":
			upload = i
		}
	}
	if !(restore > 0 && restore < imp && imp < upload) {
		t.Errorf("steps: restore %d, import %d, upload %d; want them in that order", restore, imp, upload)
	}
}
