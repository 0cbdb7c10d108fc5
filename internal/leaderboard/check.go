package leaderboard

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// Problem kinds named by Check and ReadResults (unexported: those no
// other package names).
const (
	problemInvalid    = "invalid"             // not a result file (schema, JSON)
	problemTampered   = "tampered"            // content does not match its digest
	problemMisfiled   = "misfiled"            // path does not match the ids inside
	ProblemMissing    = "missing-result"      // a declared run has no result
	problemUndeclared = "undeclared-result"   // a result no declaration asks for
	ProblemChanged    = "declaration-changed" // the result ran another declaration
	problemMixedWork  = "mixed-offered-work"  // a group's results were offered different work
	problemDrift      = "simulator-drift"     // ran on another simulator commit than the pinned one
	problemMixedBuild = "mixed-builds"        // a group's results ran on different simulator builds or catalogs
	problemUnexpected = "unexpected-file"     // a file that is not a result
	problemTrace      = "trace"               // a result's trace is not stored (or not as hashed)
	// ProblemUnplanned: the recorded command, conversion or input files
	// are not what the result's declaration plans (leaderboard.CheckPlans).
	ProblemUnplanned = "unplanned-command"
)

// Problem is one violation Check found.
type Problem struct {
	Kind string
	// File is the result's path relative to the results directory ("" for
	// a problem of the declaration as a whole).
	File string
	Msg  string
}

func (p Problem) String() string {
	if p.File == "" {
		return p.Kind + ": " + p.Msg
	}
	return p.Kind + ": " + p.File + ": " + p.Msg
}

// TracesDir is where trace bytes live inside a results directory,
// by content hash: traces/<sha256>/.
const TracesDir = "traces"

// MaxResultBytes caps one result file (real ones are a few KiB: the
// command line, a workload spec and BLIS's figures).
const MaxResultBytes = 4 << 20

// ReadResults reads every result file of a results directory: files
// <group>/<run>.json (traces/ is skipped), each a regular file of at most
// MaxResultBytes (diskio.ReadFileMax: a symbolic link, a device or a pipe
// is not opened). Give it an os.Root's FS, so that nothing outside the
// directory is read. A file that cannot be read as a result is returned as
// a problem, not an error.
func ReadResults(fsys fs.FS) (map[string]*Result, []Problem, error) {
	out := map[string]*Result{}
	var probs []Problem
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == TracesDir {
				return fs.SkipDir
			}
			return nil
		}
		dir, file := path.Split(p)
		dir = strings.TrimSuffix(dir, "/")
		if strings.HasPrefix(file, ".") && p != "." {
			return nil
		}
		if dir == "" || strings.Contains(dir, "/") || path.Ext(file) != ".json" {
			probs = append(probs, Problem{problemUnexpected, p, "not <group>/<run>.json"})
			return nil
		}
		if !d.Type().IsRegular() {
			probs = append(probs, Problem{problemUnexpected, p, "not a regular file (" + d.Type().String() + "); a result is one"})
			return nil
		}
		raw, err := diskio.ReadFileMax(fsys, p, MaxResultBytes)
		if err != nil {
			probs = append(probs, Problem{problemInvalid, p, trimName(err.Error(), p)})
			return nil
		}
		r, err := ParseResult(raw, p)
		if err != nil {
			kind := problemInvalid
			if errors.Is(err, errTampered) {
				kind = problemTampered
			}
			probs = append(probs, Problem{kind, p, trimName(err.Error(), p)})
			return nil
		}
		if want := r.Group + "/" + r.Run + ".json"; want != p {
			probs = append(probs, Problem{problemMisfiled, p, fmt.Sprintf("holds the result of %s/%s, so it belongs at %s", r.Group, r.Run, want)})
			return nil
		}
		out[r.Group+"/"+r.Run] = r
		return nil
	})
	return out, probs, err
}

func trimName(msg, name string) string { return strings.TrimPrefix(msg, name+": ") }

// validateResults checks results against their declaration: every declared run
// has exactly one result and every result a declaration; each result ran
// the declaration as it is now; within a group every result was offered
// the same work at a declared load; and, when pinned is a commit, every
// result ran on it (drift). Problems are sorted by file.
func validateResults(d *Declaration, results map[string]*Result, pinned string) []Problem {
	var probs []Problem
	declared := map[string]DeclaredRun{}
	for _, r := range d.Runs() {
		declared[r.Group+"/"+r.ID] = r
	}
	for key, r := range declared {
		if results[key] == nil {
			probs = append(probs, Problem{ProblemMissing, key + ".json", fmt.Sprintf("run %s of group %s is declared but has no result", r.ID, r.Group)})
		}
	}
	groupKeys := map[string]map[string][]string{}   // group → workload key → files
	groupBuilds := map[string]map[string][]string{} // group → build (BuildName) → files
	for key, res := range results {
		file := key + ".json"
		want, ok := declared[key]
		if !ok {
			probs = append(probs, Problem{problemUndeclared, file, "no declaration asks for this run (removed or renamed?)"})
			continue
		}
		if res.Declaration.Load != want.Load {
			probs = append(probs, Problem{problemMixedWork, file, fmt.Sprintf("was offered %s; group %s offers %s", res.Declaration.Load.Short(), want.Group, describeLoads(d.Group(want.Group).Load.Points()))})
		} else if diffs := runresult.DiffJSON(want, res.Declaration); len(diffs) > 0 {
			probs = append(probs, Problem{ProblemChanged, file, "ran another declaration than runs.yaml's; re-run it (" + diffs[0].String() + ")"})
		}
		addFile(groupKeys, res.Group, workloadKey(res.Declaration.Workload)[:19], file) // sha256: and 12 hex digits
		addFile(groupBuilds, res.Group, BuildName(res.Provenance), file)
		if pinned != "" && res.Provenance.Simulator.Commit != pinned {
			probs = append(probs, Problem{problemDrift, file, fmt.Sprintf("ran on simulator commit %s, the pinned one is %s", res.Provenance.Simulator.Commit, pinned)})
		}
	}
	probs = append(probs, mixed(groupKeys, problemMixedWork, "results of one group were offered different workloads (comparability keys ")...)
	probs = append(probs, mixed(groupBuilds, problemMixedBuild, "results of one group ran on different simulator builds or catalogs; a table ranks one build's results only (builds ")...)
	sort.SliceStable(probs, func(i, j int) bool {
		if probs[i].File != probs[j].File {
			return probs[i].File < probs[j].File
		}
		return probs[i].Kind < probs[j].Kind
	})
	return probs
}

// verifyIgnored are the fields verify does not compare: the tool's own
// commit (a later tool re-runs older results) and the digest (which
// follows from the rest).
var verifyIgnored = []string{"provenance.harness", "digest"}

// Diff compares a recorded result with a re-run of it, field by field,
// except verifyIgnored. Any difference is a bug: BLIS is deterministic.
func Diff(recorded, rerun *Result) []runresult.FieldDiff {
	var out []runresult.FieldDiff
	for _, d := range runresult.DiffJSON(recorded, rerun) {
		skip := false
		for _, ig := range verifyIgnored {
			if d.Field == ig || strings.HasPrefix(d.Field, ig+".") {
				skip = true
			}
		}
		if !skip {
			out = append(out, d)
		}
	}
	return out
}

// Check reads a results directory and validates it against d: every
// problem of ReadResults and validateResults, sorted by file. pinned is the
// simulator commit results must have run on ("" checks no drift).
func Check(d *Declaration, results fs.FS, pinned string) (map[string]*Result, []Problem, error) {
	res, probs, err := ReadResults(results)
	if err != nil {
		return nil, nil, err
	}
	probs = append(probs, validateResults(d, res, pinned)...)
	probs = append(probs, checkTraces(results, res)...)
	sort.SliceStable(probs, func(i, j int) bool { return probs[i].File < probs[j].File })
	return res, probs, nil
}

// checkTraces checks that every trace a result replayed is stored under
// traces/<sha256>/ with the bytes that hash names.
func checkTraces(fsys fs.FS, res map[string]*Result) []Problem {
	var probs []Problem
	checked := map[string]string{}
	for key, r := range res {
		t := r.Declaration.Workload.Trace
		if t == nil || t.SHA256 == "" {
			continue
		}
		msg, ok := checked[t.SHA256]
		if !ok {
			dir := TracesDir + "/" + t.SHA256 + "/"
			tf, err := readStoredTrace(fsys, dir, t.Format)
			switch {
			case err != nil:
				msg = "its trace is not stored under " + dir
			case tf.Hash() != t.SHA256:
				msg = "the trace stored under " + dir + " does not hash to its name"
			}
			checked[t.SHA256] = msg
		}
		if msg != "" {
			probs = append(probs, Problem{problemTrace, key + ".json", msg})
		}
	}
	return probs
}

// ProblemsError is the error of problems found in a results directory
// (Dir): how many, then one problem a line.
type ProblemsError struct {
	Dir      string
	Problems []Problem
}

func (e *ProblemsError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = "  " + p.String()
	}
	return fmt.Sprintf("%d problem(s) in %s:\n%s", len(e.Problems), e.Dir, strings.Join(lines, "\n"))
}

// Blocking are the problems of probs that keep a board from being drawn:
// every one but a declared run without a result (ProblemMissing), which
// the board shows as such. A board is never drawn from results that do not
// check. The order of probs is kept; none gives nil.
func Blocking(probs []Problem) []Problem {
	var bad []Problem
	for _, p := range probs {
		if p.Kind != ProblemMissing {
			bad = append(bad, p)
		}
	}
	return bad
}

// Groups lists the ids of the groups results belong to, sorted, each once.
func Groups(results map[string]*Result) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range results {
		if !seen[r.Group] {
			seen[r.Group] = true
			out = append(out, r.Group)
		}
	}
	sort.Strings(out)
	return out
}

// BuildName names the simulator build and catalog a result ran on:
// "<commit> (<tag>), catalog <name> <version> (<digest>)" or "catalog none".
func BuildName(p Provenance) string {
	s := p.Simulator.Commit
	if p.Simulator.Tag != "" {
		s += " (" + p.Simulator.Tag + ")"
	}
	if p.Catalog == nil {
		return s + ", catalog none"
	}
	return s + ", catalog " + p.Catalog.Name + " " + p.Catalog.Version + " (" + p.Catalog.Digest + ")"
}

func addFile(m map[string]map[string][]string, group, key, file string) {
	if m[group] == nil {
		m[group] = map[string][]string{}
	}
	m[group][key] = append(m[group][key], file)
}

// mixed returns a problem of kind for each group whose results fall under
// more than one key, listing each key's files after intro.
func mixed(groups map[string]map[string][]string, kind, intro string) []Problem {
	var probs []Problem
	for g, keys := range groups {
		if len(keys) < 2 {
			continue
		}
		var parts []string
		for k, files := range keys {
			sort.Strings(files)
			parts = append(parts, fmt.Sprintf("%s: %s", k, strings.Join(files, ", ")))
		}
		sort.Strings(parts)
		probs = append(probs, Problem{kind, g + "/", intro + strings.Join(parts, "; ") + ")"})
	}
	return probs
}
