package harness

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/git"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// ModulePath is the harness's Go module path; its go.mod marks the harness's
// own directory.
const ModulePath = "github.com/inference-sim/accuracy-dashboard"

// HarnessCommitFile states the harness commit, and the release naming it,
// in a copy without git history (ParseHarnessCommit).
const HarnessCommitFile = "HARNESS_COMMIT"

// ErrDirtyHarness is returned when the harness checkout has tracked files
// that differ from its HEAD: figures from it could not be regenerated.
var ErrDirtyHarness = errors.New("harness checkout has uncommitted changes")

// FindHarnessDir walks up from start to the directory whose go.mod declares
// the harness module.
func FindHarnessDir(start string) (string, error) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", err
	}
	for {
		if f, err := os.Open(filepath.Join(dir, "go.mod")); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if fields := strings.Fields(sc.Text()); len(fields) == 2 && fields[0] == "module" && fields[1] == ModulePath {
					f.Close()
					return dir, nil
				}
			}
			f.Close()
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no harness directory (a go.mod declaring %s) at or above %s: run from the harness checkout or pass --harness-dir", ModulePath, start)
		}
		dir = parent
	}
}

// IdentifyHarness is the HarnessIdentity of dir or, when dir is "", of the
// harness directory the working directory lies in (FindHarnessDir): the
// harness a command runs from, as it records itself.
func IdentifyHarness(ctx context.Context, dir string) (runresult.Harness, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return runresult.Harness{}, err
		}
		if dir, err = FindHarnessDir(wd); err != nil {
			return runresult.Harness{}, err
		}
	}
	return HarnessIdentity(ctx, dir)
}

// HarnessIdentity determines the commit of the harness in dir: the HEAD of a
// clean git checkout whose top level is dir itself; or, for a copy without
// git history, the commit stated in its HARNESS_COMMIT file (by assertion).
// A checkout with tracked changes is refused (ErrDirtyHarness); a directory
// inside another repository is not a checkout of the harness.
func HarnessIdentity(ctx context.Context, dir string) (runresult.Harness, error) {
	abs, top, own, err := ownCheckout(ctx, dir)
	if err != nil {
		return runresult.Harness{}, err
	}
	if own {
		if _, err := git.Run(ctx, abs, "update-index", "-q", "--refresh"); err != nil {
			return runresult.Harness{}, err
		}
		status, err := git.Run(ctx, abs, "status", "--porcelain", "--untracked-files=no")
		if err != nil {
			return runresult.Harness{}, err
		}
		if status != "" {
			return runresult.Harness{}, fmt.Errorf("%w in %s (commit or revert them):\n%s", ErrDirtyHarness, abs, status)
		}
		head, err := git.Run(ctx, abs, "rev-parse", "HEAD")
		if err != nil {
			return runresult.Harness{}, fmt.Errorf("harness checkout %s: %w", abs, err)
		}
		return runresult.Harness{Commit: head, Source: runresult.HarnessCheckout, Version: ident.NewestRelease(tagsAt(ctx, abs, head))}, nil
	}
	raw, err := os.ReadFile(filepath.Join(abs, HarnessCommitFile))
	if err != nil {
		why := "it is not a git checkout"
		if top != "" {
			why = fmt.Sprintf("it lies inside another repository (%s), so it is not a checkout of the harness", top)
		}
		return runresult.Harness{}, fmt.Errorf("cannot tell the harness commit of %s: %s, and it has no %s file", abs, why, HarnessCommitFile)
	}
	return ParseHarnessCommit(raw, filepath.Join(abs, HarnessCommitFile))
}

// ParseHarnessCommit reads a HARNESS_COMMIT file: the harness commit (40
// hex) and, optionally after white space, the release tag that names it
// (vX.Y.Z), e.g. "0123…cdef v1.2.0". name is the file, for errors. The
// result is by assertion: the bot publishes such figures only when the
// release is published and names that commit on the default branch.
func ParseHarnessCommit(raw []byte, name string) (runresult.Harness, error) {
	fields := strings.Fields(string(raw))
	if len(fields) == 0 || len(fields) > 2 {
		return runresult.Harness{}, fmt.Errorf("%s: want \"<40-hex commit> [<release tag>]\", got %q", name, strings.TrimSpace(string(raw)))
	}
	if !ident.IsCommit(fields[0]) {
		return runresult.Harness{}, fmt.Errorf("%s: %q is not a 40-hex commit", name, fields[0])
	}
	h := runresult.Harness{Commit: fields[0], Source: runresult.HarnessAssertion}
	if len(fields) == 2 {
		if !ident.IsStableRelease(fields[1]) {
			return runresult.Harness{}, fmt.Errorf("%s: %q is not a release tag vX.Y.Z", name, fields[1])
		}
		h.Version = fields[1]
	}
	return h, nil
}

// ownCheckout resolves dir (absolute, symlinks followed) and tells whether it
// is the top level of its own git checkout. top is git's top level for dir,
// "" when dir is in no checkout.
func ownCheckout(ctx context.Context, dir string) (abs, top string, own bool, err error) {
	if abs, err = filepath.Abs(dir); err != nil {
		return "", "", false, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	top, err = git.Run(ctx, abs, "rev-parse", "--show-toplevel")
	if err != nil {
		return abs, "", false, nil
	}
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	return abs, top, top == abs, nil
}

// tagsAt lists the tags naming commit in the repository at dir.
func tagsAt(ctx context.Context, dir, commit string) []string {
	out, err := git.Run(ctx, dir, "tag", "--points-at", commit)
	if err != nil || out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// DigestFS is "sha256:<hex>" over every regular file of fsys: its path,
// size and bytes, in path order. A symbolic link or any other file that is
// not regular is an error, not skipped: the simulator would read what it
// points to while the digest (provenance, the Action's cache key) did not
// cover it.
func DigestFS(fsys fs.FS) (string, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type().IsRegular():
			paths = append(paths, p)
		case d.Type()&fs.ModeSymlink != 0:
			return fmt.Errorf("%s is a symbolic link; a data directory holds regular files only (copy the file in)", p)
		case !d.IsDir():
			return fmt.Errorf("%s is not a regular file", p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(paths)
	d := ident.NewDirHash()
	for _, p := range paths {
		f, err := fsys.Open(p)
		if err != nil {
			return "", err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return "", err
		}
		err = d.Add(p, st.Size(), f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return d.Sum(), nil
}

// DirVersion identifies a data directory handed in by path. It is a release
// only when it is a clean git checkout (its own top level) whose HEAD a tag
// names; its version is then the tag, else the commit or, outside git, the
// content digest.
func DirVersion(ctx context.Context, name, dir string) (runresult.DataVersion, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return runresult.DataVersion{}, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return runresult.DataVersion{}, fmt.Errorf("%s %s: %w", name, dir, err)
	}
	if !st.IsDir() {
		return runresult.DataVersion{}, fmt.Errorf("%s %s: not a directory", name, dir)
	}
	digest, err := DigestFS(os.DirFS(abs))
	if err != nil {
		return runresult.DataVersion{}, fmt.Errorf("%s %s: %w", name, dir, err)
	}
	v := runresult.DataVersion{Name: name + " " + filepath.Base(abs), Version: ident.DigestPrefix + ident.ShortDigest(digest), Digest: digest}
	if version, release, ok := CheckoutVersion(ctx, abs); ok {
		v.Version, v.Release = version, release
	}
	return v, nil
}

// CheckoutVersion tells the version of dir when it is a git checkout of its
// own: the release tag (else any tag) naming a clean HEAD, with release
// true; otherwise the HEAD commit, with "+modified" when files differ from
// it. ok is false when dir is not its own checkout.
func CheckoutVersion(ctx context.Context, dir string) (version string, release, ok bool) {
	abs, _, own, err := ownCheckout(ctx, dir)
	if err != nil || !own {
		return "", false, false
	}
	head, err := git.Run(ctx, abs, "rev-parse", "HEAD")
	if err != nil {
		return "", false, false
	}
	status, err := git.Run(ctx, abs, "status", "--porcelain")
	if err != nil || status != "" {
		return head + "+modified", false, true
	}
	tags := tagsAt(ctx, abs, head)
	if len(tags) == 0 {
		return head, false, true
	}
	if rel := ident.NewestRelease(tags); rel != "" {
		return rel, true, true
	}
	return tags[0], true, true
}

// DumpImport is what a ledger's import report says about where it came
// from: the InferenceX weekly dump and the harness that imported it.
type DumpImport struct {
	// Dump is the dump's release tag, db-dump/YYYY-MM-DD.
	Dump string
	// Importer is the harness that ran the import.
	Importer runresult.Harness
}

// DumpLedgerVersion is the rule that makes a ledger imported from an
// InferenceX weekly dump released data. The ledger (manifest m, content
// digest) is a release when
//
//   - its manifest says release and its version is the dump's date,
//   - the dump is a weekly dump release tag db-dump/YYYY-MM-DD, and
//   - the harness that imported it is a harness release and is the harness
//     scoring it (scorer: same commit, same release).
//
// Such a ledger is regenerable from releases: restore that dump, run that
// harness release's ledger import with the options its import report
// records, and the content digest must come out equal. Its version is the
// dump tag and the digest, "db-dump/YYYY-MM-DD+<12 hex>", release or not;
// why says what kept it from being a release ("" when it is one).
func DumpLedgerVersion(m ledger.Manifest, digest string, imp DumpImport, scorer runresult.Harness) (version string, release bool, why string) {
	version = imp.Dump + "+" + ident.ShortDigest(digest)
	date, ok := ident.DumpTagDate(imp.Dump)
	im := imp.Importer
	switch {
	case !ok:
		return version, false, fmt.Sprintf("%q is not a weekly dump tag %sYYYY-MM-DD", imp.Dump, ident.DumpTagPrefix)
	case !m.Release:
		return version, false, "its manifest does not say release (import with --release)"
	case m.Version != date:
		return version, false, fmt.Sprintf("its manifest version %q is not the dump's date %s", m.Version, date)
	case im.Version == "" || !ident.IsCommit(im.Commit):
		return version, false, fmt.Sprintf("it was imported by harness commit %q, which no release names", im.Commit)
	case im.Commit != scorer.Commit || im.Version != scorer.Version:
		return version, false, fmt.Sprintf("it was imported by harness %s (%s), not by the harness scoring it, %s (%s)",
			im.Version, im.Commit, orUnknown(scorer.Version), scorer.Commit)
	}
	return version, true, ""
}

func orUnknown(s string) string {
	if s == "" {
		return "(no release)"
	}
	return s
}

// Stamped is the identity a binary of the harness states about itself, or
// false when it states none: the commit and release a release build sets
// at link time (linkCommit, linkVersion: -ldflags "-X main.commit=… -X
// main.version=…"), else the Go toolchain's VCS stamp of a `go build` in a
// clean checkout (info's vcs.revision, with vcs.modified false; its
// Main.Version when that is a release tag). A commit that is not 40 hex,
// or a checkout built with uncommitted changes, states none. The identity
// is by assertion, as a HARNESS_COMMIT file's is.
func Stamped(linkCommit, linkVersion string, info *debug.BuildInfo) (runresult.Harness, bool) {
	version := func(v string) string {
		if ident.IsStableRelease(v) {
			return v
		}
		return ""
	}
	if linkCommit != "" {
		if !ident.IsCommit(linkCommit) {
			return runresult.Harness{}, false
		}
		return runresult.Harness{Commit: linkCommit, Source: runresult.HarnessAssertion, Version: version(linkVersion)}, true
	}
	if info == nil {
		return runresult.Harness{}, false
	}
	var commit string
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision":
			commit = s.Value
		case s.Key == "vcs.modified" && s.Value != "false":
			return runresult.Harness{}, false
		}
	}
	if !ident.IsCommit(commit) {
		return runresult.Harness{}, false
	}
	return runresult.Harness{Commit: commit, Source: runresult.HarnessAssertion, Version: version(info.Main.Version)}, true
}

// IdentifyTool is the identity a command records as the tool that ran it:
// the HarnessIdentity of dir when one is given; else the binary's own
// (self, from Stamped; nil: it states none), so that an installed binary
// runs anywhere; else IdentifyHarness of the working directory's checkout.
func IdentifyTool(ctx context.Context, dir string, self *runresult.Harness) (runresult.Harness, error) {
	if dir == "" && self != nil {
		return *self, nil
	}
	h, err := IdentifyHarness(ctx, dir)
	if err != nil && dir == "" {
		return runresult.Harness{}, fmt.Errorf("%w; or run a binary that states its commit (built by `go build` in a clean checkout, or a release build)", err)
	}
	return h, err
}

// Self is the running binary's own identity (Stamped over its link-time
// values and its build information), or nil when it states none.
func Self(linkCommit, linkVersion string) *runresult.Harness {
	info, _ := debug.ReadBuildInfo()
	if h, ok := Stamped(linkCommit, linkVersion, info); ok {
		return &h
	}
	return nil
}
