package webhook

import (
	"sync"
	"testing"
	"time"
)

// fakeClock is a Clock that moves only when Advance is called. Timers
// whose time has come run, each in its own goroutine, as Advance reaches
// it; armed receives a value for every timer set.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	armed  chan struct{}
}

type fakeTimer struct {
	at      time.Time
	f       func()
	stopped bool
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), armed: make(chan struct{}, 100)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	due := !t.at.After(c.now)
	if due {
		t.stopped = true
	}
	c.mu.Unlock()
	if due {
		go f()
	}
	c.armed <- struct{}{}
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// Advance moves the clock on by d and starts the timers that came due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	for _, t := range c.timers {
		if !t.stopped && !t.at.After(c.now) {
			t.stopped = true
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		go f()
	}
}

// waitArmed waits until n more timers have been set; what names them in
// the failure (the wait is bounded only so that a broken server fails).
func (c *fakeClock) waitArmed(t *testing.T, n int, what string) {
	t.Helper()
	for i := range n {
		select {
		case <-c.armed:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d %s set their timers", i, n, what)
		}
	}
}
