package dashboard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
)

// Checkout is a dashboard checkout the nightly's plan is resolved for, as
// ResolvePlan reads it.
type Checkout struct {
	// Dir is the dashboard checkout: state/last-run.json, and the data
	// directories the pin names.
	Dir string
	// PinFile is the pin file's path; its errors name it relative to Dir.
	PinFile string
	// SimulatorRepo and InferenceXRepo are owner/name; InferenceXRepo ""
	// leaves the InferenceX dump out of the plan.
	SimulatorRepo, InferenceXRepo string
	// DataKey is the pin's data by name as Request.Data holds it, each
	// directory by its content digest (pinned.DataKey: the digest is the
	// harness's, which this package does not import).
	DataKey func(p pin.Pin, dir string) (map[string]string, error)
}

// ResolvePlan reads the pin, the data it names (through c.DataKey) and
// state/last-run.json of the dashboard checkout (none there: no previous
// run), and resolves the nightly's current plan (nightly.Resolve) through
// tags. A pin file
// that cannot be read is an error starting "pin file:"; a malformed last
// run is an error naming state/last-run.json.
func ResolvePlan(ctx context.Context, tags nightly.Tags, c Checkout) (nightly.Resolution, error) {
	src, err := diskio.ReadPathMax(c.PinFile, pin.MaxFileBytes)
	if err != nil {
		return nightly.Resolution{}, fmt.Errorf("pin file: %w", err)
	}
	rel, err := filepath.Rel(c.Dir, c.PinFile)
	if err != nil {
		rel = c.PinFile
	}
	p, err := pin.Parse(src, rel)
	if err != nil {
		return nightly.Resolution{}, err
	}
	data, err := c.DataKey(p, c.Dir)
	if err != nil {
		return nightly.Resolution{}, err
	}
	r := nightly.Request{Pin: p, Data: data, SimulatorRepo: c.SimulatorRepo, InferenceXRepo: c.InferenceXRepo}
	raw, err := diskio.ReadPathMax(filepath.Join(c.Dir, filepath.FromSlash(LastRunPath)), MaxLastRunBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nightly.Resolution{}, fmt.Errorf("last run: %w", err)
	default:
		last, err := ParseLastRun(raw)
		if err != nil {
			return nightly.Resolution{}, err
		}
		r.Last, r.LastID = last.Inputs, last.Snapshot
	}
	return nightly.Resolve(ctx, tags, r)
}
