package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// group puts every surviving point into its unit (sweep), counts each row
// in its input's report entry (a point, a marked point, or excluded with its
// reason), and returns the units sorted by id with their points by load,
// each validated.
func (b *builder) group() ([]ledger.Unit, error) {
	units := map[string]*ledger.Unit{}
	for _, c := range b.cands {
		if c.reason != "" {
			c.src.Excluded[c.reason]++
			continue
		}
		p := &c.built
		if p.Point.Excluded != "" {
			if c.src.Marked == nil {
				c.src.Marked = map[string]int{}
			}
			c.src.Marked[p.Point.Excluded]++
		}
		if d := p.Point.Measured.TPOTDerivation; d != nil {
			if c.src.Corrected == nil {
				c.src.Corrected = map[string]int{}
			}
			c.src.Corrected[d.Rule]++
		}
		c.src.PointsOut++
		u, ok := units[p.UnitID]
		if !ok {
			u = &ledger.Unit{SchemaVersion: ledger.SchemaVersion, ID: p.UnitID, Deployment: p.Deployment, Workload: p.Workload}
			units[p.UnitID] = u
		} else if err := sameSweep(u, c); err != nil {
			return nil, err
		}
		u.Points = append(u.Points, p.Point)
	}
	out := make([]ledger.Unit, 0, len(units))
	for _, id := range slices.Sorted(maps.Keys(units)) {
		u := units[id]
		sort.SliceStable(u.Points, func(i, j int) bool { return u.Points[i].Load.Value() < u.Points[j].Load.Value() })
		if err := u.Validate(); err != nil {
			return nil, fmt.Errorf("unit %s: %w", id, err)
		}
		out = append(out, *u)
	}
	return out, nil
}

// sameSweep fits c into unit u. The deployment and workload must be the
// same, except that engine settings may differ in their evidence or note (a
// point of a run inside the recipe window beside one outside it): those go
// into the point's overrides, so each point keeps its own evidence. Anything
// else differing under one id would be a naming bug.
func sameSweep(u *ledger.Unit, c *candidate) error {
	p := &c.built
	a, b := u.Deployment, p.Deployment
	a.Engines, b.Engines = ledger.EngineSettings{}, ledger.EngineSettings{}
	if !sameJSON([]any{a, u.Workload}, []any{b, p.Workload}) || !sameJSON(settingValues(u.Deployment.Engines), settingValues(p.Deployment.Engines)) {
		return fmt.Errorf("unit id %s names two different deployments or workloads (%s row %d differs from the unit's first point); the unit id scheme needs a new segment: please report this",
			u.ID, c.row.Artifact, c.row.Index)
	}
	ue, ce := &u.Deployment.Engines, &p.Deployment.Engines
	o := p.Point.Overrides
	if o == nil {
		o = &ledger.EngineSettings{}
	}
	overrideIfDiffers(&o.MaxNumSeqs, ue.MaxNumSeqs, ce.MaxNumSeqs)
	overrideIfDiffers(&o.MaxNumBatchedTokens, ue.MaxNumBatchedTokens, ce.MaxNumBatchedTokens)
	overrideIfDiffers(&o.GPUMemoryUtilization, ue.GPUMemoryUtilization, ce.GPUMemoryUtilization)
	overrideIfDiffers(&o.MaxModelLen, ue.MaxModelLen, ce.MaxModelLen)
	overrideIfDiffers(&o.BlockSize, ue.BlockSize, ce.BlockSize)
	overrideIfDiffers(&o.PrefixCaching, ue.PrefixCaching, ce.PrefixCaching)
	overrideIfDiffers(&o.KVCacheDtype, ue.KVCacheDtype, ce.KVCacheDtype)
	if *o != (ledger.EngineSettings{}) {
		p.Point.Overrides = o
	}
	return nil
}

// overrideIfDiffers sets *dst to the point's own setting when it differs
// from the unit's (values are equal here; evidence or note differ) and the
// point does not override it already.
func overrideIfDiffers[T comparable](dst **ledger.Setting[T], unit, own *ledger.Setting[T]) {
	if *dst != nil || own == nil || unit == nil || *unit == *own {
		return
	}
	*dst = own
}

func sameJSON(a, b any) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}
