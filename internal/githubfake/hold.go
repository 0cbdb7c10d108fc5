package githubfake

import (
	"net/http"
	"sync"
)

// holds are the operations whose next call the fake holds (HoldNext).
type holds struct {
	mu       sync.Mutex
	next     map[string][]chan struct{}
	released chan struct{} // closed when the test ends
	once     sync.Once
}

// HoldNext makes the fake hold the next call of the operation (GitHub
// operationId, e.g. "git/update-ref") instead of serving it: the call is
// counted, the returned channel is closed once it has arrived, and it is
// never applied nor answered; it waits until its client goes away (a
// process killed there) or the test ends. A test kills a client at a
// named point of its work this way: the client is blocked in that call,
// with everything before it done and nothing after. Holds queue in the
// order given. It fails the test for an operation the fake does not
// implement.
func (s *Server) HoldNext(operationID string) <-chan struct{} {
	s.t.Helper()
	reached := make(chan struct{})
	if _, ok := handlers[operationID]; !ok {
		s.t.Errorf("githubfake: HoldNext(%q): the fake does not implement that operation", operationID)
		return reached
	}
	s.holds.mu.Lock()
	defer s.holds.mu.Unlock()
	s.holds.next[operationID] = append(s.holds.next[operationID], reached)
	return reached
}

// hold holds the call r of op when a HoldNext asked for it, returning once
// its client has gone or the test has ended (true), or false at once when
// the call is to be served.
func (s *Server) hold(op string, r *http.Request) bool {
	s.holds.mu.Lock()
	q := s.holds.next[op]
	if len(q) == 0 {
		s.holds.mu.Unlock()
		return false
	}
	s.holds.next[op] = q[1:]
	s.holds.mu.Unlock()
	s.mu.Lock()
	s.calls[op]++
	s.mu.Unlock()
	close(q[0])
	select {
	case <-r.Context().Done():
	case <-s.holds.released:
	}
	return true
}

// releaseHolds lets every held call end (the test is over).
func (s *Server) releaseHolds() { s.holds.once.Do(func() { close(s.holds.released) }) }
