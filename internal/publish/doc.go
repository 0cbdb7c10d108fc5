// Package publish is the bot's publishing: whether a run's report may be
// published (Admit, through the Gate) and which files a published snapshot
// writes to the dashboard repository (LoadDashboard, PlanSnapshot, with the
// comparison page of the previous snapshot); Publisher carries them out as
// one commit on the dashboard's default branch (CommitDashboard, which the
// leaderboard's RunPublisher, internal/leaderboard/lbpublish, commits
// through too) through
// the narrow GitHub interfaces declared here, which internal/github's
// AppClient implements and tests fake (internal/bump/bumpfake). `action
// publish` writes the same files into a checkout through the same code.
// Nothing here imports go-github or knows about HTTP.
package publish
