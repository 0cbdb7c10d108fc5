package pin

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
)

// seedFiles adds every testdata input of dir (not the goldens) to f.
func seedFiles(f *testing.F, dir string, add func(src []byte)) {
	f.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range paths {
		if strings.HasSuffix(p, ".golden") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		add(src)
	}
}

// changedLines counts the lines an edit changed; a change of the line count
// fails the test.
func changedLines(t *testing.T, src, out []byte) int {
	t.Helper()
	a, b := bytes.Split(src, []byte("\n")), bytes.Split(out, []byte("\n"))
	if len(a) != len(b) {
		t.Fatalf("edit changed the line count from %d to %d", len(a), len(b))
	}
	changed := 0
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			changed++
		}
	}
	return changed
}

// FuzzSetLeaderboard moves the leaderboard pair of arbitrary pin files: no
// input panics; a file Parse refuses is refused; an edit reads back as the
// same pin with the pair moved, and changes at most the three pinned lines.
func FuzzSetLeaderboard(f *testing.F) {
	seedFiles(f, "set-leaderboard", func(src []byte) { f.Add(src) })
	f.Add([]byte(harnessOK + "leaderboard:\n" + simOK + catOK))
	f.Add([]byte(harnessOK + "leaderboard:\n" + simOK))
	f.Fuzz(func(t *testing.T, src []byte) {
		before, perr := Parse(src, "pin.yaml")
		next := LeaderboardPair{Simulator: Harness{Tag: "v9.9.9", Commit: simNew}, Catalog: LeaderboardCatalog{Digest: digestNew}}
		if perr == nil && before.Leaderboard != nil && before.Leaderboard.Simulator.Tag == "" {
			next.Simulator.Tag = ""
		}
		if perr == nil && before.Leaderboard != nil && before.Leaderboard.Catalog.Source == None {
			next.Catalog.Digest = ""
		}
		out, err := SetLeaderboard(src, next)
		if perr != nil {
			if err == nil {
				t.Fatalf("SetLeaderboard accepted a file Parse refuses (%v)", perr)
			}
			return
		}
		if err != nil {
			return // no pair, a half move, or values that cannot be edited in place: refused
		}
		after, err := Parse(out, "pin.yaml")
		want := before
		moved := *before.Leaderboard
		moved.Simulator.Tag, moved.Simulator.Commit, moved.Catalog.Digest = next.Simulator.Tag, next.Simulator.Commit, next.Catalog.Digest
		want.Leaderboard = &moved
		if err != nil || !after.Equal(want) {
			t.Fatalf("edited file reads back as %+v (%v), want %+v", after, err, want)
		}
		changed := changedLines(t, src, out)
		if changed > 3 {
			t.Fatalf("edit changed %d lines, want at most the tag, commit and digest lines", changed)
		}
	})
}

// FuzzSetHarness edits arbitrary pin files (consumer-controlled YAML): no
// input panics; Parse and SetHarness agree on what is a valid pin file; an
// edit keeps the line count and every line but the tag and commit lines,
// and reads back as the same pin with the new tag and commit.
func FuzzSetHarness(f *testing.F) {
	seedFiles(f, "set-harness", func(src []byte) { f.Add(src) })
	f.Add([]byte("harness:\n  repository: a/b\n  tag: v1.0.0\n  commit: " + oldCommit + "\n"))
	f.Add([]byte("harness: {repository: a/b, tag: v1.0.0, commit: " + oldCommit + "}\n"))
	f.Add([]byte("harness:\n  repository: a/b\n  tag: |\n    v1.0.0\n  commit: " + oldCommit + "\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		before, perr := Parse(src, "pin.yaml")
		out, err := SetHarness(src, newTag, newCommit)
		if perr != nil {
			if err == nil {
				t.Fatalf("SetHarness accepted a file Parse refuses (%v)", perr)
			}
			return
		}
		if err != nil {
			return // a valid file whose values cannot be edited in place: refused, with a reason
		}
		after, err := Parse(out, "pin.yaml")
		want := before
		want.Harness.Tag, want.Harness.Commit = newTag, newCommit
		if err != nil || !after.Equal(want) {
			t.Fatalf("edited file reads back as %+v (%v), want %+v", after, err, want)
		}
		changed := changedLines(t, src, out)
		if changed > 2 {
			t.Fatalf("edit changed %d lines, want at most the tag and the commit lines", changed)
		}
	})
}

// FuzzBumpUses bumps arbitrary workflow files (consumer-controlled YAML):
// no input panics; an unchanged result is the input itself; a change keeps
// the line count and the references, moving exactly the harness's
// commit-pinned ones to the new commit and tag.
func FuzzBumpUses(f *testing.F) {
	const repo = "inference-sim/accuracy-dashboard"
	seedFiles(f, "bump-uses", func(src []byte) { f.Add(src) })
	f.Add([]byte("steps:\n  - uses: " + repo + "@" + oldCommit + " # v1.0.0\n"))
	f.Add([]byte("steps:\n  - {uses: " + repo + "/sub@" + oldCommit + ", with: {a: b}}\n"))
	f.Add([]byte("steps:\n  - uses: \"" + repo + "@" + oldCommit + "\"  # pinned\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		before, ferr := FindUses(src)
		out, changed, err := BumpUses(src, repo, newTag, newCommit)
		if err != nil {
			return
		}
		if ferr != nil {
			t.Fatalf("BumpUses accepted a file FindUses refuses (%v)", ferr)
		}
		if !changed {
			if !bytes.Equal(out, src) {
				t.Fatal("unchanged, but the output differs from the input")
			}
			return
		}
		if a, b := bytes.Count(src, []byte("\n")), bytes.Count(out, []byte("\n")); a != b {
			t.Fatalf("bump changed the line count from %d to %d", a, b)
		}
		after, err := FindUses(out)
		if err != nil || len(after) != len(before) {
			t.Fatalf("bumped file has %d references (%v), want %d", len(after), err, len(before))
		}
		for i, u := range after {
			want := before[i]
			if strings.EqualFold(want.Repo, repo) && isSHA(want.Ref) {
				want.Ref, want.Comment = newCommit, newTag
			}
			if u != want {
				t.Fatalf("reference %d reads %+v, want %+v", i, u, want)
			}
		}
	})
}

// FuzzParse parses arbitrary pin files: no input panics, and an accepted
// file holds valid values.
func FuzzParse(f *testing.F) {
	seedFiles(f, "set-harness", func(src []byte) { f.Add(src) })
	f.Add([]byte("harness:\n  repository: a/b\n  tag: v1.0.0\n  commit: " + oldCommit + "\ndata:\n  ledger: ../x\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := Parse(src, "pin.yaml")
		if err != nil {
			return
		}
		if ident.CheckTag(p.Harness.Tag) != nil || ident.CheckCommit(p.Harness.Commit) != nil || CheckRepository(p.Harness.Repository) != nil {
			t.Fatalf("accepted invalid values: %+v", p)
		}
	})
}
