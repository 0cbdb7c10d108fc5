package report

import (
	"bytes"
	"os"
	"strings"
	"testing"
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
		Measured: Latencies{TTFTMs: m, TPOTMs: m / 10}}
	if p > 0 {
		x.Scored = true
		x.Predicted = &Latencies{TTFTMs: p, TPOTMs: p / 10}
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
	if s.Tiers.All.TTFT.N != 3 || s.Tiers.MeasuredResolved.TTFT.N != 2 {
		t.Errorf("tier n: all %d, measured_resolved %d; want 3 and 2", s.Tiers.All.TTFT.N, s.Tiers.MeasuredResolved.TTFT.N)
	}
	if got := *s.Tiers.All.TTFT.MAPE; got != 10 {
		t.Errorf("all TTFT MAPE = %v, want 10", got)
	}
	if s.Label != LabelRelease {
		t.Errorf("label = %s (%v), want release", s.Label, s.LabelReasons)
	}
	if len(s.Groups) != 1 || s.Groups[0].Tiers.All.TPOT.N != 3 {
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
	ja, _ := EncodeJSON(sa)
	jb, _ := EncodeJSON(sb)
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
	if err := Write(dir, Output{Summary: s, Points: pts, Markdown: "# x\n"}); err != nil {
		t.Fatal(err)
	}
	s2, p2, err := Read(dir)
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
	if _, _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "holds 0 points") {
		t.Errorf("Read of a short points.json: %v", err)
	}

	// A summary that breaks the schema is refused and nothing is written.
	bad := s
	bad.Provenance.Harness.Commit = "not-a-commit"
	dir2 := t.TempDir()
	if err := Write(dir2, Output{Summary: bad, Points: pts}); err == nil || !strings.Contains(err.Error(), "summary.json") {
		t.Fatalf("invalid summary: err = %v, want a schema error naming summary.json", err)
	}
	if entries, _ := os.ReadDir(dir2); len(entries) != 0 {
		t.Errorf("files were written for an invalid summary: %v", entries)
	}
}

func TestValidateSummaryRefusesUnbalanced(t *testing.T) {
	t.Parallel()
	s, _ := Summarize([]Point{pt("u", 1, "resolved", 10, 11)}, testProvenance(), nil)
	s.Coverage.CorpusPoints = 5
	raw, _ := EncodeJSON(s)
	if err := ValidateSummary(raw); err == nil || !strings.Contains(err.Error(), "balance") {
		t.Errorf("unbalanced summary: err = %v", err)
	}
	if err := ValidateSummary([]byte("{")); err == nil {
		t.Error("truncated JSON accepted")
	}
}
