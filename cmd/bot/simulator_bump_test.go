package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
)

const (
	simulatorRepo = "inference-sim/inference-sim"
	simPinned     = "5555555555555555555555555555555555555555"
	lbBranch      = "accuracy-bot/leaderboard"
	lbPinPath     = ".github/accuracy-harness.yaml"
)

// pairPin is pinFile with a leaderboard pair at v0.7.15 (simPinned) whose
// catalog is catalog (its lines under catalog:).
func pairPin(catalog string) string {
	return pinFile + `leaderboard:
  simulator:
    repository: ` + simulatorRepo + `
    tag: v0.7.15
    commit: ` + simPinned + `
  catalog:
` + catalog
}

// simWorld is world with the App installed on the simulator too, which has
// tagged v0.7.16 (and v0.8.0-rc.1); org/app pins a leaderboard with catalog
// none, lab/cat one with a catalog directory changed on main since it was
// pinned, org/lib only the harness in a workflow.
type simWorld struct {
	*world
	tagged      string // the commit v0.7.16 names
	catOld      string // lab/cat's pinned catalog digest
	catNew      string // its catalog's digest on main
	catOriginal string // lab/cat's pin file on main
}

func newSimWorld(t *testing.T) *simWorld {
	w := &simWorld{world: newWorld(t)}
	f := w.fake
	f.Install(githubfake.Installation{ID: 3, Account: "inference-sim", Repositories: []string{simulatorRepo}})
	f.AddRepo(simulatorRepo, "main")
	f.Commit(simulatorRepo, "main", "maintainer", "init", map[string]string{"go.mod": "module sim\n"})
	w.tagged = f.Commit(simulatorRepo, "main", "maintainer", "v0.7.16", map[string]string{"VERSION": "v0.7.16\n"})
	f.Tag(simulatorRepo, "v0.7.16", w.tagged, false)
	f.AddRelease(simulatorRepo, githubfake.Release{Tag: "v0.7.16", Name: "v0.7.16", Body: "Qwen3 fixes. Thanks @bob (#7)."})
	rc := f.Commit(simulatorRepo, "main", "maintainer", "v0.8.0-rc.1", map[string]string{"VERSION": "v0.8.0-rc.1\n"})
	f.Tag(simulatorRepo, "v0.8.0-rc.1", rc, false)

	f.Commit("org/app", "main", "dev", "pin the leaderboard", map[string]string{lbPinPath: pairPin("    source: none\n")})
	catV1 := map[string][]byte{"models/qwen3-14b/config.json": []byte(`{"hidden_size": 5120}`)}
	catV2 := map[string][]byte{"models/qwen3-14b/config.json": []byte(`{"hidden_size": 5120, "v": 2}`), "models/qwen3-32b/config.json": []byte(`{}`)}
	w.catOld, w.catNew = ident.FilesDigest(catV1), ident.FilesDigest(catV2)
	w.catOriginal = pairPin("    source: leaderboard/catalog\n    digest: " + w.catOld + "\n")
	f.AddRepo("lab/cat", "main")
	f.Commit("lab/cat", "main", "dev", "init", map[string]string{lbPinPath: w.catOriginal, "leaderboard/catalog/models/qwen3-14b/config.json": string(catV1["models/qwen3-14b/config.json"])})
	f.Commit("lab/cat", "main", "dev", "catalog for v0.7.16", map[string]string{
		"leaderboard/catalog/models/qwen3-14b/config.json": string(catV2["models/qwen3-14b/config.json"]),
		"leaderboard/catalog/models/qwen3-32b/config.json": string(catV2["models/qwen3-32b/config.json"]),
	})
	f.Install(githubfake.Installation{ID: 4, Account: "lab", Repositories: []string{"lab/cat"}})
	w.vars["BOT_REPOSITORIES"] = "org/app,org/lib,org/plain,lab/cat"
	return w
}

func simReleaseEvent(t *testing.T, tag string, prerelease bool) []byte {
	return payload(t, "release", "published", nil, func(m map[string]any) {
		m["repository"].(map[string]any)["full_name"] = simulatorRepo
		rel := m["release"].(map[string]any)
		rel["tag_name"], rel["body"], rel["prerelease"] = tag, "Qwen3 fixes. Thanks @bob (#7).", prerelease
	})
}

func file(t *testing.T, f *githubfake.Server, repo, ref, path string) string {
	t.Helper()
	s, ok := f.File(repo, ref, path)
	if !ok {
		t.Errorf("%s has no %s at %s", repo, path, ref)
	}
	return s
}

func lbPulls(f *githubfake.Server, repo string) []githubfake.PullRequest {
	var out []githubfake.PullRequest
	for _, p := range openPulls(f, repo) {
		if p.Head == lbBranch {
			out = append(out, p)
		}
	}
	return out
}

// A release of the simulator, delivered as GitHub delivers it, opens one
// pull request in each repository whose pin file has a leaderboard: pair,
// moving simulator and catalog together; a redelivery opens nothing more;
// a pre-release, and a tag that is not a release tag, are ignored.
func TestServeSimulatorReleaseMovesTheLeaderboardPair(t *testing.T) {
	w := newSimWorld(t)
	addr, done := w.serve(t)

	// Ignored without being queued: a pre-release, a non-release tag.
	for i, body := range [][]byte{simReleaseEvent(t, "v0.8.0-rc.1", true), simReleaseEvent(t, "v0.8.0-rc.1", false), simReleaseEvent(t, "nightly", false)} {
		if code := post(t, addr, "release", "ignored-"+string(rune('a'+i)), body); code != http.StatusOK {
			t.Errorf("ignored release %d: %d, want 200", i, code)
		}
	}
	if n := w.fake.CallCounts()["git/create-commit"]; n != 0 {
		t.Fatalf("an ignored release wrote %d commits", n)
	}

	body := simReleaseEvent(t, "v0.7.16", false)
	if code := post(t, addr, "release", "sim-1", body); code != http.StatusAccepted {
		t.Fatalf("release: %d", code)
	}
	waitDelivery(t, done)
	for _, repo := range []string{"org/app", "lab/cat"} {
		if !logged(t, w.stderr.String(), map[string]any{"msg": "bump", "delivery": "sim-1", "consumer": repo, "outcome": "created"}) {
			t.Errorf("%s: no pull request created:\n%s", repo, w.stderr)
		}
	}
	for _, repo := range []string{"org/lib", "org/plain"} {
		if !logged(t, w.stderr.String(), map[string]any{"msg": "bump", "delivery": "sim-1", "consumer": repo, "outcome": "skipped",
			"reason": "pins no leaderboard pair (no leaderboard: section in its pin file)"}) {
			t.Errorf("%s: not skipped for having no leaderboard pair:\n%s", repo, w.stderr)
		}
		if n := len(openPulls(w.fake, repo)); n != 0 {
			t.Errorf("%s: %d pull requests, want none", repo, n)
		}
	}

	// org/app: the simulator moves, its catalog none with it.
	app := lbPulls(w.fake, "org/app")
	if len(app) != 1 {
		t.Fatalf("org/app: %d leaderboard pull requests, want 1", len(app))
	}
	wantApp := strings.Replace(strings.Replace(pairPin("    source: none\n"), "tag: v0.7.15", "tag: v0.7.16", 1), simPinned, w.tagged, 1)
	if d := cmp.Diff(wantApp, file(t, w.fake, "org/app", lbBranch, lbPinPath)); d != "" {
		t.Errorf("org/app pin on %s (-want +got):\n%s", lbBranch, d)
	}
	if p := app[0]; p.Title != "Bump leaderboard simulator to v0.7.16" || !strings.HasPrefix(p.Body, render.LeaderboardBumpMarker) ||
		!strings.Contains(p.Body, "re-runs every declared run on the new pair") || !strings.Contains(p.Body, "@\u200dbob") ||
		!strings.Contains(p.Body, "compare/v0.7.15...v0.7.16") {
		t.Errorf("org/app pull request %q:\n%s", p.Title, p.Body)
	}
	// lab/cat: simulator and catalog digest move in one commit.
	wantCat := strings.Replace(strings.Replace(strings.Replace(w.catOriginal, "tag: v0.7.15", "tag: v0.7.16", 1), simPinned, w.tagged, 1), w.catOld, w.catNew, 1)
	if d := cmp.Diff(wantCat, file(t, w.fake, "lab/cat", lbBranch, lbPinPath)); d != "" {
		t.Errorf("lab/cat pin on %s (-want +got):\n%s", lbBranch, d)
	}
	if p := lbPulls(w.fake, "lab/cat"); len(p) != 1 || p[0].Title != "Bump leaderboard simulator to v0.7.16 with its catalog" || !strings.Contains(p[0].Body, w.catNew) {
		t.Errorf("lab/cat pull requests %+v", p)
	}
	commits := w.fake.CallCounts()["git/create-commit"]
	if commits != 2 {
		t.Errorf("%d commits, want one per repository with a leaderboard pair", commits)
	}

	// A redelivery of the release, under a new delivery id, makes no second
	// pull request and writes nothing.
	calls := w.fake.CallCounts()
	if code := post(t, addr, "release", "sim-2", append(body, ' ')); code != http.StatusAccepted {
		t.Fatalf("redelivery: %d", code)
	}
	waitDelivery(t, done)
	wroteNothing(t, calls, w.fake.CallCounts())
	for _, repo := range []string{"org/app", "lab/cat"} {
		if n := len(lbPulls(w.fake, repo)); n != 1 {
			t.Errorf("%s: %d leaderboard pull requests after the redelivery, want 1", repo, n)
		}
	}

	// The simulator pushes v0.7.17 without a GitHub release: GitHub's
	// create event moves the same pull request; the harness's tags are
	// left to its releases.
	pushed := w.fake.Commit(simulatorRepo, "main", "maintainer", "v0.7.17", map[string]string{"VERSION": "v0.7.17\n"})
	w.fake.Tag(simulatorRepo, "v0.7.17", pushed, false)
	tagEvent := func(repo, tag string) []byte {
		return payload(t, "create", "", nil, func(m map[string]any) {
			m["repository"].(map[string]any)["full_name"], m["ref"], m["ref_type"] = repo, tag, "tag"
		})
	}
	if code := post(t, addr, "create", "harness-tag", tagEvent(harnessRepo, "v1.1.0")); code != http.StatusOK {
		t.Errorf("a harness tag: %d, want 200 ignored", code)
	}
	if code := post(t, addr, "create", "sim-tag", tagEvent(simulatorRepo, "v0.7.17")); code != http.StatusAccepted {
		t.Fatalf("a simulator tag: %d", code)
	}
	waitDelivery(t, done)
	if got := file(t, w.fake, "org/app", lbBranch, lbPinPath); !strings.Contains(got, "tag: v0.7.17\n    commit: "+pushed) {
		t.Errorf("org/app pin after the tag:\n%s", got)
	}
	if p := lbPulls(w.fake, "org/app"); len(p) != 1 || p[0].Number != app[0].Number || p[0].Title != "Bump leaderboard simulator to v0.7.17" {
		t.Errorf("org/app leaderboard pull requests after the tag %+v, want #%d updated", p, app[0].Number)
	}
}

// bot bump --simulator moves the pairs to a tag the simulator pushed
// without a GitHub release, and refuses a pre-release tag.
func TestBumpCommandSimulatorTag(t *testing.T) {
	w := newSimWorld(t)
	pushed := w.fake.Commit(simulatorRepo, "main", "maintainer", "v0.7.17", map[string]string{"VERSION": "v0.7.17\n"})
	w.fake.Tag(simulatorRepo, "v0.7.17", pushed, false)
	if err := w.run(t, "bump", "--simulator", "--release", "v0.8.0-rc.1"); err == nil || !strings.Contains(err.Error(), "pre-release") {
		t.Errorf("pre-release: %v", err)
	}
	if err := w.run(t, "bump", "--simulator", "--release", "v0.7.17"); err != nil {
		t.Fatalf("bump --simulator: %v\n%s", err, w.stdout)
	}
	for _, want := range []string{"org/app: created", "lab/cat: created", "org/lib: skipped (pins no leaderboard pair"} {
		if !strings.Contains(w.stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, w.stdout)
		}
	}
	if got := file(t, w.fake, "org/app", lbBranch, lbPinPath); !strings.Contains(got, "tag: v0.7.17\n    commit: "+pushed) {
		t.Errorf("org/app pin:\n%s", got)
	}
	w.vars["BOT_SIMULATOR_REPO"] = "none"
	if err := w.run(t, "bump", "--simulator", "--release", "v0.7.17"); err == nil || !strings.Contains(err.Error(), "BOT_SIMULATOR_REPO=none") {
		t.Errorf("with the simulator off: %v", err)
	}
}
