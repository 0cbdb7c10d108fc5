// Package prcheck is the pure core of the Action's pull-request check:
// scoring the head run and the base run, alert and fail thresholds over
// their comparison (runresult.Compare: Δ = head − base over the points both
// scored), the comment and job-summary size limits, the report posted as
// the pull request's sticky comment (internal/sticky, which degrades on a
// read-only fork token), the result cache keyed by
// harness commit, simulator commit and data versions, and the order in which
// a run scores, merges, reports and posts. It never imports go-github:
// GitHub and the harness are reached through the small interfaces declared
// here, implemented in cmd/action.
package prcheck
