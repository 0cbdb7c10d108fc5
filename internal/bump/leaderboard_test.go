package bump

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
)

const (
	simName    = "inference-sim/inference-sim"
	simOld     = "3260837d16048bdfe7cd45d0dc3d3c6a688c645b"
	lbBranch   = "accuracy-bot/leaderboard"
	pinPath    = ".github/accuracy-harness.yaml"
	catalogDir = "leaderboard/catalog"
)

// lbPin is a pin file with a leaderboard pair whose catalog is catalog
// ("none", or a source and its digest).
func lbPin(catalog string) string {
	return pinV100 + `# The leaderboard's pair.
leaderboard:
  simulator:
    repository: ` + simName + `
    tag: v0.7.15   # moved by the bot
    commit: ` + simOld + `
  catalog:
` + catalog
}

var catalogV1 = map[string]string{
	catalogDir + "/models/qwen3-14b/config.json": `{"hidden_size": 5120}`,
	catalogDir + "/README.md":                    "configs for v0.7.15\n",
}

func withFiles(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// catalogDigest is the digest harness.DigestFS gives the directory dir of
// files: its files relative to it.
func catalogDigest(files map[string]string) string {
	rel := map[string][]byte{}
	for p, c := range files {
		if r, ok := strings.CutPrefix(p, catalogDir+"/"); ok {
			rel[r] = []byte(c)
		}
	}
	return ident.FilesDigest(rel)
}

func catalogPath(digest string) string {
	return "    source: " + catalogDir + "\n    digest: " + digest + "\n"
}

func TestPlanLeaderboardBump(t *testing.T) {
	t.Parallel()
	sim := ident.Repo{Owner: "inference-sim", Name: "inference-sim"}
	const newSHA = "89abcdef0123456789abcdef0123456789abcdef"
	target := SimulatorTarget{Simulator: sim, Tag: "v0.7.16", Commit: newSHA, WebURL: "https://github.com", PinFile: pinPath,
		Release: ghmodel.Release{Repo: sim, Tag: "v0.7.16", Notes: "qwen3 configs"}}
	oldDigest, newDigest := "sha256:"+strings.Repeat("1", 64), "sha256:"+strings.Repeat("2", 64)
	moved := func(src string) string {
		return strings.Replace(strings.Replace(src, "tag: v0.7.15", "tag: v0.7.16", 1), simOld, newSHA, 1)
	}
	for _, tc := range []struct {
		name    string
		pin     string // "" for no pin file
		digest  string // the catalog directory's digest now
		want    string // the pin file after, when it moves
		skip    SkipReason
		skipHas string
	}{
		{name: "catalog none: the simulator moves, the catalog with it", pin: lbPin("    source: none\n"),
			want: moved(lbPin("    source: none\n"))},
		{name: "catalog path, changed on the default branch: both move", pin: lbPin(catalogPath(oldDigest)), digest: newDigest,
			want: moved(lbPin(catalogPath(newDigest)))},
		{name: "catalog path, unchanged: moving the simulator alone would half-move the pair", pin: lbPin(catalogPath(oldDigest)), digest: oldDigest,
			skipHas: "still has the pinned content (sha256:111111111111): the pair moves together"},
		{name: "catalog path, not a directory", pin: lbPin(catalogPath(oldDigest)), skipHas: "is not a directory on the default branch"},
		{name: "catalog bundled", pin: lbPin("    source: bundled\n    digest: " + oldDigest + "\n"), skip: SkipBundledCatalog},
		{name: "no leaderboard section", pin: pinV100, skip: SkipNoLeaderboard},
		{name: "no pin file", skip: SkipNoLeaderboard},
		{name: "another simulator", pin: strings.Replace(lbPin("    source: none\n"), "repository: "+simName, "repository: someone/fork", 1),
			skipHas: "pins the simulator someone/fork, not inference-sim/inference-sim"},
		{name: "a newer simulator", pin: strings.Replace(lbPin("    source: none\n"), "tag: v0.7.15", "tag: v0.8.0", 1), skip: SkipNewer},
		{name: "this release", pin: moved(lbPin("    source: none\n")), skip: SkipUpToDate},
		{name: "a simulator commit without a tag", pin: strings.Replace(lbPin("    source: none\n"), "    tag: v0.7.15   # moved by the bot\n", "", 1),
			skipHas: "without a tag; add leaderboard.simulator.tag by hand"},
	} {
		files := ConsumerFiles{PinPath: pinPath, CatalogDigest: tc.digest}
		if tc.pin != "" {
			files.Pin = []byte(tc.pin)
		}
		plan, err := PlanLeaderboardBump(files, target)
		var skip SkipReason
		switch {
		case tc.want != "":
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
				continue
			}
			if d := cmp.Diff(tc.want, string(plan.Files[pinPath])); d != "" || len(plan.Files) != 1 {
				t.Errorf("%s: %d files; pin file (-want +got):\n%s", tc.name, len(plan.Files), d)
			}
			// The move is one the pair's own rule accepts.
			before, _ := pin.Parse([]byte(tc.pin), pinPath)
			after, err := pin.Parse(plan.Files[pinPath], pinPath)
			if err != nil || pin.CheckPairMove(*before.Leaderboard, *after.Leaderboard) != nil || after.Harness != before.Harness {
				t.Errorf("%s: the moved pin does not read back as a pair move: %v", tc.name, err)
			}
			if !strings.HasPrefix(plan.Body, render.LeaderboardBumpMarker) || !strings.Contains(plan.Body, "re-runs every declared run on the new pair") ||
				!strings.HasSuffix(plan.Message, LeaderboardTrailer+"\n") || !strings.HasPrefix(plan.Title, "Bump leaderboard simulator to v0.7.16") {
				t.Errorf("%s: title %q, message %q, body:\n%s", tc.name, plan.Title, plan.Message, plan.Body)
			}
		case !errors.As(err, &skip):
			t.Errorf("%s: %v, want a skip", tc.name, err)
		case tc.skip != "" && skip != tc.skip, tc.skipHas != "" && !strings.Contains(string(skip), tc.skipHas):
			t.Errorf("%s: skipped for %q", tc.name, skip)
		}
	}
	// A broken pin file is an error naming it, not a skip.
	_, err := PlanLeaderboardBump(ConsumerFiles{PinPath: pinPath, Pin: []byte("leaderboard: [")}, target)
	var skip SkipReason
	if err == nil || errors.As(err, &skip) || !strings.Contains(err.Error(), pinPath) {
		t.Errorf("broken pin file: %v", err)
	}
}

func TestSimulatorReleaseDecision(t *testing.T) {
	t.Parallel()
	sim := ident.Repo{Owner: "inference-sim", Name: "inference-sim"}
	for _, tc := range []struct {
		rel  ghmodel.Release
		want string
	}{
		{ghmodel.Release{Repo: sim, Tag: "v0.7.16"}, ""},
		{ghmodel.Release{Repo: sim, Tag: "v0.8.0-rc.1", Prerelease: true}, "prerelease (allow_prereleases is off) of the simulator"},
		// A pre-release tag not marked as one is still no release build.
		{ghmodel.Release{Repo: sim, Tag: "v0.8.0-rc.1"}, `tag "v0.8.0-rc.1" is a pre-release; the leaderboard pins release builds only`},
		{ghmodel.Release{Repo: sim, Tag: "v0.7.16", Draft: true}, "draft release of the simulator"},
		{ghmodel.Release{Repo: sim, Tag: "nightly"}, `tag "nightly" is not a release tag of the simulator`},
		{ghmodel.Release{Repo: ident.Repo{Owner: "o", Name: "r"}, Tag: "v1.0.0"}, "release of o/r, not of the simulator inference-sim/inference-sim"},
	} {
		if got := SimulatorReleaseDecision(tc.rel, sim); got != tc.want {
			t.Errorf("SimulatorReleaseDecision(%+v) = %q, want %q", tc.rel, got, tc.want)
		}
	}
	// With the simulator configured, the bumper's decision is the
	// simulator's for its releases and the harness's for the harness's.
	b := &Bumper{Cfg: BumpConfig{Harness: ident.Repo{Owner: "inference-sim", Name: "accuracy-dashboard"}, Simulator: sim, AllowPrereleases: true}}
	if got := b.SkipRelease(ghmodel.Release{Repo: sim, Tag: "v0.8.0-rc.1", Prerelease: true}); got == "" {
		t.Error("a simulator pre-release bumps with allow_prereleases on")
	}
	if got := b.SkipRelease(ghmodel.Release{Repo: b.Cfg.Harness, Tag: "v1.0.0-rc.1", Prerelease: true}); got != "" {
		t.Errorf("a harness pre-release with allow_prereleases: %q", got)
	}
	// Without it, a simulator release is another repository's.
	b.Cfg.Simulator = ident.Repo{}
	if got := b.SkipRelease(ghmodel.Release{Repo: sim, Tag: "v0.7.16"}); !strings.Contains(got, "not of the harness") {
		t.Errorf("no simulator configured: %q", got)
	}
}

// lbWorld: the simulator released v0.7.16; org/app pins a leaderboard with
// catalog none, org/cat one with a catalog path edited on main since it was
// pinned, org/lib only the harness.
type lbWorld struct {
	*bumpWorld
	sim, cat ident.Repo
	rel      ghmodel.Release
	sha      string
}

func newLBWorld(t *testing.T) *lbWorld {
	w := &lbWorld{bumpWorld: newBumpWorld(t)}
	w.sim = w.gh.AddRepo(simName, map[string]string{"go.mod": "module sim\n"}, false)
	w.gh.Push(w.app, "main", map[string]string{pinPath: lbPin("    source: none\n")}, "pin the leaderboard", ghmodel.Identity{Login: "human"})
	w.cat = w.gh.AddRepo("org/cat", withFiles(catalogV1, map[string]string{pinPath: lbPin(catalogPath(catalogDigest(catalogV1)))}), true)
	w.gh.Push(w.cat, "main", map[string]string{catalogDir + "/models/qwen3-14b/config.json": `{"hidden_size": 5120, "v": 2}`}, "catalog for v0.7.16", ghmodel.Identity{Login: "human"})
	w.rel, w.sha = w.gh.AddRelease(w.sim, "v0.7.16", "Qwen3 fixes. Thanks @bob (#7).")
	w.bumper.Cfg.Simulator, w.bumper.Cfg.LeaderboardBranch = w.sim, lbBranch
	return w
}

func TestBumpSimulatorReleaseMovesEachLeaderboardPair(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newLBWorld(t)
	// A harness bump pull request is open in org/app: the leaderboard bump
	// neither supersedes it nor is superseded by it.
	hrel, _ := w.gh.AddRelease(w.harness, "v1.1.0", "")
	if _, err := w.bumper.BumpRelease(ctx, hrel, nil); err != nil {
		t.Fatal(err)
	}
	got, err := w.bumper.BumpRelease(ctx, w.rel, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"org/app": OutcomeCreated, "org/cat": OutcomeCreated, "org/lib": OutcomeSkipped, "org/plain": OutcomeSkipped, "org/newer": OutcomeSkipped}
	if d := cmp.Diff(want, outcomes(got)); d != "" {
		t.Errorf("outcomes (-want +got):\n%s", d)
	}
	for _, o := range got {
		if o.Repo == w.lib && o.Reason != string(SkipNoLeaderboard) {
			t.Errorf("org/lib skipped for %q", o.Reason)
		}
	}
	// org/app: the simulator moves; the catalog none stays; nothing else.
	mainPin := string(w.gh.Tip(w.app, "main")[pinPath])
	wantPin := strings.Replace(strings.Replace(mainPin, "tag: v0.7.15", "tag: v0.7.16", 1), simOld, w.sha, 1)
	if d := cmp.Diff(wantPin, string(w.gh.Tip(w.app, lbBranch)[pinPath])); d != "" {
		t.Errorf("org/app pin on %s (-want +got):\n%s", lbBranch, d)
	}
	// org/cat: the simulator and the catalog's digest move together.
	catFiles := map[string]string{}
	for p, c := range w.gh.Tip(w.cat, "main") {
		catFiles[p] = string(c)
	}
	newDigest := catalogDigest(catFiles)
	wantPin = strings.Replace(strings.Replace(strings.Replace(catFiles[pinPath], "tag: v0.7.15", "tag: v0.7.16", 1), simOld, w.sha, 1), catalogDigest(catalogV1), newDigest, 1)
	if d := cmp.Diff(wantPin, string(w.gh.Tip(w.cat, lbBranch)[pinPath])); d != "" || newDigest == catalogDigest(catalogV1) {
		t.Errorf("org/cat pin on %s (-want +got):\n%s", lbBranch, d)
	}
	for _, repo := range []ident.Repo{w.app, w.cat} {
		var lb []ghmodel.Pull
		for _, p := range w.gh.OpenPullsOf(repo) {
			if p.Head == lbBranch {
				lb = append(lb, p)
			}
		}
		if len(lb) != 1 || !strings.HasPrefix(lb[0].Body, render.LeaderboardBumpMarker) || !strings.Contains(lb[0].Body, "compare/v0.7.15...v0.7.16") {
			t.Errorf("%s: leaderboard pull requests %+v", repo, lb)
		}
	}
	if n := len(w.gh.OpenPullsOf(w.app)); n != 2 {
		t.Errorf("org/app: %d open pull requests, want the harness bump and the leaderboard bump", n)
	}

	// A redelivery changes nothing.
	before := len(w.gh.Writes)
	again, err := w.bumper.BumpRelease(ctx, w.rel, nil)
	if err != nil {
		t.Fatal(err)
	}
	if extra := w.gh.Writes[before:]; len(extra) != 0 {
		t.Errorf("redelivery wrote %v, want nothing", extra)
	}
	if o := outcomes(again); o["org/app"] != OutcomeUnchanged || o["org/cat"] != OutcomeUnchanged {
		t.Errorf("redelivery outcomes = %v", o)
	}

	// The next release moves the same pull request, in place.
	rel2, sha2 := w.gh.AddRelease(w.sim, "v0.7.17", "")
	w.gh.Push(w.cat, "main", map[string]string{catalogDir + "/README.md": "configs for v0.7.17\n"}, "catalog for v0.7.17", ghmodel.Identity{Login: "human"})
	got, err = w.bumper.BumpRelease(ctx, rel2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := outcomes(got); o["org/app"] != OutcomeUpdated || o["org/cat"] != OutcomeUpdated {
		t.Errorf("second release outcomes = %v", o)
	}
	if p := string(w.gh.Tip(w.app, lbBranch)[pinPath]); !strings.Contains(p, "tag: v0.7.17") || !strings.Contains(p, sha2) {
		t.Errorf("org/app not moved to v0.7.17:\n%s", p)
	}
}

// This repository's own pin file (catalog none) moves to a simulator
// release in place: only the leaderboard's tag and commit change, every
// comment kept.
func TestPlanLeaderboardBumpOfThisRepositorysPin(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("../../" + pinPath)
	if err != nil {
		t.Fatal(err)
	}
	own, err := pin.Parse(src, pinPath)
	if err != nil || own.Leaderboard == nil || own.Leaderboard.Catalog.Source != pin.None {
		t.Fatalf("this repository's pin: %+v, %v (the test assumes a leaderboard pair with catalog none)", own.Leaderboard, err)
	}
	const next = "89abcdef0123456789abcdef0123456789abcdef"
	sim, _ := ident.ParseRepo(own.Leaderboard.Simulator.Repository)
	plan, err := PlanLeaderboardBump(ConsumerFiles{PinPath: pinPath, Pin: src}, SimulatorTarget{Simulator: sim, Tag: "v99.0.0", Commit: next, PinFile: pinPath})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(strings.Replace(string(src), "tag: "+own.Leaderboard.Simulator.Tag, "tag: v99.0.0", 1), own.Leaderboard.Simulator.Commit, next, 1)
	if d := cmp.Diff(want, string(plan.Files[pinPath])); d != "" {
		t.Errorf("this repository's pin moved (-want +got):\n%s", d)
	}
}

// A leaderboard bump a maintainer closed without merging is final until a
// newer simulator release, as a harness bump's is; a human's push to the
// leaderboard branch stops the bot touching it.
func TestLeaderboardBumpClosedOrPushedToIsLeftAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newLBWorld(t)
	if _, err := w.bumper.BumpRelease(ctx, w.rel, nil); err != nil {
		t.Fatal(err)
	}
	var closed int
	for _, p := range w.gh.OpenPullsOf(w.app) {
		if p.Head == lbBranch {
			closed = p.Number
		}
	}
	w.gh.MarkClosed(w.app, closed)
	humanSHA := w.gh.Push(w.cat, lbBranch, map[string]string{"tweak": "1"}, "tweak", ghmodel.Identity{Login: "human"})
	before := len(w.gh.Writes)
	got, err := w.bumper.BumpRelease(ctx, w.rel, nil)
	if err != nil {
		t.Fatal(err)
	}
	if extra := w.gh.Writes[before:]; len(extra) != 0 {
		t.Errorf("wrote %v, want nothing", extra)
	}
	if o := outcomes(got); o[w.app.String()] != OutcomeSkipped || o[w.cat.String()] != OutcomeSkipped {
		t.Errorf("outcomes after the close and the push: %v, want both skipped", o)
	}
	for _, o := range got {
		switch {
		case o.Repo == w.app && (o.Outcome != OutcomeSkipped || !strings.Contains(o.Reason, "closed without merging")):
			t.Errorf("org/app after its bump was closed: %+v", o)
		case o.Repo == w.cat && (o.Outcome != OutcomeSkipped || !strings.Contains(o.Reason, "not made by the bot")):
			t.Errorf("org/cat after a human's push: %+v", o)
		}
	}
	if head, _ := w.gh.BranchHead(ctx, w.cat, lbBranch); head != humanSHA {
		t.Error("org/cat's leaderboard branch moved from the human's commit")
	}
	// A newer release proposes a bump again where it was closed.
	rel2, _ := w.gh.AddRelease(w.sim, "v0.7.17", "")
	got, err = w.bumper.BumpRelease(ctx, rel2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o := outcomes(got); o["org/app"] != OutcomeUpdated && o["org/app"] != OutcomeCreated {
		t.Errorf("org/app at a newer release: %v", o)
	}
}
