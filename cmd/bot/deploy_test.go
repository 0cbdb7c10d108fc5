package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
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
