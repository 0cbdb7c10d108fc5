package site

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
)

// BuildDir builds the site of the dashboard checkout at dashboard (Build's,
// each file written as it is drawn and one snapshot read at a time, so
// that its memory does not grow with the number of snapshots) and makes
// out hold exactly its files (diskio.ReplaceDir: a page of a
// snapshot no longer listed does not linger). It returns how many files
// the site has; a snapshot left out (Build's skipped) is logged to log as
// a warning naming it and why. A build error is prefixed "dashboard
// <dir>: "; on an error out is left as it was (ReplaceDir's one exception
// aside: the old directory's removal failing after out was replaced).
func BuildDir(dashboard, out string, log *slog.Logger) (int, error) {
	n := 0
	var buildErr error
	err := diskio.ReplaceDirFunc(out, func(tmp string) error {
		skipped, err := build(os.DirFS(dashboard), func(path string, data []byte) error {
			n++
			return diskio.WriteFiles(tmp, map[string][]byte{path: data})
		})
		if err != nil {
			buildErr = err
			return err
		}
		for _, s := range skipped {
			log.Warn("snapshot left out of the site: it could not be read", "dashboard", dashboard, "snapshot", s.ID, "reason", s.Reason)
		}
		return nil
	})
	if buildErr != nil {
		return 0, fmt.Errorf("dashboard %s: %w", dashboard, buildErr)
	}
	if err != nil {
		return 0, err
	}
	return n, nil
}
