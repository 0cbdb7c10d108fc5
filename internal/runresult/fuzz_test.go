package runresult

import (
	"slices"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
)

// Fuzz targets for the parsers of result files, which may come from an
// untrusted run's artifact (comment mode, the bot's publisher): any input
// either parses into a value the rest of the project can rely on, or is an
// error; never a panic. `go test` runs the seeds; .ci/fuzz fuzzes them.

func summarySeeds(f *testing.F) {
	f.Helper()
	pts := []Point{pt("u", 1, "resolved", 10, 11), pt("u", 2, "resolved", 20, 20), pt("u", 4, "assumed", 40, 48), pt("u", 8, "assumed", 80, 0)}
	s, err := Summarize(pts, testProvenance(), nil)
	if err != nil {
		f.Fatal(err)
	}
	for _, v := range []any{s, pts} {
		raw, err := jsoncodec.Encode(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(`{"schema_version": 1}`))
	f.Add([]byte(`[]`))
}

func FuzzParseSummary(f *testing.F) {
	summarySeeds(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := ParseSummary(raw)
		if err != nil {
			return
		}
		if !s.Coverage.Balanced() {
			t.Errorf("coverage does not balance: %+v", s.Coverage)
		}
		if !slices.Contains(ReadableVersions, s.SchemaVersion) {
			t.Errorf("schema_version %d parsed", s.SchemaVersion)
		}
		if s.Label != LabelExperimental && s.Label != LabelRelease {
			t.Errorf("label %q parsed", s.Label)
		}
	})
}

func FuzzParsePoints(f *testing.F) {
	summarySeeds(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		pts, err := ParsePoints(raw)
		if err != nil {
			return
		}
		for i, p := range pts {
			if p.ID == "" {
				t.Errorf("point %d parsed without an id", i)
			}
		}
	})
}
