package pin

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	simOld    = "1111111111111111111111111111111111111111"
	simNew    = "2222222222222222222222222222222222222222"
	digestOld = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	digestNew = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	harnessOK = "harness:\n  repository: o/r\n  tag: v1.2.0\n  commit: " + oldCommit + "\n"
	simOK     = "  simulator:\n    repository: inference-sim/inference-sim\n    tag: v0.7.15\n    commit: " + simOld + "\n"
	catOK     = "  catalog:\n    source: leaderboard/catalog\n    digest: " + digestOld + "\n"
)

func TestParseLeaderboardPair(t *testing.T) {
	t.Parallel()
	got, err := Parse([]byte(harnessOK+"leaderboard:\n"+simOK+catOK), "pin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := &LeaderboardPair{
		Simulator: Harness{Repository: "inference-sim/inference-sim", Tag: "v0.7.15", Commit: simOld},
		Catalog:   LeaderboardCatalog{Source: "leaderboard/catalog", Digest: digestOld},
	}
	if d := cmp.Diff(want, got.Leaderboard); d != "" {
		t.Errorf("leaderboard pair (-want +got):\n%s", d)
	}
	// A simulator no release names, with the simulator's own configs.
	got, err = Parse([]byte(harnessOK+"leaderboard:\n  simulator:\n    repository: inference-sim/inference-sim\n    commit: "+simOld+"\n  catalog:\n    source: none\n"), "pin.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got.Leaderboard.Simulator.Tag != "" || got.Leaderboard.Catalog != (LeaderboardCatalog{Source: None}) {
		t.Errorf("untagged pair = %+v", got.Leaderboard)
	}
	// No section: no pair.
	if got, err := Parse([]byte(harnessOK), "pin.yaml"); err != nil || got.Leaderboard != nil {
		t.Errorf("pin without leaderboard = %+v, %v", got.Leaderboard, err)
	}
}

func TestParseLeaderboardPairErrors(t *testing.T) {
	t.Parallel()
	const lb = "leaderboard:\n"
	tests := []struct {
		name, src string
		line      int
		msg       string
	}{
		{"simulator alone", harnessOK + lb + simOK, 5, "missing leaderboard.catalog; the leaderboard pins its simulator and catalog as a pair"},
		{"catalog alone", harnessOK + lb + catOK, 5, "missing leaderboard.simulator; the leaderboard pins its simulator and catalog as a pair"},
		{"empty section", harnessOK + "leaderboard: {}\n", 5, "leaderboard: empty"},
		{"no digest", harnessOK + lb + simOK + "  catalog:\n    source: bundled\n", 5, `missing leaderboard.catalog.digest: catalog "bundled" is pinned by its content digest`},
		{"digest with none", harnessOK + lb + simOK + "  catalog:\n    source: none\n    digest: " + digestOld + "\n", 5, "source none hands the simulator no catalog"},
		{"no commit", harnessOK + lb + "  simulator:\n    repository: o/sim\n" + catOK, 5, "missing leaderboard.simulator.commit"},
		{"branch as tag", harnessOK + lb + "  simulator:\n    repository: o/sim\n    tag: main\n    commit: " + simOld + "\n" + catOK, 8, `leaderboard.simulator.tag: "main" is not a release tag`},
		{"short commit", harnessOK + lb + "  simulator:\n    repository: o/sim\n    commit: f90a1e3a\n" + catOK, 8, "leaderboard.simulator.commit: \"f90a1e3a\" has 8 hex digits"},
		{"bad digest", harnessOK + lb + simOK + "  catalog:\n    source: bundled\n    digest: sha256:abc\n", 12, `leaderboard.catalog.digest: "sha256:abc" is not a content digest`},
		{"catalog escapes", harnessOK + lb + simOK + "  catalog:\n    source: ../catalog\n    digest: " + digestOld + "\n", 11, `"../catalog" leaves the repository`},
		{"unknown key", harnessOK + lb + simOK + catOK + "  registry: x\n", 13, `unknown key "leaderboard.registry" (allowed under leaderboard: simulator, catalog)`},
		{"unknown simulator key", harnessOK + lb + "  simulator:\n    branch: main\n", 7, `unknown key "leaderboard.simulator.branch"`},
		{"simulator not mapping", harnessOK + lb + "  simulator: f90a1e3a\n" + catOK, 6, "leaderboard.simulator: want a mapping"},
		{"duplicate catalog", harnessOK + lb + simOK + catOK + catOK, 13, `duplicate key "leaderboard.catalog" (first at line 10)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wantParseError(t, tt.src, tt.line, tt.msg)
		})
	}
}

func pair(sim, tag, source, digest string) LeaderboardPair {
	return LeaderboardPair{Simulator: Harness{Repository: "inference-sim/inference-sim", Tag: tag, Commit: sim}, Catalog: LeaderboardCatalog{Source: source, Digest: digest}}
}

func TestCheckPairMove(t *testing.T) {
	t.Parallel()
	old := pair(simOld, "v0.7.15", "cat", digestOld)
	tests := []struct {
		name string
		next LeaderboardPair
		msg  string // "" for allowed
	}{
		{"both move", pair(simNew, "v0.7.16", "cat", digestNew), ""},
		{"nothing moves", old, ""},
		{"simulator alone", pair(simNew, "v0.7.16", "cat", digestOld), "half-moved leaderboard pin: the simulator moves from 111111111111 to 222222222222 but the catalog stays at cat (sha256:aaaaaaaaaaaa)"},
		{"catalog alone", pair(simOld, "v0.7.15", "cat", digestNew), "half-moved leaderboard pin: the catalog moves from cat (sha256:aaaaaaaaaaaa) to cat (sha256:bbbbbbbbbbbb) but the simulator stays at 111111111111"},
		{"catalog source alone", pair(simOld, "v0.7.15", "other", digestOld), "the catalog moves from cat"},
		{"catalog dropped alone", pair(simOld, "v0.7.15", None, ""), "the catalog moves from cat (sha256:aaaaaaaaaaaa) to none"},
	}
	for _, tt := range tests {
		err := CheckPairMove(old, tt.next)
		if tt.msg == "" && err != nil || tt.msg != "" && (err == nil || !strings.Contains(err.Error(), tt.msg)) {
			t.Errorf("%s: CheckPairMove = %v, want %q", tt.name, err, tt.msg)
		}
	}
	// With the simulator's own configs on both sides the simulator moves alone.
	if err := CheckPairMove(pair(simOld, "", None, ""), pair(simNew, "", None, "")); err != nil {
		t.Errorf("simulator-only pair: %v", err)
	}
}

func TestSetLeaderboardGolden(t *testing.T) {
	t.Parallel()
	next := pair(simNew, "v0.7.16", "", digestNew)
	// next on the input's simulator repository.
	nextFor := func(before Pin) LeaderboardPair {
		n := next
		n.Simulator.Repository = before.Leaderboard.Simulator.Repository
		return n
	}
	assertGoldenEdits(t, "testdata/set-leaderboard",
		func(src []byte, before Pin) ([]byte, error) { return SetLeaderboard(src, nextFor(before)) },
		func(before Pin) (Pin, *strings.Replacer) {
			lb := *before.Leaderboard
			lb.Simulator.Tag, lb.Simulator.Commit, lb.Catalog.Digest = next.Simulator.Tag, next.Simulator.Commit, next.Catalog.Digest
			want := before
			want.Leaderboard = &lb
			return want, strings.NewReplacer("v0.7.16", before.Leaderboard.Simulator.Tag, simNew, simOld, digestNew, digestOld)
		})
}

func TestSetLeaderboardRefuses(t *testing.T) {
	t.Parallel()
	src := []byte(harnessOK + "leaderboard:\n" + simOK + catOK)
	untagged := []byte(harnessOK + "leaderboard:\n  simulator:\n    repository: inference-sim/inference-sim\n    commit: " + simOld + "\n" + catOK)
	tests := []struct {
		name string
		src  []byte
		next LeaderboardPair
		msg  string
	}{
		{"simulator alone", src, pair(simNew, "v0.7.16", "", digestOld), "half-moved leaderboard pin: the simulator moves"},
		{"catalog alone", src, pair(simOld, "v0.7.15", "", digestNew), "half-moved leaderboard pin: the catalog moves"},
		{"no pair in file", []byte(harnessOK), pair(simNew, "v0.7.16", "", digestNew), "the file pins no leaderboard pair"},
		{"other repository", src, LeaderboardPair{Simulator: Harness{Repository: "fork/inference-sim", Tag: "v0.7.16", Commit: simNew}, Catalog: LeaderboardCatalog{Digest: digestNew}}, "the pin names simulator repository inference-sim/inference-sim, not fork/inference-sim"},
		{"other source", src, pair(simNew, "v0.7.16", "bundled", digestNew), `the pin's catalog source is "leaderboard/catalog", not "bundled"`},
		{"branch", src, pair(simNew, "main", "", digestNew), `"main" is not a release tag`},
		{"short commit", src, pair("f90a1e3a", "v0.7.16", "", digestNew), "40-digit"},
		{"bad digest", src, pair(simNew, "v0.7.16", "", "sha256:x"), "not a content digest"},
		{"tag removed", src, pair(simNew, "", "", digestNew), "the pin has a simulator tag; add or remove leaderboard.simulator.tag by hand"},
		{"tag added", untagged, pair(simNew, "v0.7.16", "", digestNew), "the pin has no simulator tag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := SetLeaderboard(tt.src, tt.next)
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("SetLeaderboard = %q, %v; want error containing %q", out, err, tt.msg)
			}
		})
	}
}
