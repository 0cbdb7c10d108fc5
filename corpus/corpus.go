// Package corpus holds the bundled default corpus, embedded in the binary:
// the ledger imported from the raw measurements in sources/ (InferenceX
// gpt-oss-120b vLLM sweeps on H100/H200/B200 and the 14 inference-perf runs
// of Llama-2-7B, Llama-2-70B, Mixtral-8x7B and CodeLlama-34B on H100) and the
// model catalog the simulator needs for it (models/<name>/config.json for all
// five), and the hardware registry (GPUs of the corpus the simulator's own
// hardware_config.json may lack). sources/ is not embedded: it is the
// ledger's input, kept in the repository so that `go generate ./corpus`
// regenerates ledger/ from a clone, and a test checks that the committed
// bundle is byte for byte that import.
package corpus

import (
	"embed"
	"io/fs"
)

// Regenerate the bundled ledger from sources/; see docs/LEDGER.md.
//go:generate go run ../cmd/action ledger import --out ledger --root sources --name blis-default --ledger-version 2026.12.0 --release --description "BLIS default corpus: real InferenceX and inference-perf measurements" --source-note "SemiAnalysis InferenceX (github.com/SemiAnalysisAI/InferenceX) agg_bmk artifacts and API rows, Dec 2025 - Jan 2026" --source-note "BLIS team inference-perf runs (vLLM v0.15.1 on H100), Feb 2026" --inference-perf-hardware H100 --inference-perf-engine-version v0.15.1 sources/inferencex sources/inference-perf

// Only ledger, catalog, hardware and whatif are embedded (never sources/,
// the import's input).
//
//go:embed ledger catalog hardware whatif
var files embed.FS

// Ledger returns the bundled ledger, rooted at the directory holding
// ledger.json (load it with ledger.Load). It also holds import-report.json.
func Ledger() fs.FS { return sub("ledger") }

// Catalog returns the bundled model catalog, rooted at the directory holding
// models/<name>/config.json (e.g. models/gpt-oss-120b/config.json).
func Catalog() fs.FS { return sub("catalog") }

// Embedded returns everything embedded, rooted at corpus/ of the harness's
// tree (ledger/, catalog/, hardware/, whatif/): what the harness checks against the
// commit it claims to be (an untracked file in these directories would be
// embedded too).
func Embedded() fs.FS { return files }

// Hardware returns the bundled hardware registry, rooted at the directory
// holding registry.json (internal/hardware): the GPUs of the corpus that
// simulator builds may not know, each value with its source.
func Hardware() fs.FS { return sub("hardware") }

// WhatIf returns the declared what-if experiments, rooted at the directory
// holding <name>.yaml (internal/whatif: one change to one input of the
// simulation each, with the units it applies to).
func WhatIf() fs.FS { return sub("whatif") }

func sub(dir string) fs.FS {
	f, err := fs.Sub(files, dir)
	if err != nil {
		panic("corpus: embedded directory " + dir + " missing: " + err.Error())
	}
	return f
}
