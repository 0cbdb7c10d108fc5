package harness

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"

	"github.com/inference-sim/accuracy-dashboard/corpus"
	"github.com/inference-sim/accuracy-dashboard/internal/hardware"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
)

// TestRealBLIS scores the bundled default corpus with the real simulator, at
// upstream main f90a1e3a (everything replayed) and at release v0.7.15 (rate
// points replayed, closed-loop points through blis run). Opt-in: it needs a clone of
// github.com/inference-sim/inference-sim named by BLIS_SOURCE and takes
// several minutes per build on 2 cores:
//
//	BLIS_SOURCE=~/src/inference-sim go test ./internal/harness -run RealBLIS -v -timeout 60m
//
// BLIS_UNITS narrows the corpus (same syntax as --units) for a quicker look.
// The point timeout is wall time: on a shared, overloaded machine the
// heaviest point (gpt-oss-120b H100 TP8 1k/8k at concurrency 64, about a
// minute of CPU) took over 20 minutes, hence an hour.
func TestRealBLIS(t *testing.T) {
	src := os.Getenv("BLIS_SOURCE")
	if src == "" {
		t.Skip("BLIS_SOURCE is not set: no clone of the real simulator to score")
	}
	l, err := ledger.Load(corpus.Ledger())
	if err != nil {
		t.Fatal(err)
	}
	catalog := t.TempDir()
	if err := os.CopyFS(catalog, corpus.Catalog()); err != nil {
		t.Fatal(err)
	}
	hwRaw, err := fs.ReadFile(corpus.Hardware(), hardware.File)
	if err != nil {
		t.Fatal(err)
	}
	hw, err := hardware.Parse(hwRaw, "bundled hardware registry")
	if err != nil {
		t.Fatal(err)
	}
	hwVersion := BundledHardwareVersion(hw, hwRaw)
	hdir, _ := harnesstest.HarnessCheckout(t)
	var units []string
	if u := os.Getenv("BLIS_UNITS"); u != "" {
		units = strings.Split(u, ",")
	}
	for _, tc := range []struct {
		ref, driver, closedDriver string
	}{
		{"f90a1e3a6787da17c2cd463dab6fb2660b1b1760", DriverReplayMetrics, DriverReplayMetrics},
		{"v0.7.15", DriverReplayResults, DriverRunClosedLoop},
	} {
		t.Run(tc.ref, func(t *testing.T) {
			res, err := Score(context.Background(), Options{
				HarnessDir: hdir, SimRepo: src, SimRef: tc.ref, Ledger: l,
				LedgerVersion: runresult.DataVersion{Name: l.Manifest.Name, Version: l.Manifest.Version, Digest: l.Digest, Release: l.Manifest.Release},
				Catalog:       catalog, Units: units, CacheDir: sharedCache(t), PointTimeout: 60 * time.Minute,
				Hardware: hw, HardwareVersion: &hwVersion,
				Progress: testWriter{t},
			})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Summary
			t.Logf("%s: driver %s, coverage %+v, TTFT MAPE %v, TPOT MAPE %v", tc.ref, res.Caps.Drivers(), s.Coverage, deref(s.Tiers.All["ttft"].MAPE), deref(s.Tiers.All["tpot"].MAPE))
			if res.Caps.Rate != tc.driver || res.Caps.ClosedLoop != tc.closedDriver {
				t.Errorf("drivers = %s (rate), %s (closed loop); want %s, %s", res.Caps.Rate, res.Caps.ClosedLoop, tc.driver, tc.closedDriver)
			}
			if !s.Coverage.Balanced() || s.Coverage.CorpusPoints == 0 {
				t.Fatalf("coverage = %+v", s.Coverage)
			}
			if p := s.Provenance; p.Hardware == nil || strings.Join(p.HardwareSupplied, ",") != "B200,H200" {
				t.Errorf("hardware provenance %+v, supplied %v; want the bundled registry supplying B200 and H200", p.Hardware, p.HardwareSupplied)
			}
			if s.Coverage.Scored == 0 {
				t.Fatalf("no point scored; reasons %v", s.Coverage.NotScoredByReason)
			}
			closedScored := 0
			for _, p := range res.Points {
				closedLoop := p.Load.Concurrency > 0
				want := tc.driver
				if closedLoop {
					want = tc.closedDriver
				}
				if p.Scored && p.Driver != want {
					t.Errorf("%s scored by %q, want %s", p.ID, p.Driver, want)
				}
				switch {
				case p.Hardware == "H200" || p.Hardware == "B200":
					// The build knows neither; the bundled hardware registry
					// supplies both, with assumed calibration factors.
					if p.Tier != string(ledger.Assumed) {
						t.Errorf("%s: tier %q, want assumed (its GPU came from the hardware registry)", p.ID, p.Tier)
					}
					// Not scored only as the 16-bit weights explain: they do
					// not fit, or leave so little KV cache that the heaviest
					// load does not complete (H200 TP2 at concurrency 64).
					if !p.Scored && p.Reason != ReasonDoesNotFit && p.Reason != ReasonTimeout && p.Reason != ReasonIncomplete {
						t.Errorf("%s: not scored: %s: %s", p.ID, p.Reason, p.Detail)
					}
				case !closedLoop && p.Detail == DetailExcluded:
					// A measurement the ledger excludes (its requests
					// failed): in the corpus, never run.
				case !closedLoop:
					if !p.Scored {
						t.Errorf("%s (rate point, bundled model) not scored: %s: %s", p.ID, p.Reason, p.Detail)
					}
				case p.Reason == simcli.ReasonUnsupportedBuild:
					// Either replay or run can drive closed loop in both builds.
					t.Errorf("%s: %s: %s", p.ID, p.Reason, p.Detail)
				case strings.Contains(p.Unit, "/tp2/") && p.Hardware == "H100":
					// gpt-oss-120b's weights, taken as 16-bit, exceed two H100s.
					if p.Reason != ReasonDoesNotFit {
						t.Errorf("%s: scored %v, reason %q; want %s", p.ID, p.Scored, p.Reason, ReasonDoesNotFit)
					}
				case p.Hardware == "H100" && strings.HasPrefix(p.Unit, "inferencex/gpt-oss-120b/"):
					// gpt-oss-120b at TP4 and TP8 on H100: the closed-loop
					// points both builds must score.
					if !p.Scored {
						t.Errorf("%s not scored: %s: %s", p.ID, p.Reason, p.Detail)
					}
					closedScored++
				}
			}
			t.Logf("%s: %d gpt-oss-120b H100 closed-loop points at TP4/TP8 scored", tc.ref, closedScored)
		})
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func deref(x *float64) any {
	if x == nil {
		return nil
	}
	return *x
}

// TestRealBLISReuse: with the real simulator at f90a1e3a, a run reusing an
// earlier run's predictions (all of them but one unit's) writes what the
// earlier run wrote, but for the reuse record, and the unit it simulates
// again gives the same figures (the simulator is deterministic). Opt-in
// like TestRealBLIS; BLIS_REUSE_UNITS picks the units (default: the
// gpt-oss-120b H100 TP8 1k/1k sweep, 5 points, and one inference-perf
// stage):
//
//	BLIS_SOURCE=~/src/inference-sim go test ./internal/harness -run RealBLISReuse -v -timeout 60m
func TestRealBLISReuse(t *testing.T) {
	src := os.Getenv("BLIS_SOURCE")
	if src == "" {
		t.Skip("BLIS_SOURCE is not set: no clone of the real simulator to score")
	}
	l, err := ledger.Load(corpus.Ledger())
	if err != nil {
		t.Fatal(err)
	}
	units := []string{"inferencex/gpt-oss-120b/h100/tp8/isl1024-osl1024", "inference-perf/llama-2-7b-hf/h100/tp1/20260217-155451-codegen"}
	if u := os.Getenv("BLIS_REUSE_UNITS"); u != "" {
		units = strings.Split(u, ",")
	}
	catalog := t.TempDir()
	if err := os.CopyFS(catalog, corpus.Catalog()); err != nil {
		t.Fatal(err)
	}
	digest, err := DigestFS(corpus.Catalog())
	if err != nil {
		t.Fatal(err)
	}
	hdir, _ := harnesstest.HarnessCheckout(t)
	o := Options{HarnessDir: hdir, SimRepo: src, SimRef: "f90a1e3a6787da17c2cd463dab6fb2660b1b1760", Ledger: l,
		Catalog: catalog, CatalogVersion: &runresult.DataVersion{Name: "bundled catalog", Version: l.Manifest.Version, Digest: digest},
		LedgerVersion: runresult.DataVersion{Name: l.Manifest.Name, Version: l.Manifest.Version, Digest: l.Digest, Release: l.Manifest.Release},
		Units:         units, Jobs: 2, CacheDir: sharedCache(t), PointTimeout: 60 * time.Minute, Progress: testWriter{t}}
	full, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if full.Summary.Coverage.Scored == 0 {
		t.Fatalf("nothing scored: %v", full.Summary.Coverage.NotScoredByReason)
	}
	var earlier []runresult.Point
	for _, p := range full.Points {
		if p.Unit != units[0] {
			earlier = append(earlier, p)
		}
	}
	o.Reuse = NewReuse("earlier", earlier)
	again, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range again.Points {
		if want := p.Scored && p.Unit != units[0]; (p.ReusedFrom != "") != want {
			t.Errorf("%s: reused from %q, want reused %v", p.ID, p.ReusedFrom, want)
		}
	}
	t.Logf("coverage %+v", again.Summary.Coverage)
	wantS, wantP := withoutReuse(t, full.Result)
	gotS, gotP := withoutReuse(t, again.Result)
	if !bytes.Equal(gotS, wantS) || !bytes.Equal(gotP, wantP) {
		t.Errorf("the run with reuse differs from the run without:\n%s\n---\n%s", gotP, wantP)
	}
}
