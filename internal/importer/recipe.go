package importer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ledger"
)

// WarmupSince is the first day InferenceX's client sent warmup requests
// (--num-warmups 2×CONC); runs before it sent none.
const WarmupSince = "2026-01-21"

// Recipe facts (InferenceX's published benchmark recipes,
// github.com/SemiAnalysisAI/InferenceX; the table in docs/LEDGER.md) are
// documented for the gpt-oss-120b vLLM points of this window.
const (
	recipeFrom  = "2025-12-01"
	recipeUntil = "2026-01-31"
	recipeModel = "openai/gpt-oss-120b"
)

// runFacts is what is known about an InferenceX workflow run that its
// artifact does not say.
type runFacts struct {
	// Date of the run, YYYY-MM-DD, when known.
	Date string
	// PreWarmup: the run predates the client's warmup requests.
	PreWarmup bool
	// InRecipeWindow: the run falls in the window the recipe facts describe.
	InRecipeWindow bool
}

// knownRuns are the InferenceX vLLM runs of corpus/sources. Their dates are
// not recorded anywhere we can read (the artifacts carry none), so Date stays
// empty; corpus/sources/README.md states they are Dec 2025 – Jan 2026 runs that
// predate the client's warmup.
var knownRuns = map[string]runFacts{
	"20218553330": {PreWarmup: true, InRecipeWindow: true}, // vLLM v0.11.2 full sweep
	"20316427102": {PreWarmup: true, InRecipeWindow: true}, // vLLM v0.11.2 retried points
	"20662362255": {PreWarmup: true, InRecipeWindow: true}, // vLLM v0.13.0 full sweep
}

// factsFor resolves what is known about run id given the row's own date (API
// rows) and the dates passed in Options.RunDates. ok is false when neither a
// date nor a table entry says whether the run sent warmups.
func factsFor(runID, rowDate string, runDates map[string]string) (f runFacts, ok bool) {
	date := rowDate
	if date == "" {
		date = runDates[runID]
	}
	if k, known := knownRuns[runID]; known && date == "" {
		return k, true
	}
	if date == "" {
		return runFacts{}, false
	}
	return runFacts{
		Date:           date,
		PreWarmup:      date < WarmupSince,
		InRecipeWindow: date >= recipeFrom && date <= recipeUntil,
	}, true
}

// vllmVersion is a numbered vLLM release, vMAJOR.MINOR.PATCH.
type vllmVersion struct{ major, minor, patch int }

var versionPattern = regexp.MustCompile(`^v?([0-9]+)\.([0-9]+)\.([0-9]+)$`)

func parseVersion(s string) (vllmVersion, bool) {
	m := versionPattern.FindStringSubmatch(s)
	if m == nil {
		return vllmVersion{}, false
	}
	var v vllmVersion
	var err error
	for i, p := range []*int{&v.major, &v.minor, &v.patch} {
		if *p, err = strconv.Atoi(m[i+1]); err != nil {
			return vllmVersion{}, false
		}
	}
	return v, true
}

func (v vllmVersion) String() string { return fmt.Sprintf("v%d.%d.%d", v.major, v.minor, v.patch) }

func (v vllmVersion) less(w vllmVersion) bool {
	if v.major != w.major {
		return v.major < w.major
	}
	if v.minor != w.minor {
		return v.minor < w.minor
	}
	return v.patch < w.patch
}

// officialImages are the container repositories of released vLLM builds.
var officialImages = map[string]bool{
	"vllm/vllm-openai":           true,
	"docker.io/vllm/vllm-openai": true,
}

// imageVersion returns the numbered vLLM version of an official image
// ("vllm/vllm-openai:v0.13.0"); ok is false for any other repository, a
// nightly or otherwise unnumbered tag, a digest, or no image at all.
func imageVersion(image string) (vllmVersion, bool) {
	if strings.Contains(image, "@") {
		return vllmVersion{}, false
	}
	i := strings.LastIndexByte(image, ':')
	if i < 0 || !officialImages[image[:i]] {
		return vllmVersion{}, false
	}
	return parseVersion(image[i+1:])
}

func resolved[T any](v T, note string) *ledger.Setting[T] {
	return &ledger.Setting[T]{Value: v, Evidence: ledger.Resolved, Note: note}
}

func measured[T any](v T, note string) ledger.Setting[T] {
	return ledger.Setting[T]{Value: v, Evidence: ledger.Measured, Note: note}
}

// inferenceXEngine resolves the engine settings of an InferenceX vLLM point
// from the recipe facts. perPoint holds the settings that vary with the
// point (max_num_seqs = CONC on H100/H200). Within the documented recipe
// (gpt-oss-120b on H100/H200/B200, Dec 2025 – Jan 2026) each setting is
// Resolved with a note naming the fact; outside it the same values are
// Assumed, with a note saying why.
func inferenceXEngine(model, hw string, isl, osl, conc int, inWindow bool) (unit ledger.EngineSettings, perPoint *ledger.EngineSettings) {
	assumedWhy := "" // empty: inside the documented recipe
	switch {
	case model != recipeModel:
		assumedWhy = "assumed: recipe facts are documented for " + recipeModel + " only"
	case hw != "H100" && hw != "H200" && hw != "B200":
		assumedWhy = "assumed: recipe facts are documented for H100/H200/B200 only (H200 recipe used)"
	case !inWindow:
		assumedWhy = "assumed: recipe facts are documented for Dec 2025 - Jan 2026 only"
	}
	mark := func(ev ledger.Evidence, note string) (ledger.Evidence, string) {
		if assumedWhy == "" {
			return ev, note
		}
		return ledger.Assumed, assumedWhy + "; " + note
	}
	setI := func(v int, note string) *ledger.Setting[int] {
		e, n := mark(ledger.Resolved, note)
		return &ledger.Setting[int]{Value: v, Evidence: e, Note: n}
	}
	e, n := mark(ledger.Resolved, "InferenceX recipe: --gpu-memory-utilization 0.9")
	unit.GPUMemoryUtilization = &ledger.Setting[float64]{Value: 0.9, Evidence: e, Note: n}
	unit.MaxNumBatchedTokens = setI(8192, "InferenceX recipe: max-num-batched-tokens 8192")
	unit.BlockSize = setI(16, "vLLM default block size (the recipe sets none)")
	e, n = mark(ledger.Resolved, "InferenceX recipe: prefix caching off")
	unit.PrefixCaching = &ledger.Setting[bool]{Value: false, Evidence: e, Note: n}

	shape := hw
	if hw == "B200" {
		shape = "B200, as H200: benchmarks/gptoss_fp4_b200.sh"
	}
	switch {
	case hw == "H100":
		unit.MaxModelLen = setI(10240, "InferenceX recipe (H100): max-model-len 10240")
	case isl == 1024 && osl == 1024:
		unit.MaxModelLen = setI(isl+osl+20, fmt.Sprintf("InferenceX recipe (%s): max-model-len ISL+OSL+20 for 1k/1k", shape))
	case isl == 8192 || osl == 8192:
		unit.MaxModelLen = setI(isl+osl+200, fmt.Sprintf("InferenceX recipe (%s): max-model-len ISL+OSL+200 when a side is 8k", shape))
	default:
		unit.MaxModelLen = &ledger.Setting[int]{Value: 10240, Evidence: ledger.Assumed,
			Note: "assumed: the recipe fixes max-model-len for 1k/1k and 8k shapes only; 10240 is its fallback"}
	}

	if hw == "B200" {
		unit.MaxNumSeqs = setI(512, "InferenceX recipe (B200): --max-num-seqs 512")
		e, n = mark(ledger.Resolved, "InferenceX recipe (B200): kv-cache-dtype fp8")
		unit.KVCacheDtype = &ledger.Setting[string]{Value: "fp8", Evidence: e, Note: n}
		return unit, nil
	}
	return unit, &ledger.EngineSettings{MaxNumSeqs: setI(conc, "InferenceX recipe: --max-num-seqs CONC")}
}
