package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"github.com/inference-sim/accuracy-dashboard/internal/report"
)

// Action modes.
const (
	modePR      = "pr"
	modeComment = "comment"
	modeMerge   = "merge"
)

// actionInputs are the Action's inputs and the runner environment it uses.
// action.yml maps each input to one INPUT_* variable explicitly (composite
// actions get no INPUT_* environment from the runner).
type actionInputs struct {
	token         string
	pinFile       string // absolute
	mode          string
	simulatorPath string // absolute
	baseline      bool
	shard         *report.Shard
	thresholds    prcheck.Thresholds
	comment       bool
	outDir        string
	cacheDir      string
	reportDir     string // mode comment
	shardsDir     string // mode merge
	jobs          int

	eventName   string
	eventPath   string
	outputPath  string
	summaryPath string
	apiURL      string
	serverURL   string
	repository  string
	runID       string
}

// Input environment variables, as action.yml maps them.
const (
	envToken          = "INPUT_GITHUB_TOKEN"
	envPinFile        = "INPUT_PIN_FILE"
	envMode           = "INPUT_MODE"
	envSimulatorPath  = "INPUT_SIMULATOR_PATH"
	envBaseline       = "INPUT_BASELINE"
	envShard          = "INPUT_SHARD"
	envAlertThreshold = "INPUT_ALERT_THRESHOLD"
	envFailThreshold  = "INPUT_FAIL_THRESHOLD"
	envComment        = "INPUT_COMMENT"
	envOutDir         = "INPUT_OUT_DIR"
	envCacheDir       = "INPUT_CACHE_DIR"
	envReportDir      = "INPUT_REPORT_DIR"
	envShardsDir      = "INPUT_SHARDS_DIR"
	envJobs           = "INPUT_JOBS"
)

// readInputs reads and checks every input. Defaults are applied here, in one
// place; an invalid input is an error naming the input.
func readInputs(getenv func(string) string) (actionInputs, error) {
	in := actionInputs{
		token:       getenv(envToken),
		eventName:   getenv("GITHUB_EVENT_NAME"),
		eventPath:   getenv("GITHUB_EVENT_PATH"),
		outputPath:  getenv("GITHUB_OUTPUT"),
		summaryPath: getenv("GITHUB_STEP_SUMMARY"),
		apiURL:      orDefault(getenv("GITHUB_API_URL"), "https://api.github.com"),
		serverURL:   orDefault(getenv("GITHUB_SERVER_URL"), "https://github.com"),
		repository:  getenv("GITHUB_REPOSITORY"),
		runID:       getenv("GITHUB_RUN_ID"),
	}
	workspace := orDefault(getenv("GITHUB_WORKSPACE"), ".")
	abs := func(base, p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		a, err := filepath.Abs(filepath.Join(base, p))
		if err != nil {
			return filepath.Join(base, p)
		}
		return a
	}
	bad := func(name, format string, a ...any) error {
		return fmt.Errorf("input %s: %s", name, fmt.Sprintf(format, a...))
	}

	in.mode = orDefault(strings.TrimSpace(getenv(envMode)), modePR)
	switch in.mode {
	case modePR, modeComment, modeMerge:
	default:
		return in, bad("mode", "%q: want pr, comment or merge", in.mode)
	}
	in.simulatorPath = abs(workspace, orDefault(getenv(envSimulatorPath), "."))
	in.pinFile = abs(in.simulatorPath, orDefault(getenv(envPinFile), pin.DefaultPath))

	switch b := orDefault(strings.TrimSpace(getenv(envBaseline)), "base"); b {
	case "base":
		in.baseline = true
	case "none":
	default:
		return in, bad("baseline", "%q: want base or none", b)
	}
	shard, err := report.ParseShard(strings.TrimSpace(getenv(envShard)))
	if err != nil {
		return in, bad("shard", "%v", err)
	}
	in.shard = shard
	for _, th := range []struct {
		name, env string
		dst       **float64
	}{
		{"alert-threshold", envAlertThreshold, &in.thresholds.Alert},
		{"fail-threshold", envFailThreshold, &in.thresholds.Fail},
	} {
		v := strings.TrimSpace(getenv(th.env))
		if v == "" || v == "off" {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "pp"), 64)
		if err != nil || f < 0 || f != f {
			return in, bad(th.name, "%q: want a non-negative number of percentage points (e.g. 2.5) or off", v)
		}
		*th.dst = &f
	}
	switch c := orDefault(strings.TrimSpace(getenv(envComment)), "true"); c {
	case "true":
		in.comment = true
	case "false":
	default:
		return in, bad("comment", "%q: want true or false", c)
	}
	in.outDir = abs(workspace, orDefault(getenv(envOutDir), filepath.Join(orDefault(getenv("RUNNER_TEMP"), workspace), "accuracy-report")))
	in.cacheDir = getenv(envCacheDir)
	if in.cacheDir == "" {
		in.cacheDir = defaultCacheDir(getenv)
	}
	in.cacheDir = abs(workspace, in.cacheDir)
	if v := strings.TrimSpace(getenv(envJobs)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return in, bad("jobs", "%q: want a positive integer", v)
		}
		in.jobs = n
	}
	if d := getenv(envReportDir); d != "" {
		in.reportDir = abs(workspace, d)
	}
	if d := getenv(envShardsDir); d != "" {
		in.shardsDir = abs(workspace, d)
	}
	switch {
	case in.mode == modeComment && in.reportDir == "":
		return in, bad("report-dir", "required with mode: comment (the directory the report artifact was downloaded to)")
	case in.mode == modeMerge && in.shardsDir == "":
		return in, bad("shards-dir", "required with mode: merge (the directory the shard artifacts were downloaded to)")
	case in.mode != modePR && in.shard != nil:
		return in, bad("shard", "only with mode: pr")
	case in.comment && in.token == "":
		return in, bad("github-token", "empty; give a token or set comment: false")
	case in.eventPath == "" || in.eventName == "":
		return in, fmt.Errorf("GITHUB_EVENT_NAME or GITHUB_EVENT_PATH is not set: run inside GitHub Actions")
	case in.eventName == "pull_request_target" && in.mode != modeComment:
		return in, fmt.Errorf("mode %s refuses the pull_request_target event: it would build and run the pull request's code "+
			"with a write token and the repository's secrets. Use pull_request (same-repository pull requests), or for forks "+
			"the fork-safe pair: accuracy-fork-run.yml on pull_request and accuracy-fork-comment.yml on workflow_run with "+
			"mode: comment (docs/ACTION.md)", in.mode)
	}
	return in, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
