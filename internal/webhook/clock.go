package webhook

import "time"

// Clock is the server's time. Now stamps a job's deadline when it is
// queued, decides whether it passed when a worker takes the job, and
// measures jobs; AfterFunc ends a running job when its deadline passes by
// this clock, and a caller's wait for a read slot. A test injects a clock
// it advances by hand, so that what happens at a deadline does not depend
// on how fast the machine runs.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed; stop
	// cancels the call (false when f was already called).
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// systemClock is the wall clock.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}
