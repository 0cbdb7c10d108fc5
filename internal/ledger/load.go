package ledger

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/diskio"
	"github.com/inference-sim/accuracy-dashboard/internal/ident"
	"github.com/inference-sim/accuracy-dashboard/internal/jsoncodec"
)

// MaxFileBytes bounds each file of a ledger (the manifest, a unit). The
// largest unit of the bundled corpus is a few tens of kilobytes.
const MaxFileBytes = 16 << 20

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$`)

// Load reads and validates the ledger rooted at fsys (the directory holding
// ledger.json). Every file is decoded strictly: an unknown field, a value of
// the wrong type, trailing data or a rule broken is an error naming the file
// and the field. All problems found are returned together (errors.Join).
//
// A ledger holds regular files only: a symbolic link (ledger.json, the units
// directory or a unit file) is an error, as is a file larger than
// MaxFileBytes.
func Load(fsys fs.FS) (*Ledger, error) {
	h := sha256.New()
	raw, err := diskio.ReadFileMax(fsys, ManifestFile, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("ledger: read %s: %w", ManifestFile, err)
	}
	var m Manifest
	if err := jsoncodec.Decode(raw, &m); err != nil {
		return nil, fmt.Errorf("ledger %s: %w", ManifestFile, err)
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("ledger %s: %w", ManifestFile, err)
	}
	hashFile(h, ManifestFile, raw)

	if st, err := fs.Lstat(fsys, UnitsDir); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("ledger %s: a symbolic link; a ledger holds regular files only", UnitsDir)
	}
	var paths []string
	err = fs.WalkDir(fsys, UnitsDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("ledger %s: a symbolic link; a ledger holds regular files only", p)
		}
		if d.IsDir() {
			return nil
		}
		if !strings.HasSuffix(p, ".json") {
			return fmt.Errorf("ledger %s: not a unit file (want *.json)", p)
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("ledger: no unit files under %s/", UnitsDir)
	}
	sort.Strings(paths)

	l := &Ledger{Manifest: m}
	var errs []error
	for _, p := range paths {
		raw, err := diskio.ReadFileMax(fsys, p, MaxFileBytes)
		if err != nil {
			errs = append(errs, fmt.Errorf("ledger %s: %w", p, err))
			continue
		}
		hashFile(h, p, raw)
		var u Unit
		if err := jsoncodec.Decode(raw, &u); err != nil {
			errs = append(errs, fmt.Errorf("ledger %s: %w", p, err))
			continue
		}
		wantID := strings.TrimSuffix(strings.TrimPrefix(p, UnitsDir+"/"), ".json")
		if u.ID != wantID {
			errs = append(errs, fmt.Errorf("ledger %s: id: %q does not match its file name (want %q)", p, u.ID, wantID))
			continue
		}
		if err := u.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("ledger %s: %w", p, err))
			continue
		}
		l.Units = append(l.Units, u)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	l.Digest = ident.Digest(h.Sum(nil))
	return l, nil
}

func hashFile(h io.Writer, name string, raw []byte) {
	fmt.Fprintf(h, "%s\x00%d\x00", name, len(raw))
	h.Write(raw)
}

func (m *Manifest) validate() error {
	var errs []error
	if m.SchemaVersion != SchemaVersion {
		errs = append(errs, fmt.Errorf("schema_version: %d is not supported (want %d)", m.SchemaVersion, SchemaVersion))
	}
	if strings.TrimSpace(m.Name) == "" {
		errs = append(errs, errors.New("name: must not be empty"))
	}
	if strings.TrimSpace(m.Version) == "" {
		errs = append(errs, errors.New("version: must not be empty"))
	}
	return errors.Join(errs...)
}

// Validate checks every rule of the unit format, returning all problems found,
// each naming its field.
func (u *Unit) Validate() error {
	v := &validator{}
	if u.SchemaVersion != SchemaVersion {
		v.addf("schema_version", "%d is not supported (want %d)", u.SchemaVersion, SchemaVersion)
	}
	if !idPattern.MatchString(u.ID) {
		v.addf("id", "%q is not lowercase [a-z0-9._-] segments joined by /", u.ID)
	}
	d := &u.Deployment
	v.nonEmpty("deployment.model", d.Model)
	v.nonEmpty("deployment.hardware", d.Hardware)
	v.nonEmpty("deployment.engine", d.Engine)
	intSetting(v, "deployment.tensor_parallel", &d.TensorParallel, 1)
	intSetting(v, "deployment.expert_parallel", &d.ExpertParallel, 1)
	intSetting(v, "deployment.data_parallel", &d.DataParallel, 1)
	v.evidence("deployment.precision", d.Precision.Evidence)
	v.nonEmpty("deployment.precision.value", d.Precision.Value)
	d.Engines.validate(v, "deployment.engine_settings")

	w := &u.Workload
	switch w.Client {
	case ClientInferenceX:
		if w.InferencePerf != nil {
			v.addf("workload.inference_perf", "must be absent for client %q", w.Client)
		}
		if x := w.InferenceX; x == nil {
			v.addf("workload.inferencex", "required for client %q", w.Client)
		} else {
			v.positive("workload.inferencex.input_len", float64(x.InputLen))
			v.positive("workload.inferencex.output_len", float64(x.OutputLen))
			if !(x.RangeRatio > 0 && x.RangeRatio <= 1) {
				v.addf("workload.inferencex.range_ratio", "%v is not in (0, 1]", x.RangeRatio)
			}
			v.positive("workload.inferencex.prompts_per_concurrency", float64(x.PromptsPerConcurrency))
			if x.WarmupsPerConcurrency < 0 {
				v.addf("workload.inferencex.warmups_per_concurrency", "%d is negative", x.WarmupsPerConcurrency)
			}
		}
	case ClientInferencePerf:
		if w.InferenceX != nil {
			v.addf("workload.inferencex", "must be absent for client %q", w.Client)
		}
		if p := w.InferencePerf; p == nil {
			v.addf("workload.inference_perf", "required for client %q", w.Client)
		} else {
			v.positive("workload.inference_perf.num_unique_system_prompts", float64(p.NumUniqueSystemPrompts))
			v.positive("workload.inference_perf.num_users_per_system_prompt", float64(p.NumUsersPerSystemPrompt))
			if p.SystemPromptLen < 0 {
				v.addf("workload.inference_perf.system_prompt_len", "%d is negative", p.SystemPromptLen)
			}
			v.positive("workload.inference_perf.question_len", float64(p.QuestionLen))
			v.positive("workload.inference_perf.output_len", float64(p.OutputLen))
		}
	default:
		v.addf("workload.client", "%q is not a known client (want %q or %q)", w.Client, ClientInferenceX, ClientInferencePerf)
	}

	if len(u.Points) == 0 {
		v.addf("points", "must hold at least one point")
	}
	seen := map[string]int{}
	for i := range u.Points {
		p := &u.Points[i]
		f := fmt.Sprintf("points[%d]", i)
		switch {
		case p.Load.Concurrency != 0 && p.Load.Rate != 0:
			v.addf(f+".load", "has both concurrency and rate")
		case w.Client == ClientInferenceX:
			if p.Load.Concurrency <= 0 {
				v.addf(f+".load.concurrency", "must be a positive integer for client %q", w.Client)
			}
			if p.Load.DurationS != 0 {
				v.addf(f+".load.duration_s", "must be absent for a closed-loop point")
			}
		case w.Client == ClientInferencePerf:
			if !(p.Load.Rate > 0) || math.IsInf(p.Load.Rate, 0) {
				v.addf(f+".load.rate", "must be a positive number for client %q", w.Client)
			}
			if !(p.Load.DurationS > 0) || math.IsInf(p.Load.DurationS, 0) {
				v.addf(f+".load.duration_s", "must be a positive number for client %q", w.Client)
			}
		}
		k := p.Load.Key()
		if j, dup := seen[k]; dup {
			v.addf(f+".load", "duplicates points[%d] (%s)", j, k)
		}
		seen[k] = i
		if i > 0 && p.Load.Value() < u.Points[i-1].Load.Value() {
			v.addf(f+".load", "points must be sorted by load, ascending")
		}
		if p.Excluded == "" {
			v.positive(f+".measured.ttft_ms", p.Measured.TTFTMs)
			v.positive(f+".measured.tpot_ms", p.Measured.TPOTMs)
		}
		if n := p.Measured.FailedRequests; n != nil && *n < 0 {
			v.addf(f+".measured.failed_requests", "%d is negative", *n)
		}
		if d := p.Measured.TPOTDerivation; d != nil {
			g := f + ".measured.tpot_derivation"
			if d.Evidence != Derived {
				v.addf(g+".evidence", "%q is not %q", d.Evidence, Derived)
			}
			v.nonEmpty(g+".rule", d.Rule)
			v.nonEmpty(g+".formula", d.Formula)
			if d.OutputTokens < 2 {
				v.addf(g+".output_tokens", "%d is less than 2", d.OutputTokens)
			}
			v.positive(g+".recorded_tpot_ms", d.RecordedTPOTMs)
		}
		v.nonEmpty(f+".provenance.artifact", p.Provenance.Artifact)
		v.nonEmpty(f+".provenance.run_id", p.Provenance.RunID)
		v.nonEmpty(f+".provenance.engine_version", p.Provenance.EngineVersion)
		if p.Overrides != nil {
			p.Overrides.validate(v, f+".overrides")
		}
	}
	return v.err()
}

func (s *EngineSettings) validate(v *validator, f string) {
	if s.MaxNumSeqs != nil {
		intSetting(v, f+".max_num_seqs", s.MaxNumSeqs, 1)
	}
	if s.MaxNumBatchedTokens != nil {
		intSetting(v, f+".max_num_batched_tokens", s.MaxNumBatchedTokens, 1)
	}
	if s.GPUMemoryUtilization != nil {
		v.evidence(f+".gpu_memory_utilization.evidence", s.GPUMemoryUtilization.Evidence)
		if g := s.GPUMemoryUtilization.Value; !(g > 0 && g <= 1) {
			v.addf(f+".gpu_memory_utilization.value", "%v is not in (0, 1]", g)
		}
	}
	if s.MaxModelLen != nil {
		intSetting(v, f+".max_model_len", s.MaxModelLen, 1)
	}
	if s.BlockSize != nil {
		intSetting(v, f+".block_size", s.BlockSize, 1)
	}
	if s.PrefixCaching != nil {
		v.evidence(f+".prefix_caching.evidence", s.PrefixCaching.Evidence)
	}
	if s.KVCacheDtype != nil {
		v.evidence(f+".kv_cache_dtype.evidence", s.KVCacheDtype.Evidence)
		v.nonEmpty(f+".kv_cache_dtype.value", s.KVCacheDtype.Value)
	}
}

func intSetting(v *validator, f string, s *Setting[int], min int) {
	v.evidence(f+".evidence", s.Evidence)
	if s.Value < min {
		v.addf(f+".value", "%d is less than %d", s.Value, min)
	}
}

type validator struct{ errs []error }

func (v *validator) addf(field, format string, args ...any) {
	v.errs = append(v.errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
}

func (v *validator) nonEmpty(field, s string) {
	if strings.TrimSpace(s) == "" {
		v.addf(field, "must not be empty")
	}
}

func (v *validator) positive(field string, x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
		v.addf(field, "must be a positive number, got %v", x)
	}
}

func (v *validator) evidence(field string, e Evidence) {
	if !e.Valid() {
		v.addf(field, "%q is not one of measured, resolved, assumed", e)
	}
}

func (v *validator) err() error { return errors.Join(v.errs...) }

// UnitPath is the slash-separated path of a unit's file inside a ledger.
func UnitPath(id string) string { return path.Join(UnitsDir, id+".json") }
