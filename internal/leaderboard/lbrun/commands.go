package lbrun

import (
	"context"
	"fmt"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbview"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// The flows of the leaderboard's commands (`action leaderboard run`,
// `verify`, `validate`, `render`): each takes its typed configuration and
// returns what the command prints. An error reading the declaration is a
// *DeclarationError; the command reports every error through CommandError.

// RunConfig is one `leaderboard run`.
type RunConfig struct {
	// Runs is the runs.yaml; Out the results directory ("": results/
	// beside Runs), whose declarations file is merged in.
	Runs, Out string
	// Only selects the runs (GROUP or GROUP/RUN, leaderboard.Select); none
	// runs all.
	Only []string
	// Reuse is a results directory whose unchanged results are kept
	// (Options.Reuse).
	Reuse string
	// Ref is the simulator ref, an exact tag or commit ("": the newest
	// release tag, logged); HarnessDir this tool's checkout ("": the
	// binary's own identity, Builds.Tool, else found from the working
	// directory).
	Ref, HarnessDir string
	// Jobs is the number of simulations at once.
	Jobs   int
	Builds Builds
	// Progress, when set, is called once per run that ran (Options).
	Progress func(done, total int, r *leaderboard.Result)
}

// RunReport is what RunDeclaration did: the runs' Summary, filed in Out,
// and the results of Out that no run of the declaration asks for
// (Undeclared, Prune removes them).
type RunReport struct {
	Summary
	Out        string
	Undeclared []string
}

// Failed lists the failed results of s, in the order of the runs.
func (s Summary) Failed() []*leaderboard.Result {
	var out []*leaderboard.Result
	for _, r := range s.Results {
		if r != nil && r.Status == leaderboard.StatusFailed {
			out = append(out, r)
		}
	}
	return out
}

// RunDeclaration runs the runs of c.Runs that c.Only selects on the build
// of c.Ref (Builds.Open), the traces they replay stored in Out's traces/,
// and files each result as its run ends (Run); it lists the results of
// Out no run of the declaration asks for (Undeclared).
func RunDeclaration(ctx context.Context, c RunConfig) (RunReport, error) {
	dir := c.Out
	if dir == "" {
		dir = DefaultResults(c.Runs)
	}
	d, traces, err := ReadDeclaration(c.Runs, dir)
	if err != nil {
		return RunReport{}, err
	}
	runs, err := leaderboard.Select(d.Runs(), c.Only)
	if err != nil {
		return RunReport{}, fmt.Errorf("--only %w", err)
	}
	id, err := c.Builds.Identify(ctx, c.HarnessDir)
	if err != nil {
		return RunReport{}, err
	}
	log := c.Builds.log()
	ref := c.Ref
	if ref == "" {
		if ref, err = c.Builds.NewestRelease(ctx); err != nil {
			return RunReport{}, err
		}
		log.Info("no --sim given; using the newest release tag", "tag", ref)
	}
	s, err := c.Builds.Open(ctx, ref, id, dir)
	if err != nil {
		return RunReport{}, err
	}
	defer s.Close()
	log.Info("simulator ready", "commit", s.Build.Commit, "tag", s.Build.Tag, "runs", len(runs))
	if len(traces) > 0 {
		if err := StoreTraces(s.TracesDir, traces); err != nil {
			return RunReport{}, fmt.Errorf("store traces: %w", err)
		}
	}
	sum, err := SimulateAll(ctx, s, runs, Options{Out: dir, Reuse: c.Reuse, Jobs: c.Jobs, Log: c.Builds.Log, Progress: c.Progress})
	if err != nil {
		return RunReport{}, err
	}
	gone, err := Undeclared(dir, d)
	if err != nil {
		return RunReport{}, err
	}
	return RunReport{Summary: sum, Out: dir, Undeclared: gone}, nil
}

// VerifyConfig is one `leaderboard verify`.
type VerifyConfig struct {
	// Runs is the runs.yaml; Results the results directory, whose
	// declarations file is merged in.
	Runs, Results string
	// Only selects the results to verify (leaderboard.Select); none
	// verifies all.
	Only []string
	// Jobs is the number of simulations at once.
	Jobs   int
	Builds Builds
}

// Verification is what VerifyDeclaration found: one verdict per result
// verified, in the order of the declaration, of the results in Results.
type Verification struct {
	Results  string
	Verdicts []Verdict
}

// Lines are the verdicts as `leaderboard verify` prints them: "PROBLEM: "
// and the problem for a result not run, "ok: " and its file for one that
// reproduced, "DIFF: <file>: <field diff>" for each field that did not.
func (v Verification) Lines() []string {
	var lines []string
	for _, vd := range v.Verdicts {
		file := ResultFile(v.Results, vd.Group, vd.Run)
		switch {
		case vd.Problem.Kind != "":
			lines = append(lines, "PROBLEM: "+vd.Problem.String())
		case len(vd.Diffs) == 0:
			lines = append(lines, "ok: "+file)
		}
		for _, df := range vd.Diffs {
			lines = append(lines, fmt.Sprintf("DIFF: %s: %s", file, df))
		}
	}
	return lines
}

// Unrun counts the results not run because they do not stand for their
// declaration (a Problem); Differing those whose re-run differs.
func (v Verification) Unrun() int {
	n := 0
	for _, vd := range v.Verdicts {
		if vd.Problem.Kind != "" {
			n++
		}
	}
	return n
}

// Differing counts the results whose re-run differs from the record.
func (v Verification) Differing() int {
	n := 0
	for _, vd := range v.Verdicts {
		if vd.Problem.Kind == "" && len(vd.Diffs) > 0 {
			n++
		}
	}
	return n
}

// VerifyDeclaration re-runs the results of c.Results that c.Only selects,
// each on the simulator commit it records (Builds.Open, one build per
// commit), and compares each re-run with its record (Verify). Results that
// do not read as results are a *leaderboard.ProblemsError and nothing runs;
// a selected run without a result is an error naming its file, and nothing
// runs either.
func VerifyDeclaration(ctx context.Context, c VerifyConfig) (Verification, error) {
	d, _, err := ReadDeclaration(c.Runs, c.Results)
	if err != nil {
		return Verification{}, err
	}
	recorded, probs, err := ReadResults(c.Results)
	if err != nil {
		return Verification{}, fmt.Errorf("read %s: %w", c.Results, err)
	}
	if len(probs) > 0 {
		return Verification{}, &leaderboard.ProblemsError{Dir: c.Results, Problems: probs}
	}
	runs, err := leaderboard.Select(d.Runs(), c.Only)
	if err != nil {
		return Verification{}, fmt.Errorf("--only %w", err)
	}
	recs := make([]Recorded, 0, len(runs))
	for _, r := range runs {
		res := recorded[r.Group+"/"+r.ID]
		if res == nil {
			return Verification{}, fmt.Errorf("%s/%s.json: no result to verify", r.Group, r.ID)
		}
		recs = append(recs, Recorded{Run: r, Result: res})
	}
	sims := map[string]*Sim{}
	defer func() {
		for _, s := range sims {
			s.Close()
		}
	}()
	verdicts, err := Verify(ctx, recs, func(commit string, h runresult.Harness) (*Sim, error) {
		if s := sims[commit]; s != nil {
			return s, nil
		}
		s, err := c.Builds.Open(ctx, commit, h, c.Results)
		if err != nil {
			return nil, err
		}
		sims[commit] = s
		return s, nil
	}, c.Jobs)
	if err != nil {
		return Verification{}, err
	}
	return Verification{Results: c.Results, Verdicts: verdicts}, nil
}

// ValidateConfig is one `leaderboard validate`.
type ValidateConfig struct {
	// Runs is the runs.yaml; Results the results directory, whose
	// declarations file is merged in.
	Runs, Results string
	// Sim is the pinned simulator commit: results that ran on another are
	// drift ("": not checked).
	Sim string
	// PinFile is a pin file whose leaderboard pair the results must have
	// run on (PinPairProblems; a catalog pinned as a path is relative to
	// RepoRoot); "": not checked.
	PinFile, RepoRoot string
}

// Validate checks the declaration and the results of c.Results (Check:
// schema, digest, filing, coverage, the plans, drift from c.Sim) and, with
// c.PinFile, the pin file's pair (PinPairProblems). Every problem is in a
// *leaderboard.ProblemsError; without one it returns the results.
func Validate(ctx context.Context, c ValidateConfig) (map[string]*leaderboard.Result, error) {
	var pair *pin.LeaderboardPair
	if c.PinFile != "" {
		p, err := ReadPinPair(c.PinFile)
		if err != nil {
			return nil, err
		}
		pair = &p
	}
	d, _, err := ReadDeclaration(c.Runs, c.Results)
	if err != nil {
		return nil, err
	}
	res, probs, err := Check(d, c.Results, c.Sim)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", c.Results, err)
	}
	if pair != nil {
		more, err := PinPairProblems(ctx, *pair, c.PinFile, c.RepoRoot, res)
		if err != nil {
			return nil, err
		}
		probs = append(probs, more...)
	}
	if len(probs) > 0 {
		return nil, &leaderboard.ProblemsError{Dir: c.Results, Problems: probs}
	}
	return res, nil
}

// Render reads the runs.yaml at runs and the results of results, checks
// them as Validate does without drift, and renders the board
// (leaderboard.BuildBoard, lbview.Files); with out set, it
// writes README.md and index.html there (WriteBoardFiles). A declared run
// without a result is shown as such; any other problem is a
// *leaderboard.ProblemsError (leaderboard.Blocking). It returns the
// Markdown.
func Render(runs, results, out string) ([]byte, error) {
	d, _, err := ReadDeclaration(runs, results)
	if err != nil {
		return nil, err
	}
	res, probs, err := Check(d, results, "")
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", results, err)
	}
	if bad := leaderboard.Blocking(probs); len(bad) > 0 {
		return nil, &leaderboard.ProblemsError{Dir: results, Problems: bad}
	}
	files, err := lbview.Files(leaderboard.BuildBoard(d, res))
	if err != nil {
		return nil, err
	}
	if out != "" {
		if err := WriteBoardFiles(out, files); err != nil {
			return nil, err
		}
	}
	return files[lbview.MarkdownFile], nil
}

// WriteBoardFiles writes the rendered README.md and index.html
// (lbview.Files) into dir, made when missing, both or neither
// (diskio.WriteFiles).
func WriteBoardFiles(dir string, files map[string][]byte) error {
	return diskio.WriteFiles(dir, map[string][]byte{
		lbview.MarkdownFile: files[lbview.MarkdownFile],
		lbview.HTMLFile:     files[lbview.HTMLFile],
	})
}
