package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// TestScoreCommandWhatIf: `score --what-if all` on the bundled corpus's
// gpt-oss-120b H100 TP4 sweep with the stand-in, which prices weights at
// the config's quantization_config.bits: the plain run is written as ever,
// the shipped what-if (bits 4 merged into the bundled catalog's
// gpt-oss-120b config) beside it in whatif/gpt-oss-120b-mxfp4/, labelled
// and recorded, with every TPOT a quarter of the plain one; summary.md
// gains the Why section with the figures over the same points; and a
// --reuse of that directory simulates nothing again, what-if included.
func TestScoreCommandWhatIf(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	args := []string{"--harness-dir", hdir, "--sim-repo", repo.Dir, "--sim", "v0.2.0", "--units", harnesstest.GPTOSSSweep,
		"--cache-dir", t.TempDir(), "--jobs", "2", "--quiet", "--what-if", "all"}
	out := t.TempDir()
	stdout, _, err := runScoreCmd(t, append(args, "--out", out)...)
	if err != nil {
		t.Fatal(err)
	}
	plainRun, err := runresult.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	plain, plainPts := plainRun.Summary, plainRun.Points
	if plain.Provenance.WhatIf != nil || runresult.IsWhatIfLabel(plain.Label) {
		t.Errorf("the plain run is labelled %q with what-if %+v", plain.Label, plain.Provenance.WhatIf)
	}
	runs, err := whatif.ReadRuns(out)
	if err != nil || len(runs) != 1 {
		t.Fatalf("what-if runs %d, %v", len(runs), err)
	}
	wi := runs[0]
	if wi.Summary.Label != "what-if: gpt-oss-120b-mxfp4" || wi.Summary.Provenance.WhatIf.Patch != `{"quantization_config":{"bits":4}}` {
		t.Errorf("what-if label %q, provenance %+v", wi.Summary.Label, wi.Summary.Provenance.WhatIf)
	}
	byID := map[string]runresult.Point{}
	for _, p := range plainPts {
		byID[p.ID] = p
	}
	n := 0
	for _, p := range wi.Points {
		b := byID[p.ID]
		if !p.Scored || !b.Scored {
			t.Fatalf("%s: scored %v, plain %v (%s)", p.ID, p.Scored, b.Scored, p.Detail)
		}
		if got, want := p.Predicted["tpot_ms"], b.Predicted["tpot_ms"]/4; math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: TPOT %v, want a quarter of %v", p.ID, got, b.Predicted["tpot_ms"])
		}
		n++
	}
	if n != 5 {
		t.Errorf("%d what-if points, want the sweep's 5", n)
	}
	for _, want := range []string{"### Why: what-if experiments", "#### gpt-oss-120b at 4-bit weights (`gpt-oss-120b-mxfp4` v1)",
		"gpt-oss-120b at 4-bit weights: 5 of 5 points scored instead of 5; over the same 5 points TTFT MAPE", "| openai/gpt-oss-120b | H100 | 5 | 5 → 5 |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, runresult.MarkdownFile))
	if string(md) != stdout {
		t.Error("summary.md differs from stdout")
	}
	wmd, _ := os.ReadFile(filepath.Join(out, whatif.Dir, "gpt-oss-120b-mxfp4", runresult.MarkdownFile))
	if !strings.Contains(string(wmd), "WHAT-IF gpt-oss-120b-mxfp4") || !strings.Contains(string(wmd), "What-if figures") {
		t.Errorf("the what-if's summary.md does not say it is one:\n%s", wmd)
	}

	again := t.TempDir()
	if _, _, err := runScoreCmd(t, append(args, "--out", again, "--reuse", out)...); err != nil {
		t.Fatal(err)
	}
	r, _ := runresult.Read(again)
	s := r.Summary
	wruns, _ := whatif.ReadRuns(again)
	if s.Coverage.Reused != 5 || len(wruns) != 1 || wruns[0].Summary.Coverage.Reused != 5 {
		t.Errorf("reuse: plain %d reused, what-if runs %d", s.Coverage.Reused, len(wruns))
	}

	// Published, the what-if goes beside the snapshot and the site's
	// Overview draws its Why section: TTFT unchanged, TPOT MAPE over the
	// same 5 points from the plain predictions to their quarters (computed
	// here from the points), 5 of 5 scored.
	// (The gate publishes whole corpora: a ledger of that one sweep.)
	ledger := t.TempDir()
	harnesstest.SweepLedger(t, ledger, harnesstest.GPTOSSSweep)
	whole := t.TempDir()
	i := slices.Index(args, "--units")
	wholeArgs := slices.Delete(slices.Clone(args), i, i+2)
	if _, _, err := runScoreCmd(t, append(wholeArgs, "--ledger", ledger, "--out", whole)...); err != nil {
		t.Fatal(err)
	}
	wholeRun, err := runresult.Read(whole)
	if err != nil {
		t.Fatal(err)
	}
	site := t.TempDir()
	if msg, err := runAction(t, "publish", "--dashboard", site, "--experimental", whole); err != nil {
		t.Fatalf("publish: %v\n%s", err, msg)
	}
	if msg, err := runAction(t, "site", "--dashboard", site, "--out", filepath.Join(site, "site")); err != nil {
		t.Fatalf("site: %v\n%s", err, msg)
	}
	page, _ := os.ReadFile(filepath.Join(site, "site", "index.html"))
	mape := func(metric string, scale float64) string {
		sum := 0.0
		for _, p := range wholeRun.Points {
			sum += math.Abs(p.Predicted[metric]*scale-p.Measured[metric]) / p.Measured[metric]
		}
		return fmt.Sprintf("%.1f%%", 100*sum/float64(len(wholeRun.Points)))
	}
	row := fmt.Sprintf("<tr><td class=\"id\">openai/gpt-oss-120b</td><td>H100</td><td class=\"num\">5</td><td class=\"num\">5 → 5</td><td class=\"num\">%s → %s</td><td class=\"num\">%s → %s</td><td class=\"num\">5</td></tr>",
		mape("ttft_ms", 1), mape("ttft_ms", 1), mape("tpot_ms", 1), mape("tpot_ms", 0.25))
	if !strings.Contains(string(page), `<h2 id="why">Why: what-if experiments</h2>`) || !strings.Contains(string(page), row) {
		t.Errorf("the site's Overview lacks the Why section's row %s:\n%s", row, page)
	}

	// The gate refuses a what-if run as a snapshot, even --experimental.
	dash := t.TempDir()
	pub, err := runAction(t, "publish", "--dashboard", dash, "--experimental", filepath.Join(out, whatif.Dir, "gpt-oss-120b-mxfp4"))
	if cli.ExitCode(err) != 3 || !strings.Contains(pub, "refused: a what-if run (gpt-oss-120b-mxfp4) is a diagnosis") {
		t.Errorf("publish of a what-if run: exit %d (%v):\n%s", cli.ExitCode(err), err, pub)
	}
	if files := testkit.Paths(t, dash); len(files) != 0 {
		t.Errorf("a refused publish wrote %v", files)
	}

	if _, _, err := runScoreCmd(t, append(args, "--what-if", "nope")...); err == nil || !strings.Contains(err.Error(), "gpt-oss-120b-mxfp4") {
		t.Errorf("an unknown what-if: %v, want an error listing the declared ones", err)
	}
	if _, _, err := runScoreCmd(t, append(args, "--shard", "1/2")...); err == nil {
		t.Error("--what-if with --shard was accepted")
	}
}

// TestScoreCommandKeepsThePlainRunWhenAWhatIfFails: a what-if that cannot
// be applied (the gpt-oss one patches the catalog, and --catalog none hands
// none) fails the command, naming it, after the run without the what-ifs
// was written to --out whole, equal to a plain run's.
func TestScoreCommandKeepsThePlainRunWhenAWhatIfFails(t *testing.T) {
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	out := t.TempDir()
	args := []string{"--harness-dir", hdir, "--sim-repo", repo.Dir, "--sim", "v0.2.0", "--units", harnesstest.GPTOSSSweep,
		"--cache-dir", t.TempDir(), "--jobs", "2", "--quiet", "--catalog", "none"}
	_, _, err := runScoreCmd(t, append(args, "--what-if", "gpt-oss-120b-mxfp4", "--out", out)...)
	if err == nil || !strings.Contains(err.Error(), "what-if gpt-oss-120b-mxfp4") || !strings.Contains(err.Error(), "--reuse "+out) {
		t.Fatalf("a what-if that cannot be applied: %v; want an error naming it and the run kept", err)
	}
	kept, err := runresult.Read(out)
	if err != nil {
		t.Fatalf("the run without the what-ifs: %v", err)
	}
	if kept.Summary.Coverage.CorpusPoints != 5 || kept.Summary.Provenance.WhatIf != nil {
		t.Errorf("kept run: %d points, what-if %+v; want the sweep's 5, plain", kept.Summary.Coverage.CorpusPoints, kept.Summary.Provenance.WhatIf)
	}
	if runs, err := whatif.ReadRuns(out); err != nil || len(runs) != 0 {
		t.Errorf("what-if runs written: %d (%v), want none", len(runs), err)
	}
	plainOut := t.TempDir()
	if _, _, err := runScoreCmd(t, append(args, "--out", plainOut)...); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(plainOut, runresult.PointsFile))
	got, _ := os.ReadFile(filepath.Join(out, runresult.PointsFile))
	if string(got) != string(want) {
		t.Error("the kept run's points.json differs from a plain run's")
	}
}
