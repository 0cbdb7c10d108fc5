package publish

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// entryBomb is a zip archive of n empty stored entries named e/000000, …:
// with n = 560 000 it is 49 MiB, under MaxArtifactBytes, and opening it
// with archive/zip alone builds 560 000 entries.
func entryBomb(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := range n {
		if _, err := zw.CreateRaw(&zip.FileHeader{Name: fmt.Sprintf("e/%06d", i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bigEntries is an archive whose entries each declare size bytes
// uncompressed (deflated zeros, so the archive stays small).
func bigEntries(t testing.TB, n, size int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zeros := make([]byte, size)
	for i := range n {
		w, err := zw.Create(fmt.Sprintf("g/%d.json", i))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(zeros)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestArchiveEntryCountIsCapped: both artifact readers refuse an archive of
// more than MaxArtifactEntries entries, and the 49 MiB archive of 560 000
// empty entries is refused cheaply: without building its entries (it cost
// 180 MB for a report artifact and 441 MB for a results artifact).
func TestArchiveEntryCountIsCapped(t *testing.T) {
	bomb := entryBomb(t, 560_000)
	if len(bomb) > MaxArtifactBytes {
		t.Fatalf("the bomb is %d bytes, over the archive cap: it tests nothing", len(bomb))
	}
	over := entryBomb(t, MaxArtifactEntries+1)
	readers := map[string]func([]byte) error{
		"report":  func(b []byte) error { _, err := ReportFromArtifact(b); return err },
		"results": func(b []byte) error { _, err := ResultsFromArtifact(b); return err },
	}
	for name, read := range readers {
		want := fmt.Sprintf("more than %d entries", MaxArtifactEntries)
		if err := read(over); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s, %d entries: err = %v, want %q", name, MaxArtifactEntries+1, err, want)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := read(bomb)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s, 560 000 entries: err = %v, want %q", name, err, want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%s: refusing the 560 000-entry archive allocated %d bytes, want under 1 MiB", name, alloc)
		}
	}
	// At the cap both readers read the archive.
	at := entryBomb(t, MaxArtifactEntries)
	if _, err := ResultsFromArtifact(at); err != nil {
		t.Errorf("results, %d entries: %v", MaxArtifactEntries, err)
	}
	if _, err := ReportFromArtifact(at); err == nil || !strings.Contains(err.Error(), "no summary.json") {
		t.Errorf("report, %d entries: err = %v, want no summary.json", MaxArtifactEntries, err)
	}
}

// TestArchiveUncompressedSizeIsCapped: the sizes the archive declares are
// summed before anything is inflated, and what is inflated is counted
// again while reading: more than MaxArtifactBytes in all is refused by both
// readers, each file stays within MaxFileBytes.
func TestArchiveUncompressedSizeIsCapped(t *testing.T) {
	t.Parallel()
	total := bigEntries(t, 6, 9<<20) // 54 MiB uncompressed, 9 MiB each
	one := bigEntries(t, 1, MaxFileBytes+1)
	for name, read := range map[string]func([]byte) error{
		"report":  func(b []byte) error { _, err := ReportFromArtifact(b); return err },
		"results": func(b []byte) error { _, err := ResultsFromArtifact(b); return err },
	} {
		want := fmt.Sprintf("its files hold more than %d bytes", MaxArtifactBytes)
		if err := read(total); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: 54 MiB in all: err = %v, want %q", name, err, want)
		}
		want = fmt.Sprintf("g/0.json is larger than %d bytes", MaxFileBytes)
		if err := read(one); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: one large file: err = %v, want %q", name, err, want)
		}
	}
}

// BenchmarkArchiveEntryBombRSS measures the peak resident memory of a
// fresh process that reads the 49 MiB archive of 560 000 empty entries
// from a file and hands it to each artifact reader, beside the same process
// reading the file alone (the 49 MiB buffer and the Go runtime): the
// difference is what the reader costs. Run:
//
//	go test ./internal/publish -run '^$' -bench ArchiveEntryBombRSS -benchtime 1x
func BenchmarkArchiveEntryBombRSS(b *testing.B) {
	file := filepath.Join(b.TempDir(), "bomb.zip")
	if err := os.WriteFile(file, entryBomb(b, 560_000), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		for _, reader := range []string{"none", "report", "results"} {
			cmd := exec.Command(os.Args[0], "-test.run=^TestArchiveRSSChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), "BOT_ARCHIVE_RSS_FILE="+file, "BOT_ARCHIVE_RSS_READER="+reader)
			out, err := cmd.CombinedOutput()
			if err != nil {
				b.Fatalf("%s: %v\n%s", reader, err, out)
			}
			// The child's own high-water mark (rusage's would include this
			// process's, inherited through the vfork before exec).
			_, hwm, ok := strings.Cut(string(out), "VmHWM:")
			var kb float64
			if _, err := fmt.Sscan(hwm, &kb); !ok || err != nil {
				b.Fatalf("%s: no VmHWM in the output:\n%s", reader, out)
			}
			b.ReportMetric(kb/1024, reader+"-peak-RSS-MiB")
		}
	}
}

// TestArchiveRSSChild is BenchmarkArchiveEntryBombRSS's measured process.
func TestArchiveRSSChild(t *testing.T) {
	file := os.Getenv("BOT_ARCHIVE_RSS_FILE")
	if file == "" {
		t.Skip("run by BenchmarkArchiveEntryBombRSS")
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	switch os.Getenv("BOT_ARCHIVE_RSS_READER") {
	case "report":
		_, err = ReportFromArtifact(raw)
	case "results":
		_, err = ResultsFromArtifact(raw)
	}
	runtime.KeepAlive(raw)
	status, serr := os.ReadFile("/proc/self/status")
	if serr != nil {
		t.Skipf("no /proc/self/status: %v", serr)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			fmt.Println(l) // read by the benchmark
		}
	}
	t.Log(err)
}

func TestResultsFromArtifact(t *testing.T) {
	t.Parallel()
	for name, files := range map[string]map[string][]byte{
		"an entry outside the directory": {"../x.json": []byte("{}")},
		"an absolute entry":              {"/x.json": []byte("{}")},
		"an unclean entry":               {"a/./x.json": []byte("{}")},
		"a file over the cap":            {"a/x.json": bytes.Repeat([]byte(" "), MaxFileBytes+1)},
	} {
		if _, err := ResultsFromArtifact(testkit.Zip(t, files)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ResultsFromArtifact([]byte("not a zip")); err == nil {
		t.Error("not a zip: accepted")
	}
	fsys, err := ResultsFromArtifact(testkit.Zip(t, map[string][]byte{"g/r.json": []byte("{}"), "traces/x/header.yaml": []byte("h")}))
	if err != nil {
		t.Fatal(err)
	}
	if raw, err := fs.ReadFile(fsys, path.Join("g", "r.json")); err != nil || string(raw) != "{}" {
		t.Errorf("g/r.json: %q, %v", raw, err)
	}
}
