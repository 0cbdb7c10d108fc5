package lbpr

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
)

// fakeGit is a checkout's git as lbpr sees it: tracked files and the files
// a pull request changes; fetching and exporting do nothing.
type fakeGit struct {
	tracked, changed []string
}

func (g fakeGit) Tracked(_ context.Context, pattern string) ([]string, error) {
	var out []string
	for _, f := range g.tracked {
		if (pattern == "**/"+RunsFileName && (f == RunsFileName || strings.HasSuffix(f, "/"+RunsFileName))) || f == pattern {
			out = append(out, f)
		}
	}
	return out, nil
}
func (g fakeGit) Changed(context.Context, string, string) ([]string, error) { return g.changed, nil }
func (fakeGit) Fetch(context.Context, ...string) error                      { return nil }
func (fakeGit) Export(context.Context, string, string, string) error        { return nil }

// Which runs.yaml a pull request runs: those it changes, whose trace it
// changes or whose committed results it edits, all of them when it
// changes the pin file, the runs input's when given, none otherwise.
func TestToRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	decl := func(trace string) string {
		return "version: 1\ngroups:\n  - id: agent\n    workload: {trace: {format: otel, file: " + trace + "}}\n    load: {arrival: recorded}\n" +
			"    candidates:\n      - {id: h100, model: org/test-model-7b, hardware: H100, tp: 1}\n"
	}
	testkit.WriteFile(t, filepath.Join(dir, "a", "runs.yaml"), decl("traces/agent.json"))
	testkit.WriteFile(t, filepath.Join(dir, "b", "runs.yaml"), decl("agent.json"))
	tracked := []string{"a/runs.yaml", "b/runs.yaml"}
	pr := PR{Number: 1, BaseSHA: "base", HeadSHA: "head"}
	for _, tt := range []struct {
		name    string
		runs    string
		changed []string
		isPR    bool
		want    []string
		edits   []string
		why     string
	}{
		{"a trace one names", "", []string{"a/traces/agent.json"}, true, []string{"a/runs.yaml"}, nil, ""},
		{"a file of the same name elsewhere", "", []string{"a/agent.json"}, true, nil, nil, "changes no `runs.yaml`"},
		{"a runs.yaml", "", []string{"b/runs.yaml", "README.md"}, true, []string{"b/runs.yaml"}, nil, ""},
		{"committed results", "", []string{"b/results/agent/h100.json"}, true, []string{"b/runs.yaml"}, []string{"b/runs.yaml"}, ""},
		{"the pin file", "", []string{".github/accuracy-harness.yaml"}, true, tracked, nil, ""},
		{"nothing of a leaderboard", "", []string{"main.go"}, true, nil, nil, "nothing to run"},
		{"a push: every one", "", nil, false, tracked, nil, ""},
		{"the runs input", "b/runs.yaml", []string{"a/runs.yaml"}, true, []string{"b/runs.yaml"}, nil, ""},
	} {
		f := &Flow{Checkout: dir, PinRel: ".github/accuracy-harness.yaml", Runs: tt.runs, Git: fakeGit{tracked: tracked, changed: tt.changed}}
		files, edits, why, err := f.toRun(context.Background(), pr, tt.isPR)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var gotEdits []string
		for k, v := range edits {
			if v {
				gotEdits = append(gotEdits, k)
			}
		}
		if !slices.Equal(files, tt.want) || !slices.Equal(gotEdits, tt.edits) || (len(files) == 0 && !strings.Contains(why, tt.why)) {
			t.Errorf("%s: files %q, edits %q, why %q; want %q, %q, …%s…", tt.name, files, gotEdits, why, tt.want, tt.edits, tt.why)
		}
	}
	f := &Flow{Checkout: dir, Runs: "c/runs.yaml", Git: fakeGit{tracked: tracked}}
	if _, _, _, err := f.toRun(context.Background(), pr, true); err == nil || !strings.Contains(err.Error(), `input runs: "c/runs.yaml" matches no file tracked`) {
		t.Errorf("a runs input matching nothing: %v", err)
	}
}
