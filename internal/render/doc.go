// Package render builds every Markdown and HTML the project writes but the
// leaderboard's (internal/leaderboard/lbview draws those with its helpers:
// Cell, TableHead, PageCSP). It is pure: the same plain values give the
// same bytes, tested against golden files (go test ./internal/render
// -update rewrites them). Untrusted text (model names, unit ids, simulator
// messages, file content) goes through Cell, or codeSpan outside tables.
//
// Its files are grouped by the reader they write for, each group named by
// its prefix:
//
//   - summary*.go: a run's summary.md, read by whoever ran the score
//     (Summary, SummaryWhy, Coverage, Provenance) and the sections the
//     other pages draw from the same figures: the headline's reading, the
//     simulator's warnings, the Why section of the what-ifs.
//   - compare*.go: the comparison of two runs, read by a pull request's
//     author (the sticky comment, PRMarker), on the dashboard (its
//     comparison pages) and by action compare (CompareMarkdown, Verdict).
//   - site*.go: the dashboard's static site, read by its visitors (Site,
//     its charts, templates and assets).
//   - bot_*.go: what the bot writes to GitHub for a repository's
//     maintainers: the bump pull request (BumpBody), the refusal comment
//     (RefusalComment) and the dashboard README's snapshot table
//     (SnapshotTable).
//   - job_*.go: what a workflow's job summary or a command's answer says
//     to the operator: the nightly's plan (NightlyPlan), action bisect's
//     answer and the nightly's bisect hints (Bisect, BisectHints).
//   - a file without a prefix is shared by every group: escaping and
//     table heads (escape.go), number formats (format.go), cutting to
//     GitHub's limits (truncate.go), a page's Content-Security-Policy
//     (csp.go).
package render
