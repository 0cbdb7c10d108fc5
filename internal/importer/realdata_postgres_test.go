package importer

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/importer/importertest"
	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/inferencexdb"
	"github.com/inference-sim/accuracy-dashboard/internal/inferencexdb/inferencexdbtest"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// TestRealAggBmkThroughPostgres loads every real agg_bmk artifact of
// corpus/sources (1 472 rows, every framework) into a real PostgreSQL laid
// out like the InferenceX database and checks that the database import
// writes the same ledger, byte for byte, as the artifact import of the same
// files. Runs when both the real data and a test database are present.
func TestRealAggBmkThroughPostgres(t *testing.T) {
	data := importertest.Sources(t)
	conn, connString := inferencexdbtest.OpenWithSchema(t)
	ctx := context.Background()
	dir := filepath.Join(data, "inferencex", "agg_bmk")
	files, err := filepath.Glob(filepath.Join(dir, "run_*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no artifacts in %s (%v)", dir, err)
	}
	// Stand-in dates (the artifacts carry none): inside the window the data
	// README states for these runs, before the client's warmup.
	dates := map[string]string{}
	runName := regexp.MustCompile(`^run_([0-9]+)\.json$`)
	for _, f := range files {
		id := runName.FindStringSubmatch(filepath.Base(f))[1]
		dates[id] = "2025-12-15"
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.ParseInt(id, 10, 64)
		if err := inferencexdbtest.Load(ctx, conn, inferencexdbtest.Run{GitHubRunID: n, Attempt: 1, Date: dates[id], AggBmk: b}); err != nil {
			t.Fatal(err)
		}
	}
	opts := importreport.Options{Versions: DefaultVersions, Name: "real", Version: "test"}
	fileOpts := opts
	fileOpts.Sources, fileOpts.RunDates = []string{"."}, dates
	fromFiles, err := Import(os.DirFS(dir), fileOpts)
	if err != nil {
		t.Fatal(err)
	}
	results, err := inferencexdb.Read(ctx, connString)
	if err != nil {
		t.Fatal(err)
	}
	dbOpts := opts
	dbOpts.Postgres = "test database"
	fromDB, err := ImportPostgres(dbOpts, results)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != fromFiles.Report.RowsIn || fromDB.Report.RowsIn != fromFiles.Report.RowsIn {
		t.Errorf("rows: %d in the database, %d imported from it, %d from the files", len(results), fromDB.Report.RowsIn, fromFiles.Report.RowsIn)
	}
	if d := cmp.Diff(fromFiles.Report.Excluded, fromDB.Report.Excluded); d != "" {
		t.Errorf("exclusions (-files +database):\n%s", d)
	}
	a, b := filepath.Join(t.TempDir(), "files"), filepath.Join(t.TempDir(), "db")
	if err := Write(a, fromFiles); err != nil {
		t.Fatal(err)
	}
	if err := Write(b, fromDB); err != nil {
		t.Fatal(err)
	}
	fa, fb := testkit.Files(t, os.DirFS(a)), testkit.Files(t, os.DirFS(b))
	delete(fa, importreport.File)
	delete(fb, importreport.File)
	if len(fa) < 30 {
		t.Fatalf("only %d files written from the artifacts", len(fa))
	}
	if d := cmp.Diff(fa, fb); d != "" {
		t.Errorf("ledger from the database differs (-files +database):\n%s", d)
	}
	t.Logf("%d rows, %d points in %d units, the same both ways", fromDB.Report.RowsIn, fromDB.Report.PointsOut, fromDB.Report.Units)
}
