package importer

import (
	"hash/fnv"
	"regexp"
	"strings"
)

// seed is a stable workload seed derived from the unit id (FNV-1a, 64 bit).
func seed(unitID string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(unitID))
	return h.Sum64()
}

// modelBase is the last path element of a model id or path.
func modelBase(model string) string {
	model = strings.TrimRight(model, "/")
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		return model[i+1:]
	}
	return model
}

var notSegment = regexp.MustCompile(`[^a-z0-9._-]+`)

// segment makes s a unit-id segment: lowercase [a-z0-9._-], starting with a
// letter or digit.
func segment(s string) string {
	s = notSegment.ReplaceAllString(strings.ToLower(s), "-")
	s = strings.TrimLeft(s, "._-")
	if s == "" {
		return "x"
	}
	return s
}

func positive(p *float64) bool { return p != nil && *p > 0 }

func ms(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v := *p * 1000
	return &v
}

func ptr[T any](v T) *T { return &v }
