package harness

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// reuseOpts are the test ledger's options on the stand-in v0.2.0 with a
// catalog (so the catalog is handed to the simulator and in every digest).
func reuseOpts(t *testing.T) Options {
	t.Helper()
	o := scoreOpts(t, "ledger", "v0.2.0")
	o.Catalog, o.CatalogVersion = testCatalog(t, "{}\n")
	o.Hardware, o.HardwareVersion = testRegistry(true)
	return o
}

// testCatalog is a catalog directory holding the test model's config.json.
func testCatalog(t *testing.T, config string) (string, *runresult.DataVersion) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "models", "test-model-7b", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	digest, err := DigestFS(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	return dir, &runresult.DataVersion{Name: "catalog test", Version: "1", Digest: digest}
}

// withoutReuse is a run's files with the reuse record (reused_from, the
// reused count) taken out.
func withoutReuse(t *testing.T, run runresult.Result) (summary, points []byte) {
	t.Helper()
	s := run.Summary
	s.Coverage.Reused = 0
	ps := make([]runresult.Point, len(run.Points))
	for i, p := range run.Points {
		p.ReusedFrom = ""
		ps[i] = p
	}
	sj, err := jsoncodec.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	pj, err := jsoncodec.Encode(ps)
	if err != nil {
		t.Fatal(err)
	}
	return sj, pj
}

// TestReuseIsByteIdentical: a run that reuses every prediction of an
// earlier one, or all but one unit's, writes what a run without reuse
// writes, apart from the reuse record; and a reused prediction is really
// taken, not simulated (a doctored one comes through).
func TestReuseIsByteIdentical(t *testing.T) {
	o := reuseOpts(t)
	full, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range full.Points {
		if ran := p.Driver != ""; ran != (p.ReplayDigest != "") || p.ReusedFrom != "" {
			t.Fatalf("%s: driver %q, digest %q, reused from %q: every point that ran has a digest, none is reused", p.ID, p.Driver, p.ReplayDigest, p.ReusedFrom)
		}
	}
	wantS, wantP := withoutReuse(t, full.Result)

	// Everything reused.
	o.Reuse = NewReuse("run-1", full.Points)
	again, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if c := again.Summary.Coverage; c.Reused != c.Scored || c.Scored != 9 {
		t.Errorf("coverage %+v: want all 9 scored points reused", c)
	}
	for _, p := range again.Points {
		if p.Scored != (p.ReusedFrom == "run-1") {
			t.Errorf("%s: scored %v, reused from %q", p.ID, p.Scored, p.ReusedFrom)
		}
	}
	gotS, gotP := withoutReuse(t, again.Result)
	if !bytes.Equal(gotS, wantS) || !bytes.Equal(gotP, wantP) {
		t.Fatalf("a run with reuse differs from one without:\n%s\n%s\n---\n%s\n%s", gotS, gotP, wantS, wantP)
	}

	// One unit new (an earlier run without it): it is simulated, the rest
	// reused, and the files are the same again.
	const newUnit = "test/ix/test-model-7b/a100-assumed"
	var earlier []runresult.Point
	for _, p := range full.Points {
		if p.Unit != newUnit {
			earlier = append(earlier, p)
		}
	}
	o.Reuse = NewReuse("run-2", earlier)
	part, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range part.Points {
		if want := p.Scored && p.Unit != newUnit; (p.ReusedFrom != "") != want {
			t.Errorf("%s: reused from %q, want reused %v", p.ID, p.ReusedFrom, want)
		}
	}
	if c := part.Summary.Coverage; c.Reused != 6 {
		t.Errorf("coverage %+v: want 6 reused (3 of the new unit simulated)", c)
	}
	gotS, gotP = withoutReuse(t, part.Result)
	if !bytes.Equal(gotS, wantS) || !bytes.Equal(gotP, wantP) {
		t.Fatal("a run reusing all but one unit differs from one without reuse")
	}

	// A reused prediction is taken as it is: doctored, it comes through.
	doctored := append([]runresult.Point(nil), full.Points...)
	for i := range doctored {
		if doctored[i].Scored {
			doctored[i].Predicted = map[string]float64{"ttft_ms": 1234.5, "tpot_ms": 6.5}
			break
		}
	}
	o.Reuse = NewReuse("doctored", doctored)
	d, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if p := pointsByID(d.Points)[firstScored(doctored).ID]; p.Predicted["ttft_ms"] != 1234.5 || p.ReusedFrom != "doctored" {
		t.Errorf("the doctored point %+v: its prediction was not taken", p)
	}
}

func firstScored(ps []runresult.Point) runresult.Point {
	for _, p := range ps {
		if p.Scored {
			return p
		}
	}
	return runresult.Point{}
}

// TestReuseNeverWrong: changing any input that decides a prediction makes
// the points it touches simulate again (reused_from empty), and only
// those: one unit's input length, its seed, an engine setting, the
// closed-loop driver, the simulator commit (same code, another commit),
// the harness commit, the catalog.
func TestReuseNeverWrong(t *testing.T) {
	base := reuseOpts(t)
	full, err := Score(context.Background(), base)
	if err != nil {
		t.Fatal(err)
	}
	const unit = "test/ix/test-model-7b/h100"
	all := func(runresult.Point) bool { return true }
	inUnit := func(p runresult.Point) bool { return p.Unit == unit }
	closedLoop := func(p runresult.Point) bool { return p.Load.Concurrency > 0 }
	editUnit := func(edit func(u *ledger.Unit)) func(*testing.T, *Options) {
		return func(t *testing.T, o *Options) {
			o.Ledger = testLedger(t, "ledger")
			edit(unitByID(t, o.Ledger, unit))
		}
	}
	for _, c := range []struct {
		name   string
		change func(*testing.T, *Options)
		// again says which points must simulate again.
		again func(runresult.Point) bool
	}{
		{"nothing", func(*testing.T, *Options) {}, func(runresult.Point) bool { return false }},
		{"input length", editUnit(func(u *ledger.Unit) { u.Workload.InferenceX.InputLen-- }), inUnit},
		{"seed", editUnit(func(u *ledger.Unit) { u.Workload.Seed++ }), inUnit},
		{"engine setting", editUnit(func(u *ledger.Unit) {
			s := *u.Deployment.Engines.MaxNumSeqs
			s.Value /= 2
			u.Deployment.Engines.MaxNumSeqs = &s
		}), inUnit},
		{"driver", func(_ *testing.T, o *Options) { o.ClosedLoopDriver = DriverRunClosedLoop }, closedLoop},
		{"simulator commit", func(t *testing.T, o *Options) { o.SimRef = harnesstest.StandinRepo(t).Feature }, all},
		{"harness commit", func(t *testing.T, o *Options) {
			if err := os.WriteFile(filepath.Join(o.HarnessDir, "NOTES"), []byte("a later harness commit\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			harnesstest.CommitAll(t, o.HarnessDir, "later")
		}, all},
		{"catalog", func(t *testing.T, o *Options) { o.Catalog, o.CatalogVersion = testCatalog(t, "{\"changed\": true}\n") }, all},
		// The same (fake) registry digest, another H200 bandwidth: the
		// hardware configuration's bytes decide, and every point gets it.
		{"hardware registry", func(t *testing.T, o *Options) {
			reg, v := testRegistry(true)
			h200 := reg.GPUs["H200"]
			h200.BwPeakTBs.Value = 5
			reg.GPUs["H200"] = h200
			o.Hardware, o.HardwareVersion = reg, v
		}, all},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := base
			c.change(t, &o)
			o.Reuse = NewReuse("earlier", full.Points)
			res, err := Score(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			simulated := 0
			for _, p := range res.Points {
				if !p.Scored {
					continue
				}
				if again := p.ReusedFrom == ""; again != c.again(p) {
					t.Errorf("%s: simulated again %v, want %v", p.ID, again, c.again(p))
				}
				if p.ReusedFrom == "" {
					simulated++
				}
			}
			if c.name != "nothing" && simulated == 0 {
				t.Error("no point simulated again")
			}
		})
	}
}

// TestReplayDigest: the digest covers one request's length in the trace,
// the command line (a seed), the driver and every run-wide input, and not
// the run directory's or the catalog's path.
func TestReplayDigest(t *testing.T) {
	base := []DigestInput{{"harness", "h1"}, {"simulator", "s1"}, {"toolchain", "go1"}, {"catalog", "sha256:c1"}}
	run := func(t *testing.T, csv string) string {
		dir := t.TempDir()
		for name, content := range map[string]string{"trace.yaml": "trace_version: 2\n", "trace.csv": csv} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	const csv = "id,in,out\n0,100,50\n1,120,60\n"
	digest := func(t *testing.T, base []DigestInput, driver string, args []string, dir, catalog string) string {
		t.Helper()
		d, err := replayDigest(base, driver, args, dir, map[string]string{"RUN": dir, "CATALOG": catalog})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	args := func(dir, catalog string) []string {
		return []string{"replay", "--model-config-folder", catalog + "/models/m", "--trace-data", dir + "/trace.csv", "--seed", "7"}
	}
	d1, d2 := run(t, csv), run(t, csv)
	ref := digest(t, base, DriverReplayMetrics, args(d1, "/a/catalog"), d1, "/a/catalog")
	if !strings.HasPrefix(ref, "sha256:") || len(ref) != len("sha256:")+64 {
		t.Fatalf("digest %q", ref)
	}
	if got := digest(t, base, DriverReplayMetrics, args(d2, "/b/catalog"), d2, "/b/catalog"); got != ref {
		t.Errorf("another run directory and catalog path: %s, want %s", got, ref)
	}
	d3 := run(t, strings.Replace(csv, "1,120,60", "1,121,60", 1))
	for name, got := range map[string]string{
		"one request's length": digest(t, base, DriverReplayMetrics, args(d3, "/a/catalog"), d3, "/a/catalog"),
		"seed":                 digest(t, base, DriverReplayMetrics, append(args(d1, "/a/catalog")[:5], "8"), d1, "/a/catalog"),
		"driver":               digest(t, base, DriverReplayResults, args(d1, "/a/catalog"), d1, "/a/catalog"),
		"catalog digest":       digest(t, append(base[:3:3], DigestInput{"catalog", "sha256:c2"}), DriverReplayMetrics, args(d1, "/a/catalog"), d1, "/a/catalog"),
		"simulator":            digest(t, []DigestInput{base[0], {"simulator", "s2"}, base[2], base[3]}, DriverReplayMetrics, args(d1, "/a/catalog"), d1, "/a/catalog"),
		"toolchain":            digest(t, []DigestInput{base[0], base[1], {"toolchain", "go2"}, base[3]}, DriverReplayMetrics, args(d1, "/a/catalog"), d1, "/a/catalog"),
	} {
		if got == ref {
			t.Errorf("%s changed, the digest did not", name)
		}
	}
	if d, err := replayDigest(nil, DriverReplayMetrics, args(d1, "/a"), d1, nil); err != nil || d != "" {
		t.Errorf("no run-wide inputs (a binary handed in): %q, %v; want no digest", d, err)
	}
}

// A binary handed in has no commit: its points get no digest (and
// `score --reuse` refuses --sim-bin).
func TestReuseNeedsACommit(t *testing.T) {
	if in, err := replayInputs("h", &Build{Binary: "/bin/true"}, runresult.Provenance{}, ""); in != nil || err != nil {
		t.Errorf("inputs of a prebuilt binary: %v, %v", in, err)
	}
	if in, err := replayInputs("h", &Build{Binary: "/bin/true", Commit: "c"}, runresult.Provenance{}, ""); len(in) != 3 || in[2].Value != "unknown" || err != nil {
		t.Errorf("inputs of a build without Go build information: %v, %v", in, err)
	}
}
