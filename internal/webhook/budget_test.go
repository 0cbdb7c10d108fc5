package webhook

import (
	"testing"
	"time"
)

// Defect 1 (issue 11) and issue 31, point 2: the bodies being read take a
// bounded memory, MaxConcurrentReads bodies of MaxBodyBytes, each reserving
// the length it declares (at least MinReadReserve). A caller beyond the
// budget waits ReadSlotWait for room, then is refused; when room frees, the
// smallest waiting reservation is served first, so a delivery never waits
// behind callers declaring large bodies. The wait is kept by an injected
// clock.
func TestReadsAreBoundedByWhatTheyDeclare(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	h := newHarness(t, func(o *Options) { o.MaxConcurrentReads, o.MaxBodyBytes, o.Clock = 2, 1<<20, clock })
	s := h.srv
	if got := []int64{s.reserve(-1), s.reserve(100), s.reserve(20 << 10), s.reserve(5 << 20)}; got[0] != 1<<20 ||
		got[1] != MinReadReserve || got[2] != 20<<10 || got[3] != 1<<20 {
		t.Fatalf("reserve(unknown, 100 B, 20 KiB, 5 MiB) = %v, want the cap, MinReadReserve, 20 KiB, the cap", got)
	}
	// 256 small bodies fit where 2 large ones do.
	for i := range 256 {
		if !s.takeReads(MinReadReserve) {
			t.Fatalf("small read %d refused, want 256 of them within 2 MiB", i)
		}
	}
	s.reads.release(256 * MinReadReserve)
	for range 2 {
		if !s.takeReads(1 << 20) {
			t.Fatal("a large read refused within the budget")
		}
	}
	large, small := make(chan bool, 1), make(chan bool, 1)
	go func() { large <- s.takeReads(1 << 20) }()
	clock.waitArmed(t, 1, "the large caller waiting")
	go func() { small <- s.takeReads(20 << 10) }()
	clock.waitArmed(t, 1, "the small caller waiting")
	s.reads.release(1 << 20) // a large body ends: the small caller, who came later, is served
	if !<-small {
		t.Fatal("the small caller was refused")
	}
	select {
	case ok := <-large:
		t.Fatalf("the large caller got an answer (%t) while the small one holds part of the room", ok)
	case <-time.After(50 * time.Millisecond):
	}
	clock.Advance(ReadSlotWait)
	if <-large {
		t.Fatal("the large caller was served after its wait, want refused")
	}
	s.reads.release(20 << 10)
	if s.reads.free != 1<<20 || s.reads.waiting() != 0 {
		t.Errorf("free %d with %d waiting, want one large body's room and nobody waiting", s.reads.free, s.reads.waiting())
	}
}

// A grant racing the end of the wait is given back, not lost.
func TestReadBudgetGrantAtTheEndOfAWaitIsReturned(t *testing.T) {
	t.Parallel()
	b := newReadBudget(10)
	if !b.tryTake(10) {
		t.Fatal("tryTake")
	}
	w, cancel := b.wait(4)
	b.release(10)
	<-w.ready
	if !cancel() {
		t.Fatal("cancel after the grant said not granted")
	}
	b.release(4)
	if b.free != 10 {
		t.Errorf("free %d, want 10", b.free)
	}
}
