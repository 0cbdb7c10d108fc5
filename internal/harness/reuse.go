package harness

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/whatif"
)

// replayDigestVersion starts every replay digest: a change to what a
// digest covers changes it, so no digest of an older harness matches.
const replayDigestVersion = "accuracy-dashboard replay digest v1"

// Reuse is the predictions of an earlier run, by replay digest: a point
// whose digest is here is not simulated again, its prediction is taken.
type Reuse struct {
	// From names the earlier run in points.json's reused_from (a snapshot
	// id, or a result directory's name).
	From     string
	byDigest map[string]runresult.Point
}

// NewReuse indexes the scored points of an earlier run that carry a
// replay digest (points without one, or not scored, are simulated again).
func NewReuse(from string, points []runresult.Point) *Reuse {
	r := &Reuse{From: from, byDigest: map[string]runresult.Point{}}
	for _, p := range points {
		if p.Scored && p.Predicted != nil && p.ReplayDigest != "" {
			if _, dup := r.byDigest[p.ReplayDigest]; !dup {
				r.byDigest[p.ReplayDigest] = p
			}
		}
	}
	return r
}

// ReadReuse reads the points of an earlier result directory (a run's
// --out or a published snapshot; runresult.Read checks it) and of the what-if
// runs kept beside it (whatif.ReadRuns), and indexes them with NewReuse,
// named by the directory's name.
func ReadReuse(dir string) (*Reuse, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	rr, err := runresult.Read(abs)
	points := rr.Points
	if err != nil {
		return nil, err
	}
	// The what-ifs measured against it (whatif.Dir): their digests carry
	// their patch, so a point matches only the same what-if's.
	runs, err := whatif.ReadRuns(abs)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		points = append(points, r.Points...)
	}
	return NewReuse(filepath.Base(abs), points), nil
}

// Len is the number of predictions r offers.
func (r *Reuse) Len() int {
	if r == nil {
		return 0
	}
	return len(r.byDigest)
}

// lookup is the earlier point with digest ("" never matches).
func (r *Reuse) lookup(digest string) (runresult.Point, bool) {
	if r == nil || digest == "" {
		return runresult.Point{}, false
	}
	p, ok := r.byDigest[digest]
	return p, ok
}

// DigestInput is one run-wide input of every replay digest, as name and
// value: the harness and simulator commits, the simulator's toolchain, and
// the content digest of each data set handed to the simulator.
type DigestInput struct{ Name, Value string }

// replayInputs is the run-wide part of every point's replay digest: what
// decides a prediction besides the point's own command line and input
// files. nil when the build is not identified by a commit (a binary handed
// in): its points get no digest and are never reused. Every data directory
// the provenance records as handed to the simulator is in it (a new one is
// one line here).
//
// hardwareConfig is the hardware configuration file handed to the
// simulator ("" for none): its bytes are in too.
func replayInputs(harnessCommit string, b *Build, prov runresult.Provenance, hardwareConfig string) ([]DigestInput, error) {
	if b == nil || b.Commit == "" || harnessCommit == "" {
		return nil, nil
	}
	in := []DigestInput{
		{"harness", harnessCommit},
		{"simulator", b.Commit},
		{"toolchain", toolchain(b.Binary)},
	}
	for _, d := range []struct {
		name string
		v    *runresult.DataVersion
	}{
		{"catalog", prov.Catalog},
		{"registry", prov.Registry},
		{"hardware", prov.Hardware}, // with the simulator commit, it fixes --hardware-config's file
	} {
		if d.v != nil {
			in = append(in, DigestInput{d.name, d.v.Digest})
		}
	}
	if w := prov.WhatIf; w != nil {
		// The catalog's digest is the unpatched one's: the what-if's
		// digest covers its patch, so two patches never share a digest.
		in = append(in, DigestInput{"what-if", w.Digest})
	}
	if hardwareConfig != "" {
		raw, err := os.ReadFile(hardwareConfig)
		if err != nil {
			return nil, fmt.Errorf("replay digest: %w", err)
		}
		sum := sha256.Sum256(raw)
		in = append(in, DigestInput{"hardware-config", hex.EncodeToString(sum[:])})
	}
	return in, nil
}

// toolchain is the Go version and build settings the simulator binary was
// built with (its build information; "unknown" when it has none): another
// toolchain or architecture may compute other floating-point results.
func toolchain(bin string) string {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return "unknown"
	}
	parts := []string{bi.GoVersion}
	for _, s := range bi.Settings {
		if !strings.HasPrefix(s.Key, "vcs") {
			parts = append(parts, s.Key+"="+s.Value)
		}
	}
	return strings.Join(parts, " ")
}

// replayDigest is "sha256:<hex>" over everything that decides the
// prediction of one simulator run: the run-wide inputs (harness and
// simulator commits, toolchain, data digests), the driver, the command
// line (the run directory's and the data's paths replaced by names: their
// contents are covered by the data digests and the files below) and
// the bytes of every input file the harness wrote into dir (the
// regenerated requests, or the workload specification and, on the command
// line, its seed and request count). "" when base is nil.
func replayDigest(base []DigestInput, driver string, args []string, dir string, paths map[string]string) (string, error) {
	if base == nil {
		return "", nil
	}
	h := sha256.New()
	field := func(name, v string) { fmt.Fprintf(h, "%s\x00%d\x00%s\x00", name, len(v), v) }
	field("version", replayDigestVersion)
	for _, in := range base {
		field(in.Name, in.Value)
	}
	field("driver", driver)
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range paths {
			if !yield(k) {
				return
			}
		}
	})
	// Longer paths first, so a path inside another is replaced whole.
	slices.SortStableFunc(names, func(a, b string) int { return len(paths[b]) - len(paths[a]) })
	for _, a := range args {
		for _, n := range names {
			if p := paths[n]; p != "" {
				a = strings.ReplaceAll(a, p, "$"+n)
			}
		}
		field("arg", a)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries { // sorted by name
		if !e.Type().IsRegular() {
			return "", fmt.Errorf("replay digest: %s in the run directory is not a regular file", e.Name())
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return "", err
		}
		st, err := f.Stat()
		if err == nil {
			fmt.Fprintf(h, "file\x00%s\x00%d\x00", e.Name(), st.Size())
			_, err = io.Copy(h, f)
		}
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return ident.Digest(h.Sum(nil)), nil
}
