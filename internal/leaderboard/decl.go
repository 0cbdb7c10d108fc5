// Package leaderboard is the pure core of the leaderboard: the run
// declarations (runs.yaml, format v1) and their strict decoding, the
// comparability key that says which runs were offered the same work, the
// result files (results/<group>/<run>.json, format v1), the values this
// project computes beside BLIS's own, ranks, disqualification and capacity,
// the checks behind `action leaderboard validate` and `verify`, and the
// planning of a declared run's simulator command on the flags a build lists
// (Planner, CheckPlans: plan.go), shared by the runner and the bot's check.
//
// It does no rendering (internal/leaderboard/lbview does) and drives no
// simulator: the caller hands it a simulator's output and gets a result
// back, or hands it results and gets tables or problems back.
package leaderboard

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// FormatVersion is the runs.yaml format this package reads.
const FormatVersion = 1

// Declaration is a parsed runs.yaml.
type Declaration struct {
	Version int     `yaml:"version" json:"version"`
	Groups  []Group `yaml:"groups" json:"groups"`

	// name and idx are the file it was decoded from and where each field
	// is written in it, so that a problem found later (a trace that cannot
	// be read) still names its line.
	name string
	idx  *nodeIndex
}

// errorAt is a problem of the field at path (groups[0].workload...), by
// the file and line it is written on.
func (d *Declaration) errorAt(path, format string, a ...any) *Error {
	return &Error{File: d.name, Line: d.idx.line(path), Field: path, Msg: fmt.Sprintf(format, a...)}
}

// Group is one comparability group: a fixed offered work and the
// candidates that are compared on it.
type Group struct {
	ID    string `yaml:"id" json:"id"`
	Title string `yaml:"title,omitempty" json:"title,omitempty"`
	// Workload and Load are the offered work of every candidate that does
	// not declare its own (a candidate that does must declare the same).
	Workload   *Workload   `yaml:"workload,omitempty" json:"workload,omitempty"`
	Load       *Load       `yaml:"load,omitempty" json:"load,omitempty"`
	Candidates []Candidate `yaml:"candidates" json:"candidates"`
	// KeepUp bounds what counts as keeping up with a load in a sweep's
	// capacity table (see KeptUp). Every sweep must declare it (Decode
	// refuses one without): without a latency bound every run that serves
	// all its requests keeps up, however long they queue. It is a reading of the
	// results, not offered work.
	KeepUp *KeepUp `yaml:"keep_up,omitempty" json:"keep_up,omitempty"`
}

// KeepUp are the latency bounds a run must meet to have kept up with its
// load: BLIS's p99 TTFT and p99 E2E, in ms, each at most its bound (nil: not
// bounded). A declared KeepUp bounds at least one of them.
type KeepUp struct {
	TTFTP99Ms *float64 `yaml:"ttft_p99_ms,omitempty" json:"ttft_p99_ms,omitempty"`
	E2EP99Ms  *float64 `yaml:"e2e_p99_ms,omitempty" json:"e2e_p99_ms,omitempty"`
}

// Missed says which bound f misses ("" when it meets them all; a figure
// equal to its bound meets it). The figure is shown as rounded as it can
// be while still reading as above the bound.
func (k *KeepUp) Missed(f *Figures) string {
	if k == nil {
		return ""
	}
	var out []string
	for _, b := range []struct {
		name  string
		bound *float64
		value float64
	}{{"TTFT p99", k.TTFTP99Ms, f.TTFTP99Ms}, {"E2E p99", k.E2EP99Ms, f.E2EP99Ms}} {
		if b.bound != nil && b.value > *b.bound {
			out = append(out, fmt.Sprintf("%s %s ms > %s ms", b.name, aboveBound(b.value, *b.bound), FormatNumber(*b.bound)))
		}
	}
	return strings.Join(out, ", ")
}

// aboveBound writes v (> bound) with one decimal, or with as many as it
// takes to differ from bound (500.04 against 500 is "500.04", not "500").
func aboveBound(v, bound float64) string {
	for digits := 1; digits <= 6; digits++ {
		p := math.Pow(10, float64(digits))
		if r := math.Round(v*p) / p; r > bound {
			return FormatNumber(r)
		}
	}
	return FormatNumber(v)
}

// KeptUp says whether result r kept up with its offered load, and why not:
// it has figures (status ok), it is qualified (it completed every offered
// request: none dropped, timed out, or still queued or running at the
// horizon; Disqualification), and its figures meet every bound of k. With
// k nil only the first two count.
func KeptUp(r *Result, k *KeepUp) (bool, string) {
	switch {
	case r == nil:
		return false, "no result"
	case r.Status != StatusOK || r.BLIS == nil:
		reason := r.Status
		if r.Failure != nil {
			reason = r.Failure.Reason
		}
		return false, "failed (" + reason + ")"
	}
	if why := r.Disqualification(); why != "" {
		return false, why
	}
	if why := k.Missed(r.BLIS); why != "" {
		return false, why
	}
	return true, ""
}

// Candidate is one simulated deployment.
type Candidate struct {
	ID string `yaml:"id" json:"id"`
	// Model is org-prefixed, as the simulator keys it: qwen/qwen3-14b.
	Model string `yaml:"model" json:"model"`
	// Hardware is the simulator's GPU name (H100, A100-80, ...). Required:
	// without it the simulator silently assumes H100.
	Hardware string `yaml:"hardware" json:"hardware"`
	// TP is the tensor parallelism. Required: the simulator assumes 1.
	TP int `yaml:"tp" json:"tp"`
	// DP is the data parallelism (default 1); Replicas the number of
	// serving instances (default 1).
	DP       int     `yaml:"dp,omitempty" json:"dp,omitempty"`
	Replicas int     `yaml:"replicas,omitempty" json:"replicas,omitempty"`
	Engine   *Engine `yaml:"engine,omitempty" json:"engine,omitempty"`
	// Workload and Load, when set, must equal the group's (they exist so
	// that a declaration which differs is refused, not silently merged).
	Workload *Workload `yaml:"workload,omitempty" json:"workload,omitempty"`
	Load     *Load     `yaml:"load,omitempty" json:"load,omitempty"`
}

// Engine holds the serving engine's settings; nil means the simulator's default.
type Engine struct {
	MaxNumSeqs           *int     `yaml:"max_num_seqs,omitempty" json:"max_num_seqs,omitempty"`
	MaxNumBatchedTokens  *int     `yaml:"max_num_batched_tokens,omitempty" json:"max_num_batched_tokens,omitempty"`
	GPUMemoryUtilization *float64 `yaml:"gpu_memory_utilization,omitempty" json:"gpu_memory_utilization,omitempty"`
	BlockSize            *int     `yaml:"block_size,omitempty" json:"block_size,omitempty"`
	MaxModelLen          *int     `yaml:"max_model_len,omitempty" json:"max_model_len,omitempty"`
}

// Workload is the offered requests: a distribution workload (request count,
// seed, prompt and output token distributions) or a recorded trace.
type Workload struct {
	Requests     int     `yaml:"requests,omitempty" json:"requests,omitempty"`
	Seed         *int64  `yaml:"seed,omitempty" json:"seed,omitempty"`
	PromptTokens *Tokens `yaml:"prompt_tokens,omitempty" json:"prompt_tokens,omitempty"`
	OutputTokens *Tokens `yaml:"output_tokens,omitempty" json:"output_tokens,omitempty"`
	// PrefixTokens is a prefix shared by every request (0: none).
	PrefixTokens int    `yaml:"prefix_tokens,omitempty" json:"prefix_tokens,omitempty"`
	Trace        *Trace `yaml:"trace,omitempty" json:"trace,omitempty"`
}

// Tokens is a token-length distribution: a Gaussian of Mean and Stdev
// clipped to [Min, Max], as BLIS's distribution workload draws it.
type Tokens struct {
	Mean  int `yaml:"mean" json:"mean"`
	Stdev int `yaml:"stdev" json:"stdev"`
	Min   int `yaml:"min" json:"min"`
	Max   int `yaml:"max" json:"max"`
}

// Trace is a recorded workload. In runs.yaml it names files relative to
// the declaration; in a result it is referenced by content hash
// (results/traces/<sha256>/).
type Trace struct {
	// Format is "tracev2" (Header + Data), "otel" or "weka" (File,
	// converted with the build's `blis convert`).
	Format string `yaml:"format" json:"format"`
	Header string `yaml:"header,omitempty" json:"header,omitempty"`
	Data   string `yaml:"data,omitempty" json:"data,omitempty"`
	File   string `yaml:"file,omitempty" json:"file,omitempty"`
	// SHA256 is the content hash the trace is stored under; results carry
	// it, runs.yaml does not need to.
	SHA256 string `yaml:"sha256,omitempty" json:"sha256,omitempty"`
}

// Load is the offered load: one rate or concurrency, or a sweep of them.
type Load struct {
	// Arrival is "poisson" or "constant" for rates (default poisson);
	// "recorded" replays a trace's own arrival times.
	Arrival       string    `yaml:"arrival,omitempty" json:"arrival,omitempty"`
	Rate          *float64  `yaml:"rate,omitempty" json:"rate,omitempty"`
	Rates         []float64 `yaml:"rates,omitempty" json:"rates,omitempty"`
	Concurrency   *int      `yaml:"concurrency,omitempty" json:"concurrency,omitempty"`
	Concurrencies []int     `yaml:"concurrencies,omitempty" json:"concurrencies,omitempty"`
}

// Arrival processes.
const (
	arrivalPoisson  = "poisson"
	arrivalConstant = "constant"
	ArrivalRecorded = "recorded"
	// arrivalClosedLoop is what a concurrency load is: C users, each
	// sending its next request when the previous one completes.
	arrivalClosedLoop = "closed-loop"
)

// LoadPoint is one offered load of a group: a rate (requests/s) with its
// arrival process, a concurrency, or the recorded arrivals of a trace.
type LoadPoint struct {
	Arrival     string  `json:"arrival"`
	Rate        float64 `json:"rate,omitempty"`
	Concurrency int     `json:"concurrency,omitempty"`
}

// String is the load in words, e.g. "Poisson arrivals at 2 req/s".
func (l LoadPoint) String() string {
	switch l.Arrival {
	case arrivalPoisson:
		return "Poisson arrivals at " + FormatNumber(l.Rate) + " req/s"
	case arrivalConstant:
		return "constant arrivals at " + FormatNumber(l.Rate) + " req/s (one every " + FormatNumber(1000/l.Rate) + " ms)"
	case arrivalClosedLoop:
		users := " concurrent users"
		if l.Concurrency == 1 {
			users = " user at a time"
		}
		return strconv.Itoa(l.Concurrency) + users + " (closed loop, no think time)"
	case ArrivalRecorded:
		return "the trace's recorded arrivals"
	}
	return l.Arrival
}

// Short is the load as a column or id label: "2 req/s", "C=16", "recorded".
func (l LoadPoint) Short() string {
	switch {
	case l.Arrival == arrivalClosedLoop:
		return "C=" + strconv.Itoa(l.Concurrency)
	case l.Arrival == ArrivalRecorded:
		return "recorded"
	}
	return FormatNumber(l.Rate) + " req/s"
}

// Less orders loads within one group (same kind) from light to heavy.
func (l LoadPoint) Less(o LoadPoint) bool {
	if l.Concurrency != o.Concurrency {
		return l.Concurrency < o.Concurrency
	}
	return l.Rate < o.Rate
}

// idSuffix is the load's part of a sweep run's id: "rate-2", "conc-16".
func (l LoadPoint) idSuffix() string {
	if l.Arrival == arrivalClosedLoop {
		return "conc-" + strconv.Itoa(l.Concurrency)
	}
	return "rate-" + FormatNumber(l.Rate)
}

// FormatNumber writes a number in its shortest exact decimal form.
func FormatNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Points expands the load into its load points in declaration order.
func (l *Load) Points() []LoadPoint {
	if l == nil {
		return nil
	}
	arrival := l.Arrival
	var out []LoadPoint
	switch {
	case l.Rate != nil || len(l.Rates) > 0:
		if arrival == "" {
			arrival = arrivalPoisson
		}
		rates := l.Rates
		if l.Rate != nil {
			rates = []float64{*l.Rate}
		}
		for _, r := range rates {
			out = append(out, LoadPoint{Arrival: arrival, Rate: r})
		}
	case l.Concurrency != nil || len(l.Concurrencies) > 0:
		cs := l.Concurrencies
		if l.Concurrency != nil {
			cs = []int{*l.Concurrency}
		}
		for _, c := range cs {
			out = append(out, LoadPoint{Arrival: arrivalClosedLoop, Concurrency: c})
		}
	case arrival == ArrivalRecorded:
		out = append(out, LoadPoint{Arrival: ArrivalRecorded})
	}
	return out
}

// Sweep reports whether the load declares several load points.
func (l *Load) Sweep() bool { return l != nil && (len(l.Rates) > 0 || len(l.Concurrencies) > 0) }

// Error is a problem in a declaration, located by file, line and field
// (Line 0 when it is not tied to one line).
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one declaration.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// idPattern is what a group, candidate or run id looks like: lowercase
// letters, digits, '.', '_' and '-', starting with a letter or digit, at
// most 64 characters (ids name files and URL fragments).
var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

var (
	modelRe    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)
	hardwareRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// Decode parses and checks a runs.yaml strictly: YAML syntax, unknown or
// duplicate keys and wrong types, the schema (schemas/leaderboard-runs.v1.json),
// then the rules the schema cannot say (unique ids, one offered work per
// group). name is the file's name for messages. The error is Errors, each
// naming file, line and field.
func Decode(src []byte, name string) (*Declaration, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, Errors{yamlError(name, err, nil)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, Errors{{File: name, Msg: "empty document; a runs.yaml starts with `version: 1`"}}
	}
	if line := aliasLine(&doc); line > 0 {
		return nil, Errors{{File: name, Line: line, Msg: "anchors and aliases (&name, *name) are not allowed in a runs.yaml: write each value out"}}
	}
	idx := indexNode(doc.Content[0], "")
	if err := validateSchema(doc.Content[0], name, idx); err != nil {
		return nil, err
	}
	var d Declaration
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&d); err != nil {
		return nil, Errors{yamlError(name, err, idx)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, Errors{{File: name, Line: extra.Line, Msg: "more than one YAML document; a runs.yaml is one"}}
	}
	if errs := d.check(name, idx); len(errs) > 0 {
		return nil, errs
	}
	d.name, d.idx = name, idx
	return &d, nil
}

// aliasLine returns the line of the first alias or anchor in n, 0 if none.
func aliasLine(n *yaml.Node) int {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return n.Line
	}
	for _, c := range n.Content {
		if l := aliasLine(c); l > 0 {
			return l
		}
	}
	return 0
}

var yamlLineRe = regexp.MustCompile(`line (\d+)`)

// yamlError turns a yaml.v3 error into an Error with the line and, when
// known, the field on that line.
func yamlError(name string, err error, idx *nodeIndex) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
	e := &Error{File: name, Msg: strings.Join(strings.Fields(msg), " ")}
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = strings.TrimSpace(strings.Replace(e.Msg, "line "+m[1]+":", "", 1))
		if idx != nil {
			e.Field = idx.fieldAt(e.Line)
		}
	}
	return e
}

// check applies the rules the schema cannot express.
func (d *Declaration) check(name string, idx *nodeIndex) Errors {
	var errs Errors
	add := func(path, format string, a ...any) {
		errs = append(errs, &Error{File: name, Line: idx.line(path), Field: path, Msg: fmt.Sprintf(format, a...)})
	}
	if d.Version != FormatVersion {
		add("version", "format version %d is not supported; this tool reads version %d", d.Version, FormatVersion)
		return errs
	}
	if len(d.Groups) == 0 {
		add("groups", "no group declared")
	}
	groupIDs := map[string]string{}
	for gi := range d.Groups {
		g := &d.Groups[gi]
		gp := fmt.Sprintf("groups[%d]", gi)
		if !idPattern.MatchString(g.ID) {
			add(gp+".id", "%q is not a valid id (lowercase letters, digits, '.', '_', '-'; at most 64)", g.ID)
		} else if prev, ok := groupIDs[g.ID]; ok {
			add(gp+".id", "group id %q is declared twice (first at %s)", g.ID, prev)
		} else {
			groupIDs[g.ID] = gp
		}
		if g.Workload == nil {
			add(gp, "no workload: a group fixes the offered work")
		} else {
			errs = append(errs, checkWorkload(g.Workload, name, gp+".workload", idx)...)
		}
		if g.Load == nil {
			add(gp, "no load: a group fixes the offered load (rate, rates, concurrency or concurrencies)")
		} else {
			errs = append(errs, checkLoad(g.Load, g.Workload, name, gp+".load", idx)...)
		}
		if g.KeepUp != nil && (g.Load == nil || !g.Load.Sweep()) {
			add(gp+".keep_up", "applies to a load sweep's capacity table; this group offers one load")
		}
		if g.KeepUp == nil && g.Load.Sweep() {
			add(gp, "a load sweep needs keep_up (a bound such as ttft_p99_ms) for its capacity table: without one every run that completes its requests would count as keeping up")
		}
		candIDs := map[string]string{}
		for ci := range g.Candidates {
			c := &g.Candidates[ci]
			cp := fmt.Sprintf("%s.candidates[%d]", gp, ci)
			if !idPattern.MatchString(c.ID) {
				add(cp+".id", "%q is not a valid id (lowercase letters, digits, '.', '_', '-'; at most 64)", c.ID)
			} else if prev, ok := candIDs[c.ID]; ok {
				add(cp+".id", "candidate id %q is declared twice in group %q (first at %s)", c.ID, g.ID, prev)
			} else {
				candIDs[c.ID] = cp
			}
			if !modelRe.MatchString(c.Model) {
				add(cp+".model", "%q is not an org-prefixed model id such as qwen/qwen3-14b", c.Model)
			}
			if c.Hardware == "" {
				add(cp+".hardware", "required: the simulator silently assumes H100 without it")
			} else if !hardwareRe.MatchString(c.Hardware) {
				add(cp+".hardware", "%q is not a GPU name such as H100 or A100-80", c.Hardware)
			}
			if c.TP < 1 {
				add(cp+".tp", "required, at least 1: the simulator silently assumes TP 1 without it")
			}
			if c.DP < 0 || c.Replicas < 0 {
				add(cp, "dp and replicas are at least 1 when given")
			}
			// A candidate that declares its own offered work must declare
			// the group's: two runs are comparable only when they were
			// offered the same work.
			if c.Workload != nil && g.Workload != nil && workloadKey(*c.Workload) != workloadKey(*g.Workload) {
				add(cp+".workload", "differs from the group's workload; runs in one group must be offered the same work (declare another group)")
			}
			if c.Load != nil && g.Load != nil && !slices.Equal(c.Load.Points(), g.Load.Points()) {
				add(cp+".load", "offers %s, the group %s; runs in one group must be offered the same load (declare another group)", describeLoads(c.Load.Points()), describeLoads(g.Load.Points()))
			}
		}
		if len(g.Candidates) == 0 {
			add(gp+".candidates", "no candidate declared")
		}
		if len(errs) == 0 {
			for _, r := range expandGroup(g) {
				if !idPattern.MatchString(r.ID) {
					add(gp, "run id %q (candidate and load) is longer than 64 characters or malformed; shorten the candidate id", r.ID)
				}
			}
		}
	}
	return errs
}

func describeLoads(ps []LoadPoint) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.Short()
	}
	if len(s) == 0 {
		return "no load"
	}
	return strings.Join(s, ", ")
}

func checkWorkload(w *Workload, name, path string, idx *nodeIndex) Errors {
	var errs Errors
	add := func(p, format string, a ...any) {
		errs = append(errs, &Error{File: name, Line: idx.line(p), Field: p, Msg: fmt.Sprintf(format, a...)})
	}
	if w.Trace != nil {
		if w.PromptTokens != nil || w.OutputTokens != nil || w.PrefixTokens != 0 {
			add(path, "a trace workload takes its requests from the trace; drop prompt_tokens, output_tokens and prefix_tokens")
		}
		switch w.Trace.Format {
		case "tracev2":
			if w.Trace.Header == "" || w.Trace.Data == "" || w.Trace.File != "" {
				add(path+".trace", "format tracev2 needs header and data (and no file)")
			}
		case "otel", "weka":
			if w.Trace.File == "" || w.Trace.Header != "" || w.Trace.Data != "" {
				add(path+".trace", "format %s needs file (and no header or data)", w.Trace.Format)
			}
		}
		return errs
	}
	if w.Requests < 1 {
		add(path+".requests", "required, at least 1")
	}
	if w.Seed == nil {
		add(path+".seed", "required: the seed fixes which requests are drawn")
	}
	for _, t := range []struct {
		name string
		tok  *Tokens
	}{{"prompt_tokens", w.PromptTokens}, {"output_tokens", w.OutputTokens}} {
		p := path + "." + t.name
		if t.tok == nil {
			add(p, "required: {mean, stdev, min, max}")
			continue
		}
		if t.tok.Min < 1 || t.tok.Min > t.tok.Max || t.tok.Mean < t.tok.Min || t.tok.Mean > t.tok.Max || t.tok.Stdev < 0 {
			add(p, "needs 1 <= min <= mean <= max and stdev >= 0 (got mean %d, stdev %d, min %d, max %d)", t.tok.Mean, t.tok.Stdev, t.tok.Min, t.tok.Max)
		}
	}
	return errs
}

func checkLoad(l *Load, w *Workload, name, path string, idx *nodeIndex) Errors {
	var errs Errors
	add := func(p, format string, a ...any) {
		errs = append(errs, &Error{File: name, Line: idx.line(p), Field: p, Msg: fmt.Sprintf(format, a...)})
	}
	kinds := 0
	for _, set := range []bool{l.Rate != nil, len(l.Rates) > 0, l.Concurrency != nil, len(l.Concurrencies) > 0} {
		if set {
			kinds++
		}
	}
	trace := w != nil && w.Trace != nil
	switch {
	case kinds > 1:
		add(path, "give exactly one of rate, rates, concurrency, concurrencies")
	case kinds == 0 && l.Arrival != ArrivalRecorded:
		add(path, "give one of rate, rates, concurrency, concurrencies (or arrival: recorded for a trace)")
	case kinds == 0 && !trace:
		add(path+".arrival", "recorded arrivals need a trace workload")
	case kinds == 1 && l.Arrival == ArrivalRecorded:
		add(path+".arrival", "recorded arrivals take no rate or concurrency")
	}
	if (l.Concurrency != nil || len(l.Concurrencies) > 0) && l.Arrival != "" {
		add(path+".arrival", "a concurrency load is closed loop; arrival applies to rates only")
	}
	if trace && kinds > 0 && l.Concurrency == nil && len(l.Concurrencies) == 0 {
		add(path, "a trace is offered at its recorded arrivals (arrival: recorded) or as a pool of concurrent sessions (concurrency)")
	}
	seen := map[LoadPoint]bool{}
	for _, p := range l.Points() {
		if p.Arrival != ArrivalRecorded && p.Arrival != arrivalClosedLoop && (p.Rate <= 0 || math.IsInf(p.Rate, 0) || math.IsNaN(p.Rate)) {
			add(path, "rate %v: must be a positive finite number of requests per second", p.Rate)
		}
		if p.Arrival == arrivalClosedLoop && p.Concurrency < 1 {
			add(path, "concurrency %d: must be at least 1", p.Concurrency)
		}
		if seen[p] {
			add(path, "load %s is listed twice", p.Short())
		}
		seen[p] = true
	}
	return errs
}

// DeclaredRun is one simulation a declaration asks for: a candidate at one load
// point of its group.
type DeclaredRun struct {
	Group     string    `json:"group"`
	ID        string    `json:"run"`
	Candidate Candidate `json:"candidate"`
	Workload  Workload  `json:"workload"`
	Load      LoadPoint `json:"load"`
	// Sweep is every load point of the group (nil unless it sweeps).
	Sweep []LoadPoint `json:"sweep,omitempty"`
}

// Key is the run's comparability key (see offeredKey).
func (r DeclaredRun) Key() string { return offeredKey(r.Workload, r.Load) }

// Runs expands a declaration into its runs, in declaration order: groups,
// then candidates, then load points. A run's id is its candidate's id, or
// "<candidate>--rate-2" / "<candidate>--conc-16" in a load sweep.
func (d *Declaration) Runs() []DeclaredRun {
	var out []DeclaredRun
	for gi := range d.Groups {
		out = append(out, expandGroup(&d.Groups[gi])...)
	}
	return out
}

func expandGroup(g *Group) []DeclaredRun {
	var out []DeclaredRun
	points := g.Load.Points()
	var sweep []LoadPoint
	if g.Load.Sweep() {
		sweep = points
	}
	for _, c := range g.Candidates {
		c.Workload, c.Load = nil, nil
		c = c.Normalized()
		for _, p := range points {
			id := c.ID
			if sweep != nil {
				id += "--" + p.idSuffix()
			}
			out = append(out, DeclaredRun{Group: g.ID, ID: id, Candidate: c, Workload: *g.Workload, Load: p, Sweep: sweep})
		}
	}
	return out
}

// Normalized fills the defaults a result records explicitly.
func (c Candidate) Normalized() Candidate {
	if c.DP == 0 {
		c.DP = 1
	}
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	if c.Engine != nil && *c.Engine == (Engine{}) {
		c.Engine = nil
	}
	return c
}

// Group returns the group with this id, nil if there is none.
func (d *Declaration) Group(id string) *Group {
	for i := range d.Groups {
		if d.Groups[i].ID == id {
			return &d.Groups[i]
		}
	}
	return nil
}

// errNoSuchRun is returned by Select for a selector that matches no run.
var errNoSuchRun = errors.New("no such run")

// Select keeps the runs named by selectors "GROUP" or "GROUP/RUN"; no
// selector keeps all.
func Select(runs []DeclaredRun, selectors []string) ([]DeclaredRun, error) {
	if len(selectors) == 0 {
		return runs, nil
	}
	var out []DeclaredRun
	for _, s := range selectors {
		g, r, _ := strings.Cut(s, "/")
		n := 0
		for _, run := range runs {
			if run.Group == g && (r == "" || run.ID == r) {
				if !slices.ContainsFunc(out, func(o DeclaredRun) bool { return o.Group == run.Group && o.ID == run.ID }) {
					out = append(out, run)
				}
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%q: %w in the declaration", s, errNoSuchRun)
		}
	}
	return out, nil
}
