package botconfig

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func files(m map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		s, ok := m[p]
		if !ok {
			return nil, fs.ErrNotExist
		}
		return []byte(s), nil
	}
}

func TestLoadPrecedence(t *testing.T) {
	t.Parallel()
	fileYAML := `
app_id: 11
private_key_file: /file/key.pem
listen_addr: ":1111"
dashboard_repo: org/dash
repositories: [org/a, org/b]
allow_prereleases: true
`
	cfg, err := Load(env(map[string]string{
		EnvConfigFile:      "/etc/bot.yaml",
		EnvAppID:           "22",
		EnvWebhookSecret:   "s3cret",
		EnvListenAddr:      ":2222",
		EnvRepositories:    " org/c , org/d,",
		EnvGitHubURL:       "https://ghe.example.com/api/v3/",
		EnvAllowPrerelease: "false",
	}), Flags{ListenAddr: ":3333"}, files(map[string]string{"/etc/bot.yaml": fileYAML}))
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.AppID = 22                       // env over file
	want.PrivateKeyFile = "/file/key.pem" // file over default
	want.WebhookSecret = "s3cret"
	want.ListenAddr = ":3333" // flag over env over file
	want.GitHubURL = "https://ghe.example.com/api/v3/"
	want.DashboardRepo = "org/dash"
	want.PublishRepo = "org/dash" // defaults to the dashboard repository
	want.LeaderboardRepo = "org/dash"
	want.Repositories = []string{"org/c", "org/d"}
	want.AllowPrereleases = false
	if d := cmp.Diff(want, cfg); d != "" {
		t.Errorf("config (-want +got):\n%s", d)
	}
	if err := cfg.Validate(ModeServe); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		env   map[string]string
		flags Flags
		file  string
		want  string
	}{
		{name: "unknown key", env: map[string]string{EnvConfigFile: "c.yaml"}, file: "app_id: 1\napp_idd: 2\n", want: "c.yaml"},
		{name: "secret in file refused", env: map[string]string{EnvConfigFile: "c.yaml"}, file: "webhook_secret: x\n", want: "field webhook_secret not found"},
		{name: "two documents", env: map[string]string{EnvConfigFile: "c.yaml"}, file: "app_id: 1\n---\napp_id: 2\n", want: "more than one YAML document"},
		{name: "missing file", flags: Flags{ConfigFile: "nope.yaml"}, want: "config file"},
		{name: "bad app id env", env: map[string]string{EnvAppID: "abc"}, want: EnvAppID},
		{name: "bad app id flag", flags: Flags{AppID: "-3"}, want: "--app-id"},
		{name: "bad bool", env: map[string]string{EnvAllowPrerelease: "maybe"}, want: EnvAllowPrerelease},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(env(tc.env), tc.flags, files(map[string]string{"c.yaml": tc.file}))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load error = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestValidateRefusesToStartWithoutCredentials(t *testing.T) {
	t.Parallel()
	cfg, err := Load(env(nil), Flags{}, files(nil))
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.Validate(ModeServe)
	for _, want := range []string{EnvAppID, EnvPrivateKeyFile, EnvWebhookSecret} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate(ModeServe) = %v, want it to name %s", err, want)
		}
	}
	cfg.AppID, cfg.PrivateKeyFile = 1, "k.pem"
	if err := cfg.Validate(ModeCLI); err != nil {
		t.Errorf("Validate(ModeCLI) without a secret = %v, want nil", err)
	}
	// Out of the box the bot publishes to this repository, from the nightly
	// it ships; "none" turns publishing off.
	if cfg.DashboardRepo != DefaultHarnessRepo || cfg.PublishRepo != DefaultHarnessRepo || cfg.PublishWorkflow != ".github/workflows/accuracy-nightly.yml" {
		t.Errorf("defaults: dashboard %s, publish repo %s, workflow %s", cfg.DashboardRepo, cfg.PublishRepo, cfg.PublishWorkflow)
	}
	if err := cfg.Validate(ModePublish); err != nil {
		t.Errorf("Validate(ModePublish) with the default dashboard = %v", err)
	}
	off, err := Load(env(map[string]string{EnvDashboardRepo: PublishingOff}), Flags{}, files(nil))
	if err != nil || off.Publishing() || off.PublishRepo != "" {
		t.Fatalf("dashboard none: %+v, %v", off, err)
	}
	off.AppID, off.PrivateKeyFile = 1, "k.pem"
	if err := off.Validate(ModePublish); err == nil || !strings.Contains(err.Error(), EnvDashboardRepo) {
		t.Errorf("Validate(ModePublish) with publishing off = %v, want it named", err)
	}
	if err := cfg.Validate(ModeServe); err == nil || !strings.Contains(err.Error(), EnvWebhookSecret) {
		t.Errorf("Validate(ModeServe) = %v, want a missing secret", err)
	}
	cfg.WebhookSecret = "x"
	cfg.GitHubURL = "ftp://x"
	cfg.Repositories = []string{"not a repo"}
	err = cfg.Validate(ModeServe)
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != 2 {
		t.Errorf("Validate = %v, want two joined problems (url, repository)", err)
	}
}

// Issue 11, defect 1: every body is held in memory before its signature can
// be checked, so the defaults bound what unsigned callers can make the bot
// hold: a small body cap (not GitHub's 25 MB) times a few bodies at once.
func TestDefaultsBoundUnsignedMemory(t *testing.T) {
	t.Parallel()
	d := Default()
	if d.MaxBodyBytes > 1<<20 {
		t.Errorf("default max_body_bytes %d, want at most 1 MiB", d.MaxBodyBytes)
	}
	if d.MaxConcurrentReads < 1 || int64(d.MaxConcurrentReads)*d.MaxBodyBytes > 16<<20 {
		t.Errorf("default max_concurrent_reads %d × max_body_bytes %d: want at least one and at most 16 MiB held",
			d.MaxConcurrentReads, d.MaxBodyBytes)
	}
	bad := d
	bad.AppID, bad.PrivateKeyFile, bad.MaxConcurrentReads = 1, "k", 0
	if err := bad.Validate(ModeCLI); err == nil || !strings.Contains(err.Error(), "max_concurrent_reads") {
		t.Errorf("max_concurrent_reads 0: %v", err)
	}
}

// TestLeaderboardDefaults: out of the box the leaderboard is published from
// the workflow this repository ships, in the dashboard repository; "none"
// turns it off alone; a path outside the repository is refused.
func TestLeaderboardDefaults(t *testing.T) {
	base := map[string]string{EnvAppID: "1", EnvPrivateKeyFile: "k.pem"}
	cfg, err := Load(env(base), Flags{}, files(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.PublishingLeaderboard() || cfg.LeaderboardRepo != DefaultDashboardRepo || cfg.LeaderboardWorkflow != ".github/workflows/leaderboard.yml" ||
		cfg.LeaderboardArtifact != "leaderboard-results" || cfg.LeaderboardRuns != "leaderboard/runs.yaml" || cfg.LeaderboardDir != "leaderboard" {
		t.Errorf("leaderboard defaults: %+v", cfg)
	}
	if err := cfg.Validate(ModePublish); err != nil {
		t.Errorf("defaults: %v", err)
	}
	moved, err := Load(env(map[string]string{EnvDashboardRepo: "o/dash"}), Flags{}, files(nil))
	if err != nil || moved.LeaderboardRepo != "o/dash" {
		t.Errorf("the leaderboard repository does not follow the dashboard: %+v, %v", moved, err)
	}
	off := map[string]string{EnvLeaderboardRepo: PublishingOff}
	for k, v := range base {
		off[k] = v
	}
	cfg, err = Load(env(off), Flags{}, files(nil))
	if err != nil || cfg.PublishingLeaderboard() || !cfg.Publishing() {
		t.Errorf("leaderboard_repo none: leaderboard %v, snapshots %v, %v", cfg.PublishingLeaderboard(), cfg.Publishing(), err)
	}
	bad := map[string]string{EnvConfigFile: "c.yaml"}
	for k, v := range base {
		bad[k] = v
	}
	cfg, err = Load(env(bad), Flags{}, files(map[string]string{"c.yaml": "leaderboard_dir: ../elsewhere\nleaderboard_runs: /abs/runs.yaml\n"}))
	if err != nil {
		t.Fatal(err)
	}
	cfg.LeaderboardWorkflow = cfg.PublishWorkflow
	err = cfg.Validate(ModeServe)
	for _, want := range []string{`leaderboard dir "../elsewhere"`, `leaderboard runs "/abs/runs.yaml"`, "is the publishing workflow"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want it to name %s", err, want)
		}
	}
}

// Issue 18: the server's connection bounds, its trusted proxies and the
// metrics address are configured like the rest; metrics are off unless an
// address is given, and never on the webhook's own address.
func TestServerBoundsProxiesAndMetrics(t *testing.T) {
	t.Parallel()
	base := map[string]string{EnvAppID: "1", EnvPrivateKeyFile: "k.pem", EnvWebhookSecret: "s"}
	cfg, err := Load(env(base), Flags{}, files(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MetricsAddr != "" || cfg.MaxConns != DefaultMaxConns || cfg.MaxConnsPerAddr != DefaultMaxConnsPerAddr ||
		cfg.MaxReadsPerAddr != DefaultMaxReadsPerAddr || len(cfg.TrustedProxies) != 0 {
		t.Errorf("defaults: metrics %q, conns %d/%d, reads per address %d, proxies %v",
			cfg.MetricsAddr, cfg.MaxConns, cfg.MaxConnsPerAddr, cfg.MaxReadsPerAddr, cfg.TrustedProxies)
	}
	withFile := map[string]string{EnvConfigFile: "c.yaml", EnvTrustedProxies: "127.0.0.1, ::1,10.0.0.0/8"}
	for k, v := range base {
		withFile[k] = v
	}
	cfg, err = Load(env(withFile), Flags{MetricsAddr: "127.0.0.1:9100"}, files(map[string]string{"c.yaml": "max_conns: 100\nmax_conns_per_addr: 5\nmax_reads_per_addr: 1\nmetrics_addr: 127.0.0.1:9000\n"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxConns != 100 || cfg.MaxConnsPerAddr != 5 || cfg.MaxReadsPerAddr != 1 || cfg.MetricsAddr != "127.0.0.1:9100" {
		t.Errorf("file and flag: %+v", cfg)
	}
	if err := cfg.Validate(ModeServe); err != nil {
		t.Errorf("Validate: %v", err)
	}
	ps, err := ParseProxies(cfg.TrustedProxies)
	if err != nil || len(ps) != 3 || ps[0].String() != "127.0.0.1/32" || ps[1].String() != "::1/128" || ps[2].String() != "10.0.0.0/8" {
		t.Errorf("ParseProxies(%v) = %v, %v", cfg.TrustedProxies, ps, err)
	}
	// An IPv4-mapped network is the IPv4 network (peers are compared
	// unmapped); a mapped one wider than IPv4 is refused.
	ps, err = ParseProxies([]string{"::ffff:10.0.0.0/104", "::ffff:192.0.2.1"})
	if err != nil || len(ps) != 2 || ps[0].String() != "10.0.0.0/8" || ps[1].String() != "192.0.2.1/32" {
		t.Errorf("ParseProxies(mapped) = %v, %v, want [10.0.0.0/8 192.0.2.1/32]", ps, err)
	}
	if _, err := ParseProxies([]string{"::ffff:0:0/80"}); err == nil || !strings.Contains(err.Error(), `"::ffff:0:0/80"`) {
		t.Errorf("ParseProxies(::ffff:0:0/80) = %v, want it refused by name", err)
	}
	cfg.TrustedProxies = []string{"127.0.0.1", "proxy.example.com"}
	cfg.MetricsAddr = cfg.ListenAddr
	cfg.MaxReadsPerAddr = 0
	err = cfg.Validate(ModeServe)
	if err != nil && strings.Contains(err.Error(), "max_conns") {
		t.Errorf("Validate = %v, names max_conns (100, valid)", err)
	}
	for _, want := range []string{`"proxy.example.com" is not an IP address`, "is the webhook listen address", "max_reads_per_addr is 0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want it to name %s", err, want)
		}
	}
}

// Simulator releases move leaderboard pairs out of the box (the simulator
// this repository's pin file names), on a branch of their own; none turns
// it off, and a simulator that is the harness or a shared branch is refused.
func TestSimulatorBumpConfig(t *testing.T) {
	t.Parallel()
	cfg, err := Load(env(map[string]string{EnvAppID: "1", EnvPrivateKeyFile: "k.pem"}), Flags{}, files(nil))
	if err != nil || !cfg.BumpingLeaderboard() || cfg.SimulatorRepo != "inference-sim/inference-sim" || cfg.LeaderboardBumpBranch != "accuracy-bot/leaderboard" {
		t.Fatalf("defaults: %q %q %v %v", cfg.SimulatorRepo, cfg.LeaderboardBumpBranch, cfg.BumpingLeaderboard(), err)
	}
	if err := cfg.Validate(ModeCLI); err != nil {
		t.Errorf("defaults: %v", err)
	}
	off, err := Load(env(map[string]string{EnvSimulatorRepo: PublishingOff}), Flags{}, files(nil))
	if err != nil || off.BumpingLeaderboard() {
		t.Errorf("simulator_repo none: bumping %v, %v", off.BumpingLeaderboard(), err)
	}
	file, err := Load(env(map[string]string{EnvConfigFile: "c.yaml"}), Flags{},
		files(map[string]string{"c.yaml": "simulator_repo: me/sim\nleaderboard_bump_branch: bot/lb\n"}))
	if err != nil || file.SimulatorRepo != "me/sim" || file.LeaderboardBumpBranch != "bot/lb" {
		t.Errorf("from the file: %q %q %v", file.SimulatorRepo, file.LeaderboardBumpBranch, err)
	}
	for _, tc := range []struct {
		set  func(*Config)
		want string
	}{
		{func(c *Config) { c.SimulatorRepo = "not a repo" }, "simulator repo"},
		{func(c *Config) { c.SimulatorRepo = strings.ToUpper(c.HarnessRepo) }, "is the harness repo"},
		{func(c *Config) { c.LeaderboardBumpBranch = "" }, "leaderboard bump branch is empty"},
		{func(c *Config) { c.LeaderboardBumpBranch = c.BumpBranch }, "is the bump branch"},
	} {
		c := cfg
		tc.set(&c)
		if err := c.Validate(ModeCLI); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate = %v, want %q", err, tc.want)
		}
	}
}
