// Command bot is the accuracy bot, a GitHub App. It moves consumer
// repositories' harness pins when the harness publishes a release, their
// leaderboard simulator/catalog pairs when the simulator does, and
// publishes gated accuracy snapshots to the dashboard repository when the
// publishing workflow succeeds, and the checked leaderboard when the
// leaderboard workflow succeeds on the default branch. Subcommands:
//
//	serve                        receive GitHub webhooks (POST /webhook, GET /healthz)
//	bump --release TAG [--simulator]  bump every pinning repository to a release, once
//	publish --summary PATH       publish one summary.json to the dashboard, once
//	publish-leaderboard --results DIR  check and publish a leaderboard's results, once
//	version                      print the version
//
// Configuration comes from BOT_* environment variables, an optional YAML
// file (--config or BOT_CONFIG) and flags; see docs/BOT.md.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/botconfig"
	"github.com/inference-sim/accuracy-dashboard/internal/bump"
	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/github"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbpublish"
	"github.com/inference-sim/accuracy-dashboard/internal/leaderboard/lbview"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/publish"
	"github.com/inference-sim/accuracy-dashboard/internal/webhook"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if msg := cli.Message(err); msg != "" {
		fmt.Fprintln(os.Stderr, msg)
	}
	os.Exit(cli.ExitCode(err))
}

// errRefused is returned when a publish was refused by the gate (exit 3).
var errRefused = &cli.ExitError{Code: 3, Err: errors.New("refused")}

// configurationHelp follows the command list in the bot's usage.
const configurationHelp = `Configuration: BOT_APP_ID, BOT_PRIVATE_KEY_FILE, BOT_WEBHOOK_SECRET (serve),
BOT_LISTEN_ADDR, BOT_GITHUB_URL, BOT_HARNESS_REPO, BOT_SIMULATOR_REPO, BOT_DASHBOARD_REPO,
BOT_PUBLISH_REPO, BOT_PUBLISH_WORKFLOW, BOT_LEADERBOARD_REPO, BOT_LEADERBOARD_WORKFLOW,
BOT_ALLOW_PRERELEASES, BOT_REPOSITORIES, BOT_METRICS_ADDR, BOT_TRUSTED_PROXIES,
BOT_HOOK_RANGES, BOT_STATE_DIR, and an optional YAML file (--config or BOT_CONFIG). See docs/BOT.md.
`

// env is what run takes from the process; tests replace the network and clock.
type env struct {
	getenv   func(string) string
	stdout   io.Writer
	stderr   io.Writer
	readFile func(string) ([]byte, error)
	// transport carries every request to GitHub (http.DefaultTransport).
	transport http.RoundTripper
	// retry is the GitHub client's retry policy (zero: defaults).
	retry github.RetryPolicy
	now   func() time.Time
	// listening, if set, is told the server's address once it listens,
	// and metricsListening the metrics server's.
	listening, metricsListening func(addr string)
	// delivered, if set, is told about every handled webhook delivery.
	delivered func(d webhook.Delivery, err error)
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return runEnv(ctx, args, env{getenv: getenv, stdout: stdout, stderr: stderr, readFile: os.ReadFile,
		transport: http.DefaultTransport, now: time.Now})
}

func runEnv(ctx context.Context, args []string, e env) error {
	return commands(e).Run(ctx, args, cli.Env{Getenv: e.getenv, Stdout: e.stdout, Stderr: e.stderr})
}

// commands is the table of subcommands; each is a cli.Spec (options, parse,
// run) whose run is given e.
func commands(e env) cli.Program {
	return cli.Program{
		Name:   "bot",
		Footer: configurationHelp,
		Commands: []cli.Command{
			cli.Spec[serveOptions]{Name: "serve", Summary: "receive GitHub webhooks and act on them (POST /webhook, GET /healthz)",
				Usage: serveHelp, Flags: serveFlags,
				Run: func(ctx context.Context, o serveOptions, _ cli.Env) error { return runServe(ctx, o, e) }}.Command(),
			cli.Spec[bumpOptions]{Name: "bump", Summary: "bump every repository that pins the harness to a release, once",
				Usage: bumpHelp, Flags: bumpFlags, Required: []string{"release"},
				Run: func(ctx context.Context, o bumpOptions, _ cli.Env) error { return runBump(ctx, o, e) }}.Command(),
			cli.Spec[publishOptions]{Name: "publish", Summary: "publish one summary.json to the dashboard repository, once",
				Usage: publishHelp, Flags: publishFlags, Required: []string{"summary"},
				Run: func(ctx context.Context, o publishOptions, _ cli.Env) error { return runPublish(ctx, o, e) }}.Command(),
			cli.Spec[publishLeaderboardOptions]{Name: "publish-leaderboard", Summary: "check a leaderboard's results and publish them to the dashboard repository, once",
				Usage: publishLeaderboardHelp, Flags: publishLeaderboardFlags, Required: []string{"results"},
				Run: func(ctx context.Context, o publishLeaderboardOptions, _ cli.Env) error {
					return runPublishLeaderboard(ctx, o, e)
				}}.Command(),
			redeliverCommand(e),
			cli.Spec[struct{}]{Name: "version", Summary: "print the version", Usage: "Usage: bot version\n\nPrints the version.\n",
				Run: func(_ context.Context, _ struct{}, env cli.Env) error {
					_, err := fmt.Fprintln(env.Stdout, botVersion())
					return err
				}}.Command(),
		},
	}
}

func botVersion() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "devel"
}

// configFlags declares the configuration flags every command takes.
func configFlags(fs *flag.FlagSet, f *botconfig.Flags) {
	fs.StringVar(&f.ConfigFile, "config", "", "YAML configuration file (default $BOT_CONFIG)")
	fs.StringVar(&f.AppID, "app-id", "", "GitHub App id (default $BOT_APP_ID)")
	fs.StringVar(&f.PrivateKeyFile, "private-key-file", "", "the App's PEM private key (default $BOT_PRIVATE_KEY_FILE)")
	fs.StringVar(&f.GitHubURL, "github-url", "", "GitHub Enterprise Server API URL, e.g. https://ghe.example.com/api/v3/ (default $BOT_GITHUB_URL, else api.github.com)")
}

// services are the bot's core objects wired to GitHub.
type services struct {
	bumper    *bump.Bumper
	publisher *publish.Publisher
	// leaderboard publishes the leaderboard workflow's runs through
	// publisher (nil: leaderboard publishing is off).
	leaderboard *lbpublish.Publisher
}

func loadConfig(f botconfig.Flags, mode botconfig.Mode, e env) (botconfig.Config, error) {
	cfg, err := botconfig.Load(e.getenv, f, e.readFile)
	if err != nil {
		return cfg, err
	}
	if err := cfg.Validate(mode); err != nil {
		return cfg, fmt.Errorf("configuration: %w", err)
	}
	return cfg, nil
}

func wire(cfg botconfig.Config, e env, dryRun bool, log *slog.Logger) (*services, error) {
	key, err := e.readFile(cfg.PrivateKeyFile)
	if err != nil {
		return nil, fmt.Errorf("private key: %w", err)
	}
	baseURL := cfg.GitHubURL
	if baseURL == "" {
		baseURL = github.DefaultBaseURL
	}
	transport, err := github.NewAppTransport(cfg.AppID, key, baseURL, e.transport)
	if err != nil {
		return nil, err
	}
	gh, err := github.NewAppClient(transport, github.Options{
		BaseURL: baseURL, UserAgent: "accuracy-bot/" + botVersion(), Retry: e.retry,
		DownloadClient: &http.Client{Transport: e.transport},
	}, publish.MaxArtifactBytes)
	if err != nil {
		return nil, err
	}
	harness, err := ident.ParseRepo(cfg.HarnessRepo)
	if err != nil {
		return nil, err
	}
	var served []ident.Repo
	for _, r := range cfg.Repositories {
		repo, err := ident.ParseRepo(r)
		if err != nil {
			return nil, err
		}
		served = append(served, repo)
	}
	s := &services{}
	s.bumper = &bump.Bumper{GH: gh, Log: log, Cfg: bump.BumpConfig{
		Harness: harness, PinFile: cfg.PinFile, Branch: cfg.BumpBranch, AllowPrereleases: cfg.AllowPrereleases,
		Repositories: served, WebURL: webURL(cfg.GitHubURL), DryRun: dryRun,
	}}
	if cfg.BumpingLeaderboard() {
		if s.bumper.Cfg.Simulator, err = ident.ParseRepo(cfg.SimulatorRepo); err != nil {
			return nil, err
		}
		s.bumper.Cfg.LeaderboardBranch = cfg.LeaderboardBumpBranch
	}
	if cfg.Publishing() {
		dash, err := ident.ParseRepo(cfg.DashboardRepo)
		if err != nil {
			return nil, err
		}
		wfRepo, err := ident.ParseRepo(cfg.PublishRepo)
		if err != nil {
			return nil, err
		}
		s.publisher = &publish.Publisher{GH: gh, Log: log, Now: e.now, Cfg: publish.PublishConfig{
			Dashboard: dash, Harness: harness, WorkflowRepo: wfRepo, WorkflowPath: cfg.PublishWorkflow,
			Artifact: cfg.ArtifactName, DryRun: dryRun,
		}}
		if cfg.PublishingLeaderboard() {
			lbRepo, err := ident.ParseRepo(cfg.LeaderboardRepo)
			if err != nil {
				return nil, err
			}
			s.leaderboard = &lbpublish.Publisher{Cfg: lbpublish.Config{WorkflowRepo: lbRepo, WorkflowPath: cfg.LeaderboardWorkflow,
				Artifact: cfg.LeaderboardArtifact, Runs: cfg.LeaderboardRuns, PinFile: cfg.PinFile, Dir: cfg.LeaderboardDir}}
			s.publisher.Cfg.Leaderboard = s.leaderboard
		}
	}
	return s, nil
}

// webURL derives the web root from the API URL: https://HOST/api/v3/ →
// https://HOST; empty (api.github.com) → https://github.com.
func webURL(apiURL string) string {
	if apiURL == "" {
		return "https://github.com"
	}
	u := strings.TrimSuffix(strings.TrimSuffix(apiURL, "/"), "/api/v3")
	return strings.Replace(u, "://api.github.com", "://github.com", 1)
}

const serveHelp = `Usage: bot serve [flags]

Receives GitHub webhooks on POST /webhook (signed with BOT_WEBHOOK_SECRET)
and answers GET /healthz (status only). With --metrics-listen, serves
Prometheus metrics on GET /metrics at that address (keep it private).
Refuses to start without the App id, private key and webhook secret.

Example:
  BOT_APP_ID=12345 BOT_PRIVATE_KEY_FILE=/etc/accuracy-bot/key.pem \
  BOT_WEBHOOK_SECRET=... BOT_DASHBOARD_REPO=inference-sim/accuracy-data bot serve --listen :8080

Flags:
`

// serveOptions are the flags of `bot serve`.
type serveOptions struct{ config botconfig.Flags }

func serveFlags(fs *flag.FlagSet, o *serveOptions, _ func(string) string) {
	configFlags(fs, &o.config)
	fs.StringVar(&o.config.ListenAddr, "listen", "", "address to listen on (default $BOT_LISTEN_ADDR, else "+botconfig.DefaultListenAddr+")")
	fs.StringVar(&o.config.MetricsAddr, "metrics-listen", "", "address to serve GET /metrics on (default $BOT_METRICS_ADDR, else none)")
}

func runServe(ctx context.Context, o serveOptions, e env) error {
	cfg, err := loadConfig(o.config, botconfig.ModeServe, e)
	if err != nil {
		return err
	}
	proxies, err := botconfig.ParseProxies(cfg.TrustedProxies)
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	hookRanges, err := botconfig.ParseHookRanges(cfg.HookRanges)
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	log := slog.New(slog.NewJSONHandler(e.stderr, nil))
	metrics := webhook.NewMetrics(botVersion())
	api, err := url.Parse(cmp.Or(cfg.GitHubURL, github.DefaultBaseURL))
	if err != nil {
		return fmt.Errorf("configuration: github url: %w", err)
	}
	e.transport = metrics.GitHubTransport(e.transport, api.Host)
	s, err := wire(cfg, e, false, log)
	if err != nil {
		return err
	}
	var pub webhook.Publisher
	if s.publisher != nil {
		pub = s.publisher
	}
	hooks, err := webhook.New(webhook.Options{
		Secret: []byte(cfg.WebhookSecret), MaxBodyBytes: cfg.MaxBodyBytes,
		MaxConcurrentReads: cfg.MaxConcurrentReads, QueueSize: cfg.QueueSize, Workers: cfg.Workers, Handlers: webhook.Events(s.bumper, pub), Logger: log,
		MaxConns: cfg.MaxConns, MaxConnsPerAddr: cfg.MaxConnsPerAddr, MaxReadsPerAddr: cfg.MaxReadsPerAddr,
		TrustedProxies: proxies, HookRanges: hookRanges, Metrics: metrics, Done: e.delivered,
		JournalDir: journalDir(cfg.StateDir),
	})
	if err != nil {
		return err
	}
	if cfg.StateDir == "" {
		log.Warn("no state_dir (BOT_STATE_DIR): a delivery queued or running when the bot is killed is lost")
	} else if n, err := hooks.Recover(); err != nil {
		return err
	} else if n > 0 {
		log.Info("journal: deliveries a previous run accepted and did not finish are queued again", "deliveries", n)
	}
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := hooks.HTTPServer()
	var msrv *http.Server
	errc := make(chan error, 2)
	if cfg.MetricsAddr != "" {
		mln, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			ln.Close()
			return fmt.Errorf("metrics listen: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metrics.Handler())
		msrv = &http.Server{Handler: mux, ReadHeaderTimeout: webhook.ReadHeaderTimeout, ReadTimeout: 30 * time.Second,
			WriteTimeout: 30 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: webhook.MaxHeaderBytes}
		go func() { errc <- msrv.Serve(mln) }()
		log.Info("metrics", "addr", mln.Addr().String())
		if e.metricsListening != nil {
			e.metricsListening(mln.Addr().String())
		}
	}
	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	hooks.Start(workCtx)
	log.Info("listening", "addr", ln.Addr().String(), "version", botVersion(), "harness", cfg.HarnessRepo, "dashboard", cfg.DashboardRepo)
	if e.listening != nil {
		e.listening(ln.Addr().String())
	}
	go func() { errc <- srv.Serve(hooks.Limit(ln)) }()
	select {
	case err := <-errc:
		srv.Close()
		if msrv != nil {
			msrv.Close()
		}
		hooks.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdown)
	hooks.Close() // finish the queued deliveries
	if msrv != nil {
		msrv.Close() // after the queue: the metrics watch it drain
	}
	log.Info("stopped")
	return err
}

// journalDir is the webhook journal's directory in the state directory
// ("" without one).
func journalDir(stateDir string) string {
	if stateDir == "" {
		return ""
	}
	return filepath.Join(stateDir, "journal")
}

const bumpHelp = `Usage: bot bump --release TAG [--simulator] [--dry-run] [flags]

Bumps every repository that pins the harness (BOT_HARNESS_REPO) to the
published release TAG, as the release webhook would: one pull request per
repository on a stable branch. With --simulator, TAG is a release of the
simulator (BOT_SIMULATOR_REPO) instead: every pin file whose leaderboard:
section names it gets one pull request moving the simulator and catalog
pair together (a tag the simulator pushed without a GitHub release is taken
as it is; a pre-release never). --dry-run prints the planned commits and
pull requests without writing anything.

Example:
  BOT_APP_ID=12345 BOT_PRIVATE_KEY_FILE=key.pem bot bump --release v1.4.0 --dry-run

Flags:
`

// bumpOptions are the flags of `bot bump`.
type bumpOptions struct {
	config    botconfig.Flags
	release   string
	simulator bool
	dryRun    bool
}

func bumpFlags(fs *flag.FlagSet, o *bumpOptions, _ func(string) string) {
	configFlags(fs, &o.config)
	fs.StringVar(&o.release, "release", "", "the harness release tag to bump to (required)")
	fs.BoolVar(&o.simulator, "simulator", false, "--release names a simulator release: move the leaderboard pairs to it")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the planned commits and pull requests; write nothing")
}

func runBump(ctx context.Context, o bumpOptions, e env) error {
	cfg, err := loadConfig(o.config, botconfig.ModeCLI, e)
	if err != nil {
		return err
	}
	s, err := wire(cfg, e, o.dryRun, slog.New(slog.NewTextHandler(e.stderr, nil)))
	if err != nil {
		return err
	}
	bumpTag, branch := s.bumper.BumpTag, cfg.BumpBranch
	if o.simulator {
		if !cfg.BumpingLeaderboard() {
			return fmt.Errorf("configuration: leaderboard pair bumps are off (%s=%s)", botconfig.EnvSimulatorRepo, cfg.SimulatorRepo)
		}
		bumpTag, branch = s.bumper.BumpSimulatorTag, cfg.LeaderboardBumpBranch
	}
	outcomes, err := bumpTag(ctx, o.release)
	for _, o := range outcomes {
		printOutcome(e.stdout, o, branch)
	}
	return err
}

func printOutcome(w io.Writer, o bump.RepoOutcome, branch string) {
	fmt.Fprintf(w, "%s: %s", o.Repo, o.Outcome)
	if o.Reason != "" {
		fmt.Fprintf(w, " (%s)", o.Reason)
	}
	if o.Pull != 0 {
		fmt.Fprintf(w, " #%d", o.Pull)
	}
	if len(o.Closed) > 0 {
		fmt.Fprintf(w, ", closed superseded %v", o.Closed)
	}
	fmt.Fprintln(w)
	if o.Outcome == bump.OutcomePlanned && o.Plan != nil {
		fmt.Fprintf(w, "  commit on branch %s:\n", branch)
		fmt.Fprint(w, indent(publish.MarshalPlan(o.Plan.Files, o.Plan.Message), "    "))
		fmt.Fprintf(w, "  pull request: %s\n", o.Plan.Title)
		fmt.Fprint(w, indent(o.Plan.Body, "    "))
	}
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return prefix + strings.Join(lines, "\n"+prefix) + "\n"
}

const publishHelp = `Usage: bot publish --summary PATH [--dry-run] [flags]

Validates PATH (a summary.json; points.json and plan.json next to it go
with it when present) against the summary schema, applies the
accuracy gate (label not experimental; harness commit from a checkout, or by
assertion only when reachable from the harness's main and released; coverage
balanced) and writes one commit to the dashboard repository
(BOT_DASHBOARD_REPO). A refused summary prints its reasons and exits 3.
--dry-run prints the planned commit without writing it.

Example:
  BOT_APP_ID=12345 BOT_PRIVATE_KEY_FILE=key.pem BOT_DASHBOARD_REPO=inference-sim/accuracy-data \
  bot publish --summary out/summary.json --dry-run

Flags:
`

// publishOptions are the flags of `bot publish`.
type publishOptions struct {
	config  botconfig.Flags
	summary string
	dryRun  bool
}

func publishFlags(fs *flag.FlagSet, o *publishOptions, _ func(string) string) {
	configFlags(fs, &o.config)
	fs.StringVar(&o.summary, "summary", "", "the summary.json to publish (required)")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the planned commit; write nothing")
}

func runPublish(ctx context.Context, o publishOptions, e env) error {
	path := o.summary
	cfg, err := loadConfig(o.config, botconfig.ModePublish, e)
	if err != nil {
		return err
	}
	// points.json and plan.json next to the summary go with it when present.
	rep, err := publish.ReadResultOf(path)
	if err != nil {
		return err
	}
	s, err := wire(cfg, e, o.dryRun, slog.New(slog.NewTextHandler(e.stderr, nil)))
	if err != nil {
		return err
	}
	res, err := s.publisher.Publish(ctx, rep, e.now(), "")
	if err != nil {
		return err
	}
	switch res.Outcome {
	case publish.PublishRefused:
		for _, r := range res.Reasons {
			fmt.Fprintf(e.stdout, "refused: %s\n", r)
		}
		return fmt.Errorf("%s: %w: %s", path, errRefused, strings.Join(res.Reasons, "; "))
	case publish.PublishUnchanged:
		fmt.Fprintf(e.stdout, "unchanged: snapshot %s; the simulator release, harness and data versions were already published\n", res.ID)
	case publish.PublishPlanned:
		fmt.Fprintf(e.stdout, "planned commit on %s:\n", cfg.DashboardRepo)
		fmt.Fprint(e.stdout, indent(publish.MarshalPlan(res.Files, res.Message), "  "))
	default:
		fmt.Fprintf(e.stdout, "published snapshot %s as %s on %s (%d files)\n", res.ID, res.Commit, cfg.DashboardRepo, len(res.Files))
	}
	return nil
}

const publishLeaderboardHelp = `Usage: bot publish-leaderboard --results DIR [--runs FILE] [--pin FILE] [--dry-run] [flags]

Checks a leaderboard's results directory as the bot checks a leaderboard
workflow run's artifact (every rule of action leaderboard validate --pin, and
a release simulator build), renders the tables and writes one commit to the
leaderboard directory of the dashboard repository (BOT_DASHBOARD_REPO,
leaderboard_dir): results/, README.md, index.html and published.json. The
same files again change nothing. A refused leaderboard prints its reasons
and exits 3. --dry-run prints the planned commit without writing it.

Example:
  BOT_APP_ID=12345 BOT_PRIVATE_KEY_FILE=key.pem \
  bot publish-leaderboard --runs leaderboard/runs.yaml --results out/leaderboard/results --dry-run

Flags:
`

// publishLeaderboardOptions are the flags of `bot publish-leaderboard`.
type publishLeaderboardOptions struct {
	config             botconfig.Flags
	results, runs, pin string
	dryRun             bool
}

func publishLeaderboardFlags(fs *flag.FlagSet, o *publishLeaderboardOptions, _ func(string) string) {
	configFlags(fs, &o.config)
	fs.StringVar(&o.results, "results", "", "the results `directory` to publish (required)")
	fs.StringVar(&o.runs, "runs", "", "the declaration the results ran (default leaderboard_runs, "+botconfig.DefaultLeaderboardRuns+")")
	fs.StringVar(&o.pin, "pin", "", "the pin file with the leaderboard pair (default pin_file, "+botconfig.DefaultPinFile+")")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print the planned commit; write nothing")
}

func runPublishLeaderboard(ctx context.Context, o publishLeaderboardOptions, e env) error {
	cfg, err := loadConfig(o.config, botconfig.ModePublish, e)
	if err != nil {
		return err
	}
	if !cfg.PublishingLeaderboard() {
		return fmt.Errorf("configuration: leaderboard publishing is off (%s=%s)", botconfig.EnvLeaderboardRepo, cfg.LeaderboardRepo)
	}
	runsPath, pinPath := cmp.Or(o.runs, filepath.FromSlash(cfg.LeaderboardRuns)), cmp.Or(o.pin, filepath.FromSlash(cfg.PinFile))
	runs, err := diskio.ReadPathMax(runsPath, leaderboard.MaxDeclarationBytes)
	if err != nil {
		return fmt.Errorf("runs: %w", err)
	}
	pinRaw, err := diskio.ReadPathMax(pinPath, pin.MaxFileBytes)
	if err != nil && !errors.Is(err, iofs.ErrNotExist) {
		return fmt.Errorf("pin: %w", err)
	}
	if st, err := os.Stat(o.results); err != nil || !st.IsDir() {
		return fmt.Errorf("--results %s: not a directory (%v)", o.results, err)
	}
	s, err := wire(cfg, e, o.dryRun, slog.New(slog.NewTextHandler(e.stderr, nil)))
	if err != nil {
		return err
	}
	res, err := s.leaderboard.PublishLocal(ctx, s.publisher, lbview.CheckInput{Runs: runs, RunsName: runsPath, Pin: pinRaw, PinName: pinPath,
		Traces: os.DirFS(filepath.Dir(runsPath)), Results: os.DirFS(o.results)}, e.now())
	if err != nil {
		return err
	}
	switch res.Outcome {
	case publish.PublishRefused:
		for _, r := range res.Reasons {
			fmt.Fprintf(e.stdout, "refused: %s\n", r)
		}
		return fmt.Errorf("%s: %w: %s", o.results, errRefused, strings.Join(res.Reasons, "; "))
	case publish.PublishUnchanged:
		fmt.Fprintf(e.stdout, "unchanged: %s/ of %s already holds these results and tables\n", cfg.LeaderboardDir, cfg.DashboardRepo)
	case publish.PublishPlanned:
		fmt.Fprintf(e.stdout, "planned commit on %s:\n", cfg.DashboardRepo)
		fmt.Fprint(e.stdout, indent(publish.MarshalPlan(res.Files, res.Message), "  "))
	default:
		fmt.Fprintf(e.stdout, "published the leaderboard as %s on %s (%d files)\n", res.Commit, cfg.DashboardRepo, len(res.Files))
	}
	return nil
}

// The App client is the bot's GitHub.
var (
	_ bump.BumpGitHub       = (*github.AppClient)(nil)
	_ publish.PublishGitHub = (*github.AppClient)(nil)
)
