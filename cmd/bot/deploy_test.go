package main

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/inference-sim/accuracy-dashboard/internal/webhook"
)

// Issue 11, defect 1: the unit and the container cap the bot's memory.
func TestDeployCapsMemory(t *testing.T) {
	unit, err := os.ReadFile("../../deploy/accuracy-bot.service")
	if err != nil {
		t.Fatal(err)
	}
	for _, re := range []string{`(?m)^MemoryMax=\d+[MG]$`, `(?m)^MemorySwapMax=0$`, `(?m)^Environment=GOMEMLIMIT=\d+MiB$`} {
		if !regexp.MustCompile(re).Match(unit) {
			t.Errorf("deploy/accuracy-bot.service has no line matching %s", re)
		}
	}
	image, err := os.ReadFile("../../deploy/Containerfile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(image), "GOMEMLIMIT=") || !strings.Contains(string(image), "podman run --memory ") {
		t.Errorf("deploy/Containerfile sets no GOMEMLIMIT or shows no run with --memory")
	}
	doc, err := os.ReadFile("../../docs/BOT.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "podman run --memory ") {
		t.Errorf("docs/BOT.md runs the container without --memory")
	}
}

// The App's manifest subscribes to every event the bot acts on (a handler
// that is not logging only) and to no other: an event left out (create,
// the simulator's release tags) would never be delivered.
func TestAppManifestSubscribesToTheHandledEvents(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/app-manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		DefaultEvents []string `json:"default_events"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	var want []string
	for event := range webhook.Events(nil, nil) {
		// Apps always get installation events; ping comes with the hook.
		if event != "installation" && event != "ping" {
			want = append(want, event)
		}
	}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(m.DefaultEvents))
	if !slices.Equal(got, want) {
		t.Errorf("deploy/app-manifest.json subscribes to %v; the bot handles %v", got, want)
	}
}
