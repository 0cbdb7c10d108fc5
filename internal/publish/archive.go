package publish

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"path"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
)

// Limits on an artifact's zip archive (the accuracy report and the
// leaderboard's results alike): the archive, the number of its entries,
// each file read from it and all of them together.
const (
	MaxArtifactBytes = 50 << 20
	MaxSummaryBytes  = 10 << 20
	// MaxArtifactEntries bounds the entries of an archive (files and
	// directories): a report artifact holds a handful, a leaderboard's
	// results one file per run and a few per trace.
	MaxArtifactEntries = 10_000
)

// centralHeader starts every central directory record of a zip archive.
var centralHeader = []byte("PK\x01\x02")

// readArchive is the one reader of every archive the bot downloads. It
// reads the zip archive zipped into memory (nothing touches the disk) when
// it is at most MaxArtifactBytes, of at most MaxArtifactEntries entries,
// every entry a directory or a regular file under a clean relative path
// (none a symlink or a duplicate), each file at most MaxSummaryBytes and all
// of them together at most MaxArtifactBytes.
//
// The limits are checked in the order of their cost. The entries are
// counted before archive/zip builds them: each record it would build starts
// with the central directory's 4-byte signature, so an archive with no more
// occurrences of it than the cap has no more entries (a 49 MiB archive of
// 560 000 empty entries is refused in one pass over its bytes, having
// allocated nothing). The uncompressed sizes the archive declares are summed
// before anything is inflated, and what is inflated is counted again while
// reading (diskio.ReadAllMax), as a declared size may lie.
func readArchive(zipped []byte) (memFS, error) {
	if len(zipped) > MaxArtifactBytes {
		return nil, fmt.Errorf("archive is larger than %d bytes", MaxArtifactBytes)
	}
	if n := bytes.Count(zipped, centralHeader); n > MaxArtifactEntries {
		return nil, fmt.Errorf("archive has more than %d entries (%d central directory records)", MaxArtifactEntries, n)
	}
	zr, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped)))
	if err != nil {
		return nil, fmt.Errorf("not a zip archive: %w", err)
	}
	if len(zr.File) > MaxArtifactEntries { // cannot happen after the count
		return nil, fmt.Errorf("archive has more than %d entries (%d)", MaxArtifactEntries, len(zr.File))
	}
	var declared uint64
	for _, f := range zr.File {
		if declared += f.UncompressedSize64; declared > MaxArtifactBytes {
			return nil, fmt.Errorf("its files hold more than %d bytes (as the archive declares them)", MaxArtifactBytes)
		}
	}
	out := memFS{}
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

// readZipFile inflates one entry, at most MaxSummaryBytes.
func readZipFile(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	defer rc.Close()
	return diskio.ReadAllMax(rc, f.Name, MaxSummaryBytes)
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
