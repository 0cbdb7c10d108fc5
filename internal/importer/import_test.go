package importer

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	goldenfile "github.com/inference-sim/accuracy-dashboard/internal/golden"
	"github.com/inference-sim/accuracy-dashboard/internal/importreport"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"

	"github.com/google/go-cmp/cmp"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// fixtureOptions imports every fixture under testdata/fixture. Runs 100, 90
// and 300 get dates; run 200 does not, so its row is "run date unknown".
func fixtureOptions() importreport.Options {
	return importreport.Options{
		Sources:                    []string{"."},
		Versions:                   3,
		RunDates:                   map[string]string{"100": "2026-01-05", "90": "2025-12-20", "300": "2026-02-10"},
		InferencePerfHardware:      "h100",
		InferencePerfEngineVersion: "v0.15.1",
		Name:                       "fixture",
		Version:                    "0.0.1",
	}
}

func importFixture(t *testing.T, opts importreport.Options) *Result {
	t.Helper()
	res, err := Import(os.DirFS("testdata/fixture"), opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func findUnit(t *testing.T, res *Result, id string) *ledger.Unit {
	t.Helper()
	for i := range res.Units {
		if res.Units[i].ID == id {
			return &res.Units[i]
		}
	}
	t.Fatalf("no unit %s", id)
	return nil
}

// sourceRow reads row i of a fixture artifact with plain encoding/json,
// independently of the parser under test.
func sourceRow(t *testing.T, root, artifact string, i int) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(artifact)))
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	return rows[i]
}

func TestImportFixtureAccounting(t *testing.T) {
	t.Parallel()
	res := importFixture(t, fixtureOptions())
	r := res.Report

	// Every fixture row, counted independently: array lengths plus stage files.
	rowsIn := 0
	err := fs.WalkDir(os.DirFS("testdata/fixture"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch {
		case strings.HasPrefix(p, "inferencex/") || strings.HasPrefix(p, "api/"):
			if strings.HasSuffix(p, ".json") {
				b, _ := os.ReadFile(filepath.Join("testdata/fixture", p))
				var rows []json.RawMessage
				if err := json.Unmarshal(b, &rows); err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				rowsIn += len(rows)
			}
		case stageFile.MatchString(path.Base(p)):
			rowsIn++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.RowsIn != rowsIn {
		t.Errorf("rows_in = %d, the fixtures hold %d rows", r.RowsIn, rowsIn)
	}
	points := 0
	for _, u := range res.Units {
		points += len(u.Points)
	}
	if r.PointsOut != points || r.PointsOut+sum(r.Excluded) != r.RowsIn {
		t.Errorf("points_out %d (units hold %d) + excluded %d != rows_in %d", r.PointsOut, points, sum(r.Excluded), r.RowsIn)
	}
	// Each fixture row was written to hit one rule; see testdata/fixture.
	wantExcluded := map[string]int{
		ReasonNotVLLM:      2, // run_100 row 2 (sglang), api row 0
		ReasonUnnumbered:   3, // run_100 rows 6 (nightly) and 7 (custom image), api row 3 (no image)
		ReasonOldVersion:   1, // run_90 row 2 (v0.10.0, 4th newest of 4)
		ReasonMultiNode:    1, // run_100 row 3
		ReasonMissingMean:  2, // run_100 row 5 (null mean), tiny-lm stage 1 (nothing succeeded)
		ReasonUnknownModel: 1, // api row 2
		ReasonRunDate:      1, // run_200
		ReasonDuplicate:    2, // run_100 row 0 (row 8 is later), run_90 row 0 (older version)
	}
	if d := cmp.Diff(wantExcluded, r.Excluded); d != "" {
		t.Errorf("excluded (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]int{ReasonSpeculative: 1, ReasonOverloaded: 1}, r.Marked); d != "" {
		t.Errorf("marked (-want +got):\n%s", d)
	}
	if d := cmp.Diff(importreport.VersionWindow{Present: []string{"v0.10.0", "v0.11.2", "v0.13.0", "v0.15.1"}, Kept: []string{"v0.11.2", "v0.13.0", "v0.15.1"}}, r.VLLMVersions); d != "" {
		t.Errorf("versions (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"inferencex/README.txt"}, r.Skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
	var ids []string
	for _, u := range res.Units {
		ids = append(ids, u.ID)
	}
	wantIDs := []string{
		"inference-perf/llama-2-7b-hf/h100/tp1/20260217-155451-codegen",
		"inference-perf/llama-2-7b-hf/h100/tp1/20260217-170634-reasoning",
		"inference-perf/tiny-lm/h100/tp1/20260301-120000-chat",
		"inferencex/gpt-oss-120b/h100/tp2-mtp/isl1024-osl1024",
		"inferencex/gpt-oss-120b/h100/tp2/isl1024-osl1024",
		"inferencex/gpt-oss-120b/h100/tp4/isl1024-osl1024",
		"inferencex/gpt-oss-120b/h200/tp1/isl1024-osl8192-warmup2",
	}
	if d := cmp.Diff(wantIDs, ids); d != "" {
		t.Errorf("unit ids (-want +got):\n%s", d)
	}
	for _, s := range r.Sources {
		if s.PointsOut+sum(s.Excluded) != s.RowsIn {
			t.Errorf("source %s does not balance: %+v", s.Path, s)
		}
	}
}

func TestImportFixtureValuesMatchSourceRows(t *testing.T) {
	t.Parallel()
	res := importFixture(t, fixtureOptions())
	n := 0
	for _, u := range res.Units {
		if u.Workload.Client != ledger.ClientInferenceX {
			continue
		}
		for _, p := range u.Points {
			n++
			pr := p.Provenance
			row := sourceRow(t, "testdata/fixture", pr.Artifact, *pr.Row)
			metrics := row
			if m, ok := row["metrics"].(map[string]any); ok {
				metrics = m
			}
			check := func(name string, got float64, want any) {
				if w, _ := want.(float64); got != w*1000 {
					t.Errorf("%s@%s %s = %v, source row says %v s", u.ID, p.Load.Key(), name, got, want)
				}
			}
			check("ttft_ms", p.Measured.TTFTMs, metrics["mean_ttft"])
			check("tpot_ms", p.Measured.TPOTMs, metrics["mean_tpot"])
			check("itl_ms", *p.Measured.ITLMs, metrics["mean_itl"])
			check("e2el_ms", *p.Measured.E2ELMs, metrics["mean_e2el"])
			check("p99_ttft_ms", *p.Measured.P99TTFTMs, metrics["p99_ttft"])
			if float64(p.Load.Concurrency) != row["conc"] {
				t.Errorf("%s: concurrency %d, source row says %v", u.ID, p.Load.Concurrency, row["conc"])
			}
			if "vllm/vllm-openai:"+pr.EngineVersion != row["image"] || pr.Image != row["image"] {
				t.Errorf("%s: engine version %q / image %q, source row has image %v", u.ID, pr.EngineVersion, pr.Image, row["image"])
			}
			if !strings.HasSuffix(pr.RunURL, "/actions/runs/"+pr.RunID) && !strings.Contains(pr.RunURL, "/actions/runs/"+pr.RunID+"/") {
				t.Errorf("%s: run url %q does not name run %s", u.ID, pr.RunURL, pr.RunID)
			}
		}
	}
	if n != 6 {
		t.Errorf("checked %d InferenceX points, want 6", n)
	}
}

func TestImportDedupKeepsNewestMeasurement(t *testing.T) {
	t.Parallel()
	res := importFixture(t, fixtureOptions())
	u := findUnit(t, res, "inferencex/gpt-oss-120b/h100/tp2/isl1024-osl1024")
	type got struct {
		Load     string
		Artifact string
		Row      int
		Version  string
	}
	var pts []got
	for _, p := range u.Points {
		pts = append(pts, got{p.Load.Key(), p.Provenance.Artifact, *p.Provenance.Row, p.Provenance.EngineVersion})
	}
	want := []got{
		{"c=4", "inferencex/run_100.json", 8, "v0.13.0"}, // row 0 measured the same point earlier in the file
		{"c=8", "inferencex/run_100.json", 1, "v0.13.0"}, //
		{"c=16", "inferencex/run_90.json", 1, "v0.11.2"}, // v0.13.0 has no valid c=16 point (null mean)
	}
	if d := cmp.Diff(want, pts); d != "" {
		t.Errorf("points (-want +got):\n%s", d)
	}
}

func TestImportVersionWindow(t *testing.T) {
	t.Parallel()
	opts := fixtureOptions()
	opts.Versions = 1
	res := importFixture(t, opts)
	if d := cmp.Diff([]string{"v0.15.1"}, res.Report.VLLMVersions.Kept); d != "" {
		t.Errorf("kept (-want +got):\n%s", d)
	}
	for _, u := range res.Units {
		if u.Workload.Client != ledger.ClientInferencePerf {
			t.Errorf("unit %s kept, but its version is outside the latest 1", u.ID)
		}
	}
	// Every numbered InferenceX vLLM row: run_100 rows 0,1,3,4,5,8; run_90
	// rows 0-2; run_200; run_300; API rows 1 and 2. The version rule comes
	// before the multi-node, mean, model and date rules.
	if got := res.Report.Excluded[ReasonOldVersion]; got != 13 {
		t.Errorf("excluded as old versions: %d, want 13", got)
	}
}

func TestImportResolvesRecipeSettings(t *testing.T) {
	t.Parallel()
	res := importFixture(t, fixtureOptions())

	h100 := findUnit(t, res, "inferencex/gpt-oss-120b/h100/tp2/isl1024-osl1024")
	if e := h100.Deployment.Engines; e.MaxModelLen.Value != 10240 || e.MaxModelLen.Evidence != ledger.Resolved ||
		e.MaxNumBatchedTokens.Value != 8192 || e.GPUMemoryUtilization.Value != 0.9 || e.PrefixCaching.Value ||
		e.BlockSize.Value != 16 || e.KVCacheDtype != nil || e.MaxNumSeqs != nil {
		t.Errorf("H100 engine settings: %s", mustJSON(e))
	}
	for i, p := range h100.Points {
		s := h100.Settings(i)
		if s.MaxNumSeqs == nil || s.MaxNumSeqs.Value != p.Load.Concurrency || s.MaxNumSeqs.Evidence != ledger.Resolved {
			t.Errorf("%s: max_num_seqs at c=%d is %s, want the concurrency, resolved", h100.ID, p.Load.Concurrency, mustJSON(s.MaxNumSeqs))
		}
		if h100.Evidence(i) != ledger.Resolved {
			t.Errorf("%s point %d: evidence %s, want resolved", h100.ID, i, h100.Evidence(i))
		}
	}
	if w := h100.Workload.InferenceX; w.WarmupsPerConcurrency != 0 || w.RangeRatio != 0.8 || w.PromptsPerConcurrency != 10 || !w.IgnoreEOS {
		t.Errorf("H100 workload: %s", mustJSON(w))
	}
	if h100.Workload.Seed != seed(h100.ID) {
		t.Errorf("seed %d is not derived from the unit id", h100.Workload.Seed)
	}

	// Run 300 is dated after the recipe window and after warmups began.
	late := findUnit(t, res, "inferencex/gpt-oss-120b/h200/tp1/isl1024-osl8192-warmup2")
	if late.Workload.InferenceX.WarmupsPerConcurrency != 2 {
		t.Errorf("warmups = %d, want 2 for a run after %s", late.Workload.InferenceX.WarmupsPerConcurrency, WarmupSince)
	}
	if e := late.Deployment.Engines.MaxModelLen; e.Value != 1024+8192+200 || e.Evidence != ledger.Assumed {
		t.Errorf("late H200 max_model_len: %s, want 9416 assumed", mustJSON(e))
	}
	if late.Evidence(0) != ledger.Assumed || late.Points[0].Provenance.Date != "2026-02-10" {
		t.Errorf("late point: evidence %s, date %q", late.Evidence(0), late.Points[0].Provenance.Date)
	}

	spec := findUnit(t, res, "inferencex/gpt-oss-120b/h100/tp2-mtp/isl1024-osl1024")
	if spec.Points[0].Excluded != ReasonSpeculative {
		t.Errorf("speculative point excluded = %q", spec.Points[0].Excluded)
	}

	ip := findUnit(t, res, "inference-perf/llama-2-7b-hf/h100/tp1/20260217-155451-codegen")
	d := ip.Deployment
	if d.Hardware != "H100" || d.TensorParallel.Evidence != ledger.Measured || d.Engines.MaxNumSeqs.Value != 128 ||
		d.Engines.MaxNumSeqs.Evidence != ledger.Measured || d.Engines.MaxNumBatchedTokens.Value != 2048 ||
		d.Engines.MaxModelLen.Value != 4096 || d.Engines.GPUMemoryUtilization.Evidence != ledger.Resolved ||
		!d.Engines.PrefixCaching.Value {
		t.Errorf("inference-perf deployment: %s", mustJSON(d))
	}
	if p := ip.Points[1]; p.Load.Rate != 10 || p.Load.DurationS != 600 || *p.Measured.Requests != 6000 ||
		p.Provenance.Date != "2026-02-17" || p.Provenance.EngineVersion != "v0.15.1" {
		t.Errorf("inference-perf point: %s", mustJSON(p))
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestImportGolden writes the fixture import and compares every file with
// testdata/golden/fixture-ledger; run with -update to regenerate. Two runs
// must give the same bytes.
func TestImportGolden(t *testing.T) {
	t.Parallel()
	dirA, dirB := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for _, d := range []string{dirA, dirB} {
		if err := Write(d, importFixture(t, fixtureOptions())); err != nil {
			t.Fatal(err)
		}
	}
	a, b := testkit.Files(t, os.DirFS(dirA)), testkit.Files(t, os.DirFS(dirB))
	if d := cmp.Diff(a, b); d != "" {
		t.Fatalf("two imports of the same input differ:\n%s", d)
	}
	golden := filepath.Join("testdata", "golden", "fixture-ledger")
	if goldenfile.Update() {
		if err := os.RemoveAll(golden); err != nil {
			t.Fatal(err)
		}
		for p, content := range a {
			f := filepath.Join(golden, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if d := cmp.Diff(testkit.Files(t, os.DirFS(golden)), a); d != "" {
		t.Errorf("import differs from %s (-golden +got; run go test -update to accept):\n%s", golden, d)
	}
	if _, err := ledger.Load(os.DirFS(dirA)); err != nil {
		t.Errorf("written ledger does not load: %v", err)
	}
}

func TestSummaryGolden(t *testing.T) {
	t.Parallel()
	res := importFixture(t, fixtureOptions())
	got := Summary(&res.Report, "out/ledger")
	goldenfile.Assert(t, filepath.Join("testdata", "golden", "summary.txt"), []byte(got))
}

func TestImportBadInputNamesTheFile(t *testing.T) {
	t.Parallel()
	exp := "model: m/x\ntensor_parallelism: 1\nmax_model_len: 4096\nmax_num_batched_tokens: 2048\nmax_num_seqs: 128\n"
	profile := `{"data":{"type":"shared_prefix","shared_prefix":{"num_unique_system_prompts":1,"num_users_per_system_prompt":1,"system_prompt_len":0,"question_len":10,"output_len":10}},"load":{"type":"constant","stages":[{"rate":1,"duration":10}]},"server":{"type":"vllm","model_name":"m/x","ignore_eos":true}}`
	stage := `{"load_summary":{"requested_rate":1},"successes":{"count":1,"latency":{"time_to_first_token":{"mean":0.1},"time_per_output_token":{"mean":0.01}}}}`
	good := func() fstest.MapFS {
		return fstest.MapFS{
			"run/exp-config.yaml":                        {Data: []byte(exp)},
			"run/profile.yaml":                           {Data: []byte(profile)},
			"run/results/stage_0_lifecycle_metrics.json": {Data: []byte(stage)},
		}
	}
	opts := importreport.Options{Sources: []string{"."}, Versions: 5, Name: "t", Version: "1", InferencePerfHardware: "H100", InferencePerfEngineVersion: "v0.15.1"}
	if _, err := Import(good(), opts); err != nil {
		t.Fatalf("the good folder fails: %v", err)
	}
	tests := []struct {
		name   string
		change func(fstest.MapFS)
		opts   func(*importreport.Options)
		want   []string
	}{
		{"missing profile", func(m fstest.MapFS) { delete(m, "run/profile.yaml") }, nil, []string{"inference-perf run run", "profile.yaml is missing"}},
		{"missing results", func(m fstest.MapFS) { delete(m, "run/results/stage_0_lifecycle_metrics.json") }, nil, []string{"run", "results/ is missing"}},
		{"missing stage", func(m fstest.MapFS) {
			m["run/profile.yaml"] = &fstest.MapFile{Data: []byte(strings.Replace(profile, `[{"rate":1,"duration":10}]`, `[{"rate":1,"duration":10},{"rate":2,"duration":10}]`, 1))}
		}, nil, []string{"stage_1_lifecycle_metrics.json is missing"}},
		{"extra stage", func(m fstest.MapFS) {
			m["run/results/stage_3_lifecycle_metrics.json"] = &fstest.MapFile{Data: []byte(stage)}
		}, nil, []string{"results of stage 3", "1 stages"}},
		{"rate mismatch", func(m fstest.MapFS) {
			m["run/results/stage_0_lifecycle_metrics.json"] = &fstest.MapFile{Data: []byte(strings.Replace(stage, `"requested_rate":1`, `"requested_rate":2`, 1))}
		}, nil, []string{"run/results/stage_0_lifecycle_metrics.json", "requested_rate 2 differs"}},
		{"model mismatch", func(m fstest.MapFS) {
			m["run/exp-config.yaml"] = &fstest.MapFile{Data: []byte(strings.Replace(exp, "m/x", "m/y", 1))}
		}, nil, []string{"run", `model "m/y" differs`}},
		{"no hardware", nil, func(o *importreport.Options) { o.InferencePerfHardware = "" }, []string{"run", "GPU is not recorded", "--inference-perf-hardware"}},
		{"no engine version", nil, func(o *importreport.Options) { o.InferencePerfEngineVersion = "" }, []string{"run", "vLLM version is not recorded"}},
		{"bad sidecar", func(m fstest.MapFS) { m["run/blis-import.yaml"] = &fstest.MapFile{Data: []byte("gpu: H100\n")} }, nil, []string{"run/blis-import.yaml", "field gpu not found"}},
		{"bad agg file", func(m fstest.MapFS) { m["x/run_5.json"] = &fstest.MapFile{Data: []byte(`[{"hw": 1}]`)} }, nil, []string{"x/run_5.json row 0", `"hw"`}},
		{"agg file misnamed", func(m fstest.MapFS) { m["x/agg.json"] = &fstest.MapFile{Data: []byte("[" + goodAggRow + "]")} }, nil, []string{"x/agg.json", "run_<run-id>.json"}},
		{"truncated file", func(m fstest.MapFS) { m["x/run_5.json"] = &fstest.MapFile{Data: []byte(`[{"hw": "h1`)} }, nil, []string{"x/run_5.json", "truncated"}},
		{"bad run date", nil, func(o *importreport.Options) { o.RunDates = map[string]string{"5": "May"} }, []string{"run date 5=May", "YYYY-MM-DD"}},
		{"no such source", nil, func(o *importreport.Options) { o.Sources = []string{"nope"} }, []string{"source nope"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, o := good(), opts
			if tc.change != nil {
				tc.change(m)
			}
			if tc.opts != nil {
				tc.opts(&o)
			}
			res, err := Import(m, o)
			if err == nil {
				t.Fatalf("no error; imported %d units", len(res.Units))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestImportSkipsLedgerDirectories(t *testing.T) {
	t.Parallel()
	m := fstest.MapFS{
		"data/run_5.json":             {Data: []byte("[" + goodAggRow + "]")},
		"data/out/ledger.json":        {Data: []byte(`{"schema_version":1}`)},
		"data/out/import-report.json": {Data: []byte(`{}`)},
		"data/out/units/x/y.json":     {Data: []byte(`{}`)},
		"data/catalog/m/config.json":  {Data: []byte(` {"model_type": "x"}`)},
		"data/README.md":              {Data: []byte("# data")},
	}
	opts := importreport.Options{Sources: []string{"data"}, Versions: 5, Name: "t", Version: "1", RunDates: map[string]string{"5": "2026-01-02"}}
	res, err := Import(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"data/README.md", "data/catalog/m/config.json", "data/out/"}, res.Report.Skipped); d != "" {
		t.Errorf("skipped (-want +got):\n%s", d)
	}
	if res.Report.PointsOut != 1 {
		t.Errorf("points_out %d, want 1", res.Report.PointsOut)
	}
	// A file named like an artifact is read as one, object or not.
	m["data/run_9.json"] = &fstest.MapFile{Data: []byte(`{"hw": "h100"}`)}
	if _, err := Import(m, opts); err == nil || !strings.Contains(err.Error(), "data/run_9.json: not a JSON array") {
		t.Errorf("object named run_9.json: error %v", err)
	}
}

// TestImportMixedEvidenceSweep: a sweep whose points come from a run inside
// the recipe window and one outside it keeps each point's own evidence.
func TestImportMixedEvidenceSweep(t *testing.T) {
	t.Parallel()
	m := fstest.MapFS{
		"run_5.json": {Data: []byte("[" + goodAggRow + "]")},
		"run_6.json": {Data: []byte("[" + withField(goodAggRow, "conc", "8") + "]")},
	}
	opts := importreport.Options{Sources: []string{"."}, Versions: 5, Name: "t", Version: "1",
		RunDates: map[string]string{"5": "2026-01-02", "6": "2025-11-20"}}
	res, err := Import(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Units) != 1 || len(res.Units[0].Points) != 2 {
		t.Fatalf("got %d units; want one sweep of 2 points", len(res.Units))
	}
	u := &res.Units[0]
	if u.Evidence(0) != ledger.Resolved || u.Evidence(1) != ledger.Assumed {
		t.Errorf("evidence: c=4 %s, c=8 %s; want resolved, assumed", u.Evidence(0), u.Evidence(1))
	}
	if s := u.Settings(1).MaxModelLen; s.Evidence != ledger.Assumed || s.Value != 10240 {
		t.Errorf("c=8 max_model_len %s", mustJSON(s))
	}
}

// openCounter is a file system that counts the opens of each path. Stat and
// ReadDir go to the underlying file system uncounted, so the counts are the
// reads of file contents.
type openCounter struct {
	fs.FS
	opens map[string]int
}

func (c *openCounter) Open(name string) (fs.File, error) {
	c.opens[name]++
	return c.FS.Open(name)
}

func (c *openCounter) Stat(name string) (fs.FileInfo, error) { return fs.Stat(c.FS, name) }

func (c *openCounter) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(c.FS, name) }

// TestImportReadsEachFileOnce: discovery looks into JSON files found while
// walking (to skip objects); the import must not read them a second time.
func TestImportReadsEachFileOnce(t *testing.T) {
	t.Parallel()
	fsys := &openCounter{FS: os.DirFS("testdata/fixture"), opens: map[string]int{}}
	if _, err := Import(fsys, fixtureOptions()); err != nil {
		t.Fatal(err)
	}
	if fsys.opens["api/benchmarks.json"] == 0 {
		t.Fatalf("the API row file was never read: opens %v", fsys.opens)
	}
	for p, n := range fsys.opens {
		if n > 1 {
			t.Errorf("%s read %d times, want once", p, n)
		}
	}
}

func TestImportSidecarOverridesOptions(t *testing.T) {
	t.Parallel()
	opts := fixtureOptions()
	opts.InferencePerfHardware = "A100" // the llama run's sidecar says h100
	res := importFixture(t, opts)
	findUnit(t, res, "inference-perf/llama-2-7b-hf/h100/tp1/20260217-155451-codegen")
	findUnit(t, res, "inference-perf/tiny-lm/a100/tp1/20260301-120000-chat")
}

func TestWriteRefusesToReplaceNonLedger(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keep := filepath.Join(dir, "precious.txt")
	if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(dir, importFixture(t, fixtureOptions()))
	if err == nil || !strings.Contains(err.Error(), "not a ledger") {
		t.Fatalf("error %v, want a refusal", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("the directory was touched: %v", err)
	}
}

func TestWriteLeavesOldLedgerOnFailure(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ledger")
	if err := Write(dir, importFixture(t, fixtureOptions())); err != nil {
		t.Fatal(err)
	}
	before := testkit.Files(t, os.DirFS(dir))
	bad := importFixture(t, fixtureOptions())
	bad.Units[0].Points[0].Measured.TTFTMs = -1 // fails ledger validation
	if err := Write(dir, bad); err == nil {
		t.Fatal("an invalid ledger was written")
	}
	unbalanced := importFixture(t, fixtureOptions())
	unbalanced.Report.RowsIn++
	if err := Write(dir, unbalanced); err == nil || !strings.Contains(err.Error(), "does not balance") {
		t.Fatalf("error %v, want the accounting check", err)
	}
	if d := cmp.Diff(before, testkit.Files(t, os.DirFS(dir))); d != "" {
		t.Errorf("a failed write changed the ledger:\n%s", d)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("temporary files left beside the ledger: %v", entries)
	}
}

// TestReportDecodesStrictly: the rendered report has no field the Report
// type lacks, and records the options. (That two imports give the same
// report bytes is TestImportGolden's check: the report is in its tree.)
func TestReportDecodesStrictly(t *testing.T) {
	t.Parallel()
	raw, err := jsoncodec.Encode(&importFixture(t, fixtureOptions()).Report)
	if err != nil {
		t.Fatal(err)
	}
	var back importreport.Report
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&back); err != nil {
		t.Fatalf("report does not decode strictly: %v", err)
	}
	if d := cmp.Diff(fixtureOptions(), back.Options); d != "" {
		t.Errorf("options recorded in the report (-want +got):\n%s", d)
	}
}

// BenchmarkImportFixture measures a whole import (discovery, parsing, rules,
// grouping) of the fixture directory.
func BenchmarkImportFixture(b *testing.B) {
	fsys := os.DirFS("testdata/fixture")
	opts := fixtureOptions()
	for b.Loop() {
		if _, err := Import(fsys, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// TestImportAggBmkRunFolderLayout: run_<id>/agg_bmk.json, the layout of a
// downloaded GitHub Actions artifact, takes its run id from the folder.
func TestImportAggBmkRunFolderLayout(t *testing.T) {
	t.Parallel()
	m := fstest.MapFS{"artifacts/run_20662362255/agg_bmk.json": {Data: []byte("[" + realAggRow + "]")}}
	res, err := Import(m, importreport.Options{Sources: []string{"artifacts"}, Versions: 5, Name: "t", Version: "1"})
	if err != nil {
		t.Fatal(err)
	}
	pr := res.Units[0].Points[0].Provenance
	if pr.RunID != "20662362255" || pr.RunURL != "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/20662362255" ||
		pr.Artifact != "artifacts/run_20662362255/agg_bmk.json" || res.Report.Sources[0].Kind != KindAggBmk {
		t.Errorf("provenance %s, source %+v", mustJSON(pr), res.Report.Sources[0])
	}
}
