package runresult

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
)

// ErrOverPointsCap is the error of a run whose points.json would be larger
// than its cap, found before the run simulated anything (CheckPointsCap) or
// before a merge read its shards (CheckPartsCap).
var ErrOverPointsCap = errors.New("points.json would be over its cap")

// PointsBytesAtLeast is a lower bound of the size of the points.json
// (Write's encoding) of a run of these points, known before any of them
// is simulated: skeleton holds each point with what the corpus says of it
// (id, unit, model, hardware, load, source, measured values); whatever
// else skeleton's points hold is left out. A scored point adds its
// predictions, an unscored one its reason and detail, and either may add
// a driver, a digest and warnings: each only lengthens the point, except
// that "predicted": {} is two bytes shorter than null and the tier may be
// "assumed", which the bound allows for.
func PointsBytesAtLeast(skeleton []Point) (int, error) {
	pts := make([]Point, len(skeleton))
	for i, p := range skeleton {
		pts[i] = Point{ID: p.ID, Unit: p.Unit, Model: p.Model, Hardware: p.Hardware, Load: p.Load, Source: p.Source, Measured: p.Measured, Scored: true}
	}
	raw, err := jsoncodec.Encode(SortPoints(pts))
	if err != nil {
		return 0, fmt.Errorf("encode points: %w", err)
	}
	// "tier": "" is 7 bytes shorter than "assumed", the shortest tier;
	// "predicted": null is at most 2 bytes longer than {}.
	return len(raw) + len(pts)*(len(`assumed`)-2), nil
}

// CheckPointsCap refuses, before anything is simulated, a run of the points
// of skeleton (PointsBytesAtLeast) whose points.json would be larger than
// limit bytes (MaxPointsBytes, which every reader of a result takes at
// most; 0 means it): the error, ErrOverPointsCap, names the points, the
// bound and the cap.
func CheckPointsCap(skeleton []Point, limit int) error {
	if limit == 0 {
		limit = MaxPointsBytes
	}
	n, err := PointsBytesAtLeast(skeleton)
	if err != nil {
		return err
	}
	if n > limit {
		return fmt.Errorf("%w: the %d points of the run make a %s of at least %d bytes before any prediction, over the cap of %d bytes every reader of a result takes (runresult.MaxPointsBytes): score fewer units (--units) or split the corpus",
			ErrOverPointsCap, len(skeleton), PointsFile, n, limit)
	}
	return nil
}

// CheckPartsCap refuses, before reading them, shards whose points.json
// files together are larger than the merged points.json may be (limit
// bytes, 0: MaxPointsBytes): the merge writes each shard's points with the
// same encoding, less each file's brackets. The error, ErrOverPointsCap,
// names the shards' total, the bound and the cap. A missing points.json is
// left for Read to name.
func CheckPartsCap(dirs []string, limit int) error {
	if limit == 0 {
		limit = MaxPointsBytes
	}
	total := 0
	for _, dir := range dirs {
		fi, err := os.Lstat(filepath.Join(dir, PointsFile))
		if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.Mode().IsRegular()) {
			continue
		}
		if err != nil {
			return err
		}
		// "[\n" and "\n]\n" are the file's own; the merged file has one pair.
		total += int(fi.Size()) - len("[\n\n]\n")
	}
	if total > limit {
		return fmt.Errorf("%w: the %d shards' %s files hold %d bytes of points, over the cap of %d bytes every reader of a result takes (runresult.MaxPointsBytes): the merged run could not be written",
			ErrOverPointsCap, len(dirs), PointsFile, total, limit)
	}
	return nil
}
