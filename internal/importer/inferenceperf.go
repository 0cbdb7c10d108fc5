package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Files of an inference-perf run folder.
const (
	expConfigFile = "exp-config.yaml"
	profileFile   = "profile.yaml"
	resultsDir    = "results"
	// clientConfigFile, under resultsDir, is the configuration the client
	// actually ran (its defaults filled in).
	clientConfigFile = "config.yaml"
	// SidecarFile optionally states, per run folder, what the folder does
	// not: the GPU and the vLLM version (see Sidecar).
	SidecarFile = "blis-import.yaml"
)

var stageFile = regexp.MustCompile(`^stage_([0-9]+)_lifecycle_metrics\.json$`)

// ExpConfig is an inference-perf run's exp-config.yaml: the model and the
// server's actual engine settings.
type ExpConfig struct {
	Model               string `yaml:"model"`
	TensorParallelism   int    `yaml:"tensor_parallelism"`
	MaxModelLen         int    `yaml:"max_model_len"`
	MaxNumBatchedTokens int    `yaml:"max_num_batched_tokens"`
	MaxNumSeqs          int    `yaml:"max_num_seqs"`
	App                 string `yaml:"app"`
}

// ParseExpConfig reads exp-config.yaml strictly: unknown fields, values of
// the wrong type and missing or non-positive settings are errors naming the
// file (and line, where YAML gives one).
func ParseExpConfig(name string, data []byte) (ExpConfig, error) {
	var raw struct {
		Model               *string `yaml:"model"`
		TensorParallelism   *int    `yaml:"tensor_parallelism"`
		MaxModelLen         *int    `yaml:"max_model_len"`
		MaxNumBatchedTokens *int    `yaml:"max_num_batched_tokens"`
		MaxNumSeqs          *int    `yaml:"max_num_seqs"`
		App                 *string `yaml:"app"`
	}
	if err := decodeYAML(data, &raw); err != nil {
		return ExpConfig{}, fmt.Errorf("%s: %w", name, err)
	}
	var errs []error
	str := func(key string, p *string) string {
		if p == nil || strings.TrimSpace(*p) == "" {
			errs = append(errs, fmt.Errorf("%s: %s: missing or empty", name, key))
			return ""
		}
		return *p
	}
	pos := func(key string, p *int) int {
		if p == nil {
			errs = append(errs, fmt.Errorf("%s: %s: missing (want a positive integer)", name, key))
			return 0
		}
		if *p < 1 {
			errs = append(errs, fmt.Errorf("%s: %s: %d is not a positive integer", name, key, *p))
		}
		return *p
	}
	c := ExpConfig{
		Model:               str("model", raw.Model),
		TensorParallelism:   pos("tensor_parallelism", raw.TensorParallelism),
		MaxModelLen:         pos("max_model_len", raw.MaxModelLen),
		MaxNumBatchedTokens: pos("max_num_batched_tokens", raw.MaxNumBatchedTokens),
		MaxNumSeqs:          pos("max_num_seqs", raw.MaxNumSeqs),
	}
	if raw.App != nil {
		c.App = *raw.App
	}
	return c, errors.Join(errs...)
}

// Profile is the part of an inference-perf profile.yaml the importer uses.
type Profile struct {
	// ServerType is the server kind the client drove, e.g. "vllm".
	ServerType string
	ModelName  string
	IgnoreEOS  bool
	// Data set (type shared_prefix).
	NumUniqueSystemPrompts  int
	NumUsersPerSystemPrompt int
	SystemPromptLen         int
	QuestionLen             int
	OutputLen               int
	EnableMultiTurnChat     bool
	// GroupKeys: the shared_prefix sizes are spelled num_groups and
	// num_prompts_per_group, as the older client writes them in its
	// results/config.yaml (that client knows neither
	// num_unique_system_prompts nor enable_multi_turn_chat).
	GroupKeys bool
	// Stages are the constant-rate load stages, in order.
	Stages []Stage
}

// Stage is one load stage: Rate requests per second for Duration seconds.
type Stage struct {
	Rate     float64
	Duration float64
}

// profileYAML lists every top-level key of inference-perf's configuration
// (as in a run's results/config.yaml). Sections the importer does not use are
// accepted with any content; the ones it uses are decoded strictly.
type profileYAML struct {
	API             any            `yaml:"api"`
	Data            *profileData   `yaml:"data"`
	Load            *profileLoad   `yaml:"load"`
	Metrics         any            `yaml:"metrics"`
	Report          any            `yaml:"report"`
	Storage         any            `yaml:"storage"`
	Server          *profileServer `yaml:"server"`
	Tokenizer       any            `yaml:"tokenizer"`
	CircuitBreakers any            `yaml:"circuit_breakers"`
}

type profileData struct {
	Type               string        `yaml:"type"`
	Path               any           `yaml:"path"`
	InputDistribution  any           `yaml:"input_distribution"`
	OutputDistribution any           `yaml:"output_distribution"`
	SharedPrefix       *sharedPrefix `yaml:"shared_prefix"`
}

type sharedPrefix struct {
	NumGroups               *int  `yaml:"num_groups"`
	NumPromptsPerGroup      *int  `yaml:"num_prompts_per_group"`
	NumUniqueSystemPrompts  *int  `yaml:"num_unique_system_prompts"`
	NumUsersPerSystemPrompt *int  `yaml:"num_users_per_system_prompt"`
	SystemPromptLen         *int  `yaml:"system_prompt_len"`
	QuestionLen             *int  `yaml:"question_len"`
	OutputLen               *int  `yaml:"output_len"`
	EnableMultiTurnChat     *bool `yaml:"enable_multi_turn_chat"`
}

type profileLoad struct {
	Type                    string         `yaml:"type"`
	Interval                any            `yaml:"interval"`
	Stages                  []profileStage `yaml:"stages"`
	Sweep                   any            `yaml:"sweep"`
	NumWorkers              any            `yaml:"num_workers"`
	WorkerMaxConcurrency    any            `yaml:"worker_max_concurrency"`
	WorkerMaxTCPConnections any            `yaml:"worker_max_tcp_connections"`
	CircuitBreakers         any            `yaml:"circuit_breakers"`
	RequestTimeout          any            `yaml:"request_timeout"`
}

type profileStage struct {
	Rate     *float64 `yaml:"rate"`
	Duration *float64 `yaml:"duration"`
}

type profileServer struct {
	Type      string `yaml:"type"`
	ModelName string `yaml:"model_name"`
	BaseURL   any    `yaml:"base_url"`
	IgnoreEOS *bool  `yaml:"ignore_eos"`
	APIKey    any    `yaml:"api_key"`
}

// ParseProfile reads an inference-perf profile.yaml (YAML or one-line JSON).
// It requires a shared_prefix data set with all its sizes, a constant load
// with at least one stage of positive rate and duration, and server.type and
// server.ignore_eos. Errors name the file and the field.
func ParseProfile(name string, data []byte) (Profile, error) {
	var raw profileYAML
	if err := decodeYAML(data, &raw); err != nil {
		return Profile{}, fmt.Errorf("%s: %w", name, err)
	}
	var errs []error
	fail := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s: %s", name, field, fmt.Sprintf(format, args...)))
	}
	var p Profile
	switch {
	case raw.Data == nil:
		fail("data", "missing")
	case raw.Data.Type != "shared_prefix":
		fail("data.type", "%q is not supported (want shared_prefix)", raw.Data.Type)
	case raw.Data.SharedPrefix == nil:
		fail("data.shared_prefix", "missing")
	default:
		sp := raw.Data.SharedPrefix
		num := func(field string, v *int, min int) int {
			if v == nil {
				fail("data.shared_prefix."+field, "missing")
				return 0
			}
			if *v < min {
				fail("data.shared_prefix."+field, "%d is less than %d", *v, min)
			}
			return *v
		}
		// Two spellings of the same sizes: the older client's num_groups
		// and num_prompts_per_group, the newer one's names.
		p.GroupKeys = sp.NumGroups != nil || sp.NumPromptsPerGroup != nil
		if p.GroupKeys && (sp.NumUniqueSystemPrompts != nil || sp.NumUsersPerSystemPrompt != nil) {
			fail("data.shared_prefix", "names both num_groups/num_prompts_per_group and num_unique_system_prompts/num_users_per_system_prompt")
		}
		if p.GroupKeys {
			p.NumUniqueSystemPrompts = num("num_groups", sp.NumGroups, 1)
			p.NumUsersPerSystemPrompt = num("num_prompts_per_group", sp.NumPromptsPerGroup, 1)
		} else {
			p.NumUniqueSystemPrompts = num("num_unique_system_prompts", sp.NumUniqueSystemPrompts, 1)
			p.NumUsersPerSystemPrompt = num("num_users_per_system_prompt", sp.NumUsersPerSystemPrompt, 1)
		}
		p.SystemPromptLen = num("system_prompt_len", sp.SystemPromptLen, 0)
		p.QuestionLen = num("question_len", sp.QuestionLen, 1)
		p.OutputLen = num("output_len", sp.OutputLen, 1)
		if sp.EnableMultiTurnChat != nil {
			p.EnableMultiTurnChat = *sp.EnableMultiTurnChat
		}
	}
	switch {
	case raw.Load == nil:
		fail("load", "missing")
	case raw.Load.Type != "constant":
		fail("load.type", "%q is not supported (want constant)", raw.Load.Type)
	case len(raw.Load.Stages) == 0:
		fail("load.stages", "empty (want at least one stage)")
	default:
		for i, s := range raw.Load.Stages {
			f := fmt.Sprintf("load.stages[%d]", i)
			if s.Rate == nil || !(*s.Rate > 0) || math.IsInf(*s.Rate, 0) {
				fail(f+".rate", "missing or not a positive number")
				continue
			}
			if s.Duration == nil || !(*s.Duration > 0) || math.IsInf(*s.Duration, 0) {
				fail(f+".duration", "missing or not a positive number")
				continue
			}
			p.Stages = append(p.Stages, Stage{Rate: *s.Rate, Duration: *s.Duration})
		}
	}
	switch {
	case raw.Server == nil:
		fail("server", "missing")
	default:
		p.ServerType = raw.Server.Type
		p.ModelName = raw.Server.ModelName
		if strings.TrimSpace(p.ServerType) == "" {
			fail("server.type", "missing")
		}
		if raw.Server.IgnoreEOS == nil {
			fail("server.ignore_eos", "missing")
		} else {
			p.IgnoreEOS = *raw.Server.IgnoreEOS
		}
	}
	return p, errors.Join(errs...)
}

// decodeYAML decodes exactly one YAML document strictly into v.
func decodeYAML(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("empty file")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("invalid YAML: %s", oneLine(err.Error()))
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return errors.New("not a YAML mapping of settings")
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			// One line: every problem, each with its YAML line number.
			return fmt.Errorf("invalid: %s", oneLine(yamlTypeNames.ReplaceAllStringFunc(strings.Join(te.Errors, "; "), plainYAMLTypeError)))
		}
		return fmt.Errorf("invalid: %s", oneLine(err.Error()))
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return errors.New("more than one YAML document")
	}
	return nil
}

// yamlTypeNames matches yaml.v3's "cannot unmarshal !!str `five` into
// float64", which names Go types.
var yamlTypeNames = regexp.MustCompile("cannot unmarshal !!([a-z]+) `([^`]*)` into ([A-Za-z0-9_.\\[\\]*]+)")

// plainYAMLTypeError rewrites one yamlTypeNames match into what was found
// and what was wanted: "`five` is not a number".
func plainYAMLTypeError(m string) string {
	s := yamlTypeNames.FindStringSubmatch(m)
	want := "a value of another kind"
	switch t := strings.TrimLeft(s[3], "*"); {
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		want = "an integer"
	case strings.HasPrefix(t, "float"):
		want = "a number"
	case t == "bool":
		want = "a boolean"
	case t == "string":
		want = "a string"
	case strings.HasPrefix(t, "[]"):
		want = "a list"
	default:
		want = "a mapping"
	}
	return fmt.Sprintf("`%s` is not %s", s[2], want)
}

// oneLine keeps an error message on one line when it quotes the input.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}

// Sidecar is the optional blis-import.yaml of an inference-perf run folder,
// stating what the folder itself does not record.
type Sidecar struct {
	// Hardware is the GPU as the simulator spells it, e.g. "H100".
	Hardware string `yaml:"hardware"`
	// EngineVersion is the vLLM version served, e.g. "v0.15.1".
	EngineVersion string `yaml:"engine_version"`
}

// ParseSidecar reads blis-import.yaml strictly.
func ParseSidecar(name string, data []byte) (Sidecar, error) {
	var s Sidecar
	if err := decodeYAML(data, &s); err != nil {
		return Sidecar{}, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// Ladder is an aggregate of one quantity, in the source's unit; nil where
// the source has no value.
type Ladder struct {
	Mean, Median, P75, P99 *float64
}

// StageMetrics is what one results/stage_N_lifecycle_metrics.json reports.
type StageMetrics struct {
	// RequestedRate is load_summary.requested_rate (requests per second).
	RequestedRate *float64
	// Successes is how many requests completed, Failures how many failed
	// (0 when the file has no failures.count).
	Successes, Failures int
	// Latencies in seconds.
	TTFT, TPOT, ITL, E2EL Ladder
	// Mean prompt and output lengths in tokens.
	PromptLenMean, OutputLenMean *float64
	// TotalTokensPerSec is input plus output token throughput.
	TotalTokensPerSec *float64
}

type ladderJSON struct {
	Mean   *float64 `json:"mean"`
	Min    *float64 `json:"min"`
	P0_1   *float64 `json:"p0.1"`
	P1     *float64 `json:"p1"`
	P5     *float64 `json:"p5"`
	P10    *float64 `json:"p10"`
	P25    *float64 `json:"p25"`
	Median *float64 `json:"median"`
	P75    *float64 `json:"p75"`
	P90    *float64 `json:"p90"`
	P95    *float64 `json:"p95"`
	P99    *float64 `json:"p99"`
	P99_9  *float64 `json:"p99.9"`
	Max    *float64 `json:"max"`
}

func (l *ladderJSON) ladder() Ladder {
	if l == nil {
		return Ladder{}
	}
	return Ladder{Mean: l.Mean, Median: l.Median, P75: l.P75, P99: l.P99}
}

func (l *ladderJSON) mean() *float64 {
	if l == nil {
		return nil
	}
	return l.Mean
}

type stageJSON struct {
	LoadSummary *struct {
		Count         *int        `json:"count"`
		ScheduleDelay *ladderJSON `json:"schedule_delay"`
		SendDuration  *float64    `json:"send_duration"`
		RequestedRate *float64    `json:"requested_rate"`
		AchievedRate  *float64    `json:"achieved_rate"`
	} `json:"load_summary"`
	Successes *struct {
		Count   *int `json:"count"`
		Latency *struct {
			RequestLatency               *ladderJSON `json:"request_latency"`
			NormalizedTimePerOutputToken *ladderJSON `json:"normalized_time_per_output_token"`
			TimePerOutputToken           *ladderJSON `json:"time_per_output_token"`
			TimeToFirstToken             *ladderJSON `json:"time_to_first_token"`
			InterTokenLatency            *ladderJSON `json:"inter_token_latency"`
		} `json:"latency"`
		Throughput *struct {
			InputTokensPerSec  *float64 `json:"input_tokens_per_sec"`
			OutputTokensPerSec *float64 `json:"output_tokens_per_sec"`
			TotalTokensPerSec  *float64 `json:"total_tokens_per_sec"`
			RequestsPerSec     *float64 `json:"requests_per_sec"`
		} `json:"throughput"`
		PromptLen *ladderJSON `json:"prompt_len"`
		OutputLen *ladderJSON `json:"output_len"`
	} `json:"successes"`
	Failures *struct {
		Count          *int        `json:"count"`
		RequestLatency *ladderJSON `json:"request_latency"`
		PromptLen      *ladderJSON `json:"prompt_len"`
	} `json:"failures"`
}

// ParseStageMetrics reads one results/stage_N_lifecycle_metrics.json
// strictly (unknown or duplicated fields, values of the wrong type, trailing
// data are errors naming the file and field). successes.count is required;
// latencies may be null (a stage where nothing succeeded), which the corpus
// rules then exclude.
func ParseStageMetrics(name string, data []byte) (StageMetrics, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return StageMetrics{}, fmt.Errorf("%s: empty file", name)
	}
	if err := checkDuplicateKeys(data); err != nil {
		return StageMetrics{}, fmt.Errorf("%s: %w", name, err)
	}
	var raw stageJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return StageMetrics{}, fmt.Errorf("%s: %w", name, jsonError(err))
	}
	if err := expectEOF(dec); err != nil {
		return StageMetrics{}, fmt.Errorf("%s: %w", name, err)
	}
	if raw.Successes == nil || raw.Successes.Count == nil {
		return StageMetrics{}, fmt.Errorf("%s: successes.count: missing", name)
	}
	if *raw.Successes.Count < 0 {
		return StageMetrics{}, fmt.Errorf("%s: successes.count: %d is negative", name, *raw.Successes.Count)
	}
	m := StageMetrics{Successes: *raw.Successes.Count}
	if raw.Failures != nil && raw.Failures.Count != nil {
		if *raw.Failures.Count < 0 {
			return StageMetrics{}, fmt.Errorf("%s: failures.count: %d is negative", name, *raw.Failures.Count)
		}
		m.Failures = *raw.Failures.Count
	}
	if raw.LoadSummary != nil {
		m.RequestedRate = raw.LoadSummary.RequestedRate
	}
	if l := raw.Successes.Latency; l != nil {
		m.TTFT = l.TimeToFirstToken.ladder()
		m.TPOT = l.TimePerOutputToken.ladder()
		m.ITL = l.InterTokenLatency.ladder()
		m.E2EL = l.RequestLatency.ladder()
	}
	m.PromptLenMean = raw.Successes.PromptLen.mean()
	m.OutputLenMean = raw.Successes.OutputLen.mean()
	if t := raw.Successes.Throughput; t != nil {
		m.TotalTokensPerSec = t.TotalTokensPerSec
	}
	return m, nil
}

// checkDuplicateKeys walks a JSON document and fails on the first object
// that names a key twice (encoding/json would silently keep the last).
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		keys    map[string]bool
		object  bool
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return jsonError(err)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, &frame{keys: map[string]bool{}, object: true, wantKey: true})
			case '[':
				stack = append(stack, &frame{})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].wantKey = true
				}
			}
			continue
		}
		if top != nil && top.object {
			if top.wantKey {
				k, _ := tok.(string)
				if top.keys[k] {
					return fmt.Errorf("field %q appears twice", k)
				}
				top.keys[k] = true
				top.wantKey = false
			} else {
				top.wantKey = true
			}
		}
	}
}

// ipRun is one inference-perf run folder, read and checked.
type ipRun struct {
	Dir     string // slash path inside the import file system
	Name    string // the folder's base name, the run id
	Exp     ExpConfig
	Profile Profile
	// Ran is what the client actually ran: results/config.yaml when the
	// folder has it, else profile.yaml. Differences is every setting in
	// which the two disagree (results/config.yaml followed).
	Ran         Profile
	Differences []string
	Sidecar     *Sidecar
	Stages      []ipStage
}

type ipStage struct {
	Index    int
	Artifact string // slash path of the stage file
	Metrics  StageMetrics
}

// IsInferencePerfRun reports whether dir looks like an inference-perf run
// folder: it holds exp-config.yaml, profile.yaml or results/. The folder's
// name is the run id.
func IsInferencePerfRun(fsys fs.FS, dir string) bool {
	for _, n := range []string{expConfigFile, profileFile, resultsDir} {
		if _, err := fs.Stat(fsys, path.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}

// readInferencePerfRun reads a run folder: exp-config.yaml, profile.yaml,
// the optional sidecar and one results/stage_N_lifecycle_metrics.json per
// profile stage. A missing file, a stage without its results, or results of
// a stage the profile does not have is an error naming the folder.
func readInferencePerfRun(fsys fs.FS, dir string) (*ipRun, error) {
	run := &ipRun{Dir: dir, Name: path.Base(dir)}
	read := func(name string) ([]byte, error) {
		b, err := readSource(fsys, path.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("inference-perf run %s: %s is missing", dir, name)
		}
		if err != nil {
			return nil, fmt.Errorf("inference-perf run %s: %w", dir, err)
		}
		return b, nil
	}
	var errs []error
	if b, err := read(expConfigFile); err != nil {
		errs = append(errs, err)
	} else if run.Exp, err = ParseExpConfig(path.Join(dir, expConfigFile), b); err != nil {
		errs = append(errs, err)
	}
	if b, err := read(profileFile); err != nil {
		errs = append(errs, err)
	} else if run.Profile, err = ParseProfile(path.Join(dir, profileFile), b); err != nil {
		errs = append(errs, err)
	}
	run.Ran = run.Profile
	clientConfig := path.Join(dir, resultsDir, clientConfigFile)
	if b, err := readSource(fsys, clientConfig); err == nil {
		if run.Ran, err = ParseProfile(clientConfig, b); err != nil {
			errs = append(errs, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, fmt.Errorf("inference-perf run %s: %w", dir, err))
	}
	if b, err := readSource(fsys, path.Join(dir, SidecarFile)); err == nil {
		s, err := ParseSidecar(path.Join(dir, SidecarFile), b)
		if err != nil {
			errs = append(errs, err)
		}
		run.Sidecar = &s
	} else if !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, fmt.Errorf("inference-perf run %s: %w", dir, err))
	}
	entries, err := fs.ReadDir(fsys, path.Join(dir, resultsDir))
	if errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, fmt.Errorf("inference-perf run %s: %s/ is missing", dir, resultsDir))
	} else if err != nil {
		errs = append(errs, fmt.Errorf("inference-perf run %s: %w", dir, err))
	}
	found := map[int]string{}
	for _, e := range entries {
		m := stageFile.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			errs = append(errs, fmt.Errorf("inference-perf run %s: %s: bad stage number", dir, e.Name()))
			continue
		}
		found[n] = path.Join(dir, resultsDir, e.Name())
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if run.Exp.Model != run.Profile.ModelName && run.Profile.ModelName != "" {
		errs = append(errs, fmt.Errorf("inference-perf run %s: %s model %q differs from %s server.model_name %q",
			dir, expConfigFile, run.Exp.Model, profileFile, run.Profile.ModelName))
	}
	if run.Ran.ModelName != run.Profile.ModelName {
		errs = append(errs, fmt.Errorf("inference-perf run %s: %s/%s server.model_name %q differs from %s server.model_name %q",
			dir, resultsDir, clientConfigFile, run.Ran.ModelName, profileFile, run.Profile.ModelName))
	}
	run.Differences = profileDifferences(run.Profile, run.Ran)
	var extra []int
	for n := range found {
		if n >= len(run.Ran.Stages) {
			extra = append(extra, n)
		}
	}
	sort.Ints(extra)
	for _, n := range extra {
		errs = append(errs, fmt.Errorf("inference-perf run %s: %s has results of stage %d, but the client ran %d stages",
			dir, path.Base(found[n]), n, len(run.Ran.Stages)))
	}
	for i, st := range run.Ran.Stages {
		p, ok := found[i]
		if !ok {
			errs = append(errs, fmt.Errorf("inference-perf run %s: %s/stage_%d_lifecycle_metrics.json is missing (stage %d of %d the client ran)",
				dir, resultsDir, i, i, len(run.Ran.Stages)))
			continue
		}
		b, err := readSource(fsys, p)
		if err != nil {
			errs = append(errs, fmt.Errorf("inference-perf run %s: %w", dir, err))
			continue
		}
		m, err := ParseStageMetrics(p, b)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if m.RequestedRate != nil && *m.RequestedRate != st.Rate {
			errs = append(errs, fmt.Errorf("%s: load_summary.requested_rate %v differs from the client's load.stages[%d].rate %v",
				p, *m.RequestedRate, i, st.Rate))
			continue
		}
		run.Stages = append(run.Stages, ipStage{Index: i, Artifact: p, Metrics: m})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return run, nil
}

// profileDifferences lists, one line each, the settings in which what the
// client ran (ran, its results/config.yaml) differs from what was submitted
// (profile.yaml).
func profileDifferences(submitted, ran Profile) []string {
	var out []string
	diff := func(field string, a, b any) {
		if a != b {
			out = append(out, fmt.Sprintf("%s: %s says %v, %s/%s (what the client ran) %v; followed %s/%s", field, profileFile, a, resultsDir, clientConfigFile, b, resultsDir, clientConfigFile))
		}
	}
	prompts, users := "num_unique_system_prompts", "num_users_per_system_prompt"
	if ran.GroupKeys != submitted.GroupKeys {
		prompts, users = "num_unique_system_prompts/num_groups", "num_users_per_system_prompt/num_prompts_per_group"
	}
	diff("data.shared_prefix."+prompts, submitted.NumUniqueSystemPrompts, ran.NumUniqueSystemPrompts)
	diff("data.shared_prefix."+users, submitted.NumUsersPerSystemPrompt, ran.NumUsersPerSystemPrompt)
	diff("data.shared_prefix.system_prompt_len", submitted.SystemPromptLen, ran.SystemPromptLen)
	diff("data.shared_prefix.question_len", submitted.QuestionLen, ran.QuestionLen)
	diff("data.shared_prefix.output_len", submitted.OutputLen, ran.OutputLen)
	diff("data.shared_prefix.enable_multi_turn_chat", submitted.EnableMultiTurnChat, ran.EnableMultiTurnChat)
	diff("server.type", submitted.ServerType, ran.ServerType)
	diff("server.ignore_eos", submitted.IgnoreEOS, ran.IgnoreEOS)
	diff("load.stages", fmt.Sprint(submitted.Stages), fmt.Sprint(ran.Stages))
	return out
}
