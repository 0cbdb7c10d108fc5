package runresult

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
)

func testProvenance() Provenance {
	return Provenance{
		Harness:   Harness{Commit: strings.Repeat("a", 40), Source: HarnessCheckout},
		Simulator: Simulator{Repo: "r", Ref: "v1.0.0", Commit: strings.Repeat("b", 40), Tag: "v1.0.0", Release: true, BuiltByHarness: true, Driver: "replay-metrics"},
		Ledger:    DataVersion{Name: "l", Version: "1", Digest: "sha256:" + strings.Repeat("c", 64), Release: true},
	}
}

func pt(unit string, c int, tier string, m, p float64) Point {
	x := Point{ID: unit + "@c=" + string(rune('0'+c)), Unit: unit, Model: "m", Hardware: "H100", Load: Load{Concurrency: c}, Tier: tier,
		Measured: metric.Values{"ttft_ms": m, "tpot_ms": m / 10}}
	if p > 0 {
		x.Scored = true
		x.Predicted = metric.Values{"ttft_ms": p, "tpot_ms": p / 10}
	} else {
		x.Reason, x.Detail = "simulator-run-error", "exit status 2"
	}
	return x
}

func TestSummarizeCoverageAndTiers(t *testing.T) {
	t.Parallel()
	pts := []Point{
		pt("u", 1, "resolved", 10, 11),
		pt("u", 2, "resolved", 20, 20),
		pt("u", 4, "assumed", 40, 48),
		pt("u", 8, "assumed", 80, 0),
	}
	s, err := Summarize(pts, testProvenance(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Coverage; c.CorpusPoints != 4 || c.Scored != 3 || c.NotScored != 1 || c.NotScoredByReason["simulator-run-error"] != 1 {
		t.Errorf("coverage = %+v", c)
	}
	if s.Tiers.All["ttft"].N != 3 || s.Tiers.MeasuredResolved["ttft"].N != 2 {
		t.Errorf("tier n: all %d, measured_resolved %d; want 3 and 2", s.Tiers.All["ttft"].N, s.Tiers.MeasuredResolved["ttft"].N)
	}
	if got := *s.Tiers.All["ttft"].MAPE; got != 10 {
		t.Errorf("all TTFT MAPE = %v, want 10", got)
	}
	if s.Label != LabelRelease {
		t.Errorf("label = %s (%v), want release", s.Label, s.LabelReasons)
	}
	if len(s.Groups) != 1 || s.Groups[0].Tiers.All["tpot"].N != 3 {
		t.Errorf("groups = %+v", s.Groups)
	}
}

func TestSummarizeRefusesUnbalanced(t *testing.T) {
	t.Parallel()
	bad := pt("u", 1, "resolved", 10, 0)
	bad.Reason = "" // not scored and no reason
	if _, err := Summarize([]Point{bad}, testProvenance(), nil); err == nil {
		t.Fatal("a point neither scored nor with a reason was accepted")
	}
	dup := pt("u", 1, "resolved", 10, 11)
	if _, err := Summarize([]Point{dup, dup}, testProvenance(), nil); err == nil {
		t.Fatal("a duplicated point was accepted")
	}
}

func TestSummarizeOrderIndependent(t *testing.T) {
	t.Parallel()
	a := []Point{pt("u", 1, "resolved", 10, 11), pt("u", 2, "resolved", 20, 25), pt("v", 1, "measured", 5, 6), pt("u", 4, "resolved", 40, 38)}
	b := []Point{a[3], a[1], a[2], a[0]}
	sa, _ := Summarize(a, testProvenance(), nil)
	sb, _ := Summarize(b, testProvenance(), nil)
	ja, _ := jsoncodec.Encode(sa)
	jb, _ := jsoncodec.Encode(sb)
	if !bytes.Equal(ja, jb) {
		t.Errorf("point order changed summary.json:\n%s\nvs\n%s", ja, jb)
	}
}

func TestLabel(t *testing.T) {
	t.Parallel()
	p := testProvenance()
	if l, _ := Label(p); l != LabelRelease {
		t.Fatalf("release provenance labelled %s", l)
	}
	cases := map[string]func(*Provenance){
		"sim not a release":  func(p *Provenance) { p.Simulator.Release = false; p.Simulator.Tag = "" },
		"sim handed in":      func(p *Provenance) { p.Simulator.BuiltByHarness = false },
		"ledger not release": func(p *Provenance) { p.Ledger.Release = false },
		"catalog not release": func(p *Provenance) {
			p.Catalog = &DataVersion{Name: "c", Version: "abc", Digest: p.Ledger.Digest}
		},
	}
	for name, mut := range cases {
		q := testProvenance()
		mut(&q)
		l, reasons := Label(q)
		if l != LabelExperimental || len(reasons) == 0 {
			t.Errorf("%s: label %s reasons %v, want experimental with a reason", name, l, reasons)
		}
	}
}

func TestWriteValidatesAndRoundTrips(t *testing.T) {
	t.Parallel()
	pts := []Point{pt("u", 1, "resolved", 10, 11), pt("u", 2, "resolved", 20, 0)}
	s, err := Summarize(pts, testProvenance(), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Write(dir, Output{Result: Result{Summary: s, Points: pts}, Markdown: "# x\n"}); err != nil {
		t.Fatal(err)
	}
	r2, err := Read(dir)
	s2, p2 := r2.Summary, r2.Points
	if err != nil {
		t.Fatal(err)
	}
	if s2.Coverage.Scored != 1 || len(p2) != 2 {
		t.Errorf("round trip lost data: %+v %d", s2.Coverage, len(p2))
	}

	// points.json that does not hold the points the summary counts is refused.
	if err := os.WriteFile(dir+"/"+PointsFile, []byte("[]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "holds 0 points") {
		t.Errorf("Read of a short points.json: %v", err)
	}

	// A summary that breaks the schema is refused and nothing is written.
	bad := s
	bad.Provenance.Harness.Commit = "not-a-commit"
	dir2 := t.TempDir()
	if err := Write(dir2, Output{Result: Result{Summary: bad, Points: pts}}); err == nil || !strings.Contains(err.Error(), "summary.json") {
		t.Fatalf("invalid summary: err = %v, want a schema error naming summary.json", err)
	}
	if entries, _ := os.ReadDir(dir2); len(entries) != 0 {
		t.Errorf("files were written for an invalid summary: %v", entries)
	}
}

func TestParseSummaryRefusesUnbalanced(t *testing.T) {
	t.Parallel()
	s, _ := Summarize([]Point{pt("u", 1, "resolved", 10, 11)}, testProvenance(), nil)
	s.Coverage.CorpusPoints = 5
	raw, _ := jsoncodec.Encode(s)
	if _, err := ParseSummary(raw); err == nil || !strings.Contains(err.Error(), "balance") {
		t.Errorf("unbalanced summary: err = %v", err)
	}
	if _, err := ParseSummary([]byte("{")); err == nil {
		t.Error("truncated JSON accepted")
	}
	// Write validates what it encodes: the same summary is not written.
	if err := Write(t.TempDir(), Output{Result: Result{Summary: s, Points: []Point{pt("u", 1, "resolved", 10, 11)}}}); err == nil || !strings.Contains(err.Error(), "balance") {
		t.Errorf("Write of an unbalanced summary: %v", err)
	}
}

// Parse is the one reader of a run: the caps, each file's checks and
// the one consistency check, in that order.
func TestParseRun(t *testing.T) {
	t.Parallel()
	pts := []Point{pt("u", 1, "resolved", 10, 11), pt("u", 2, "resolved", 20, 22)}
	s, _ := Summarize(pts, testProvenance(), nil)
	sum, _ := jsoncodec.Encode(s)
	raw, _ := jsoncodec.Encode(pts)
	r, err := Parse(sum, raw)
	if err != nil || len(r.Points) != 2 || r.Summary.Coverage.CorpusPoints != 2 {
		t.Fatalf("Parse = %+v, %v", r, err)
	}
	one, _ := jsoncodec.Encode(pts[:1])
	unscored := slices.Clone(pts)
	unscored[1].Scored, unscored[1].Reason = false, "simulator-timeout"
	unscoredRaw, _ := jsoncodec.Encode(unscored)
	big := append(bytes.Repeat([]byte(" "), MaxPointsBytes), raw...)
	for name, tt := range map[string]struct {
		summary, points []byte
		want            string
	}{
		"points the summary does not count": {sum, one, "points.json holds 1 points (1 scored), summary.json counts 2 (2 scored)"},
		"fewer scored than counted":         {sum, unscoredRaw, "(1 scored), summary.json counts 2 (2 scored)"},
		"a summary over its cap":            {append(bytes.Repeat([]byte(" "), MaxSummaryBytes), sum...), raw, "summary.json is larger than"},
		"points over their cap":             {sum, big, "points.json is larger than"},
		"points that are not JSON":          {sum, []byte("[{"), "points.json"},
	} {
		if _, err := Parse(tt.summary, tt.points); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, tt.want)
		}
	}
	// No points.json (nil): the run is its summary. Points that do not
	// read are a *PointsError holding the summary read.
	if r, err := Parse(sum, nil); err != nil || r.Points != nil || r.Summary.Coverage.CorpusPoints != 2 {
		t.Errorf("Parse without points = %+v, %v; want the summary alone", r, err)
	}
	var perr *PointsError
	if _, err := Parse(sum, one); !errors.As(err, &perr) || perr.Summary.Coverage.CorpusPoints != 2 || err.Error() != perr.Err.Error() {
		t.Errorf("points the summary does not count: %v, want a *PointsError holding the summary", err)
	}
	if _, err := Parse([]byte("{}"), one); err == nil || errors.As(err, &perr) {
		t.Errorf("a summary that does not read: %v, want its error, not a *PointsError", err)
	}
	// Write refuses points its summary does not count.
	if err := Write(t.TempDir(), Output{Result: Result{Summary: s, Points: pts[:1]}}); err == nil || !strings.Contains(err.Error(), "holds 1 points") {
		t.Errorf("Write of points the summary does not count: %v", err)
	}
	// Write refuses points Read would refuse for their size, and writes
	// nothing.
	huge := slices.Clone(pts)
	huge[0].Detail = strings.Repeat("x", MaxPointsBytes)
	hs, _ := Summarize(huge, testProvenance(), nil)
	dir := filepath.Join(t.TempDir(), "out")
	if err := Write(dir, Output{Result: Result{Summary: hs, Points: huge}}); err == nil || !strings.Contains(err.Error(), "points.json is larger than") {
		t.Errorf("Write of points over their cap: %v, want the reader's refusal", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Write of points over their cap made %s: %v", dir, err)
	}
}

// Each metric is scored over the points whose measurement has it: p99 TTFT
// is measured at two of the three scored points, so it counts two.
func TestSummarizeScoresEachMetricWhereMeasured(t *testing.T) {
	t.Parallel()
	pts := []Point{pt("u", 1, "resolved", 10, 11), pt("u", 2, "resolved", 20, 20), pt("u", 4, "resolved", 40, 48)}
	for i := range pts {
		pts[i].Predicted["p99_ttft_ms"] = pts[i].Predicted["ttft_ms"] * 2
	}
	pts[0].Measured["p99_ttft_ms"] = 20 // predicted 22: APE 10
	pts[1].Measured["p99_ttft_ms"] = 50 // predicted 40: APE 20
	s, err := Summarize(pts, testProvenance(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range metric.All {
		if _, ok := s.Tiers.All.Of(d); !ok {
			t.Errorf("summary lacks metric %s", d.Key)
		}
	}
	p99, _ := s.Tiers.All.Of(metric.P99TTFT)
	if p99.N != 2 || p99.MAPE == nil || *p99.MAPE != 15 || p99.Bias == nil || *p99.Bias != -5 {
		t.Errorf("p99 TTFT = %+v, want n 2, MAPE 15, bias -5", p99)
	}
	if e2e, _ := s.Tiers.All.Of(metric.E2E); e2e.N != 0 || e2e.MAPE != nil {
		t.Errorf("mean E2E scored without a measurement: %+v", e2e)
	}
	if ttft, _ := s.Tiers.All.Of(metric.TTFT); ttft.N != 3 {
		t.Errorf("mean TTFT n = %d, want 3", ttft.N)
	}
	// Every metric of the list is a field of the schemas: the outputs validate.
	for i := range pts {
		for _, d := range metric.All {
			pts[i].Measured[d.Field()] = 1
			pts[i].Predicted[d.Field()] = 1
		}
	}
	s, err = Summarize(pts, testProvenance(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(t.TempDir(), Output{Result: Result{Summary: s, Points: pts}}); err != nil {
		t.Errorf("a summary of every metric does not validate: %v", err)
	}
}

// A version 1 summary (headline metrics only) and version 1 points are
// still read; the headline is unchanged and no secondary metric appears.
func TestParseReadsVersion1(t *testing.T) {
	t.Parallel()
	pts := []Point{pt("u", 1, "resolved", 10, 11), pt("u", 2, "resolved", 20, 20)}
	s, err := Summarize(pts, testProvenance(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.SchemaVersion = 1
	// Fields version 2 added after its first release are absent too.
	s.Sources, s.Groups[0].MaxSweepLoads, s.Provenance.Selection, s.Warnings = nil, 0, nil, nil
	for _, ts := range []TierScores{s.Tiers.All, s.Tiers.MeasuredResolved, s.Groups[0].Tiers.All, s.Groups[0].Tiers.MeasuredResolved} {
		for _, d := range metric.Secondary() {
			delete(ts, d.Key)
		}
		for k, m := range ts {
			m.OverPredicted, m.Unsaturated = nil, nil
			ts[k] = m
		}
	}
	raw, err := jsoncodec.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseSummary(raw)
	if err != nil {
		t.Fatalf("version 1 summary refused: %v", err)
	}
	if got.SchemaVersion != 1 || len(got.Tiers.All) != 2 || *got.Tiers.All["ttft"].MAPE != 5 {
		t.Errorf("version 1 summary read as %+v", got.Tiers.All)
	}
	// A version 1 summary with a version 2 field is refused: it is checked
	// against its own version's schema.
	s.Tiers.All["e2e"] = Metric{}
	raw, _ = jsoncodec.Encode(s)
	if _, err := ParseSummary(raw); err == nil || !strings.Contains(err.Error(), "summary.v1.json") {
		t.Errorf("version 1 summary with e2e: err = %v, want refused by summary.v1.json", err)
	}
	for _, v := range []string{`0`, `3`, `"2"`} {
		bad := bytes.Replace(raw, []byte(`"schema_version": 1`), []byte(`"schema_version": `+v), 1)
		if _, err := ParseSummary(bad); err == nil {
			t.Errorf("schema_version %s accepted", v)
		}
	}
	v1Points := `[{"id": "u@c=1", "unit": "u", "model": "m", "hardware": "H100", "load": {"concurrency": 1}, "tier": "resolved",
	  "scored": true, "reason": "", "detail": "", "measured": {"ttft_ms": 10, "tpot_ms": 1}, "predicted": {"ttft_ms": 11, "tpot_ms": 1.1}}]`
	ps, err := ParsePoints([]byte(v1Points))
	if err != nil || len(ps) != 1 || ps[0].Predicted["ttft_ms"] != 11 {
		t.Errorf("version 1 points: %v, %+v", err, ps)
	}
	if _, err := ParsePoints([]byte(strings.Replace(v1Points, `"tpot_ms": 1}`, `"tpot_ms": 1, "p50_ms": 2}`, 1))); err == nil {
		t.Error("a latency no metric names accepted")
	}
}

// TestReuseRecordRoundTrips: a reused point (replay digest, reused_from)
// counts as scored and as reused, validates against the schemas, reads
// back whole, and merges like any other; a malformed digest is refused.
func TestReuseRecordRoundTrips(t *testing.T) {
	t.Parallel()
	simulated, reused, failed := pt("u", 1, "resolved", 10, 11), pt("u", 2, "resolved", 20, 22), pt("u", 3, "resolved", 30, 0)
	simulated.ReplayDigest = "sha256:" + strings.Repeat("1", 64)
	reused.ReplayDigest, reused.ReusedFrom = "sha256:"+strings.Repeat("2", 64), "snapshot-1"
	pts := []Point{simulated, reused, failed}
	s, err := Summarize(pts, testProvenance(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Coverage; c.Scored != 2 || c.Reused != 1 {
		t.Fatalf("coverage %+v: want 2 scored, 1 of them reused", c)
	}
	dir := t.TempDir()
	if err := Write(dir, Output{Result: Result{Summary: s, Points: pts}}); err != nil {
		t.Fatal(err)
	}
	r2, err := Read(dir)
	s2, p2 := r2.Summary, r2.Points
	if err != nil {
		t.Fatal(err)
	}
	if s2.Coverage.Reused != 1 || p2[1].ReusedFrom != "snapshot-1" || p2[1].ReplayDigest != reused.ReplayDigest {
		t.Errorf("read back: %+v, %+v", s2.Coverage, p2[1])
	}
	shard := func(k int, ps ...Point) Part {
		sh := &Shard{Index: k, Count: 2}
		s, err := Summarize(ps, testProvenance(), sh)
		if err != nil {
			t.Fatal(err)
		}
		return Part{Name: "shard", Result: Result{Summary: s, Points: ps}}
	}
	ms, _, err := Merge([]Part{shard(1, simulated, failed), shard(2, reused)})
	if err != nil || ms.Coverage.Reused != 1 {
		t.Errorf("merged coverage %+v, %v", ms.Coverage, err)
	}
	bad := simulated
	bad.ReplayDigest = "sha256:xyz"
	raw, err := jsoncodec.Encode([]Point{bad})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParsePoints(raw); err == nil {
		t.Error("a malformed replay digest validates")
	}
}

func TestIsSaturated(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		offered, completed float64
		want               bool
	}{
		{20, 19.9, false}, {20, 19.0, false}, {20, 18.99, true}, {20, 16.1, true},
		{8, 8.01, false}, {0, 3, false}, {20, 0, true},
	} {
		if got := IsSaturated(tc.offered, tc.completed); got != tc.want {
			t.Errorf("IsSaturated(%v offered, %v completed) = %v, want %v", tc.offered, tc.completed, got, tc.want)
		}
	}
}

// TestSummarizeSaturatedAndSources: saturated points are counted, listed
// with their rates and errors, and their share of each MAPE is stated per
// tier, group and source; the figures are also broken down by source, and
// each group and source says how many loads its longest sweep has.
func TestSummarizeSaturatedAndSources(t *testing.T) {
	t.Parallel()
	rate := func(unit string, r float64, m, p float64, completed float64) Point {
		x := pt(unit, 1, "resolved", m, p)
		x.ID, x.Load, x.Source = unit+"@rate="+strconv.FormatFloat(r, 'g', -1, 64), Load{Rate: r}, SourceInferencePerf
		x.CompletionRate, x.Saturated = completed, IsSaturated(r, completed)
		return x
	}
	ix := func(c int, m, p float64) Point {
		x := pt("ix", c, "resolved", m, p)
		x.Source = SourceInferenceX
		return x
	}
	pts := []Point{
		ix(1, 10, 11), ix(2, 10, 12), ix(4, 10, 9),
		rate("ip", 8, 50, 60, 8.0), rate("ip", 20, 50, 2550, 16.1), // 20 % and 5000 % off
	}
	s, err := Summarize(pts, testProvenance(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Coverage.Saturated != 1 {
		t.Errorf("coverage counts %d saturated, want 1", s.Coverage.Saturated)
	}
	if len(s.SaturatedPoints) != 1 || s.SaturatedPoints[0].Point != "ip@rate=20" || s.SaturatedPoints[0].Offered != 20 ||
		s.SaturatedPoints[0].CompletionRate != 16.1 || s.SaturatedPoints[0].APE["ttft"] != 5000 {
		t.Errorf("saturated points = %+v", s.SaturatedPoints)
	}
	// TTFT MAPE over 5 points: (10+20+10+20+5000)/5 = 1012; the saturated
	// point contributes 5000/5 = 1000 pp of it.
	m := s.Tiers.All["ttft"]
	if *m.MAPE != 1012 || m.SaturatedN != 1 || m.SaturatedPP == nil || *m.SaturatedPP != 1000 {
		t.Errorf("tier all TTFT = MAPE %v, saturated %d contributing %v; want 1012, 1, 1000", *m.MAPE, m.SaturatedN, m.SaturatedPP)
	}
	if len(s.Sources) != 2 || s.Sources[0].Source != SourceInferenceX || s.Sources[1].Source != SourceInferencePerf {
		t.Fatalf("sources = %+v", s.Sources)
	}
	ipTTFT := s.Sources[1].Tiers.All["ttft"]
	if *ipTTFT.MAPE != 2510 || *ipTTFT.SaturatedPP != 2500 || s.Sources[1].MaxSweepLoads != 2 || ipTTFT.Shape != nil {
		t.Errorf("inference-perf: %+v, max loads %d", ipTTFT, s.Sources[1].MaxSweepLoads)
	}
	if ixTTFT := s.Sources[0].Tiers.All["ttft"]; ixTTFT.SaturatedN != 0 || ixTTFT.SaturatedPP != nil || s.Sources[0].MaxSweepLoads != 3 {
		t.Errorf("InferenceX: %+v, max loads %d", ixTTFT, s.Sources[0].MaxSweepLoads)
	}
	raw, err := jsoncodec.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseSummary(raw); err != nil {
		t.Errorf("summary with saturated points does not validate: %v", err)
	}
	praw, _ := jsoncodec.Encode(SortPoints(pts))
	if _, err := ParsePoints(praw); err != nil {
		t.Errorf("points with saturated and completion_rate do not validate: %v", err)
	}
}
