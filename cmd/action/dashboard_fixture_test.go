package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/harness/harnesstest"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// standinResults are result directories of the stand-in simulator on the
// test ledger: release is v0.2.0's run with its ledger recorded as a
// release (so the bot's gate admits it), slow is the same run with every
// prediction 20 % higher, as a build of the commit after v0.2.0 that no
// release names (experimental).
type standinResults struct {
	release, slow string
	// releaseRun and slowRun are the two runs as written.
	releaseRun, slowRun runresult.Result
}

func scoreStandin(t *testing.T) standinResults {
	t.Helper()
	repo := harnesstest.StandinRepo(t)
	hdir, _ := harnesstest.HarnessCheckout(t)
	raw := filepath.Join(t.TempDir(), "raw")
	if _, _, err := runScoreCmd(t, "--harness-dir", hdir, "--sim-repo", repo.Dir, "--sim", "v0.2.0", "--ledger", testLedger,
		"--catalog", "none", "--cache-dir", t.TempDir(), "--jobs", "2", "--quiet", "--out", raw); err != nil {
		t.Fatal(err)
	}
	rr, err := runresult.Read(raw)
	s, pts := rr.Summary, rr.Points
	if err != nil {
		t.Fatal(err)
	}
	var r standinResults
	prov := s.Provenance
	prov.Ledger.Release = true
	r.release, r.releaseRun = filepath.Join(t.TempDir(), "v0.2.0"), resummarize(t, pts, prov, 1)
	writeResultDir(t, r.release, r.releaseRun)
	prov.Simulator.Ref, prov.Simulator.Commit, prov.Simulator.Tag, prov.Simulator.Release = repo.Feature, repo.Feature, "", false
	r.slow, r.slowRun = filepath.Join(t.TempDir(), "feature"), resummarize(t, pts, prov, 1.2)
	writeResultDir(t, r.slow, r.slowRun)
	return r
}

// resummarize is the run of pts (their predictions × factor) under prov,
// summarized as the harness does.
func resummarize(t *testing.T, pts []runresult.Point, prov runresult.Provenance, factor float64) runresult.Result {
	t.Helper()
	out := make([]runresult.Point, len(pts))
	for i, p := range pts {
		if p.Predicted != nil {
			pred := metric.Values{}
			for k, v := range p.Predicted {
				pred[k] = v * factor
			}
			p.Predicted = pred
		}
		out[i] = p
	}
	s, err := runresult.Summarize(out, prov, nil)
	if err != nil {
		t.Fatal(err)
	}
	return runresult.Result{Summary: s, Points: runresult.SortPoints(out)}
}

func writeResultDir(t *testing.T, dir string, r runresult.Result) {
	t.Helper()
	if err := runresult.Write(dir, runresult.Output{Result: r, Markdown: "summary\n"}); err != nil {
		t.Fatal(err)
	}
}

// runAction runs the action command with args; stdout and stderr together.
func runAction(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), args, fakeEnv(map[string]string{"HOME": t.TempDir()}), &out, &out)
	return out.String(), err
}
