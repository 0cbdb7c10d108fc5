package webhook

import (
	"slices"
	"sync"
)

// MinReadReserve is the least a body being read reserves of the read
// budget (readBudget), whatever the length it declares: with the
// connections bounded (connlimit.DefaultMax, 512), bodies declaring less
// can reserve at most 4 MiB, under the default budget of 8 MiB.
const MinReadReserve = 8 << 10

// readBudget is the memory the bodies being read may take: each read
// reserves the length its request declares (at least MinReadReserve, at
// most the body cap; a body of unknown length the cap) for as long as it
// is read. A fixed number of read slots let 100 slow clients of 1 000-byte
// bodies from 100 addresses keep every slot taken and every delivery
// waiting behind them: reserved by what they declare, they fit beside the
// deliveries, and the rate judgement (pacedBody) cuts them off. When the
// budget is short, a caller waits for it, and a release grants the
// smallest waiting reservations first (ties in order of arrival): a
// delivery (8–20 KB) waits for the next body to end, never behind callers
// declaring large bodies.
type readBudget struct {
	mu      sync.Mutex
	free    int64
	waiters []*budgetWaiter // in order of arrival
}

// budgetWaiter is a caller waiting for n bytes; ready is closed once they
// are granted.
type budgetWaiter struct {
	n     int64
	ready chan struct{}
}

func newReadBudget(bytes int64) *readBudget { return &readBudget{free: bytes} }

// tryTake reserves n bytes when they are free and nobody waits.
func (b *readBudget) tryTake(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.waiters) == 0 && n <= b.free {
		b.free -= n
		return true
	}
	return false
}

// wait queues a caller for n bytes; cancel withdraws it, reporting
// whether the bytes had been granted meanwhile (then the caller holds
// them and must release them).
func (b *readBudget) wait(n int64) (w *budgetWaiter, cancel func() (granted bool)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w = &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.grant()
	return w, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		if i := slices.Index(b.waiters, w); i >= 0 {
			b.waiters = slices.Delete(b.waiters, i, i+1)
			return false
		}
		return true
	}
}

// release returns n bytes and grants what then fits.
func (b *readBudget) release(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.free += n
	b.grant()
}

// grant hands free bytes to the waiters, smallest reservation first (ties
// in order of arrival), while one fits. b.mu must be held.
func (b *readBudget) grant() {
	for {
		best := -1
		for i, w := range b.waiters {
			if w.n <= b.free && (best < 0 || w.n < b.waiters[best].n) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		w := b.waiters[best]
		b.waiters = slices.Delete(b.waiters, best, best+1)
		b.free -= w.n
		close(w.ready)
	}
}

// waiting is the number of callers waiting.
func (b *readBudget) waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.waiters)
}
