package prcheck

import (
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

// Size limits GitHub enforces.
const (
	// MaxCommentBytes bounds a comment body (textcut.MaxGitHubBody).
	MaxCommentBytes = textcut.MaxGitHubBody
	// MaxStepSummaryBytes bounds what one step writes to $GITHUB_STEP_SUMMARY.
	MaxStepSummaryBytes = 1 << 20
)
