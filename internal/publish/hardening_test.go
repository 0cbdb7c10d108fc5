package publish

import (
	"context"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/bump/bumpfake"
)

// Defect 2: no input panics the publish path either; a panic is the run's
// error.
func TestPanicInPublishIsAnError(t *testing.T) {
	t.Parallel()
	w := newPublishWorld(t)
	rep := releaseReport(t, "v0.7.15", "v1.0.0")
	w.artifact(t, map[string][]byte{"summary.json": rep.Summary, "points.json": rep.Points})
	w.gh.FailRepo[strings.ToLower(w.dashboard.String())] = bumpfake.ErrPanic
	if _, err := w.pub.PublishRun(context.Background(), w.run, nil); err == nil || !strings.Contains(err.Error(), "panic") {
		t.Errorf("PublishRun = %v, want the panic as an error", err)
	}
}
