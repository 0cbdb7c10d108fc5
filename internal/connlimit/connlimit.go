// Package connlimit bounds the connections an HTTP server holds, in total
// and per client address: the one implementation the bot's webhook server
// and `leaderboard serve` share. A Listener wraps the server's listener; a
// connection beyond a bound makes room by closing the oldest connection
// that is not serving a request (idle between requests, or not yet sent
// one) of that address, or of any address for the total; when there is
// none, the new connection is closed at once. A connection serving a
// request is never closed: the server bounds those with its own timeouts.
// The http.Server must report connection states (Listener.Track as its
// ConnState hook) and close idle connections (IdleTimeout).
package connlimit

import (
	"iter"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// Defaults of the bounds.
const (
	// DefaultMax bounds the connections a server holds at once. An idle
	// keep-alive connection costs a server about 20 KiB (its goroutine
	// and buffers): 512 of them stay under 16 MiB.
	DefaultMax = 512
	// DefaultPerAddr bounds the connections of one client address.
	DefaultPerAddr = 32
	// IdleTimeout is how long a server keeps a keep-alive connection that
	// sends no request (the http.Server's IdleTimeout).
	IdleTimeout = 10 * time.Second
)

// Limits are a Listener's bounds.
type Limits struct {
	// Max bounds the connections held; PerAddr those of one client address.
	// Both must be positive.
	Max, PerAddr int
	// Exempt, when set, names the peers PerAddr does not bound (a trusted
	// proxy carries many clients' connections).
	Exempt func(netip.Addr) bool
}

// Observer is told what a Listener does (metrics); its methods are called
// with the Listener's lock held, so they must not call back into it.
type Observer interface {
	// Open is the number of connections held, after each change.
	Open(n int)
	// Refused and Evicted report a connection closed for bound ("total"
	// or "per_address"): a new one refused, or an idle one closed to make
	// room.
	Refused(bound string)
	Evicted(bound string)
}

// Listener is a net.Listener whose connections are bounded by Limits.
type Listener struct {
	net.Listener
	lim Limits
	obs Observer

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

// New wraps ln so that the connections accepted from it are bounded by
// lim; obs may be nil. Serve it with an http.Server whose ConnState is the
// Listener's Track.
func New(ln net.Listener, lim Limits, obs Observer) *Listener {
	if obs == nil {
		obs = nobody{}
	}
	if lim.Exempt == nil {
		lim.Exempt = func(netip.Addr) bool { return false }
	}
	return &Listener{Listener: ln, lim: lim, obs: obs,
		conns: map[net.Conn]*connRec{}, byAddr: map[netip.Addr]map[*connRec]bool{}}
}

// nobody observes nothing.
type nobody struct{}

func (nobody) Open(int)       {}
func (nobody) Refused(string) {}
func (nobody) Evicted(string) {}

// Accept returns the next connection within the bounds, closing the ones
// beyond them.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if reason := l.admit(c); reason != "" {
			l.obs.Refused(reason)
			c.Close()
			continue
		}
		return c, nil
	}
}

// admit records c, closing an older connection to make room for it;
// it returns why c is refused ("" when it is not).
func (l *Listener) admit(c net.Conn) string {
	addr := addrOf(c)
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.lim.Exempt(addr) && len(l.byAddr[addr]) >= l.lim.PerAddr {
		v := oldestInactive(maps.Keys(l.byAddr[addr]))
		if v == nil {
			return "per_address"
		}
		l.evict(v, "per_address")
	}
	if len(l.conns) >= l.lim.Max {
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
	l.obs.Open(len(l.conns))
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
func (l *Listener) evict(r *connRec, reason string) {
	l.forget(r)
	r.c.Close()
	l.obs.Evicted(reason)
}

// forget drops r from the records. l.mu must be held.
func (l *Listener) forget(r *connRec) {
	delete(l.conns, r.c)
	delete(l.byAddr[r.addr], r)
	if len(l.byAddr[r.addr]) == 0 {
		delete(l.byAddr, r.addr)
	}
	l.obs.Open(len(l.conns))
}

// Track is the http.Server's ConnState hook: it marks a connection serving
// or idle, and forgets it once closed or hijacked.
func (l *Listener) Track(c net.Conn, state http.ConnState) {
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

// Held returns the number of connections held and how many of them are
// serving a request.
func (l *Listener) Held() (open, serving int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.conns {
		if r.active {
			serving++
		}
	}
	return len(l.conns), serving
}

// addrOf is the peer address of c (the zero Addr when it has none).
func addrOf(c net.Conn) netip.Addr {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.AddrPort().Addr().Unmap()
	}
	ap, _ := netip.ParseAddrPort(c.RemoteAddr().String())
	return ap.Addr().Unmap()
}
