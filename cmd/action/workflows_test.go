package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// workflowFile is the part of a GitHub workflow these tests read.
type workflowFile struct {
	Permissions yaml.Node `yaml:"permissions"`
	Jobs        map[string]struct {
		Needs       yaml.Node      `yaml:"needs"`
		Permissions yaml.Node      `yaml:"permissions"`
		Steps       []workflowStep `yaml:"steps"`
	} `yaml:"jobs"`
}

type workflowStep struct {
	Uses string         `yaml:"uses"`
	Run  string         `yaml:"run"`
	With map[string]any `yaml:"with"`
}

func readWorkflow(t *testing.T, path string) workflowFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var wf workflowFile
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return wf
}

// writes lists the scopes a permissions node grants write access to
// ("write-all" counts as every scope).
func writes(n yaml.Node) []string {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Value == "write-all" {
			return []string{"write-all"}
		}
	case yaml.MappingNode:
		var w []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i+1].Value == "write" {
				w = append(w, n.Content[i].Value)
			}
		}
		return w
	}
	return nil
}

// TestReleaseWorkflowTestsWithoutWrite: the release workflow runs the tests
// (.ci/run: npm install scripts, go install, the whole suite) in a job whose
// token is read-only; only the publishing job, which runs none of that and
// starts after the tests passed, may write.
func TestReleaseWorkflowTestsWithoutWrite(t *testing.T) {
	t.Parallel()
	wf := readWorkflow(t, "../../.github/workflows/release.yml")
	if w := writes(wf.Permissions); len(w) > 0 {
		t.Errorf("workflow-level permissions grant write (%v) to every job", w)
	}
	testJob, writers := "", []string{}
	for name, j := range wf.Jobs {
		runsTests := slices.ContainsFunc(j.Steps, func(s workflowStep) bool {
			return strings.Contains(s.Run, ".ci/run") || strings.Contains(s.Run, "go test") || strings.Contains(s.Run, "npm ")
		})
		if runsTests {
			testJob = name
		}
		if len(writes(j.Permissions)) > 0 {
			writers = append(writers, name)
			if runsTests {
				t.Errorf("job %s runs the tests with write permissions %v", name, writes(j.Permissions))
			}
		}
	}
	if testJob == "" || len(writers) == 0 {
		t.Fatalf("want a job that runs .ci/run and a publishing job with write; got test job %q, writers %v", testJob, writers)
	}
	for _, name := range writers {
		var needs []string
		n := wf.Jobs[name].Needs
		if n.Kind == yaml.ScalarNode {
			needs = []string{n.Value}
		} else {
			n.Decode(&needs)
		}
		if !slices.Contains(needs, testJob) {
			t.Errorf("job %s writes without needing the tests (%s); needs %v", name, testJob, needs)
		}
	}
}

// TestExampleWorkflowsDropCheckoutCredentials: actions/checkout leaves the
// workflow token in .git/config unless persist-credentials is false, where
// the code under test (the simulator) could read it. Every example workflow
// that checks out code turns that off.
func TestExampleWorkflowsDropCheckoutCredentials(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../docs/examples/*.yml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example workflows: %v", err)
	}
	for _, f := range files {
		for job, j := range readWorkflow(t, f).Jobs {
			for i, s := range j.Steps {
				if strings.HasPrefix(s.Uses, "actions/checkout@") && s.With["persist-credentials"] != false {
					t.Errorf("%s: job %s step %d: actions/checkout without persist-credentials: false", filepath.Base(f), job, i+1)
				}
			}
		}
	}
}
