package webhook

import (
	"iter"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
)

// Connection and per-address limits.
const (
	// DefaultMaxConns bounds the connections the server holds at once. An
	// idle keep-alive connection costs the server about 20 KiB (its
	// goroutine and buffers): 512 of them stay under 16 MiB.
	DefaultMaxConns = 512
	// DefaultMaxConnsPerAddr bounds the connections of one client address.
	DefaultMaxConnsPerAddr = 32
	// DefaultMaxReadsPerAddr bounds the bodies one client address is
	// reading, or waiting for a read slot to read, at once: half the
	// default read slots, so that one address never holds them all.
	DefaultMaxReadsPerAddr = DefaultMaxConcurrentReads / 2
)

// connLimiter is a net.Listener that bounds the connections the server
// holds, in total and per client address. A connection beyond a bound
// makes room by closing the oldest connection that is not serving a
// request (idle between requests, or not yet sent one) of that address, or
// of any address for the total; when there is none, the new connection is
// closed at once. A connection serving a request is never closed: reading
// bodies is bounded on its own (read slots, BodyReadTimeout). The
// http.Server must report connection states to track (HTTPServer does).
type connLimiter struct {
	net.Listener
	max, perAddr int
	trusted      func(netip.Addr) bool // peers exempt from perAddr (proxies)
	metrics      *Metrics

	mu     sync.Mutex
	seq    uint64
	conns  map[net.Conn]*connRec
	byAddr map[netip.Addr]map[*connRec]bool
}

// connRec is one connection the limiter holds.
type connRec struct {
	c      net.Conn
	addr   netip.Addr
	active bool   // serving a request
	since  uint64 // sequence number of its last change to not active
}

// Limit wraps ln so that the connections HTTPServer serves from it are
// bounded by MaxConns and MaxConnsPerAddr. Serve s with HTTPServer on the
// listener it returns. Call it once per Server: the connection states
// reach only the listener Limit returned last, so an earlier one would
// keep the records of its closed connections.
func (s *Server) Limit(ln net.Listener) net.Listener {
	l := &connLimiter{Listener: ln, max: s.opts.MaxConns, perAddr: s.opts.MaxConnsPerAddr,
		trusted: s.trusted, metrics: s.opts.Metrics,
		conns: map[net.Conn]*connRec{}, byAddr: map[netip.Addr]map[*connRec]bool{}}
	s.limiter.Store(l)
	return l
}

// Accept returns the next connection within the bounds, closing the ones
// beyond them.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if reason := l.admit(c); reason != "" {
			l.metrics.connRefused(reason)
			c.Close()
			continue
		}
		return c, nil
	}
}

// admit records c, closing an older connection to make room for it;
// it returns why c is refused ("" when it is not).
func (l *connLimiter) admit(c net.Conn) string {
	addr := connAddr(c)
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.trusted(addr) && len(l.byAddr[addr]) >= l.perAddr {
		v := oldestInactive(maps.Keys(l.byAddr[addr]))
		if v == nil {
			return "per_address"
		}
		l.evict(v, "per_address")
	}
	if len(l.conns) >= l.max {
		v := oldestInactive(maps.Values(l.conns))
		if v == nil {
			return "total"
		}
		l.evict(v, "total")
	}
	l.seq++
	r := &connRec{c: c, addr: addr, since: l.seq}
	l.conns[c] = r
	if l.byAddr[addr] == nil {
		l.byAddr[addr] = map[*connRec]bool{}
	}
	l.byAddr[addr][r] = true
	l.metrics.connsOpen(len(l.conns))
	return ""
}

// oldestInactive returns the connection not serving a request that has
// been so the longest, nil when every one is serving.
func oldestInactive(recs iter.Seq[*connRec]) *connRec {
	var old *connRec
	for r := range recs {
		if !r.active && (old == nil || r.since < old.since) {
			old = r
		}
	}
	return old
}

// evict closes r to make room. l.mu must be held.
func (l *connLimiter) evict(r *connRec, reason string) {
	l.forget(r)
	r.c.Close()
	l.metrics.connEvicted(reason)
}

// forget drops r from the records. l.mu must be held.
func (l *connLimiter) forget(r *connRec) {
	delete(l.conns, r.c)
	delete(l.byAddr[r.addr], r)
	if len(l.byAddr[r.addr]) == 0 {
		delete(l.byAddr, r.addr)
	}
	l.metrics.connsOpen(len(l.conns))
}

// track is the http.Server's ConnState hook.
func (l *connLimiter) track(c net.Conn, state http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.conns[c]
	if r == nil {
		return // evicted, or not accepted through l
	}
	switch state {
	case http.StateActive:
		r.active = true
	case http.StateIdle:
		l.seq++
		r.active, r.since = false, l.seq
	case http.StateHijacked, http.StateClosed:
		l.forget(r)
	}
}

// open returns the number of connections held.
func (l *connLimiter) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// connAddr is the peer address of c (the zero Addr when it has none).
func connAddr(c net.Conn) netip.Addr {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.AddrPort().Addr().Unmap()
	}
	ap, _ := netip.ParseAddrPort(c.RemoteAddr().String())
	return ap.Addr().Unmap()
}

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
