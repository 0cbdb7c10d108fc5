package publish

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"path"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Limits on an artifact's zip archive (the accuracy report and the
// leaderboard's results alike): the archive, the number of its entries,
// each file read from it and all of them together.
const (
	MaxArtifactBytes = 50 << 20
	// MaxFileBytes bounds each file of an archive: the larger of a run's
	// caps (runresult.MaxSummaryBytes, runresult.MaxPointsBytes), which
	// runresult.Parse applies to each of its files.
	MaxFileBytes = max(runresult.MaxSummaryBytes, runresult.MaxPointsBytes)
	// MaxArtifactEntries bounds the entries of an archive (files and
	// directories): a report artifact holds a handful, a leaderboard's
	// results one file per run and a few per trace.
	MaxArtifactEntries = 10_000
)

// readArchive is the one reader of every archive the bot downloads. It
// reads the zip archive zipped into memory (nothing touches the disk) when
// it is at most MaxArtifactBytes, of at most MaxArtifactEntries entries,
// every entry a directory or a regular file under a clean relative path
// (none a symlink or a duplicate), each file at most MaxFileBytes and all
// of them together at most MaxArtifactBytes.
//
// The limits are checked in the order of their cost. The entries are
// counted before archive/zip builds them, by walking the central directory
// as archive/zip does (centralRecords), allocating nothing: a 49 MiB
// archive of 560 000 empty entries is refused in one pass over its
// directory. The uncompressed sizes the archive declares are summed before
// anything is inflated, and what is inflated is counted again while reading
// (diskio.ReadAllMax), as a declared size may lie.
func readArchive(zipped []byte) (MemFS, error) {
	if len(zipped) > MaxArtifactBytes {
		return nil, fmt.Errorf("archive is larger than %d bytes", MaxArtifactBytes)
	}
	if n := centralRecords(zipped, MaxArtifactEntries); n > MaxArtifactEntries {
		return nil, fmt.Errorf("archive has more than %d entries (%d central directory records)", MaxArtifactEntries, n)
	}
	zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
	if err != nil {
		return nil, fmt.Errorf("not a zip archive: %w", err)
	}
	if len(zr.File) > MaxArtifactEntries { // an archive built to be counted otherwise
		return nil, fmt.Errorf("archive has more than %d entries (%d)", MaxArtifactEntries, len(zr.File))
	}
	var declared uint64
	for _, f := range zr.File {
		if declared += f.UncompressedSize64; declared > MaxArtifactBytes {
			return nil, fmt.Errorf("its files hold more than %d bytes (as the archive declares them)", MaxArtifactBytes)
		}
	}
	out := MemFS{}
	total := 0
	for _, f := range zr.File {
		mode := f.Mode()
		if mode.IsDir() {
			continue
		}
		if !mode.IsRegular() {
			return nil, fmt.Errorf("%s is a %s, not a regular file", f.Name, modeName(mode))
		}
		if !fs.ValidPath(f.Name) || path.Clean(f.Name) != f.Name {
			return nil, fmt.Errorf("entry %q is not a clean relative path", f.Name)
		}
		if _, dup := out[f.Name]; dup {
			return nil, fmt.Errorf("more than one %s", f.Name)
		}
		raw, err := readZipFile(f)
		if err != nil {
			return nil, err
		}
		if total += len(raw); total > MaxArtifactBytes {
			return nil, fmt.Errorf("its files hold more than %d bytes", MaxArtifactBytes)
		}
		out[f.Name] = raw
	}
	return out, nil
}

// readZipFile inflates one entry, at most MaxFileBytes.
func readZipFile(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	defer rc.Close()
	return diskio.ReadAllMax(rc, f.Name, MaxFileBytes)
}

func modeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// The signatures and fixed lengths of the zip format's central directory
// records (APPNOTE.TXT 4.3.12 to 4.3.16).
var (
	centralHeader = []byte("PK\x01\x02")
	dirEndSig     = []byte("PK\x05\x06")
	dir64LocSig   = []byte("PK\x06\x07")
	dir64EndSig   = []byte("PK\x06\x06")
)

const (
	centralHeaderLen = 46
	dirEndLen        = 22
	dir64LocLen      = 20
	dir64EndLen      = 56
)

// centralRecords counts the central directory records archive/zip builds
// from zipped (zip.NewReader), stopping once the count passes limit, and
// allocates nothing. It finds the directory as archive/zip does: the end
// record in the last 1 KiB, else the last 65 KiB, and the zip64 end record
// its locator names when a field is saturated. From where the directory
// starts it counts contiguous records, as archive/zip reads them until one
// does not parse. archive/zip may start at the offset the end record states
// or where its size puts the start, and reads the zip64 record's fields or
// the end record's: the count is the largest over these starts, so it is
// never below archive/zip's. A signature inside a file's data is not
// counted; bytes that are no zip archive count 0 (zip.NewReader refuses
// them without building an entry).
func centralRecords(zipped []byte, limit int) int {
	end := dirEnd(zipped)
	if end < 0 {
		return 0
	}
	e := zipped[end:]
	n := countDir(zipped, end, uint64(le32(e[12:])), uint64(le32(e[16:])), limit)
	if le16(e[10:]) == 0xffff || le32(e[12:]) == 0xffff || le32(e[16:]) == 0xffffffff {
		if p := dir64End(zipped, end); p >= 0 {
			n = max(n, countDir(zipped, p, le64(zipped[p+40:]), le64(zipped[p+48:]), limit))
		}
	}
	return n
}

// countDir counts the records of a directory of size bytes that ends at
// end and is stated to start at offset: from end−size, and from offset too
// when that is before it (archive/zip then takes offset when a record is
// there).
func countDir(zipped []byte, end int, size, offset uint64, limit int) int {
	if size > uint64(end) {
		return 0
	}
	start := end - int(size)
	n := countFrom(zipped, start, limit)
	if uint64(start) > offset {
		n = max(n, countFrom(zipped, int(offset), limit))
	}
	return n
}

// countFrom counts the contiguous central directory records from p, at
// most limit+1.
func countFrom(zipped []byte, p, limit int) int {
	n := 0
	for n <= limit && p >= 0 && p+centralHeaderLen <= len(zipped) && bytes.Equal(zipped[p:p+4], centralHeader) {
		h := zipped[p:]
		p += centralHeaderLen + int(le16(h[28:])) + int(le16(h[30:])) + int(le16(h[32:]))
		n++
	}
	return n
}

// dirEnd is the offset of the end of central directory record, found as
// archive/zip finds it: the last signature in the final 1 KiB whose comment
// fits, else in the final 65 KiB; -1 for none.
func dirEnd(zipped []byte) int {
	for _, n := range []int{1024, 65 * 1024} {
		n = min(n, len(zipped))
		block := zipped[len(zipped)-n:]
		for i := len(block) - dirEndLen; i >= 0; i-- {
			if bytes.Equal(block[i:i+4], dirEndSig) {
				if i+dirEndLen+int(le16(block[i+20:])) > len(block) {
					break // a truncated comment: archive/zip looks no further in this block
				}
				return len(zipped) - n + i
			}
		}
		if n == len(zipped) {
			break
		}
	}
	return -1
}

// dir64End is the offset of the zip64 end of central directory record
// whose locator precedes the end record at end, as archive/zip reads it;
// -1 for none.
func dir64End(zipped []byte, end int) int {
	loc := end - dir64LocLen
	if loc < 0 || !bytes.Equal(zipped[loc:loc+4], dir64LocSig) || le32(zipped[loc+4:]) != 0 || le32(zipped[loc+16:]) != 1 {
		return -1
	}
	p := le64(zipped[loc+8:])
	if len(zipped) < dir64EndLen || p > uint64(len(zipped)-dir64EndLen) || !bytes.Equal(zipped[p:p+4], dir64EndSig) {
		return -1
	}
	return int(p)
}

func le16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }
func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// ResultsFromArtifact reads an artifact's zip archive as a results
// directory, in memory, within the limits of every artifact (readArchive).
func ResultsFromArtifact(zipped []byte) (fs.FS, error) {
	return readArchive(zipped)
}
