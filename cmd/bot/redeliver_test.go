package main

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/cli"
	"github.com/inference-sim/accuracy-dashboard/internal/githubfake"
	"github.com/inference-sim/accuracy-dashboard/internal/testkit"
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

// Issue 31, point 2: a delivery the bot refused under load is recovered by
// `bot redeliver`, end to end. The bot serves with a read budget of one
// 1 MiB body (max_concurrent_reads: 1), which a slow client holds (a body
// declaring 1 MiB, sent at 40 KiB a second, over the minimum rate, for the
// 5 s a body may take); GitHub
// (the fake, checked against the OpenAPI description) delivers a release
// signed from another address, which waits its second for the slot and is
// refused (503). Once the slow client is gone, `bot redeliver --since 1h`
// lists the delivery as never taken and asks for it again; the fake sends
// it again to the bot, which takes it (202) and bumps both pinning
// repositories; a second run asks for nothing.
func TestRedeliverRecoversADeliveryRefusedUnderLoad(t *testing.T) {
	w := newWorld(t)
	w.env.now = time.Now
	w.vars["BOT_CONFIG"] = writeTemp(t, []byte("max_concurrent_reads: 1\n"))
	addr, done := w.serve(t)
	w.fake.SetWebhook("http://"+addr+"/webhook", secret)

	slow := holdReadSlot(t, addr, "127.0.31.2")
	if code := w.fake.Deliver("release", "published", "refused-under-load", releaseEvent(t)); code != http.StatusServiceUnavailable {
		t.Fatalf("the release delivered while the read slot was held: %d, want 503", code)
	}
	slow()
	if n := w.fake.Calls("pulls/create"); n != 0 {
		t.Fatalf("the refused delivery opened %d pull requests", n)
	}

	if err := w.run(t, "redeliver", "--since", "1h"); err != nil {
		t.Fatalf("redeliver: %v\n%s", err, w.stderr)
	}
	if out := w.stdout.String(); !strings.Contains(out, "1 deliveries in the last 1h0m0s, 1 never taken") ||
		!strings.Contains(out, "redelivered refused-under-load release/published (last attempt answered 503 at ") {
		t.Errorf("redeliver printed:\n%s", out)
	}
	waitDelivery(t, done)
	var answers []int
	for _, d := range w.fake.HookDeliveries() {
		answers = append(answers, d.StatusCode)
	}
	if fmt.Sprint(answers) != "[503 202]" {
		t.Errorf("the delivery's attempts were answered %v, want [503 202] (refused, then taken when redelivered)", answers)
	}
	for _, repo := range []string{"org/app", "org/lib"} {
		if n := len(openPulls(w.fake, repo)); n != 1 {
			t.Errorf("%s: %d bump pull requests after the redelivery, want 1", repo, n)
		}
	}
	if err := w.run(t, "redeliver", "--since", "1h"); err != nil {
		t.Fatal(err)
	}
	if out := w.stdout.String(); !strings.Contains(out, ", 0 never taken") {
		t.Errorf("a second redeliver printed:\n%s", out)
	}
}

// holdReadSlot takes the whole read budget of the webhook server at addr
// (max_concurrent_reads: 1) from the loopback address ip: a POST /webhook
// declaring a body of 1 MiB (the cap), which comes at 40 KiB a second (5
// times the minimum rate, so it is never cut off for its pace), holding
// the budget until the body's 5 s are up. It returns once the first bytes
// are sent; the function it returns waits for the client to end.
func holdReadSlot(t *testing.T, addr, ip string) (wait func()) {
	t.Helper()
	c, err := testkit.DialerFrom(ip).Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	const size = 1 << 20
	fmt.Fprintf(c, "POST /webhook HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", size)
	chunk := make([]byte, 4<<10)
	if _, err := c.Write(make([]byte, 16<<10)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the server has taken the slot
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer c.Close()
		for sent := 16 << 10; sent+len(chunk) < size; sent += len(chunk) {
			time.Sleep(100 * time.Millisecond)
			if _, err := c.Write(chunk); err != nil {
				return // cut off at the body's 5 s
			}
		}
	}()
	return func() { <-ended }
}
