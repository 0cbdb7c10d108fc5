package ghaction

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/cachedir"
	"github.com/inference-sim/accuracy-dashboard/internal/pin"
	"github.com/inference-sim/accuracy-dashboard/internal/prcheck"
	"github.com/inference-sim/accuracy-dashboard/internal/runresult"
)

// actionInputs are the inputs every mode of the Action shares and the
// runner environment it uses; each mode's own inputs are in its options
// (modes.go). action.yml maps each input to one INPUT_* variable
// explicitly (composite actions get no INPUT_* environment from the runner).
type actionInputs struct {
	token         string
	pinFile       string // absolute
	mode          string
	simulatorPath string // absolute
	thresholds    prcheck.Thresholds
	comment       bool
	outDir        string
	cacheDir      string
	jobs          int
	workspace     string

	eventName   string
	eventPath   string
	payload     map[string]any // the event, as go-githubactions decodes it
	summaryPath string
	apiURL      string
	serverURL   string
	repository  string
	runID       string
}

// The Action's inputs, as action.yml names them. action.yml maps each to
// INPUT_<NAME> ('-' as '_'), which runner.input reads.
const (
	inToken          = "github-token"
	inPinFile        = "pin-file"
	inMode           = "mode"
	inSimulatorPath  = "simulator-path"
	inBaseline       = "baseline"
	inShard          = "shard"
	inAlertThreshold = "alert-threshold"
	inFailThreshold  = "fail-threshold"
	inComment        = "comment"
	inOutDir         = "out-dir"
	inCacheDir       = "cache-dir"
	inReportDir      = "report-dir"
	inShardsDir      = "shards-dir"
	inJobs           = "jobs"
	inSimulatorRepo  = "simulator-repository"
	inInferenceXRepo = "inferencex-repository"
	inPlan           = "plan"
	inRuns           = "runs"
	inLedgerDir      = "ledger-dir"
	inReuse          = "reuse"
	inWhatIf         = "what-if"
)

// readInputs reads and checks the inputs every mode shares and the
// runner's context (go-githubactions); startMode reads the mode's own.
// Defaults are applied here, in one place; an invalid input is an error
// naming the input.
func readInputs(r runner) (actionInputs, error) {
	c, err := r.a.Context()
	if err != nil {
		return actionInputs{}, fmt.Errorf("runner context: %w", err)
	}
	in := actionInputs{
		token:       r.input(inToken),
		eventName:   c.EventName,
		eventPath:   c.EventPath,
		payload:     c.Event,
		summaryPath: c.StepSummary,
		apiURL:      c.APIURL,
		serverURL:   c.ServerURL,
		repository:  c.Repository,
		workspace:   cmp.Or(c.Workspace, "."),
	}
	if c.RunID != 0 {
		in.runID = strconv.FormatInt(c.RunID, 10)
	}
	getenv := r.a.Getenv
	in.mode = cmp.Or(r.input(inMode), modePR)
	in.simulatorPath = absPath(in.workspace, cmp.Or(r.input(inSimulatorPath), "."))
	in.pinFile = absPath(in.simulatorPath, cmp.Or(r.input(inPinFile), pin.DefaultPath))
	for _, th := range []struct {
		name string
		dst  **float64
	}{
		{inAlertThreshold, &in.thresholds.Alert},
		{inFailThreshold, &in.thresholds.Fail},
	} {
		v := r.input(th.name)
		if v == "" || v == "off" {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSuffix(v, "pp"), 64)
		if err != nil || f < 0 || f != f {
			return in, inputError(th.name, "%q: want a non-negative number of percentage points (e.g. 2.5) or off", v)
		}
		*th.dst = &f
	}
	switch v := cmp.Or(r.input(inComment), "true"); v {
	case "true":
		in.comment = true
	case "false":
	default:
		return in, inputError(inComment, "%q: want true or false", v)
	}
	in.outDir = absPath(in.workspace, cmp.Or(r.input(inOutDir), filepath.Join(cmp.Or(getenv("RUNNER_TEMP"), in.workspace), "accuracy-report")))
	in.cacheDir = r.input(inCacheDir)
	if in.cacheDir == "" {
		in.cacheDir = cachedir.Default(getenv)
	}
	in.cacheDir = absPath(in.workspace, in.cacheDir)
	if v := r.input(inJobs); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return in, inputError(inJobs, "%q: want a positive integer", v)
		}
		in.jobs = n
	}
	switch {
	case in.comment && in.token == "":
		return in, inputError(inToken, "empty; give a token or set comment: false")
	case in.eventPath == "" || in.eventName == "":
		return in, fmt.Errorf("GITHUB_EVENT_NAME or GITHUB_EVENT_PATH is not set: run inside GitHub Actions")
	}
	return in, nil
}

// absInput is the input name as an absolute path (relative to the
// workspace), "" when it is not given.
func (in actionInputs) absInput(r runner, name string) string {
	if v := r.input(name); v != "" {
		return absPath(in.workspace, v)
	}
	return ""
}

// absPath is p made absolute against base.
func absPath(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	a, err := filepath.Abs(filepath.Join(base, p))
	if err != nil {
		return filepath.Join(base, p)
	}
	return a
}

// relPath is p relative to base, slash-separated (p itself when it is not
// under base).
func relPath(base, p string) string {
	rel, err := filepath.Rel(base, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return p
	}
	return filepath.ToSlash(rel)
}

// inputError is an error naming the input.
func inputError(name, format string, a ...any) error {
	return fmt.Errorf("input %s: %s", name, fmt.Sprintf(format, a...))
}

// readBaseline reads input baseline: base (score the base commit too) or
// none.
func readBaseline(r runner) (bool, error) {
	switch b := cmp.Or(r.input(inBaseline), "base"); b {
	case "base":
		return true, nil
	case "none":
		return false, nil
	default:
		return false, inputError(inBaseline, "%q: want base or none", b)
	}
}

// readShard reads input shard (k/n; nil when not given).
func readShard(r runner) (*runresult.Shard, error) {
	shard, err := runresult.ParseShard(r.input(inShard))
	if err != nil {
		return nil, inputError(inShard, "%v", err)
	}
	return shard, nil
}
