package inferencexdb_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/inference-sim/accuracy-dashboard/internal/inferencexdb"
	"github.com/inference-sim/accuracy-dashboard/internal/inferencexdb/inferencexdbtest"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
	"github.com/jackc/pgx/v5"
)

// postgresTool finds a PostgreSQL client program: in Debian's server layout
// (the newest /usr/lib/postgresql/N/bin) or on PATH.
func postgresTool(t *testing.T, name string) string {
	t.Helper()
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) < versionOf(dirs[j]) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if p := filepath.Join(dirs[i], name); fileExists(p) {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	testkit.Missing(t, name, errors.New("not in PostgreSQL's bin directories nor on PATH"), "install PostgreSQL (.ci/run installs Debian's)")
	return ""
}

// findZstd finds zstd on PATH (.ci/run installs it).
func findZstd(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("zstd")
	if err != nil {
		testkit.Missing(t, "zstd", err, "apt-get install zstd (.ci/run installs it)")
	}
	return p
}

func versionOf(binDir string) int {
	n := 0
	for _, c := range filepath.Base(filepath.Dir(binDir)) {
		if c >= '0' && c <= '9' {
			n = n*10 + int(c-'0')
		}
	}
	return n
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestRestoreScriptStreamsTheTables runs scripts/restore-inferencex-dump.sh
// on a real custom-format dump (zstd-compressed like InferenceX's) of a
// database holding the four tables and a large table that sorts after them:
// pg_restore closes the stream once it has the four, which the script must
// take as the expected outcome; the restored rows read back as the source's.
func TestRestoreScriptStreamsTheTables(t *testing.T) {
	t.Parallel()
	pgDump := postgresTool(t, "pg_dump")
	pgRestore := postgresTool(t, "pg_restore")
	zstd := findZstd(t)
	ctx := context.Background()
	src, srcConn := inferencexdbtest.OpenWithSchema(t)
	vllm, err := os.ReadFile("../importer/testdata/postgres/run_20662362255.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := inferencexdbtest.Load(ctx, src, inferencexdbtest.Run{GitHubRunID: 20662362255, Attempt: 1, Date: "2026-01-05", AggBmk: vllm, ServerLog: "log"}); err != nil {
		t.Fatal(err)
	}
	// A table the restore does not ask for, after the four in the archive
	// and larger than the pipes' buffers (like eval_samples in the real dump).
	if _, err := src.Exec(ctx, `create table zz_eval_samples as
		select g as id, md5(g::text) || md5((g*7)::text) || md5((g*13)::text) as sample
		from generate_series(1, 20000) g`); err != nil {
		t.Fatal(err)
	}
	_, dstConn := inferencexdbtest.Open(t)

	dump := filepath.Join(t.TempDir(), "inferencex.dump.zst")
	sh := `set -euo pipefail; "$PG_DUMP" --format=custom --compress=0 --no-owner --no-privileges --dbname="$SRC" | "$ZSTD" -q -3 --long=27 -o "$OUT"`
	cmd := exec.Command("bash", "-c", sh)
	cmd.Env = append(os.Environ(), "PG_DUMP="+pgDump, "ZSTD="+zstd, "SRC="+srcConn, "OUT="+dump)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("making the dump: %v\n%s", err, out)
	}

	var stdout, stderr bytes.Buffer
	cmd = exec.Command("bash", "../../scripts/restore-inferencex-dump.sh", "--dbname", dstConn, "--input", dump)
	cmd.Env = append(os.Environ(), "PG_RESTORE="+pgRestore)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("restore: %v\n%s", err, stderr.String())
	}
	if got := strings.TrimSpace(stdout.String()); got != dump {
		t.Errorf("stdout = %q, want the input %q", got, dump)
	}
	if !strings.Contains(stderr.String(), "closed the stream early") {
		t.Errorf("the restore did not report pg_restore's early close:\n%s", stderr.String())
	}
	want, err := inferencexdb.Read(ctx, srcConn)
	if err != nil {
		t.Fatal(err)
	}
	got, err := inferencexdb.Read(ctx, dstConn)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 7 {
		t.Fatalf("source has %d rows, want 7", len(want))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("restored rows differ (-source +restored):\n%s", d)
	}
	var extra bool
	if err := dstRow(ctx, dstConn, `select to_regclass('zz_eval_samples') is not null`, &extra); err != nil || extra {
		t.Errorf("the restore brought a table it was not asked for (or failed to say: %v)", err)
	}
}

// TestRestoreScriptFailsOnADamagedStream: a truncated dump is an error, not
// an early close.
func TestRestoreScriptFailsOnADamagedStream(t *testing.T) {
	t.Parallel()
	pgRestore := postgresTool(t, "pg_restore")
	findZstd(t)
	_, dstConn := inferencexdbtest.Open(t)
	dump := filepath.Join(t.TempDir(), "broken.dump.zst")
	// A valid zstd frame header followed by nothing.
	if err := os.WriteFile(dump, []byte{0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58}, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command("bash", "../../scripts/restore-inferencex-dump.sh", "--dbname", dstConn, "--input", dump)
	cmd.Env = append(os.Environ(), "PG_RESTORE="+pgRestore)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Fatalf("a damaged dump restored without error:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "failed") {
		t.Errorf("stderr does not say what failed:\n%s", stderr.String())
	}
}

func dstRow(ctx context.Context, connString, query string, dst any) error {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return conn.QueryRow(ctx, query).Scan(dst)
}

// TestRestoreScriptRefusesAnOldPgRestore: the release dumps need pg_restore
// 17 or newer; an older one is refused before anything is downloaded.
func TestRestoreScriptRefusesAnOldPgRestore(t *testing.T) {
	t.Parallel()
	pgRestore := postgresTool(t, "pg_restore")
	out, err := exec.Command(pgRestore, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\) ([0-9]+)\.`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("%s --version: %q", pgRestore, out)
	}
	if major, _ := strconv.Atoi(m[1]); major >= 17 {
		t.Skipf("%s is %s: not older than 17", pgRestore, strings.TrimSpace(string(out)))
	}
	var stderr bytes.Buffer
	cmd := exec.Command("bash", "../../scripts/restore-inferencex-dump.sh", "--dbname", "host=/nonexistent", "--tag", "db-dump/2026-11-30")
	cmd.Env = append(os.Environ(), "PG_RESTORE="+pgRestore, "PATH=/usr/bin:/bin") // no gh needed: refused first
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), "needs pg_restore 17 or newer") {
		t.Fatalf("err %v, stderr:\n%s", err, stderr.String())
	}
}
