// Package schemas embeds the project's versioned JSON Schemas (draft
// 2020-12): summary.v1.json and points.v1.json (the harness's outputs), and
// ledger-manifest.v1.json and ledger-unit.v1.json (the measured corpus).
package schemas

import "embed"

// FS holds every *.json schema of this directory.
//
//go:embed *.json
var FS embed.FS
