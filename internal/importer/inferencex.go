package importer

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"time"
)

// XRow is one InferenceX result row, read from either an agg_bmk.json
// artifact or the public /api/v1/benchmarks JSON. Latencies are in seconds,
// as in the source.
type XRow struct {
	// Index is the row's 0-based position in its file.
	Index int
	// Hardware is the runner type as written, e.g. "h100" or "b200-trt".
	Hardware  string
	Framework string
	// Model is the model as written: a HuggingFace id or path in agg_bmk
	// rows, a short prefix such as "gptoss" in API rows.
	Model        string
	Precision    string
	SpecDecoding string
	Disagg       bool
	MultiNode    bool
	// TP, EP and DPAttention describe a single-node topology. They are zero
	// for rows that carry only prefill_*/decode_* topology.
	TP          int
	EP          int
	DPAttention bool
	ISL         int
	OSL         int
	Conc        int
	// Image is the container image; empty when the source has null.
	Image   string
	Metrics XMetrics
	// Date (YYYY-MM-DD) and RunURL are carried by API rows only.
	Date   string
	RunURL string
	// Unknown lists the fields of the row the parser does not know, in name
	// order ("metrics.<name>" for an API row's metrics): ignored, counted
	// in the import report.
	Unknown []string
}

// XMetrics are a row's aggregate latencies in seconds; nil when the source
// has none (absent or null).
type XMetrics struct {
	MeanTTFT, MedianTTFT, P99TTFT *float64
	MeanTPOT, MedianTPOT, P99TPOT *float64
	MeanITL, MeanE2EL             *float64
	// MeanIntvty is the mean interactivity, tokens per second per request.
	MeanIntvty *float64
}

// metricFields are the metric names both InferenceX formats may carry
// (agg_bmk at top level, the API under metrics{}); any other name is an
// unknown field.
var metricFields = func() map[string]bool {
	m := map[string]bool{
		"tput_per_gpu": true, "output_tput_per_gpu": true, "input_tput_per_gpu": true,
		"avg_power_w": true, "joules_per_total_token": true, "joules_per_output_token": true,
	}
	for _, stat := range []string{"mean", "median", "std", "p90", "p99", "p99.9"} {
		for _, name := range []string{"ttft", "tpot", "itl", "e2el", "intvty"} {
			m[stat+"_"+name] = true
		}
	}
	return m
}()

func readMetrics(o *object) XMetrics {
	return XMetrics{
		MeanTTFT: o.number("mean_ttft"), MedianTTFT: o.number("median_ttft"), P99TTFT: o.number("p99_ttft"),
		MeanTPOT: o.number("mean_tpot"), MedianTPOT: o.number("median_tpot"), P99TPOT: o.number("p99_tpot"),
		MeanITL: o.number("mean_itl"), MeanE2EL: o.number("mean_e2el"), MeanIntvty: o.number("mean_intvty"),
	}
}

// checkMetricNumbers type-checks every metric field, used or not.
func checkMetricNumbers(o *object) {
	for k := range o.fields {
		if metricFields[k] {
			o.number(k)
		}
	}
}

var aggFields = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range []string{
		"hw", "conc", "image", "model", "infmax_model_prefix", "framework", "precision",
		"spec_decoding", "disagg", "isl", "osl", "is_multinode", "tp", "ep", "dp_attention",
		"prefill_tp", "prefill_ep", "prefill_dp_attention", "prefill_num_workers",
		"decode_tp", "decode_ep", "decode_dp_attention", "decode_num_workers",
		"num_prefill_gpu", "num_decode_gpu",
	} {
		m[k] = true
	}
	for k := range metricFields {
		m[k] = true
	}
	return m
}()

// ParseAggBmk reads an InferenceX agg_bmk.json artifact: a JSON array of
// rows (an empty array is valid and gives no rows). name is used in errors.
// Fields it does not know (a newer InferenceX's additions) are listed in
// XRow.Unknown and otherwise ignored. Known fields are decoded strictly: a
// duplicated field, a value of the wrong type, or a missing identity field (hw, framework, model, precision,
// spec_decoding, disagg, is_multinode, isl, osl, conc; tp, ep and
// dp_attention for single-node rows) is an error naming file, row and field.
// Null or absent latencies are not errors: the corpus rules exclude such rows.
func ParseAggBmk(name string, data []byte) ([]XRow, error) {
	return parseRows(name, data, func(o *object, i int) XRow {
		r := XRow{
			Unknown:      o.unknownFields(aggFields, ""),
			Index:        i,
			Hardware:     o.reqStr("hw"),
			Framework:    o.reqStr("framework"),
			Model:        o.reqStr("model"),
			Precision:    o.reqStr("precision"),
			SpecDecoding: o.reqStr("spec_decoding"),
			Disagg:       o.boolean("disagg", false),
			MultiNode:    o.boolean("is_multinode", false),
			ISL:          o.reqInt("isl"),
			OSL:          o.reqInt("osl"),
			Conc:         o.reqInt("conc"),
		}
		r.Image, _ = o.str("image")
		o.str("infmax_model_prefix")
		if !r.Disagg && !r.MultiNode {
			r.TP = o.reqInt("tp")
			r.EP = o.reqInt("ep")
			r.DPAttention = o.boolean("dp_attention", true)
		}
		checkOptionalTopology(o, nil)
		checkMetricNumbers(o)
		r.Metrics = readMetrics(o)
		checkShape(o, &r)
		return r
	})
}

// parseRows decodes data, a JSON array of objects, into rows: row reads
// the i-th object, recording what is wrong with it on the object. Every
// row's errors are reported together, naming the file and the row.
func parseRows(name string, data []byte, row func(o *object, i int) XRow) ([]XRow, error) {
	raws, err := decodeArray(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	re := &rowErrors{name: name}
	rows := make([]XRow, 0, len(raws))
	for i, raw := range raws {
		o, err := decodeObject(raw)
		if err != nil {
			re.add(i, err)
			continue
		}
		r := row(o, i)
		if err := o.err(); err != nil {
			re.add(i, err)
			continue
		}
		rows = append(rows, r)
	}
	if err := re.err(); err != nil {
		return nil, err
	}
	return rows, nil
}

// checkOptionalTopology type-checks the prefill_*/decode_* topology fields
// a row may carry (integers, and booleans written as JSON booleans or as the
// strings "true"/"false"), skipping those in done.
func checkOptionalTopology(o *object, done map[string]bool) {
	for _, k := range []string{"prefill_tp", "prefill_ep", "prefill_num_workers", "decode_tp", "decode_ep", "decode_num_workers", "num_prefill_gpu", "num_decode_gpu"} {
		if !done[k] {
			o.integer(k)
		}
	}
	for _, k := range []string{"prefill_dp_attention", "decode_dp_attention"} {
		if !done[k] && o.raw(k) != nil {
			o.boolean(k, true)
		}
	}
}

// checkShape rejects integers that cannot describe a benchmark point.
func checkShape(o *object, r *XRow) {
	for _, f := range []struct {
		key string
		v   int
	}{{"isl", r.ISL}, {"osl", r.OSL}, {"conc", r.Conc}} {
		if o.ok(f.key) && f.v < 1 {
			o.failf(f.key, "%d is not positive", f.v)
		}
	}
	if !r.Disagg && !r.MultiNode {
		if o.ok("tp") && r.TP < 1 {
			o.failf("tp", "%d is less than 1", r.TP)
		}
		if o.ok("ep") && r.EP < 1 {
			o.failf("ep", "%d is less than 1", r.EP)
		}
	}
}

var apiFields = map[string]bool{
	"hardware": true, "framework": true, "model": true, "precision": true, "spec_method": true,
	"disagg": true, "is_multinode": true,
	"prefill_tp": true, "prefill_ep": true, "prefill_dp_attention": true, "prefill_num_workers": true,
	"decode_tp": true, "decode_ep": true, "decode_dp_attention": true, "decode_num_workers": true,
	"num_prefill_gpu": true, "num_decode_gpu": true,
	"isl": true, "osl": true, "conc": true, "image": true, "metrics": true, "workers": true,
	"date": true, "run_url": true,
}

// ParseAPIRows reads rows of the InferenceX public API (/api/v1/benchmarks):
// a JSON array of objects with the metrics nested under "metrics". Strict in
// the same way as ParseAggBmk; date (YYYY-MM-DD) and run_url are required.
// A single-node row's topology is read from decode_tp, decode_ep and
// decode_dp_attention. "workers" is accepted with any value and ignored.
func ParseAPIRows(name string, data []byte) ([]XRow, error) {
	return parseRows(name, data, func(o *object, i int) XRow {
		r := XRow{
			Unknown:      o.unknownFields(apiFields, ""),
			Index:        i,
			Hardware:     o.reqStr("hardware"),
			Framework:    o.reqStr("framework"),
			Model:        o.reqStr("model"),
			Precision:    o.reqStr("precision"),
			SpecDecoding: o.reqStr("spec_method"),
			Disagg:       o.boolean("disagg", false),
			MultiNode:    o.boolean("is_multinode", false),
			ISL:          o.reqInt("isl"),
			OSL:          o.reqInt("osl"),
			Conc:         o.reqInt("conc"),
			Date:         o.reqStr("date"),
			RunURL:       o.reqStr("run_url"),
		}
		r.Image, _ = o.str("image")
		if !r.Disagg && !r.MultiNode {
			r.TP = o.reqInt("decode_tp")
			r.EP = o.reqInt("decode_ep")
			r.DPAttention = o.boolean("decode_dp_attention", true)
			if r.TP < 1 && o.ok("decode_tp") {
				o.failf("decode_tp", "%d is less than 1", r.TP)
			}
			if r.EP < 1 && o.ok("decode_ep") {
				o.failf("decode_ep", "%d is less than 1", r.EP)
			}
			checkOptionalTopology(o, map[string]bool{"decode_tp": true, "decode_ep": true, "decode_dp_attention": true})
		} else {
			checkOptionalTopology(o, nil)
		}
		if r.Date != "" {
			if _, err := time.Parse(time.DateOnly, r.Date); err != nil {
				o.failf("date", "%q is not a YYYY-MM-DD date", r.Date)
			}
		}
		if r.RunURL != "" && runIDFromURL(r.RunURL) == "" {
			o.failf("run_url", "%q does not name a GitHub Actions run (…/actions/runs/<id>)", r.RunURL)
		}
		m := o.child("metrics")
		if m == nil {
			if o.raw("metrics") == nil {
				o.missing("metrics", "an object")
			}
		} else {
			r.Unknown = append(r.Unknown, m.unknownFields(metricFields, "metrics.")...)
			checkMetricNumbers(m)
			r.Metrics = readMetrics(m)
			for _, e := range m.errs {
				o.errs = append(o.errs, fmt.Errorf("metrics.%w", e))
			}
		}
		checkShape(o, &r)
		return r
	})
}

var runURLPattern = regexp.MustCompile(`/actions/runs/([0-9]+)(/|$)`)

// runIDFromURL extracts the numeric run id from a GitHub Actions run URL.
func runIDFromURL(u string) string {
	m := runURLPattern.FindStringSubmatch(u)
	if m == nil {
		return ""
	}
	return m[1]
}

// aggRunFile matches the file name of an agg_bmk artifact, which carries the
// workflow run id (the rows do not).
var aggRunFile = regexp.MustCompile(`^run_([0-9]+)\.json$`)

// aggRunDir matches the folder of the other agg_bmk layout,
// run_<run-id>/agg_bmk.json (a GitHub Actions artifact as downloaded).
var aggRunDir = regexp.MustCompile(`^run_([0-9]+)$`)

// IsAggBmkRunFolder reports whether dir (a slash path in fsys) is an agg_bmk
// run folder, run_<run-id>/ holding agg_bmk.json: its run id is the folder's
// name, so a caller rooting an import must keep that name in the path.
func IsAggBmkRunFolder(fsys fs.FS, dir string) bool {
	if !aggRunDir.MatchString(path.Base(dir)) {
		return false
	}
	st, err := fs.Stat(fsys, path.Join(dir, "agg_bmk.json"))
	return err == nil && !st.IsDir()
}

// aggBmkRunID returns the run id of an agg_bmk artifact at slash path p,
// from its name (run_<id>.json) or its folder (run_<id>/agg_bmk.json); ok
// is false for any other path.
func aggBmkRunID(p string) (id string, ok bool) {
	if m := aggRunFile.FindStringSubmatch(path.Base(p)); m != nil {
		return m[1], true
	}
	if path.Base(p) == "agg_bmk.json" {
		if m := aggRunDir.FindStringSubmatch(path.Base(path.Dir(p))); m != nil {
			return m[1], true
		}
	}
	return "", false
}

// apiModels maps the short model names of the API to HuggingFace ids.
var apiModels = map[string]string{
	"gptoss": "openai/gpt-oss-120b",
	"dsr1":   "deepseek-ai/DeepSeek-R1-0528",
}

// hardwareName is the simulator's spelling of an InferenceX runner type:
// the part before any "-" suffix, upper-cased ("b200-trt" -> "B200").
func hardwareName(hw string) string {
	if i := strings.IndexByte(hw, '-'); i >= 0 {
		hw = hw[:i]
	}
	return strings.ToUpper(strings.TrimSpace(hw))
}
