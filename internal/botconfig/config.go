// Package botconfig holds the bot's configuration: one typed struct filled, in
// this order of precedence, from defaults, an optional strict YAML file, the
// BOT_* environment variables and command-line flags. Load is the only place
// that precedence is written down; Validate says what each mode needs before
// the bot may start.
package botconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"gopkg.in/yaml.v3"
)

// Defaults.
const (
	DefaultListenAddr  = ":8080"
	DefaultHarnessRepo = "inference-sim/accuracy-dashboard"
	DefaultPinFile     = ".github/accuracy-harness.yaml"
	// DefaultDashboardRepo, DefaultPublishWorkflow and DefaultArtifactName
	// are the nightly this repository ships: .github/workflows/accuracy-nightly.yml
	// runs in this repository, which is also the dashboard, and uploads the
	// artifact accuracy-report (a test checks that they agree).
	DefaultDashboardRepo   = DefaultHarnessRepo
	DefaultPublishWorkflow = ".github/workflows/accuracy-nightly.yml"
	DefaultArtifactName    = "accuracy-report"
	// DefaultLeaderboardWorkflow, DefaultLeaderboardArtifact,
	// DefaultLeaderboardRuns and DefaultLeaderboardDir are the leaderboard
	// workflow this repository ships: .github/workflows/leaderboard.yml runs
	// on this repository's default branch when leaderboard/runs.yaml or the
	// pin file changes, and uploads the results directory as the artifact
	// leaderboard-results; the bot commits it, with the tables, to
	// leaderboard/ of the dashboard (here the same directory: a test checks
	// that they agree).
	DefaultLeaderboardWorkflow = ".github/workflows/leaderboard.yml"
	DefaultLeaderboardArtifact = "leaderboard-results"
	DefaultLeaderboardRuns     = "leaderboard/runs.yaml"
	DefaultLeaderboardDir      = "leaderboard"
	// PublishingOff as dashboard_repo turns publishing off; as
	// leaderboard_repo, the leaderboard's only.
	PublishingOff     = "none"
	DefaultBumpBranch = "accuracy-bot/harness"
	// DefaultSimulatorRepo is the simulator whose releases move the
	// leaderboard pair of the pin files naming it (PublishingOff: none);
	// DefaultLeaderboardBumpBranch the stable branch of that bump.
	DefaultSimulatorRepo         = "inference-sim/inference-sim"
	DefaultLeaderboardBumpBranch = "accuracy-bot/leaderboard"
	DefaultQueueSize             = 64
	DefaultWorkers               = 2
	// DefaultMaxBodyBytes caps a webhook body. GitHub allows 25 MB, but
	// the events the bot acts on are far smaller (real release and
	// workflow_run payloads are 8–20 KB; release notes are capped at
	// 125 000 characters), and every body is held in memory before its
	// signature can be checked.
	DefaultMaxBodyBytes = 1 << 20
	// DefaultMaxConcurrentReads is the webhook's read budget, in bodies of
	// max_body_bytes.
	DefaultMaxConcurrentReads = 8
	// DefaultMaxConns bounds the webhook server's connections, and
	// DefaultMaxConnsPerAddr those of one client address; an idle
	// keep-alive connection costs about 20 KiB.
	DefaultMaxConns        = 512
	DefaultMaxConnsPerAddr = 32
	// DefaultMaxReadsPerAddr bounds the webhook bodies one client address
	// is reading, or waiting to read, at once: half the read budget's
	// bodies, so that one address never takes it all.
	DefaultMaxReadsPerAddr = DefaultMaxConcurrentReads / 2
)

// Environment variable names.
const (
	EnvConfigFile      = "BOT_CONFIG"
	EnvAppID           = "BOT_APP_ID"
	EnvPrivateKeyFile  = "BOT_PRIVATE_KEY_FILE"
	EnvWebhookSecret   = "BOT_WEBHOOK_SECRET"
	EnvListenAddr      = "BOT_LISTEN_ADDR"
	EnvGitHubURL       = "BOT_GITHUB_URL"
	EnvHarnessRepo     = "BOT_HARNESS_REPO"
	EnvSimulatorRepo   = "BOT_SIMULATOR_REPO"
	EnvDashboardRepo   = "BOT_DASHBOARD_REPO"
	EnvPublishRepo     = "BOT_PUBLISH_REPO"
	EnvPublishWorkflow = "BOT_PUBLISH_WORKFLOW"
	EnvAllowPrerelease = "BOT_ALLOW_PRERELEASES"
	EnvRepositories    = "BOT_REPOSITORIES"
	EnvLeaderboardRepo = "BOT_LEADERBOARD_REPO"
	EnvLeaderboardWF   = "BOT_LEADERBOARD_WORKFLOW"
	EnvMetricsAddr     = "BOT_METRICS_ADDR"
	EnvTrustedProxies  = "BOT_TRUSTED_PROXIES"
	EnvHookRanges      = "BOT_HOOK_RANGES"
	EnvStateDir        = "BOT_STATE_DIR"
)

// Config is everything the bot needs. Field names in YAML are snake_case.
type Config struct {
	// AppID is the GitHub App's numeric id.
	AppID int64 `yaml:"app_id"`
	// PrivateKeyFile is the path of the App's PEM private key.
	PrivateKeyFile string `yaml:"private_key_file"`
	// WebhookSecret is the secret the App's webhooks are signed with. Only
	// the environment sets it (a secret does not belong in a config file).
	WebhookSecret string `yaml:"-"`
	// ListenAddr is the server's address (host:port).
	ListenAddr string `yaml:"listen_addr"`
	// GitHubURL is the REST API base URL of a GitHub Enterprise Server,
	// e.g. https://ghe.example.com/api/v3/; empty means api.github.com.
	GitHubURL string `yaml:"github_url"`
	// HarnessRepo is the harness repository (owner/name) whose releases are
	// pinned by consumers.
	HarnessRepo string `yaml:"harness_repo"`
	// PinFile is the path of the pin file in consumer repositories.
	PinFile string `yaml:"pin_file"`
	// BumpBranch is the stable branch the bot pushes pin bumps to.
	BumpBranch string `yaml:"bump_branch"`
	// SimulatorRepo is the simulator repository (owner/name) whose
	// releases move the leaderboard pair (simulator and catalog) of every
	// pin file whose leaderboard: section names it; PublishingOff ("none")
	// turns these bumps off.
	SimulatorRepo string `yaml:"simulator_repo"`
	// LeaderboardBumpBranch is the stable branch of the leaderboard-pair
	// bumps.
	LeaderboardBumpBranch string `yaml:"leaderboard_bump_branch"`
	// DashboardRepo (owner/name) receives published snapshots;
	// PublishingOff ("none") disables publishing.
	DashboardRepo string `yaml:"dashboard_repo"`
	// PublishRepo (owner/name) is where the publishing workflow runs;
	// default the dashboard repository.
	PublishRepo string `yaml:"publish_repo"`
	// PublishWorkflow is the path of the publishing workflow file in PublishRepo.
	PublishWorkflow string `yaml:"publish_workflow"`
	// ArtifactName is the name of the publishing run's report artifact.
	ArtifactName string `yaml:"artifact_name"`
	// LeaderboardRepo (owner/name) is where the leaderboard workflow runs
	// and runs.yaml and the pin file live; default the dashboard
	// repository; PublishingOff turns leaderboard publishing off.
	LeaderboardRepo string `yaml:"leaderboard_repo"`
	// LeaderboardWorkflow is the path of the leaderboard workflow file in
	// LeaderboardRepo.
	LeaderboardWorkflow string `yaml:"leaderboard_workflow"`
	// LeaderboardArtifact is the name of its run's results artifact.
	LeaderboardArtifact string `yaml:"leaderboard_artifact"`
	// LeaderboardRuns is the path of runs.yaml in LeaderboardRepo.
	LeaderboardRuns string `yaml:"leaderboard_runs"`
	// LeaderboardDir is the directory of the dashboard repository the
	// leaderboard is published in.
	LeaderboardDir string `yaml:"leaderboard_dir"`
	// AllowPrereleases makes prereleases of the harness bump pins too.
	AllowPrereleases bool `yaml:"allow_prereleases"`
	// Repositories (owner/name) limits the repositories served; empty means
	// every repository the App is installed on.
	Repositories []string `yaml:"repositories"`
	// QueueSize bounds the webhook queue; a full queue answers 503.
	QueueSize int `yaml:"queue_size"`
	// Workers is the number of deliveries processed concurrently.
	Workers int `yaml:"workers"`
	// MaxBodyBytes caps a webhook body.
	MaxBodyBytes int64 `yaml:"max_body_bytes"`
	// MaxConcurrentReads is the webhook's read budget in bodies of
	// MaxBodyBytes: the memory the bodies being read may take, each
	// reserving the length it declares (503 beyond, after a short wait).
	// It bounds what unsigned callers can make the bot hold in memory.
	MaxConcurrentReads int `yaml:"max_concurrent_reads"`
	// MaxConns and MaxConnsPerAddr bound the webhook server's connections,
	// in total and per client address; MaxReadsPerAddr the bodies one
	// client address is reading (or waiting to read) at once.
	MaxConns        int `yaml:"max_conns"`
	MaxConnsPerAddr int `yaml:"max_conns_per_addr"`
	MaxReadsPerAddr int `yaml:"max_reads_per_addr"`
	// TrustedProxies are the addresses or networks of the reverse proxies
	// in front of the server: their connections are not bounded per
	// address, and the client address of a request they forward is the
	// one they append to X-Forwarded-For.
	TrustedProxies []string `yaml:"trusted_proxies"`
	// HookRanges are GitHub's published webhook address ranges (the
	// "hooks" of https://api.github.com/meta): a delivery from them reads
	// its body in read slots of its own, ahead of every other caller, and
	// is not bounded per address. Empty (the default): none.
	HookRanges []string `yaml:"hook_ranges"`
	// MetricsAddr is the address GET /metrics is served on (host:port);
	// empty (the default) serves no metrics.
	MetricsAddr string `yaml:"metrics_addr"`
	// StateDir is the directory `serve` keeps its journal of accepted
	// deliveries in (StateDir/journal), from before each is acknowledged
	// until its work ends, so that a bot killed mid-work finishes it when
	// it starts again. Empty (the default): no journal, and a delivery
	// queued or running when the bot dies is lost.
	StateDir string `yaml:"state_dir"`
}

// Default returns the configuration before any source is applied.
func Default() Config {
	return Config{
		ListenAddr:            DefaultListenAddr,
		HarnessRepo:           DefaultHarnessRepo,
		PinFile:               DefaultPinFile,
		BumpBranch:            DefaultBumpBranch,
		SimulatorRepo:         DefaultSimulatorRepo,
		LeaderboardBumpBranch: DefaultLeaderboardBumpBranch,
		DashboardRepo:         DefaultDashboardRepo,
		PublishWorkflow:       DefaultPublishWorkflow,
		ArtifactName:          DefaultArtifactName,
		LeaderboardWorkflow:   DefaultLeaderboardWorkflow,
		LeaderboardArtifact:   DefaultLeaderboardArtifact,
		LeaderboardRuns:       DefaultLeaderboardRuns,
		LeaderboardDir:        DefaultLeaderboardDir,
		QueueSize:             DefaultQueueSize,
		Workers:               DefaultWorkers,
		MaxBodyBytes:          DefaultMaxBodyBytes,
		MaxConcurrentReads:    DefaultMaxConcurrentReads,
		MaxConns:              DefaultMaxConns,
		MaxConnsPerAddr:       DefaultMaxConnsPerAddr,
		MaxReadsPerAddr:       DefaultMaxReadsPerAddr,
	}
}

// Flags are the command-line overrides; nil (or empty) means "not given".
type Flags struct {
	ConfigFile     string
	AppID          string
	PrivateKeyFile string
	ListenAddr     string
	MetricsAddr    string
	GitHubURL      string
}

// Load builds the configuration. Precedence, lowest first: Default, the YAML
// file (flag --config, else $BOT_CONFIG; optional), the environment, the
// flags. readFile reads the config file (os.ReadFile in production). The
// result is not validated: call Validate for the mode at hand.
func Load(getenv func(string) string, flags Flags, readFile func(string) ([]byte, error)) (Config, error) {
	cfg := Default()
	path := flags.ConfigFile
	if path == "" {
		path = getenv(EnvConfigFile)
	}
	if path != "" {
		data, err := readFile(path)
		if err != nil {
			return Config{}, fmt.Errorf("config file: %w", err)
		}
		if err := decodeFile(data, &cfg); err != nil {
			return Config{}, fmt.Errorf("config file %s: %w", path, err)
		}
	}
	if err := applyEnv(getenv, &cfg); err != nil {
		return Config{}, err
	}
	if flags.AppID != "" {
		id, err := parseAppID(flags.AppID)
		if err != nil {
			return Config{}, fmt.Errorf("flag --app-id: %w", err)
		}
		cfg.AppID = id
	}
	set(&cfg.PrivateKeyFile, flags.PrivateKeyFile)
	set(&cfg.ListenAddr, flags.ListenAddr)
	set(&cfg.MetricsAddr, flags.MetricsAddr)
	set(&cfg.GitHubURL, flags.GitHubURL)
	if cfg.PublishRepo == "" && cfg.Publishing() {
		cfg.PublishRepo = cfg.DashboardRepo
	}
	if cfg.LeaderboardRepo == "" && cfg.Publishing() {
		cfg.LeaderboardRepo = cfg.DashboardRepo
	}
	return cfg, nil
}

// Publishing reports whether snapshots are published (dashboard_repo is
// not "none").
func (c Config) Publishing() bool { return c.DashboardRepo != PublishingOff && c.DashboardRepo != "" }

// BumpingLeaderboard reports whether simulator releases move leaderboard
// pairs (simulator_repo is not "none").
func (c Config) BumpingLeaderboard() bool {
	return c.SimulatorRepo != PublishingOff && c.SimulatorRepo != ""
}

// PublishingLeaderboard reports whether the leaderboard is published too
// (publishing is on and leaderboard_repo is not "none").
func (c Config) PublishingLeaderboard() bool {
	return c.Publishing() && c.LeaderboardRepo != PublishingOff && c.LeaderboardRepo != ""
}

func set(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// decodeFile decodes YAML strictly: unknown keys and trailing documents are errors.
func decodeFile(data []byte, cfg *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // an empty file changes nothing
		}
		return err
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return errors.New("more than one YAML document")
	}
	return nil
}

func applyEnv(getenv func(string) string, cfg *Config) error {
	if v := getenv(EnvAppID); v != "" {
		id, err := parseAppID(v)
		if err != nil {
			return fmt.Errorf("%s: %w", EnvAppID, err)
		}
		cfg.AppID = id
	}
	set(&cfg.PrivateKeyFile, getenv(EnvPrivateKeyFile))
	set(&cfg.WebhookSecret, getenv(EnvWebhookSecret))
	set(&cfg.ListenAddr, getenv(EnvListenAddr))
	set(&cfg.MetricsAddr, getenv(EnvMetricsAddr))
	set(&cfg.StateDir, getenv(EnvStateDir))
	set(&cfg.GitHubURL, getenv(EnvGitHubURL))
	set(&cfg.HarnessRepo, getenv(EnvHarnessRepo))
	set(&cfg.SimulatorRepo, getenv(EnvSimulatorRepo))
	set(&cfg.DashboardRepo, getenv(EnvDashboardRepo))
	set(&cfg.PublishRepo, getenv(EnvPublishRepo))
	set(&cfg.PublishWorkflow, getenv(EnvPublishWorkflow))
	set(&cfg.LeaderboardRepo, getenv(EnvLeaderboardRepo))
	set(&cfg.LeaderboardWorkflow, getenv(EnvLeaderboardWF))
	if v := getenv(EnvAllowPrerelease); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%s: %q is not true or false", EnvAllowPrerelease, v)
		}
		cfg.AllowPrereleases = b
	}
	if v := getenv(EnvRepositories); v != "" {
		cfg.Repositories = list(v)
	}
	if v := getenv(EnvTrustedProxies); v != "" {
		cfg.TrustedProxies = list(v)
	}
	if v := getenv(EnvHookRanges); v != "" {
		cfg.HookRanges = list(v)
	}
	return nil
}

// list splits a comma-separated environment value, dropping empty items.
func list(v string) []string {
	var out []string
	for _, r := range strings.Split(v, ",") {
		if r = strings.TrimSpace(r); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// ParseProxies parses trusted_proxies: addresses ("127.0.0.1", "::1") and
// networks ("10.0.0.0/8"), naming the first entry that is neither.
func ParseProxies(entries []string) ([]netip.Prefix, error) {
	return parseNetworks("trusted proxy", entries)
}

// ParseHookRanges parses hook_ranges, as ParseProxies does.
func ParseHookRanges(entries []string) ([]netip.Prefix, error) {
	return parseNetworks("hook range", entries)
}

// parseNetworks parses addresses and networks, naming the first entry
// that is neither as what.
func parseNetworks(what string, entries []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if p, err := netip.ParsePrefix(e); err == nil {
			if p.Addr().Is4In6() {
				// Peers are compared unmapped: the IPv4 network.
				if p.Bits() < 96 {
					return nil, fmt.Errorf("%s %q is an IPv4-mapped network wider than IPv4", what, e)
				}
				p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(e)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("%s %q is not an IP address or network", what, e)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

func parseAppID(s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("app id %q is not a positive integer", s)
	}
	return id, nil
}

// relPath reports whether p is a clean, slash-separated relative path
// inside a repository.
func relPath(p string) bool { return fs.ValidPath(p) && p != "." && path.Clean(p) == p }

// Mode is what the configuration is validated for.
type Mode int

const (
	// ModeServe runs the webhook server: needs app id, key and webhook secret.
	ModeServe Mode = iota
	// ModeCLI runs one bump: needs app id and key.
	ModeCLI
	// ModePublish runs one publish: needs app id, key and the dashboard
	// repository.
	ModePublish
)

// Validate reports every problem that keeps the bot from starting in mode,
// joined into one error.
func (c Config) Validate(mode Mode) error {
	var errs []error
	if c.AppID <= 0 {
		errs = append(errs, fmt.Errorf("app id is required (%s)", EnvAppID))
	}
	if c.PrivateKeyFile == "" {
		errs = append(errs, fmt.Errorf("private key file is required (%s)", EnvPrivateKeyFile))
	}
	if mode == ModePublish && !c.Publishing() {
		errs = append(errs, fmt.Errorf("dashboard repo is required to publish (%s)", EnvDashboardRepo))
	}
	if mode == ModeServe {
		if c.WebhookSecret == "" {
			errs = append(errs, fmt.Errorf("webhook secret is required (%s)", EnvWebhookSecret))
		}
		if c.ListenAddr == "" {
			errs = append(errs, errors.New("listen address is empty"))
		}
		if c.MetricsAddr != "" && c.MetricsAddr == c.ListenAddr && !strings.HasSuffix(c.ListenAddr, ":0") {
			errs = append(errs, fmt.Errorf("metrics address %s is the webhook listen address: metrics are for the operator only", c.MetricsAddr))
		}
		if _, err := ParseProxies(c.TrustedProxies); err != nil {
			errs = append(errs, err)
		}
		if _, err := ParseHookRanges(c.HookRanges); err != nil {
			errs = append(errs, err)
		}
	}
	if c.GitHubURL != "" {
		u, err := url.Parse(c.GitHubURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			errs = append(errs, fmt.Errorf("github url %q is not an http(s) URL", c.GitHubURL))
		}
	}
	check := func(name, v string, required bool) {
		if v == "" && !required {
			return
		}
		if _, err := ident.ParseRepo(v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	check("harness repo", c.HarnessRepo, true)
	if c.Publishing() {
		check("dashboard repo", c.DashboardRepo, true)
	}
	check("publish repo", c.PublishRepo, false)
	if c.PublishingLeaderboard() {
		check("leaderboard repo", c.LeaderboardRepo, true)
		for _, f := range [][2]string{{"leaderboard workflow", c.LeaderboardWorkflow}, {"leaderboard runs", c.LeaderboardRuns}, {"leaderboard dir", c.LeaderboardDir}} {
			if !relPath(f[1]) {
				errs = append(errs, fmt.Errorf("%s %q must be a clean relative path", f[0], f[1]))
			}
		}
		if c.LeaderboardArtifact == "" {
			errs = append(errs, errors.New("leaderboard artifact is empty"))
		}
		if strings.EqualFold(c.LeaderboardRepo, c.PublishRepo) && c.LeaderboardWorkflow == c.PublishWorkflow {
			errs = append(errs, fmt.Errorf("leaderboard workflow %s is the publishing workflow: a run publishes either a snapshot or the leaderboard", c.LeaderboardWorkflow))
		}
	}
	for _, r := range c.Repositories {
		check("repository", r, true)
	}
	if c.PinFile == "" || strings.HasPrefix(c.PinFile, "/") {
		errs = append(errs, fmt.Errorf("pin file %q must be a relative path", c.PinFile))
	}
	if c.BumpBranch == "" {
		errs = append(errs, errors.New("bump branch is empty"))
	}
	if c.BumpingLeaderboard() {
		check("simulator repo", c.SimulatorRepo, true)
		if strings.EqualFold(c.SimulatorRepo, c.HarnessRepo) {
			errs = append(errs, fmt.Errorf("simulator repo %s is the harness repo: a release bumps either the harness pins or the leaderboard pairs", c.SimulatorRepo))
		}
		switch c.LeaderboardBumpBranch {
		case "":
			errs = append(errs, errors.New("leaderboard bump branch is empty"))
		case c.BumpBranch:
			errs = append(errs, fmt.Errorf("leaderboard bump branch %s is the bump branch: the harness and the leaderboard pair are bumped on branches of their own", c.BumpBranch))
		}
	}
	for _, l := range []struct {
		name string
		v    int64
	}{{"queue_size", int64(c.QueueSize)}, {"workers", int64(c.Workers)}, {"max_body_bytes", c.MaxBodyBytes},
		{"max_concurrent_reads", int64(c.MaxConcurrentReads)}, {"max_conns", int64(c.MaxConns)},
		{"max_conns_per_addr", int64(c.MaxConnsPerAddr)}, {"max_reads_per_addr", int64(c.MaxReadsPerAddr)}} {
		if l.v < 1 {
			errs = append(errs, fmt.Errorf("%s is %d, must be positive", l.name, l.v))
		}
	}
	return errors.Join(errs...)
}
