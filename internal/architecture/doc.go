// Package architecture holds no code: its test checks the layering that
// docs/ARCHITECTURE.md promises against the real import graph (`go list`):
// the package table's "depends on" column is exactly what each package
// imports, and the rules (one go-github adapter, a pure pull-request core,
// configuration apart from the bot's core, ...) hold; and no package but
// internal/render (and the leaderboard's internal/leaderboard/lbview) builds Markdown (tables, headings, alerts, bold text,
// <details> blocks in its string literals).
package architecture
