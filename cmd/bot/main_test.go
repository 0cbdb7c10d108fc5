package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/botconfig"
	"github.com/inference-sim/accuracy-dashboard/internal/bump"
	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/github"
	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
	"github.com/inference-sim/accuracy-dashboard/internal/metric"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
	"github.com/inference-sim/accuracy-dashboard/internal/webhook"
)

const (
	harnessRepo   = "inference-sim/accuracy-dashboard"
	dashboardRepo = "inference-sim/accuracy-data"
	oldCommit     = "0123456789abcdef0123456789abcdef01234567"
	secret        = "test webhook secret"
	appID         = 4711
)

var (
	keyOnce sync.Once
	key     *rsa.PrivateKey
)

func appKey(t *testing.T) *rsa.PrivateKey {
	keyOnce.Do(func() {
		var err error
		if key, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
	})
	return key
}

const pinFile = `# Pinned by the accuracy bot.
harness:
  repository: inference-sim/accuracy-dashboard
  tag: v1.0.0
  commit: ` + oldCommit + `
data:
  ledger: bundled
`

const workflow = `name: accuracy
on: pull_request
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: inference-sim/accuracy-dashboard@` + oldCommit + ` # v1.0.0
`

// world is a fake GitHub holding the harness (released v1.1.0), three
// consumer repositories (two pin the harness) and the dashboard.
type world struct {
	fake      *githubfake.Server
	env       env
	stdout    *bytes.Buffer
	stderr    *testkit.SyncBuffer
	releaseAt string // commit v1.1.0 names
	sleeps    []time.Duration
	mu        sync.Mutex
	vars      map[string]string
	// metricsAddr receives the metrics server's address (serve).
	metricsAddr chan string
}

func newWorld(t *testing.T) *world { return newWorldPrefix(t, "") }

// newWorldPrefix serves the API under prefix ("/api/v3" stands in for
// GitHub Enterprise Server).
func newWorldPrefix(t *testing.T, prefix string) *world {
	t.Helper()
	k := appKey(t)
	fake := githubfake.New(t, githubfake.Options{PathPrefix: prefix, App: &githubfake.App{
		ID: appID, Slug: "accuracy-bot", Name: "Accuracy bot", PublicKey: &k.PublicKey,
		Installations: []githubfake.Installation{
			{ID: 1, Account: "org", Repositories: []string{"org/app", "org/lib", "org/plain"}},
			{ID: 2, Account: "inference-sim", Repositories: []string{harnessRepo, dashboardRepo}},
		},
	}})
	fake.AddRepo(harnessRepo, "main")
	fake.Commit(harnessRepo, "main", "maintainer", "init", map[string]string{"go.mod": "module x\n"})
	w := &world{fake: fake, stdout: &bytes.Buffer{}, stderr: &testkit.SyncBuffer{}}
	w.releaseAt = fake.Commit(harnessRepo, "main", "maintainer", "v1.1.0", map[string]string{"VERSION": "v1.1.0\n"})
	fake.Tag(harnessRepo, "v1.1.0", w.releaseAt, true)
	fake.AddRelease(harnessRepo, githubfake.Release{Tag: "v1.1.0", Name: "v1.1.0", Body: "Faster. Thanks @alice (#12)."})

	fake.AddRepo("org/app", "main")
	fake.Commit("org/app", "main", "dev", "init", map[string]string{".github/accuracy-harness.yaml": pinFile, ".github/workflows/accuracy.yml": workflow})
	fake.AddRepo("org/lib", "main")
	fake.Commit("org/lib", "main", "dev", "init", map[string]string{".github/workflows/ci.yml": workflow})
	fake.AddRepo("org/plain", "main")
	fake.Commit("org/plain", "main", "dev", "init", map[string]string{"README.md": "nothing pinned\n"})
	fake.AddRepo(dashboardRepo, "main")
	fake.Commit(dashboardRepo, "main", "dev", "init", map[string]string{"README.md": "# Accuracy data\n"})

	dir := t.TempDir()
	keyPath := filepath.Join(dir, "key.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
	if err := os.WriteFile(keyPath, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{
		"BOT_APP_ID": fmt.Sprint(appID), "BOT_PRIVATE_KEY_FILE": keyPath, "BOT_WEBHOOK_SECRET": secret,
		"BOT_GITHUB_URL": fake.URL(), "BOT_HARNESS_REPO": harnessRepo, "BOT_DASHBOARD_REPO": dashboardRepo,
		// The publishing workflow runs in the harness repository here (by
		// default it runs in the dashboard repository).
		"BOT_PUBLISH_REPO": harnessRepo,
		"BOT_LISTEN_ADDR":  "127.0.0.1:0",
		"BOT_REPOSITORIES": "org/app,org/lib,org/plain",
	}
	w.vars = vars
	w.env = env{
		getenv: func(k string) string { return w.vars[k] }, stdout: w.stdout, stderr: w.stderr, readFile: os.ReadFile,
		transport: fake.Client().Transport,
		retry: github.RetryPolicy{Sleep: func(ctx context.Context, d time.Duration) error {
			w.mu.Lock()
			w.sleeps = append(w.sleeps, d)
			w.mu.Unlock()
			return nil
		}},
		now: func() time.Time { return time.Date(2026, 8, 22, 6, 0, 0, 0, time.UTC) },
	}
	return w
}

func (w *world) run(t *testing.T, args ...string) error {
	t.Helper()
	w.stdout.Reset()
	return runEnv(context.Background(), args, w.env)
}

func openPulls(f *githubfake.Server, repo string) []githubfake.PullRequest {
	var out []githubfake.PullRequest
	for _, p := range f.PullRequests(repo) {
		if p.State == "open" {
			out = append(out, p)
		}
	}
	return out
}

func TestBumpCommandOnePullPerPinningRepository(t *testing.T) {
	w := newWorld(t)
	// No BOT_REPOSITORIES: every repository of every installation is served.
	delete(w.vars, "BOT_REPOSITORIES")
	if err := w.run(t, "bump", "--release", "v1.1.0"); err != nil {
		t.Fatalf("bump: %v\n%s", err, w.stderr)
	}
	for _, want := range []string{"org/app: created", "org/lib: created", "org/plain: skipped",
		dashboardRepo + ": skipped", harnessRepo + ": skipped"} {
		if !strings.Contains(w.stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, w.stdout)
		}
	}
	for _, repo := range []string{"org/app", "org/lib"} {
		pulls := openPulls(w.fake, repo)
		if len(pulls) != 1 {
			t.Fatalf("%s: %d pull requests, want 1", repo, len(pulls))
		}
		p := pulls[0]
		if p.Title != "Bump accuracy harness to v1.1.0" || p.Head != "accuracy-bot/harness" || p.User != "accuracy-bot[bot]" {
			t.Errorf("%s: %+v", repo, p)
		}
		if !strings.Contains(p.Body, "compare/v1.0.0...v1.1.0") || strings.Contains(p.Body, "@alice") {
			t.Errorf("%s body:\n%s", repo, p.Body)
		}
	}
	got, _ := w.fake.File("org/lib", "refs/heads/accuracy-bot/harness", ".github/workflows/ci.yml")
	if want := "uses: inference-sim/accuracy-dashboard@" + w.releaseAt + " # v1.1.0"; !strings.Contains(got, want) {
		t.Errorf("bumped workflow lacks %q:\n%s", want, got)
	}
	if n := len(w.fake.PullRequests("org/plain")); n != 0 {
		t.Errorf("org/plain got %d pull requests", n)
	}
	commits := w.fake.Calls("git/create-commit")
	if commits != 2 {
		t.Errorf("%d commits, want one per pinning repository", commits)
	}

	// Running it again changes nothing.
	if err := w.run(t, "bump", "--release", "v1.1.0"); err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"git/create-commit", "git/create-ref", "git/update-ref", "pulls/create", "pulls/update"} {
		want := map[string]int{"git/create-commit": 2, "git/create-ref": 2, "pulls/create": 2}[op]
		if n := w.fake.Calls(op); n != want {
			t.Errorf("after the repeat, %s called %d times, want %d", op, n, want)
		}
	}
	if !strings.Contains(w.stdout.String(), "org/app: unchanged") {
		t.Errorf("stdout:\n%s", w.stdout)
	}
}

func TestBumpDryRunPrintsThePlan(t *testing.T) {
	w := newWorld(t)
	if err := w.run(t, "bump", "--release", "v1.1.0", "--dry-run"); err != nil {
		t.Fatal(err)
	}
	out := w.stdout.String()
	for _, want := range []string{"org/app: planned", ".github/accuracy-harness.yaml", "pull request: Bump accuracy harness to v1.1.0", "org/plain: skipped (does not pin the harness)"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}
	for _, op := range []string{"git/create-commit", "git/create-tree", "pulls/create"} {
		if n := w.fake.Calls(op); n != 0 {
			t.Errorf("dry run called %s %d times", op, n)
		}
	}
}

func summary(t *testing.T, edit func(*runresult.Summary)) []byte {
	t.Helper()
	raw, _ := runFiles(t, edit)
	return raw
}

// runFiles is a run's summary.json (edited) and points.json.
func runFiles(t *testing.T, edit func(*runresult.Summary)) (summaryJSON, pointsJSON []byte) {
	t.Helper()
	prov := runresult.Provenance{
		Harness:   runresult.Harness{Commit: strings.Repeat("a", 40), Source: runresult.HarnessCheckout, Version: "v1.1.0"},
		Simulator: runresult.Simulator{Repo: "https://github.com/inference-sim/inference-sim", Ref: "v0.7.15", Commit: strings.Repeat("b", 40), Tag: "v0.7.15", Release: true, BuiltByHarness: true, Driver: "replay"},
		Ledger:    runresult.DataVersion{Name: "ledger", Version: "v1.0.0", Digest: "sha256:" + strings.Repeat("c", 64), Release: true},
		Selection: &runresult.Selection{All: true, Units: []string{}},
	}
	var points []runresult.Point
	for i, m := range []float64{100, 150, 200} {
		points = append(points, runresult.Point{ID: fmt.Sprintf("u@c=%d", i+1), Unit: "u", Model: "m", Hardware: "H100",
			Load: runresult.Load{Concurrency: i + 1}, Tier: "measured", Scored: true,
			Measured: metric.Values{"ttft_ms": m, "tpot_ms": m / 10}, Predicted: metric.Values{"ttft_ms": m * 1.2, "tpot_ms": m / 10}})
	}
	s, err := runresult.Summarize(points, prov, nil)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&s)
	}
	raw, err := jsoncodec.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := jsoncodec.Encode(runresult.SortPoints(points))
	if err != nil {
		t.Fatal(err)
	}
	return raw, pts
}

func writeTemp(t *testing.T, data []byte) string {
	p := filepath.Join(t.TempDir(), "summary.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// snapshotID is the fixture's snapshot, published by hand.
const snapshotID = "v0.7.15_ledger-v1.0.0_harness-v1.1.0"

func assertOneSnapshotCommit(t *testing.T, f *githubfake.Server, before int, id string) {
	snapshotFiles := []string{"data/snapshots/" + id + "/summary.json", "data/snapshots/" + id + "/summary.md",
		"data/latest/summary.json", "data/latest/summary.md", "data/index.json", "state/last-run.json", "README.md"}
	t.Helper()
	hist := f.Commits(dashboardRepo, "refs/heads/main")
	if len(hist) != before+1 {
		t.Fatalf("dashboard has %d commits, want %d (one new)", len(hist), before+1)
	}
	if hist[0].AuthorLogin != "accuracy-bot[bot]" || !strings.HasPrefix(hist[0].Message, "Publish accuracy snapshot "+id+"\n") {
		t.Errorf("head commit %+v", hist[0])
	}
	for _, p := range snapshotFiles {
		if _, ok := f.File(dashboardRepo, hist[0].SHA, p); !ok {
			t.Errorf("%s missing from the commit", p)
		}
		if _, ok := f.File(dashboardRepo, hist[1].SHA, p); ok && p != "README.md" {
			t.Errorf("%s was already there before", p)
		}
	}
	readme, _ := f.File(dashboardRepo, hist[0].SHA, "README.md")
	if !strings.HasPrefix(readme, "# Accuracy data\n") || !strings.Contains(readme, render.TableStart) {
		t.Errorf("README.md:\n%s", readme)
	}
}

func TestPublishCommand(t *testing.T) {
	w := newWorld(t)
	path := writeTemp(t, summary(t, nil))
	if err := w.run(t, "publish", "--summary", path, "--dry-run"); err != nil {
		t.Fatalf("%v\n%s", err, w.stderr)
	}
	if !strings.Contains(w.stdout.String(), "data/index.json") || w.fake.Calls("git/create-commit") != 0 {
		t.Errorf("dry run: %s (commits %d)", w.stdout, w.fake.Calls("git/create-commit"))
	}
	// A 502 and a lost ref race on the way: retried, rebuilt, one commit lands.
	w.fake.FailNext("repos/get-content", 1, githubfake.ServerError(502))
	w.fake.FailNext("git/update-ref", 1, githubfake.Unprocessable("Update is not a fast forward"))
	if err := w.run(t, "publish", "--summary", path); err != nil {
		t.Fatalf("%v\n%s", err, w.stderr)
	}
	assertOneSnapshotCommit(t, w.fake, 1, snapshotID)
	if n := w.fake.Calls("git/create-commit"); n != 2 {
		t.Errorf("git/create-commit called %d times, want 2 (rebuilt once after the conflict)", n)
	}
	// The same pair again is a no-op.
	if err := w.run(t, "publish", "--summary", path); err != nil || !strings.Contains(w.stdout.String(), "unchanged") {
		t.Errorf("repeat: %v, %s", err, w.stdout)
	}
}

func TestPublishCommandRefuses(t *testing.T) {
	w := newWorld(t)
	for name, edit := range map[string]func(*runresult.Summary){
		"experimental": func(s *runresult.Summary) {
			s.Provenance.Simulator.BuiltByHarness = false
			s.Label, s.LabelReasons = runresult.Label(s.Provenance)
		},
		"unbalanced": func(s *runresult.Summary) { s.Coverage.CorpusPoints = 7 },
	} {
		err := w.run(t, "publish", "--summary", writeTemp(t, summary(t, edit)))
		if !errors.Is(err, errRefused) || cli.ExitCode(err) != 3 {
			t.Errorf("%s: %v, want refused", name, err)
		}
		if !strings.Contains(w.stdout.String(), "refused: ") {
			t.Errorf("%s: no reason printed: %s", name, w.stdout)
		}
	}
	if n := w.fake.Calls("git/create-commit"); n != 0 {
		t.Errorf("refused summaries made %d commits", n)
	}
}

func TestUsageAndConfigErrors(t *testing.T) {
	w := newWorld(t)
	for _, args := range [][]string{{"serve", "--help"}, {"bump", "--help"}, {"publish", "--help"}, {"--help"}} {
		if err := w.run(t, args...); err != nil || !strings.Contains(w.stdout.String(), "Usage: bot") {
			t.Errorf("%v: %v, stdout %q", args, err, w.stdout)
		}
	}
	if err := w.run(t, "bump"); !errors.Is(err, cli.ErrUsageShown) {
		t.Errorf("bump without --release: %v", err)
	}
	w.env.getenv = func(string) string { return "" }
	if err := w.run(t, "serve"); err == nil || !strings.Contains(err.Error(), "BOT_WEBHOOK_SECRET") {
		t.Errorf("serve without configuration: %v", err)
	}
}

// server runs `bot serve` on loopback and returns its address and a channel
// of handled deliveries.
func (w *world) serve(t *testing.T) (string, chan error) {
	t.Helper()
	addr := make(chan string, 1)
	done := make(chan error, 100)
	w.env.listening = func(a string) { addr <- a }
	w.metricsAddr = make(chan string, 1)
	w.env.metricsListening = func(a string) { w.metricsAddr <- a }
	w.env.delivered = func(_ webhook.Delivery, err error) { done <- err }
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan error, 1)
	go func() { exited <- runEnv(ctx, []string{"serve"}, w.env) }()
	t.Cleanup(func() {
		cancel()
		if err := <-exited; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	select {
	case a := <-addr:
		return a, done
	case err := <-exited:
		exited <- nil // for the cleanup
		t.Fatalf("serve exited: %v\n%s", err, w.stderr)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	return "", nil
}

// payload returns the first real webhook payload (npm
// @octokit/webhooks-examples) of event with action that keep accepts (nil
// keeps all), edited by edit.
func payload(t *testing.T, event, action string, keep func(map[string]any) bool, edit func(map[string]any)) []byte {
	t.Helper()
	for _, ex := range githubfake.WebhookExamples(t, event, action) {
		if keep == nil || keep(ex) {
			edit(ex)
			b, err := json.Marshal(ex)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatalf("no %s %s example to keep", event, action)
	return nil
}

func post(t *testing.T, addr, event, delivery string, body []byte) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(webhook.HeaderEvent, event)
	req.Header.Set(webhook.HeaderDelivery, delivery)
	req.Header.Set(webhook.HeaderSignature, webhook.Sign([]byte(secret), body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// logged reports whether exactly one JSON log line has every field of want.
func logged(t *testing.T, logs string, want map[string]any) bool {
	t.Helper()
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		match := true
		for k, v := range want {
			match = match && m[k] == v
		}
		if match {
			n++
		}
	}
	return n == 1
}

func waitDelivery(t *testing.T, done chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("delivery failed: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("delivery not handled")
	}
}

// wroteNothing fails t when a bump's writes were called more often after
// a redelivery than before it.
func wroteNothing(t *testing.T, before, after map[string]int) {
	t.Helper()
	for _, op := range []string{"git/create-commit", "git/create-ref", "git/update-ref", "pulls/create", "pulls/update"} {
		if after[op] != before[op] {
			t.Errorf("%s: %d calls before, %d after the redelivery", op, before[op], after[op])
		}
	}
}

func releaseEvent(t *testing.T) []byte {
	return payload(t, "release", "published", nil, func(m map[string]any) {
		m["repository"].(map[string]any)["full_name"] = harnessRepo
		rel := m["release"].(map[string]any)
		rel["tag_name"], rel["body"] = "v1.1.0", "Faster. Thanks @alice."
	})
}

func TestServeReleaseEventBumpsOncePerRepository(t *testing.T) {
	w := newWorld(t)
	w.vars["BOT_METRICS_ADDR"] = "127.0.0.1:0"
	addr, done := w.serve(t)
	body := releaseEvent(t)
	if code := post(t, addr, "release", "delivery-1", body); code != http.StatusAccepted {
		t.Fatalf("release: %d", code)
	}
	waitDelivery(t, done)
	for _, repo := range []string{"org/app", "org/lib"} {
		if n := len(openPulls(w.fake, repo)); n != 1 {
			t.Errorf("%s: %d pull requests, want 1", repo, n)
		}
	}
	for _, repo := range []string{"org/app", "org/lib"} {
		if !logged(t, w.stderr.String(), map[string]any{"msg": "bump", "delivery": "delivery-1", "consumer": repo, "outcome": "created"}) {
			t.Errorf("%s: outcome not logged once with its delivery:\n%s", repo, w.stderr)
		}
	}
	calls := w.fake.CallCounts()
	// A redelivery (same id) is acknowledged and dropped …
	if code := post(t, addr, "release", "delivery-1", body); code != http.StatusOK {
		t.Errorf("redelivery: %d, want 200", code)
	}
	// … and so is the same signed body under a new id (a replay) …
	if code := post(t, addr, "release", "delivery-2", body); code != http.StatusOK {
		t.Fatalf("replayed body under a new id: %d, want 200", code)
	}
	// … and the same release in another delivery changes nothing either.
	if code := post(t, addr, "release", "delivery-3", append(body, ' ')); code != http.StatusAccepted {
		t.Fatalf("second delivery: %d", code)
	}
	waitDelivery(t, done)
	wroteNothing(t, calls, w.fake.CallCounts())
	// A bad signature is refused before anything is parsed.
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", bytes.NewReader(body))
	req.Header.Set(webhook.HeaderSignature, webhook.Sign([]byte("wrong"), body))
	req.Header.Set(webhook.HeaderEvent, "release")
	req.Header.Set(webhook.HeaderDelivery, "delivery-3")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("bad signature: %d", resp.StatusCode)
	}
	// The health endpoint says the server is up, and discloses nothing.
	resp, err = http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	health, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if got := strings.TrimSpace(string(health)); got != `{"status":"ok"}` {
		t.Errorf("healthz: %s", got)
	}
	// Metrics are on their own address only.
	if resp, err := http.Get("http://" + addr + "/metrics"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics on the webhook address: %v %v, want 404", resp, err)
	} else {
		resp.Body.Close()
	}
	resp, err = http.Get("http://" + <-w.metricsAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^accuracy_bot_webhook_deliveries_total\{event="release",outcome="queued"\} 2$`),
		regexp.MustCompile(`(?m)^accuracy_bot_webhook_deliveries_total\{event="release",outcome="duplicate"\} 2$`),
		regexp.MustCompile(`(?m)^accuracy_bot_webhook_deliveries_total\{event="unverified",outcome="bad_signature"\} 1$`),
		regexp.MustCompile(`(?m)^accuracy_bot_job_duration_seconds_count\{event="release",outcome="ok"\} 2$`),
		regexp.MustCompile(`(?m)^accuracy_bot_github_requests_total\{class="2xx"\} [1-9][0-9]*$`),
		regexp.MustCompile(`(?m)^accuracy_bot_build_info\{version="` + regexp.QuoteMeta(botVersion()) + `"\} 1$`),
	} {
		if !want.Match(text) {
			t.Errorf("metrics lack %s:\n%s", want, text)
		}
	}
}

func TestServeReleaseEventSurvivesRateLimitAndServerErrors(t *testing.T) {
	w := newWorld(t)
	w.fake.FailNext("pulls/create", 1, githubfake.SecondaryRateLimit(7))
	w.fake.FailNext("repos/get-content", 2, githubfake.ServerError(503))
	addr, done := w.serve(t)
	if code := post(t, addr, "release", "d", releaseEvent(t)); code != http.StatusAccepted {
		t.Fatal(code)
	}
	waitDelivery(t, done)
	for _, repo := range []string{"org/app", "org/lib"} {
		if n := len(openPulls(w.fake, repo)); n != 1 {
			t.Errorf("%s: %d pull requests, want 1", repo, n)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var honoured bool
	for _, d := range w.sleeps {
		honoured = honoured || d == 7*time.Second
	}
	if !honoured {
		t.Errorf("sleeps %v: Retry-After 7 s not honoured", w.sleeps)
	}
}

func runEvent(t *testing.T, id int64, headSHA string) []byte {
	return payload(t, "workflow_run", "completed", func(m map[string]any) bool {
		return m["workflow_run"].(map[string]any)["conclusion"] == "success"
	}, func(m map[string]any) {
		repo := m["repository"].(map[string]any)
		repo["full_name"], repo["default_branch"] = harnessRepo, "main"
		r := m["workflow_run"].(map[string]any)
		r["id"], r["path"], r["event"], r["head_sha"], r["head_branch"] = id, botconfig.DefaultPublishWorkflow, "schedule", headSHA, "main"
		r["head_repository"].(map[string]any)["full_name"] = harnessRepo
	})
}

func TestServeWorkflowRunPublishesOrRefuses(t *testing.T) {
	w := newWorld(t)
	head := w.releaseAt
	good := w.fake.AddWorkflowRun(harnessRepo, githubfake.WorkflowRun{HeadSHA: head, HeadBranch: "main"})
	goodSummary, goodPoints := runFiles(t, nil)
	w.fake.AddArtifact(harnessRepo, good, "accuracy-report", testkit.Zip(t, map[string][]byte{"summary.json": goodSummary, "points.json": goodPoints}), false)
	bad := w.fake.AddWorkflowRun(harnessRepo, githubfake.WorkflowRun{HeadSHA: head, HeadBranch: "main"})
	experimental := summary(t, func(s *runresult.Summary) {
		s.Provenance.Ledger.Release = false
		s.Label, s.LabelReasons = runresult.Label(s.Provenance)
	})
	w.fake.AddArtifact(harnessRepo, bad, "accuracy-report", testkit.Zip(t, map[string][]byte{"summary.json": experimental}), false)
	missing := w.fake.AddWorkflowRun(harnessRepo, githubfake.WorkflowRun{HeadSHA: head, HeadBranch: "main"})
	malformed := w.fake.AddWorkflowRun(harnessRepo, githubfake.WorkflowRun{HeadSHA: head, HeadBranch: "main"})
	w.fake.AddArtifact(harnessRepo, malformed, "accuracy-report", []byte("this is not a zip"), false)

	addr, done := w.serve(t)
	if code := post(t, addr, "workflow_run", "run-good", runEvent(t, good, head)); code != http.StatusAccepted {
		t.Fatal(code)
	}
	waitDelivery(t, done)
	assertOneSnapshotCommit(t, w.fake, 1, fmt.Sprintf("%s_run-%d", snapshotID, good))

	// A successful run without a report (the nightly found nothing
	// changed) is ignored: logged, no comment.
	if code := post(t, addr, "workflow_run", fmt.Sprint("run-", missing), runEvent(t, missing, head)); code != http.StatusAccepted {
		t.Fatal(code)
	}
	waitDelivery(t, done)
	if cs := w.fake.CommitComments(harnessRepo, head); len(cs) != 0 {
		t.Fatalf("a run without a report was commented on: %+v", cs)
	}
	if !strings.Contains(w.stderr.String(), "uploaded no artifact named") {
		t.Errorf("the run without a report was not logged:\n%s", w.stderr)
	}

	for i, id := range []int64{bad, malformed} {
		if code := post(t, addr, "workflow_run", fmt.Sprint("run-", id), runEvent(t, id, head)); code != http.StatusAccepted {
			t.Fatal(code)
		}
		waitDelivery(t, done)
		cs := w.fake.CommitComments(harnessRepo, head)
		if len(cs) != i+1 || cs[i].User != "accuracy-bot[bot]" {
			t.Fatalf("commit comments after refusal %d: %+v", i, cs)
		}
		want := []string{"label is", "not a zip archive"}[i]
		if body := cs[i].Body; !strings.HasPrefix(body, render.RefusalMarker(id)+"\n") || !strings.Contains(body, want) ||
			!strings.Contains(body, "`accuracy-report`") || !strings.Contains(body, fmt.Sprintf("run [%d](", id)) {
			t.Errorf("comment on %s does not carry the run's marker, the artifact, the run and the reason %q:\n%s", head, want, body)
		}
	}
	// No commit status is created (the App has no statuses permission): the
	// fake does not implement them, so a call would fail the test.
	if n := len(w.fake.Commits(dashboardRepo, "refs/heads/main")); n != 2 {
		t.Errorf("dashboard has %d commits, want 2 (refusals wrote nothing)", n)
	}
	if !logged(t, w.stderr.String(), map[string]any{"msg": "artifact refused", "delivery": fmt.Sprint("run-", bad), "run": float64(bad)}) {
		t.Errorf("refusal not logged once with its delivery:\n%s", w.stderr)
	}

	// Commenting is best effort: when GitHub refuses the comment, the
	// artifact is still refused, nothing is published, and the failure is
	// logged.
	again := w.fake.AddWorkflowRun(harnessRepo, githubfake.WorkflowRun{HeadSHA: head, HeadBranch: "main"})
	w.fake.AddArtifact(harnessRepo, again, "accuracy-report", testkit.Zip(t, map[string][]byte{"summary.json": experimental}), false)
	w.fake.FailNext("repos/create-commit-comment", 1, githubfake.Fault{Status: http.StatusForbidden, Message: "Resource not accessible by integration"})
	if code := post(t, addr, "workflow_run", "run-again", runEvent(t, again, head)); code != http.StatusAccepted {
		t.Fatal(code)
	}
	waitDelivery(t, done)
	if n := len(w.fake.CommitComments(harnessRepo, head)); n != 2 {
		t.Errorf("%d commit comments, want the 2 earlier ones", n)
	}
	if n := len(w.fake.Commits(dashboardRepo, "refs/heads/main")); n != 2 {
		t.Errorf("dashboard has %d commits after a refusal whose comment failed, want 2", n)
	}
	if !strings.Contains(w.stderr.String(), "reporting the refusal on the commit failed") {
		t.Errorf("failed comment not logged:\n%s", w.stderr)
	}
}

func TestBumpUpdatesInPlaceAndLeavesHumanBranchesAlone(t *testing.T) {
	w := newWorld(t)
	// An older bump pull request of the bot on another branch, and a
	// human's pull request quoting the marker.
	w.fake.Commit("org/app", "accuracy-bot/harness-v0.9", "accuracy-bot[bot]", "old bump\n\n"+bump.BumpTrailer, map[string]string{"x": "1"})
	old := w.fake.AddPullRequest("org/app", githubfake.PullRequest{Title: "Bump accuracy harness to v0.9.0", Body: render.BumpMarker + "\nold",
		User: "accuracy-bot[bot]", Head: "accuracy-bot/harness-v0.9"})
	w.fake.Commit("org/app", "feature", "dev", "feature", map[string]string{"f": "1"})
	mine := w.fake.AddPullRequest("org/app", githubfake.PullRequest{Title: "feature", Body: render.BumpMarker, User: "dev", Head: "feature"})
	if err := w.run(t, "bump", "--release", "v1.1.0"); err != nil {
		t.Fatal(err)
	}
	var first []githubfake.PullRequest
	for _, p := range openPulls(w.fake, "org/app") {
		switch p.Number {
		case old:
			t.Errorf("superseded pull request #%d still open", old)
		case mine:
		default:
			first = append(first, p)
		}
	}
	if len(first) != 1 {
		t.Fatalf("bump pulls %+v", first)
	}
	if c := w.fake.Comments("org/app", old); len(c) != 1 || !strings.Contains(c[0].Body, fmt.Sprintf("Superseded by #%d", first[0].Number)) {
		t.Errorf("comments on the superseded pull request: %+v", c)
	}
	human := w.fake.Commit("org/lib", "accuracy-bot/harness", "dev", "tweak", map[string]string{"NOTE": "mine\n"})

	v120 := w.fake.Commit(harnessRepo, "main", "maintainer", "v1.2.0", map[string]string{"VERSION": "v1.2.0\n"})
	w.fake.Tag(harnessRepo, "v1.2.0", v120, false)
	w.fake.AddRelease(harnessRepo, githubfake.Release{Tag: "v1.2.0", Name: "v1.2.0", Body: "More."})
	if err := w.run(t, "bump", "--release", "v1.2.0"); err != nil {
		t.Fatalf("%v\n%s", err, w.stderr)
	}
	now := openPulls(w.fake, "org/app")
	var updated bool
	for _, p := range now {
		updated = updated || p.Number == first[0].Number && p.Title == "Bump accuracy harness to v1.2.0"
	}
	if len(now) != 2 || !updated {
		t.Errorf("app pulls %+v, want #%d updated in place beside #%d", now, first[0].Number, mine)
	}
	pin, _ := w.fake.File("org/app", "refs/heads/accuracy-bot/harness", ".github/accuracy-harness.yaml")
	if !strings.Contains(pin, "tag: v1.2.0\n  commit: "+v120) {
		t.Errorf("pin file on the branch:\n%s", pin)
	}
	if sha, _ := w.fake.Ref("org/lib", "refs/heads/accuracy-bot/harness"); sha != human {
		t.Errorf("the human's branch moved to %s", sha)
	}
	if !strings.Contains(w.stdout.String(), "org/lib: skipped (branch accuracy-bot/harness has commits not made by the bot") {
		t.Errorf("stdout:\n%s", w.stdout)
	}
}

func TestEnterpriseServer(t *testing.T) {
	w := newWorldPrefix(t, "/api/v3")
	if !strings.HasSuffix(w.vars["BOT_GITHUB_URL"], "/api/v3/") {
		t.Fatalf("fake URL %s", w.vars["BOT_GITHUB_URL"])
	}
	if err := w.run(t, "bump", "--release", "v1.1.0"); err != nil {
		t.Fatalf("%v\n%s", err, w.stderr)
	}
	pulls := openPulls(w.fake, "org/app")
	web := strings.TrimSuffix(w.vars["BOT_GITHUB_URL"], "/api/v3/")
	if len(pulls) != 1 || !strings.Contains(pulls[0].Body, web+"/"+harnessRepo+"/compare/v1.0.0...v1.1.0") {
		t.Errorf("pulls %+v, want a compare link on %s", pulls, web)
	}
}

func TestWebURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                                "https://github.com",
		"https://api.github.com/":         "https://github.com",
		"https://ghe.example.com/api/v3/": "https://ghe.example.com",
		"https://ghe.example.com/api/v3":  "https://ghe.example.com",
	} {
		if got := webURL(in); got != want {
			t.Errorf("webURL(%q) = %q, want %q", in, got, want)
		}
	}
}
