// Package lbview draws the leaderboard: its README.md tables (Markdown),
// its one self-contained HTML page (HTML, Files), the live page of
// `action leaderboard serve` (ServePage) and the pull request's comment and
// job summary of the Action's mode leaderboard (Comment, Marker). It is
// pure: the same board gives the same bytes, tested against golden files
// (go test ./internal/leaderboard/lbview -update rewrites them) and, for the
// page, in headless chromium. Untrusted text goes through render.Cell, and
// tables are built with render's TableHead, as every Markdown the project
// writes.
package lbview
