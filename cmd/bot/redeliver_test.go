package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
)

// TestRedeliverAsksOnceForWhatTheBotMissed: `bot redeliver --since`
// asks GitHub (the fake, checked against the OpenAPI description) to
// redeliver each delivery of the window the bot never took, once, by its
// newest attempt; a delivery taken at any attempt, or older than the
// window, is left alone; a second run, after the redeliveries were taken,
// asks for nothing.
func TestRedeliverAsksOnceForWhatTheBotMissed(t *testing.T) {
	w := newWorld(t)
	now := time.Now().UTC().Truncate(time.Second)
	w.env.now = func() time.Time { return now }
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	add := func(guid string, at time.Time, code int, redelivery bool) int64 {
		return w.fake.AddHookDelivery(githubfake.HookDelivery{GUID: guid, Event: "release", Action: "published",
			DeliveredAt: at, StatusCode: code, Redelivery: redelivery})
	}
	add("down", ago(5*time.Hour), 0, false)
	add("down", ago(4*time.Hour), 0, true)
	add("busy-then-taken", ago(3*time.Hour), 503, false)
	add("busy-then-taken", ago(2*time.Hour), 202, true)
	add("taken", ago(time.Hour), 202, false)
	add("busy", ago(30*time.Minute), 503, false)
	add("before-the-window", ago(7*time.Hour), 503, false)

	if err := w.run(t, "redeliver", "--since", "6h", "--dry-run"); err != nil {
		t.Fatal(err)
	}
	if n := w.fake.Calls("apps/redeliver-webhook-delivery"); n != 0 {
		t.Fatalf("--dry-run asked for %d redeliveries", n)
	}
	if out := w.stdout.String(); !strings.Contains(out, "4 deliveries in the last 6h0m0s, 2 never taken") ||
		strings.Count(out, "would redeliver ") != 2 {
		t.Errorf("dry run printed:\n%s", out)
	}

	if err := w.run(t, "redeliver", "--since", "6h"); err != nil {
		t.Fatal(err)
	}
	var redelivered []string
	for _, d := range w.fake.HookDeliveries() {
		if d.Redelivery && d.DeliveredAt.After(ago(time.Minute)) {
			redelivered = append(redelivered, d.GUID)
		}
	}
	if strings.Join(redelivered, " ") != "down busy" {
		t.Errorf("redelivered %q, want down (oldest first) then busy", redelivered)
	}
	out := w.stdout.String()
	if !strings.Contains(out, "redelivered down release/published (last attempt answered nothing at ") ||
		!strings.Contains(out, "redelivered busy release/published (last attempt answered 503 at ") {
		t.Errorf("printed:\n%s", out)
	}

	// The redeliveries were taken (202): asking again asks for nothing.
	if err := w.run(t, "redeliver", "--since", "6h"); err != nil {
		t.Fatal(err)
	}
	if n := w.fake.Calls("apps/redeliver-webhook-delivery"); n != 2 {
		t.Errorf("%d redeliveries asked in all, want 2 (the second run asks for none)", n)
	}
	if out := w.stdout.String(); !strings.Contains(out, ", 0 never taken") {
		t.Errorf("second run printed:\n%s", out)
	}
}

func TestRedeliverUsage(t *testing.T) {
	w := newWorld(t)
	for _, args := range [][]string{{"redeliver"}, {"redeliver", "--since", "-1h"}, {"redeliver", "--since", "6h", "extra"}} {
		if err := w.run(t, args...); !errors.Is(err, cli.ErrUsageShown) {
			t.Errorf("%q: err = %v, want a usage error", args, err)
		}
	}
}
