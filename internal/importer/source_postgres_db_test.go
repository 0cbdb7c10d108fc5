package importer

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/inferencexdb"
	"github.com/inference-sim/accuracy-dashboard/internal/inferencexdb/inferencexdbtest"
)

// TestImportDatabase: ImportDatabase is ImportPostgres of the rows
// inferencexdb.Read reads, the database named in the report as
// inferencexdb.Name names it; a connection string that does not parse and a
// database without the InferenceX tables are errors.
func TestImportDatabase(t *testing.T) {
	t.Parallel()
	conn, connString := inferencexdbtest.OpenWithSchema(t)
	ctx := context.Background()
	raw, err := os.ReadFile("testdata/postgres/run_20662362255.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := inferencexdbtest.Load(ctx, conn, inferencexdbtest.Run{GitHubRunID: 20662362255, Attempt: 1, Date: "2026-01-05", AggBmk: raw}); err != nil {
		t.Fatal(err)
	}
	opts := importreport.Options{Versions: DefaultVersions, Name: "db", Version: "1"}
	got, err := ImportDatabase(ctx, connString, opts)
	if err != nil {
		t.Fatal(err)
	}
	name, err := inferencexdb.Name(connString)
	if err != nil {
		t.Fatal(err)
	}
	results, err := inferencexdb.Read(ctx, connString)
	if err != nil {
		t.Fatal(err)
	}
	wantOpts := opts
	wantOpts.Postgres = name
	want, err := ImportPostgres(wantOpts, results)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ImportDatabase differs from ImportPostgres of the rows read (-want +got):\n%s", d)
	}
	if numPoints(got) == 0 || got.Report.Options.Postgres != name || !strings.Contains(name, `database "test_`) {
		t.Errorf("%d points, database named %q (inferencexdb.Name: %q)", numPoints(got), got.Report.Options.Postgres, name)
	}

	if _, err := ImportDatabase(ctx, "postgres://%zz", opts); err == nil {
		t.Error("a connection string that does not parse: no error")
	}
	_, empty := inferencexdbtest.Open(t)
	if _, err := ImportDatabase(ctx, empty, opts); err == nil || !strings.Contains(err.Error(), "benchmark_results") {
		t.Errorf("a database without the InferenceX tables: %v", err)
	}
}
