package publish

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// TestArchiveCountsRecordsNotSignatures: the central directory's
// signature inside a file's bytes (a stored archive, a binary trace) is no
// entry: an archive of two entries, one holding the signature more often
// than MaxArtifactEntries, is read.
func TestArchiveCountsRecordsNotSignatures(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range map[string][]byte{
		"summary.json": []byte("{}"),
		"trace.bin":    bytes.Repeat(centralHeader, MaxArtifactEntries+1),
	} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	files, err := readArchive(buf.Bytes())
	if err != nil || len(files) != 2 {
		t.Errorf("readArchive = %d files, %v; want both", len(files), err)
	}
}

// TestCentralRecords: the count is the number of entries archive/zip
// builds, for a plain archive, an empty one and one of more than 65 535
// entries (zip64), and it stops once past the limit.
func TestCentralRecords(t *testing.T) {
	t.Parallel()
	for name, zipped := range map[string][]byte{
		"three files": testkit.Zip(t, map[string][]byte{"a": []byte("1"), "b/c": []byte("2"), "d": nil}),
		"empty":       entryBomb(t, 0),
		"zip64":       entryBomb(t, 70_000),
	} {
		zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
		if err != nil {
			t.Fatal(err)
		}
		if n := centralRecords(zipped, 1<<30); n != len(zr.File) {
			t.Errorf("%s: %d records counted, archive/zip builds %d", name, n, len(zr.File))
		}
	}
	if n := centralRecords(entryBomb(t, 100), 10); n != 11 {
		t.Errorf("100 entries, limit 10: counted %d, want 11 (stopped past the limit)", n)
	}
	if n := centralRecords([]byte("not a zip"), 10); n != 0 {
		t.Errorf("not a zip: %d records", n)
	}
	if n := centralRecords(shortZip64(), 10); n != 0 {
		t.Errorf("a zip64 locator in 50 bytes: %d records", n)
	}
}

// shortZip64 is 50 bytes ending in an end record whose count is saturated,
// after a zip64 locator naming an end record at byte 48: there is no room
// for one.
func shortZip64() []byte {
	b := make([]byte, 50)
	end := 28
	copy(b[end:], dirEndSig)
	binary.LittleEndian.PutUint16(b[end+10:], 0xffff)
	loc := end - dir64LocLen
	copy(b[loc:], dir64LocSig)
	binary.LittleEndian.PutUint64(b[loc+8:], 48)
	binary.LittleEndian.PutUint32(b[loc+16:], 1)
	return b
}

// TestRunCapsAreTheReaders: a run's files are read from an artifact within
// report's caps, as from a directory: points.json of runresult.MaxPointsBytes
// is read from both and admitted, one byte more is refused by both with
// the same reason, and a whole run at its caps fits in an artifact.
func TestRunCapsAreTheReaders(t *testing.T) {
	t.Parallel()
	if run := 2*runresult.MaxSummaryBytes + runresult.MaxPointsBytes; MaxArtifactBytes < run {
		t.Errorf("an artifact holds at most %d bytes, a run within report's caps %d", MaxArtifactBytes, run)
	}
	rep := releaseReport(t, "v0.7.15", "v1.0.0")
	for _, size := range []int{runresult.MaxPointsBytes, runresult.MaxPointsBytes + 1} {
		padded := append(bytes.Clone(rep.Points), bytes.Repeat([]byte(" "), size-len(rep.Points))...)
		fromZip, err := ReportFromArtifact(testkit.Zip(t, map[string][]byte{runresult.SummaryFile: rep.Summary, runresult.PointsFile: padded}))
		if err == nil && len(fromZip.Points) != size {
			err = fmt.Errorf("read %d bytes of points.json", len(fromZip.Points))
		}
		fromDir, derr := ReadResult(resultDir(t, Report{Summary: rep.Summary, Points: padded}))
		var reasons [2][]string
		for i, r := range []Report{fromZip, fromDir} {
			r.RunID = 1
			_, reasons[i], _ = Admit(r, AdmitRelease, t0, "", func(runresult.Summary) (HarnessCheck, error) { return HarnessCheck{}, nil })
		}
		switch {
		case size == runresult.MaxPointsBytes && (err != nil || derr != nil || len(reasons[0])+len(reasons[1]) > 0):
			t.Errorf("points.json at the cap: artifact %v %v, directory %v %v; want both admitted", err, reasons[0], derr, reasons[1])
		case size > runresult.MaxPointsBytes:
			want := fmt.Sprintf("%s is larger than %d bytes", runresult.PointsFile, runresult.MaxPointsBytes)
			zipOK := err != nil && strings.Contains(err.Error(), want) || len(reasons[0]) == 1 && strings.Contains(reasons[0][0], want)
			dirOK := derr != nil && strings.Contains(derr.Error(), want) || len(reasons[1]) == 1 && strings.Contains(reasons[1][0], want)
			if !zipOK || !dirOK {
				t.Errorf("points.json over the cap: artifact %v %v, directory %v %v; want both refused with %q", err, reasons[0], derr, reasons[1], want)
			}
		}
	}
}

// TestAdmitRefusesReencodedPointsOverTheCap: points.json within the cap
// as given (compact) whose canonical encoding, the one a snapshot writes,
// is over runresult.MaxPointsBytes is refused by Admit, naming the cap, so
// the publish stops before it plans a commit the site would then refuse;
// `action publish` writes nothing.
func TestAdmitRefusesReencodedPointsOverTheCap(t *testing.T) {
	t.Parallel()
	s, points := releaseRun(t, "v0.7.15", "v1.0.0")
	points[3].NotPassed = slices.Repeat([]string{"x 1"}, 900_000)
	compact, err := json.Marshal(points)
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := jsoncodec.Encode(points)
	if err != nil {
		t.Fatal(err)
	}
	if len(compact) > runresult.MaxPointsBytes || len(canonical) <= runresult.MaxPointsBytes {
		t.Fatalf("fixture: %d bytes compact, %d canonical; want them either side of %d", len(compact), len(canonical), runresult.MaxPointsBytes)
	}
	rep := Report{Summary: encode(t, s), Points: compact, RunID: 1}
	_, reasons, err := Admit(rep, AdmitRelease, t0, "", func(runresult.Summary) (HarnessCheck, error) { return HarnessCheck{}, nil })
	want := fmt.Sprintf("%s as a snapshot writes it is %d bytes, over the cap of %d bytes", runresult.PointsFile, len(canonical), runresult.MaxPointsBytes)
	if err != nil || len(reasons) != 1 || !strings.Contains(reasons[0], want) {
		t.Errorf("Admit: %q, %v; want one reason saying %q", reasons, err, want)
	}

	dash := t.TempDir()
	res, err := PublishCheckout(Checkout{Dashboard: dash, Result: resultDir(t, rep), PublishedAt: t0})
	if err != nil || res.Outcome != PublishRefused || len(res.Files) != 0 {
		t.Errorf("PublishCheckout: %s %q, %d files, %v; want it refused with no files", res.Outcome, res.Reasons, len(res.Files), err)
	}
	if entries, err := os.ReadDir(dash); err != nil || len(entries) != 0 {
		t.Errorf("the checkout holds %d entries (%v), want none", len(entries), err)
	}
}
