package publish

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzCentralRecords: centralRecords reads bytes of an untrusted archive.
// For any input it never panics, is never below the entries archive/zip
// builds, and a limit only caps it: the count with limit l is the full
// count or l+1, whichever is less. The seeds hold the forms archive/zip
// reads differently: data before the archive (the directory's start taken
// from its size, or from its stated offset when a record is there), a
// comment, and the zip64 end record a saturated end record points to.
func FuzzCentralRecords(f *testing.F) {
	three := entryBomb(f, 3)
	var commented bytes.Buffer
	zw := zip.NewWriter(&commented)
	zw.SetComment("PK\x05\x06 a comment")
	zw.CreateRaw(&zip.FileHeader{Name: "a", Method: zip.Store})
	if err := zw.Close(); err != nil {
		f.Fatal(err)
	}
	prefixed := append(bytes.Repeat([]byte("x"), 100), three...)
	// Bytes between the directory and the end record: its size puts the
	// start past the first record, and archive/zip takes the stated offset.
	gapped := append(bytes.Clone(three[:len(three)-dirEndLen]), "gap"...)
	gapped = append(gapped, three[len(three)-dirEndLen:]...)
	for _, seed := range [][]byte{
		three, entryBomb(f, 0), commented.Bytes(), prefixed,
		gapped, zip64Form(f, three), zip64Form(f, prefixed), zip64Form(f, gapped), shortZip64(),
	} {
		f.Add(seed, 1)
	}
	f.Fuzz(func(t *testing.T, zipped []byte, limit int) {
		full := centralRecords(zipped, 1<<30)
		if zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped))); err == nil && full < len(zr.File) {
			t.Errorf("centralRecords = %d, archive/zip builds %d entries", full, len(zr.File))
		}
		limit = max(0, limit%64)
		if n := centralRecords(zipped, limit); n != min(full, limit+1) {
			t.Errorf("limit %d: %d records, want %d (of %d)", limit, n, min(full, limit+1), full)
		}
	})
}

// TestZip64Form: the seed's zip64 form is read by archive/zip with the
// entries of the archive it came from, and counted as many.
func TestZip64Form(t *testing.T) {
	t.Parallel()
	for name, z := range map[string][]byte{"plain": entryBomb(t, 3), "prefixed": append([]byte("xx"), entryBomb(t, 3)...)} {
		z64 := zip64Form(t, z)
		zr, err := zip.NewReader(bytes.NewReader(z64), int64(len(z64)))
		if err != nil || len(zr.File) != 3 {
			t.Fatalf("%s: archive/zip reads the zip64 form as %v, %v", name, zr, err)
		}
		if n := centralRecords(z64, 1<<30); n != 3 {
			t.Errorf("%s: %d records counted in the zip64 form, want 3", name, n)
		}
	}
}

// zip64Form rewrites an archive of no comment to end as a zip64 archive
// does: a zip64 end record with the directory's count, size and offset, its
// locator, and an end record whose fields are all saturated.
func zip64Form(t testing.TB, z []byte) []byte {
	t.Helper()
	end := len(z) - dirEndLen
	if end < 0 || !bytes.Equal(z[end:end+4], dirEndSig) {
		t.Fatal("zip64Form: no end record without a comment")
	}
	e := z[end:]
	count, size, offset := le16(e[10:]), le32(e[12:]), le32(e[16:])
	le := binary.LittleEndian
	out := bytes.Clone(z[:end])
	rec := make([]byte, dir64EndLen)
	copy(rec, dir64EndSig)
	le.PutUint64(rec[4:], dir64EndLen-12)
	le.PutUint64(rec[24:], uint64(count))
	le.PutUint64(rec[32:], uint64(count))
	le.PutUint64(rec[40:], uint64(size))
	le.PutUint64(rec[48:], uint64(offset))
	out = append(out, rec...)
	loc := make([]byte, dir64LocLen)
	copy(loc, dir64LocSig)
	le.PutUint64(loc[8:], uint64(end))
	le.PutUint32(loc[16:], 1)
	out = append(out, loc...)
	sat := make([]byte, dirEndLen)
	copy(sat, dirEndSig)
	le.PutUint16(sat[8:], 0xffff)
	le.PutUint16(sat[10:], 0xffff)
	le.PutUint32(sat[12:], 0xffffffff)
	le.PutUint32(sat[16:], 0xffffffff)
	return append(out, sat...)
}
