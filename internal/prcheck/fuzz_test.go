package prcheck

import (
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
)

// FuzzParsePR: pr.json comes from an untrusted run's artifact (comment
// mode). Any input parses into a pull request number and two full commits
// that survive a round trip, or is an error; never a panic. `go test` runs
// the seeds; .ci/fuzz fuzzes.
func FuzzParsePR(f *testing.F) {
	good, err := jsoncodec.Encode(pr)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"number": 7, "head_sha": "` + headSHA + `", "base_sha": "` + baseSHA + `", "extra": 1}`))
	f.Add([]byte(`{"number": -1}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := parsePR(raw)
		if err != nil {
			return
		}
		if p.Number <= 0 || ident.CheckCommit(p.HeadSHA) != nil || ident.CheckCommit(p.BaseSHA) != nil {
			t.Fatalf("parsed %+v", p)
		}
		again, err := jsoncodec.Encode(p)
		if err != nil {
			t.Fatal(err)
		}
		if q, err := parsePR(again); err != nil || q != p {
			t.Errorf("round trip: %+v, %v; want %+v", q, err, p)
		}
	})
}
