package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/nightly"
)

const hA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

// TestNightlyPlanCommand: 'action nightly plan' against the fake GitHub
// prints the change and writes the plan.
func TestNightlyPlanCommand(t *testing.T) {
	fake := githubfake.New(t, githubfake.Options{Token: "test-token"})
	fake.AddRepo("inference-sim/inference-sim", "main")
	c := fake.Commit("inference-sim/inference-sim", "main", "dev", "release", map[string]string{"main.go": "package main\n"})
	fake.Tag("inference-sim/inference-sim", "v0.7.15", c, true)
	dash := t.TempDir()
	writeFile(t, filepath.Join(dash, ".github", "accuracy-harness.yaml"), "harness:\n  repository: inference-sim/accuracy-dashboard\n  tag: v1.2.0\n  commit: "+hA+"\n")
	out := filepath.Join(t.TempDir(), "plan.json")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"nightly", "plan", "--dashboard", dash, "--out", out},
		fakeEnv(map[string]string{"GITHUB_TOKEN": "test-token", "GITHUB_API_URL": fake.URL()}), &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	p, err := nightly.Parse(raw)
	if err != nil || p.Simulator.Commit != c || p.Simulator.Release != "v0.7.15" {
		t.Errorf("plan.json: %+v, %v", p, err)
	}
	if !strings.Contains(stdout.String(), "Accuracy nightly: evaluating") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
}
