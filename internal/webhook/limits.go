package webhook

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"

	"github.com/inference-sim/accuracy-dashboard/internal/connlimit"
)

// DefaultMaxReadsPerAddr bounds the bodies one client address is reading,
// or waiting to read, at once: half of DefaultMaxConcurrentReads, so that
// one address never takes the whole read budget with bodies of the cap.
const DefaultMaxReadsPerAddr = DefaultMaxConcurrentReads / 2

// Limit wraps ln so that the connections HTTPServer serves from it are
// bounded by MaxConns and MaxConnsPerAddr (connlimit; a trusted proxy is
// exempt from the bound per address). Serve s with HTTPServer on the
// listener it returns. Call it once per Server: the connection states
// reach only the listener Limit returned last, so an earlier one would
// keep the records of its closed connections.
func (s *Server) Limit(ln net.Listener) net.Listener {
	l := connlimit.New(ln, connlimit.Limits{Max: s.opts.MaxConns, PerAddr: s.opts.MaxConnsPerAddr, Exempt: s.trusted},
		connMetrics{s.opts.Metrics})
	s.limiter.Store(l)
	return l
}

// connMetrics counts what the connection limiter does.
type connMetrics struct{ m *Metrics }

func (c connMetrics) Open(n int)           { c.m.connsOpen(n) }
func (c connMetrics) Refused(bound string) { c.m.connRefused(bound) }
func (c connMetrics) Evicted(bound string) { c.m.connEvicted(bound) }

// trusted reports whether a is a trusted proxy.
func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.opts.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddr is the address a request comes from: its peer's, or, when
// the peer is a trusted proxy, the last address of X-Forwarded-For that is
// not a trusted proxy (the one the proxy nearest the client appended).
func (s *Server) clientAddr(r *http.Request) netip.Addr {
	ap, _ := netip.ParseAddrPort(r.RemoteAddr)
	peer := ap.Addr().Unmap()
	if !s.trusted(peer) {
		return peer
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return peer // not written by a proxy of ours: the proxy is the client
		}
		if a = a.Unmap(); !s.trusted(a) {
			return a
		}
	}
	return peer
}

// addrReads counts the bodies each client address is reading or waiting
// to read.
type addrReads struct {
	mu sync.Mutex
	n  map[netip.Addr]int
}

// take counts one more read of a, refusing it beyond limit.
func (a *addrReads) take(addr netip.Addr, limit int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n[addr] >= limit {
		return false
	}
	if a.n == nil {
		a.n = map[netip.Addr]int{}
	}
	a.n[addr]++
	return true
}

func (a *addrReads) release(addr netip.Addr) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n[addr]--; a.n[addr] <= 0 {
		delete(a.n, addr)
	}
}
