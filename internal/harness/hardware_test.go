package harness

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/hardware"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/simcli"
)

// testRegistry supplies H200 (4.8 TB/s: the stand-in's decode time × 3.35/4.8)
// with assumed calibration factors, and an H100 entry of its own that a
// build knowing H100 must not see.
func testRegistry(release bool) (*hardware.Registry, *runresult.DataVersion) {
	v := func(x float64, e ledger.Evidence) hardware.Value {
		return hardware.Value{Value: x, Evidence: e, Note: "test"}
	}
	gpu := func(bw float64) hardware.GPU {
		return hardware.GPU{Source: "test datasheet", TFlopsPeak: v(989.5, ledger.Resolved), TFlopsFP8: v(1979, ledger.Resolved),
			BwPeakTBs: v(bw, ledger.Resolved), MemoryGiB: v(141, ledger.Resolved),
			MfuPrefill: v(0.45, ledger.Assumed), MfuDecode: v(0.3, ledger.Assumed)}
	}
	reg := &hardware.Registry{SchemaVersion: 1, Name: "test-hw", Version: "1", Release: release,
		GPUs: map[string]hardware.GPU{"H200": gpu(4.8), "H100": gpu(1)}}
	return reg, &runresult.DataVersion{Name: "test-hw", Version: "1", Digest: "sha256:00", Release: release}
}

// TestScoreWithHardwareRegistry: the registry's H200 reaches the simulator
// through --hardware-config (the stand-in's own configuration lacks it), so
// the H200 point scores with the registry's bandwidth, lands in tier all
// only (assumed), and the provenance records the registry and what it
// supplied; the build's own H100 entry wins over the registry's. Both
// generations of the build (results, metrics) take the flag.
func TestScoreWithHardwareRegistry(t *testing.T) {
	for _, ref := range []string{"v0.1.0", "v0.2.0"} {
		o := scoreOpts(t, "ledger", ref)
		o.Hardware, o.HardwareVersion = testRegistry(true)
		res, err := Score(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		pts := pointsByID(res.Points)
		h200 := pts["test/ix/test-model-7b/h200@c=1"]
		if !h200.Scored {
			t.Fatalf("%s: H200 point not scored: %s %s", ref, h200.Reason, h200.Detail)
		}
		if h200.Tier != "assumed" {
			t.Errorf("%s: H200 tier %q, want assumed (the registry's entry is)", ref, h200.Tier)
		}
		if got, want := h200.Predicted["tpot_ms"], 4*3.35/4.8; math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: H200 TPOT %v, want %v: the stand-in did not read the registry's H200 entry", ref, got, want)
		}
		for _, p := range res.Points {
			if p.Hardware == "H100" && p.Scored && p.Tier == "assumed" {
				t.Errorf("%s: H100 point %s became assumed", ref, p.ID)
			}
		}
		h100 := pts["test/ix/test-model-7b/h100@c=1"]
		if !h100.Scored || h100.Predicted["tpot_ms"] != 4 {
			t.Errorf("%s: H100 point %+v: the build's own H100 entry must win (TPOT 4)", ref, h100)
		}
		s := res.Summary
		if s.Coverage.Scored != 9 || s.Coverage.NotScoredByReason[ReasonUnknownHardware] != 0 {
			t.Errorf("%s: coverage %+v, want 9 scored, none for unknown hardware", ref, s.Coverage)
		}
		if n := s.Tiers.MeasuredResolved["ttft"].N; n != 5 {
			t.Errorf("%s: measured_resolved n %d, want 5 (the H200 point stays out of it)", ref, n)
		}
		p := s.Provenance
		if p.Hardware == nil || p.Hardware.Name != "test-hw" || strings.Join(p.HardwareSupplied, ",") != "H200" {
			t.Errorf("%s: provenance hardware %+v supplied %v", ref, p.Hardware, p.HardwareSupplied)
		}
		if ref == "v0.2.0" && s.Label != runresult.LabelRelease {
			t.Errorf("%s: label %s %v, want release (a released registry)", ref, s.Label, s.LabelReasons)
		}
	}
}

func TestScoreWithUnreleasedHardwareRegistryIsExperimental(t *testing.T) {
	o := scoreOpts(t, "ledger", "v0.2.0")
	o.Hardware, o.HardwareVersion = testRegistry(false)
	res, err := Score(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Summary
	if s.Label != runresult.LabelExperimental || strings.Join(s.LabelReasons, ";") != "hardware registry 1 is not a release" {
		t.Errorf("label %s %v, want experimental because of the registry", s.Label, s.LabelReasons)
	}
	o.HardwareVersion = nil
	if _, err := Score(context.Background(), o); err == nil || !strings.Contains(err.Error(), "needs its version") {
		t.Errorf("a registry without its version: %v", err)
	}
}

// TestPrepareHardware: a build without --hardware-config gets nothing (and
// the provenance says the registry was not passed); a build with it gets
// its own configuration plus the registry's missing GPUs, written into the
// run's directory; a broken build configuration is an error naming it.
func TestPrepareHardware(t *testing.T) {
	t.Parallel()
	reg, v := testRegistry(true)
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, BuildHardwareFile), []byte(`{"H100": {"BwPeakTBs": 3.35}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	b := &Build{DataDir: data}
	without := Capabilities{Replay: simcli.Flags{"model": true}, Run: simcli.Flags{"model": true}}
	hw, err := PrepareHardware(b, without, reg, t.TempDir())
	if err != nil || hw.Config != "" {
		t.Fatalf("without --hardware-config: %+v, %v", hw, err)
	}
	var prov runresult.Provenance
	hardwareProvenance(&prov, v, hw)
	if prov.Hardware != nil || len(prov.NotPassed) != 1 || !strings.Contains(prov.NotPassed[0], "takes no --hardware-config") {
		t.Errorf("provenance without the flag: %+v", prov)
	}

	with := Capabilities{Replay: simcli.Flags{"hardware-config": true}}
	dir := t.TempDir()
	hw, err = PrepareHardware(b, with, reg, dir)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(hw.Config)
	if err != nil || filepath.Dir(hw.Config) != dir {
		t.Fatalf("config %s: %v", hw.Config, err)
	}
	if !strings.Contains(string(raw), `"BwPeakTBs": 3.35`) || !strings.Contains(string(raw), `"H200"`) {
		t.Errorf("merged config:\n%s", raw)
	}
	if hw.Supplied["H200"] != ledger.Assumed || len(hw.Supplied) != 1 {
		t.Errorf("supplied %v, want H200 (assumed) only", hw.Supplied)
	}
	prov = runresult.Provenance{}
	hardwareProvenance(&prov, v, hw)
	if prov.Hardware != v || strings.Join(prov.HardwareSupplied, ",") != "H200" || len(prov.NotPassed) != 0 {
		t.Errorf("provenance with the flag: %+v", prov)
	}
	if hw, err := PrepareHardware(b, with, nil, t.TempDir()); err != nil || hw.Config != "" {
		t.Errorf("no registry: %+v, %v", hw, err)
	}

	if err := os.WriteFile(filepath.Join(data, BuildHardwareFile), []byte(`not json`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := PrepareHardware(b, with, reg, t.TempDir()); err == nil || !strings.Contains(err.Error(), BuildHardwareFile) {
		t.Errorf("a broken build configuration: %v", err)
	}
}

// TestPrepareHardwareReadsTheBuildsFileWithinItsCap: the build's tree may
// be a pull request's, so its hardware_config.json is read as every file
// the harness does not control is: a symbolic link (to /dev/zero, to a
// file outside the tree) or a file over hardware.MaxBytes is refused,
// naming the file, not read whole.
func TestPrepareHardwareReadsTheBuildsFileWithinItsCap(t *testing.T) {
	t.Parallel()
	reg, _ := testRegistry(true)
	with := Capabilities{Replay: simcli.Flags{"hardware-config": true}}
	elsewhere := filepath.Join(t.TempDir(), "outside.json")
	if err := os.WriteFile(elsewhere, []byte(`{"H100": {"BwPeakTBs": 3.35}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	linked := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(linked, BuildHardwareFile)); err != nil {
		t.Fatal(err)
	}
	big := t.TempDir()
	huge := `{"H100": {"BwPeakTBs": 3.35, "_comment": "` + strings.Repeat("x", hardware.MaxBytes) + `"}}`
	if err := os.WriteFile(filepath.Join(big, BuildHardwareFile), []byte(huge), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ dir, want string }{
		"symbolic link": {linked, "is a symbolic link"},
		"over the cap":  {big, "is larger than"},
	} {
		_, err := PrepareHardware(&Build{DataDir: c.dir}, with, reg, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), filepath.Join(c.dir, BuildHardwareFile)) {
			t.Errorf("%s: err = %v, want %q naming the file", name, err, c.want)
		}
	}
}

// TestHardwareRegistryFile: a registry by path is a release only in a clean
// checkout at a tag whose manifest says release; elsewhere its version
// carries the content digest or the commit.
func TestHardwareRegistryFile(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "corpus", "hardware", hardware.File))
	if err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, hardware.File), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	reg, v, err := HardwareRegistryFile(context.Background(), plain)
	if err != nil {
		t.Fatal(err)
	}
	if v.Release || !strings.HasPrefix(v.Version, reg.Version+"+") || v.Digest != hardware.Digest(raw) {
		t.Errorf("outside git: %+v, want not a release, version %s+<digest>", v, reg.Version)
	}

	repo := t.TempDir()
	harnesstest.GitInit(t, repo)
	if err := os.WriteFile(filepath.Join(repo, hardware.File), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	harnesstest.CommitAll(t, repo, "registry")
	harnesstest.Run(t, repo, "git", "tag", "v1.0.0")
	_, v, err = HardwareRegistryFile(context.Background(), filepath.Join(repo, hardware.File))
	if err != nil || !v.Release || v.Version != reg.Version {
		t.Errorf("a clean checkout at a tag: %+v, %v; want the release %s", v, err, reg.Version)
	}

	link := filepath.Join(t.TempDir(), hardware.File)
	if err := os.Symlink(filepath.Join(plain, hardware.File), link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := HardwareRegistryFile(context.Background(), link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a symbolic link: %v", err)
	}
	if err := os.WriteFile(filepath.Join(plain, hardware.File), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := HardwareRegistryFile(context.Background(), plain); err == nil || !strings.Contains(err.Error(), "schema_version") {
		t.Errorf("a bad registry: %v", err)
	}
}
