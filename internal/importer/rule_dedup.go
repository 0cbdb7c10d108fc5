package importer

import (
	"encoding/json"
	"strconv"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// dedup keeps one point per simulator-input identity: the newest version
// wins, then the later run, then the later artifact and row. The others are
// excluded (ReasonDuplicate).
func (b *builder) dedup() {
	best := map[string]*candidate{}
	for _, c := range b.cands {
		if c.reason != "" {
			continue
		}
		if o, ok := best[c.identity]; !ok || newer(c, o) {
			best[c.identity] = c
		}
	}
	for _, c := range b.cands {
		if c.reason == "" && best[c.identity] != c {
			c.reason = ReasonDuplicate
		}
	}
}

// newer reports whether c is preferred to o for the same identity.
func newer(c, o *candidate) bool {
	if c.version != o.version {
		return o.version.less(c.version)
	}
	if c.row.RunID != o.row.RunID {
		return runLess(o.row.RunID, c.row.RunID)
	}
	if c.row.Artifact != o.row.Artifact {
		return o.row.Artifact < c.row.Artifact
	}
	return o.row.Index < c.row.Index
}

// runLess orders run ids numerically when both are numbers, else as text.
func runLess(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	if errA == nil && errB == nil {
		return x < y
	}
	return a < b
}

// identity is the simulator-input identity of a candidate: everything the
// simulator is given (deployment, engine settings at this point, workload,
// load, speculative method) and nothing else (not the version, not the
// evidence, not the seed).
func identity(c *candidate) string {
	p := c.built
	u := ledger.Unit{Deployment: p.Deployment, Points: []ledger.Point{p.Point}}
	settings := u.Settings(0)
	dep := p.Deployment
	wl := p.Workload
	wl.Seed = 0
	key := struct {
		Spec     string
		Model    string
		Hardware string
		Engine   string
		TP, EP   int
		DP       int
		Prec     string
		Settings []any
		Workload ledger.Workload
		Load     ledger.Offered
	}{
		Spec: p.Spec, Model: dep.Model, Hardware: dep.Hardware, Engine: dep.Engine,
		TP: dep.TensorParallel.Value, EP: dep.ExpertParallel.Value, DP: dep.DataParallel.Value,
		Prec:     dep.Precision.Value,
		Settings: settingValues(settings),
		Workload: wl,
		Load:     p.Point.Load,
	}
	raw, err := json.Marshal(key)
	if err != nil {
		panic("importer: identity of plain values cannot fail to marshal: " + err.Error())
	}
	return string(raw)
}

func settingValues(s ledger.EngineSettings) []any {
	return []any{
		valueOf(s.MaxNumSeqs), valueOf(s.MaxNumBatchedTokens), valueOf(s.GPUMemoryUtilization),
		valueOf(s.MaxModelLen), valueOf(s.BlockSize), valueOf(s.PrefixCaching), valueOf(s.KVCacheDtype),
	}
}

func valueOf[T any](s *ledger.Setting[T]) any {
	if s == nil {
		return nil
	}
	return s.Value
}
