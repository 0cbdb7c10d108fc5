package lbserve

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbrun"
)

// maxNamedFiles is how many result files of another build a refusal names.
const maxNamedFiles = 5

// ErrOtherBuild is the refusal to serve a results directory holding results
// of another simulator build or catalog than the server's.
var ErrOtherBuild = errors.New("the results directory holds results of another simulator build")

// checkOneBuild refuses (ErrOtherBuild) a results directory holding a
// result that ran on another simulator commit or catalog than build: the
// server would rank its new runs beside them, and a table ranks one
// build's results only. The error names the builds and their files. A
// missing directory holds none; a file that does not read as a result is
// left to the page (which leaves it off) and validate.
func checkOneBuild(results string, build leaderboard.Provenance) error {
	if _, err := os.Stat(results); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	res, _, err := lbrun.ReadResults(results)
	if err != nil {
		return err
	}
	others := map[string][]string{} // build → files
	for key, r := range res {
		if !sameBuild(r.Provenance, build) {
			name := leaderboard.BuildName(r.Provenance)
			others[name] = append(others[name], key+".json")
		}
	}
	if len(others) == 0 {
		return nil
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(others)) {
		files := others[name]
		slices.Sort(files)
		more := ""
		if len(files) > maxNamedFiles {
			files, more = files[:maxNamedFiles], fmt.Sprintf(" and %d more", len(files)-maxNamedFiles)
		}
		parts = append(parts, fmt.Sprintf("%s: %s%s", name, strings.Join(files, ", "), more))
	}
	return fmt.Errorf("%w: %s; this server runs %s. A table ranks one build's results only: serve them with their build (--sim, or the pin file that names it), or move them out of %s",
		ErrOtherBuild, strings.Join(parts, "; "), leaderboard.BuildName(build), results)
}

// sameBuild: the same simulator commit and catalog (by digest; none and
// none alike).
func sameBuild(a, b leaderboard.Provenance) bool {
	if a.Simulator.Commit != b.Simulator.Commit || (a.Catalog == nil) != (b.Catalog == nil) {
		return false
	}
	return a.Catalog == nil || a.Catalog.Digest == b.Catalog.Digest
}
