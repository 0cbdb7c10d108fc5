// Package importer turns measured benchmark artifacts into a ledger (see
// package ledger): InferenceX agg_bmk.json artifacts and /api/v1/benchmarks
// rows, rows of the InferenceX database (read by package inferencexdb), and
// inference-perf run folders. It parses every input strictly (an
// unknown field, a value of the wrong type or a duplicated key is an error
// naming the file, row and field), applies the corpus rules (vLLM only, the
// latest N numbered vLLM versions, one measurement per simulator-input
// identity, multi-node and disaggregated rows out, speculative points marked)
// and accounts for every input row: each row either becomes a point or is
// excluded with exactly one reason, and rows_in == points_out + Σ excluded is
// checked before anything is written. The package reads through an fs.FS and
// is pure apart from Write, which puts the ledger and its import report on
// disk atomically. The rules are documented in docs/LEDGER.md.
//
// Layout: a data source implements Source (source.go) in one file,
// source_<kind>.go (source_inferencex.go, source_inferenceperf.go), with its
// parser beside it (inferencex.go, inferenceperf.go); Import (import.go)
// finds the files (discover.go) and ImportFrom runs the sources and then the
// rules, one file each: rule_window.go (the version window), rule_dedup.go
// (one point per simulator-input identity), rule_group.go (points into
// units) and report.go (the accounting and the manifest).
package importer
