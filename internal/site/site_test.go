package site

import (
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/dashboard/dashboardtest"
)

func TestBuild(t *testing.T) {
	t.Parallel()
	files, _, err := Build(dashboardtest.Published(t, "new", "old"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"index.html", "history.html", "snapshots/new.html", "snapshots/old.html", "data/new.js", "sweeps/u.html"} {
		if _, ok := files[p]; !ok {
			t.Errorf("no %s", p)
		}
	}
}
