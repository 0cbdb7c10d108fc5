package webhook

// Regression tests of issue 18, items 1 and 2: connections and body reads
// bounded in total and per client address, on real loopback listeners
// (Linux routes all of 127.0.0.0/8 to lo, so each test client address is
// one of them).

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/connlimit"
)

// serveLoopback serves srv as `bot serve` does (HTTPServer on a listener
// wrapped by Limit) on 127.0.0.1 and returns its address.
func serveLoopback(t testing.TB, srv *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.HTTPServer()
	go hs.Serve(srv.Limit(ln))
	t.Cleanup(func() { hs.Close() })
	return ln.Addr().String()
}

// dialer dials from the loopback address from.
func dialer(from string) *net.Dialer {
	return &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
}

// clientFrom is an HTTP client whose connections come from the loopback
// address from.
func clientFrom(from string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: dialer(from).DialContext}}
}

// rawConn is a client connection sending requests by hand, so that the
// test knows which connection each request uses.
type rawConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, from, addr string) *rawConn {
	t.Helper()
	c, err := dialer(from).Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial from %s: %v", from, err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{c: c, r: bufio.NewReader(c)}
}

// healthz sends GET /healthz and reports whether it was answered (false
// when the server closed the connection). The deadline only keeps a broken
// server from hanging the test.
func (c *rawConn) healthz() bool {
	c.c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c.c, "GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n"); err != nil {
		return false
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// slowPost sends, on a connection of its own from the loopback address
// from, a POST /webhook whose headers say 100 bytes of body but whose body
// stops after the first byte until release is closed; the rest is sent then.
// It returns the status of the answer, 0 when the server closed the
// connection instead.
func slowPost(t *testing.T, from, addr, id string, release <-chan struct{}) int {
	c, err := dialer(from).Dial("tcp", addr)
	if err != nil {
		return 0 // refused at once
	}
	defer c.Close()
	go func() {
		<-release
		io.WriteString(c, strings.Repeat(" ", 99))
	}()
	fmt.Fprintf(c, "POST /webhook HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\n"+
		"%s: ping\r\n%s: %s\r\nContent-Length: 100\r\n\r\n{", HeaderEvent, HeaderDelivery, id)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// answering counts the connections the server still answers on.
func answering(conns []*rawConn) int {
	n := 0
	for _, c := range conns {
		if c.healthz() {
			n++
		}
	}
	return n
}

// waitIdle waits (bounded) until none of l's connections is serving a
// request. The server reports a connection idle only once it has finished
// with the answer the client may already have read; a client quicker than
// that report would find the connection still serving.
func waitIdle(t *testing.T, l *connlimit.Listener) {
	t.Helper()
	for i := 0; ; i++ {
		_, busy := l.Held()
		if busy == 0 {
			return
		}
		if i == 10000 {
			t.Fatalf("%d connections still serving a request after 10 s", busy)
		}
		time.Sleep(time.Millisecond)
	}
}

// signedPing posts a signed ping delivery with c and returns the status.
func signedPing(t testing.TB, c *http.Client, addr, id string) int {
	t.Helper()
	body := []byte(`{"zen":"Keep it logically awesome.","hook_id":1}`)
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderEvent, "ping")
	req.Header.Set(HeaderDelivery, id)
	req.Header.Set(HeaderSignature, Sign(testSecret, body))
	resp, err := c.Do(req)
	if err != nil {
		t.Errorf("signed delivery %s: %v", id, err)
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// Item 1: idle keep-alive connections took unbounded memory (15 000 of
// them, 298 MB). Connections are bounded per client address and in total:
// each new one is served, closing the oldest idle one beyond a bound, and a
// signed delivery still gets through.
func TestIdleConnectionsAreBounded(t *testing.T) {
	t.Parallel()
	const total, perAddr = 8, 4
	h := newHarness(t, func(o *Options) { o.MaxConns, o.MaxConnsPerAddr = total, perAddr })
	addr := serveLoopback(t, h.srv)
	l := h.srv.limiter.Load()

	// One address opens many connections, each used once, then idle.
	var flood []*rawConn
	for i := range 6 * perAddr {
		c := dialRaw(t, "127.0.0.1", addr)
		if !c.healthz() {
			t.Fatalf("connection %d of one address was not served", i)
		}
		waitIdle(t, l)
		flood = append(flood, c)
	}
	if n := answering(flood); n != perAddr {
		t.Errorf("%d of %d idle connections of one address still open, want %d (MaxConnsPerAddr)", n, len(flood), perAddr)
	}
	waitIdle(t, l)
	// Many addresses, none over its own bound, together over the total.
	var spread []*rawConn
	for i := range 3 * total {
		c := dialRaw(t, fmt.Sprintf("127.0.0.%d", 10+i%total), addr)
		if !c.healthz() {
			t.Fatalf("connection %d of several addresses was not served", i)
		}
		waitIdle(t, l)
		spread = append(spread, c)
	}
	if n := answering(append(flood, spread...)); n > total {
		t.Errorf("%d connections open after %d idle ones, want at most %d (MaxConns)", n, len(flood)+len(spread), total)
	}
	waitIdle(t, l)
	if code := signedPing(t, clientFrom("127.0.0.2"), addr, "after-the-flood"); code != http.StatusOK {
		t.Errorf("signed delivery among idle connections: %d, want 200", code)
	}
	if n, _ := l.Held(); n > total {
		t.Errorf("the limiter holds %d connections, want at most %d", n, total)
	}
}

// A connection serving a request is never closed to make room: when all
// of an address's connections are busy, its new one is refused instead.
func TestBusyConnectionsAreNotEvicted(t *testing.T) {
	t.Parallel()
	const perAddr = 2
	h := newHarness(t, func(o *Options) { o.MaxConnsPerAddr, o.MaxReadsPerAddr = perAddr, 100 })
	addr := serveLoopback(t, h.srv)
	l := h.srv.limiter.Load()
	// Two requests whose bodies are held: both connections are serving.
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	codes := make(chan int, perAddr)
	for i := range perAddr {
		go func() { codes <- slowPost(t, "127.0.0.3", addr, fmt.Sprint("held-", i), release) }()
	}
	// Wait (bounded) until the server has read both requests' headers.
	for i := 0; ; i++ {
		_, active := l.Held()
		if active == perAddr {
			break
		}
		if i == 10000 {
			t.Fatalf("%d of %d held requests being served", active, perAddr)
		}
		time.Sleep(time.Millisecond)
	}
	if dialRaw(t, "127.0.0.3", addr).healthz() {
		t.Error("a third connection of the address was served while its two were busy, want it refused")
	}
	free()
	for range perAddr {
		if code := <-codes; code != http.StatusUnauthorized {
			t.Errorf("a held request got %d, want 401 (served to the end)", code)
		}
	}
}

// Item 2: eight unsigned clients sending a body at 1 byte/s made 12 of 17
// signed deliveries fail with 503. One address may hold only
// MaxReadsPerAddr reads (or waits for a slot) at once: 40 slow clients of
// one address are refused beyond it at once, and the read slots left serve
// another address's signed deliveries, none refused.
func TestSlowClientsOfOneAddressLeaveReadsForOthers(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil) // the default limits
	addr := serveLoopback(t, h.srv)
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)

	const slow = 40
	codes := make(chan int, slow)
	for i := range slow {
		go func() { codes <- slowPost(t, "127.0.0.1", addr, fmt.Sprint("slow-", i), release) }()
	}
	for refused := 0; refused < slow-DefaultMaxReadsPerAddr; refused++ {
		select {
		case c := <-codes:
			if c != http.StatusServiceUnavailable && c != 0 {
				t.Fatalf("a slow caller beyond its address's bound got %d, want 503", c)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d slow callers of one address refused, want all but %d", refused, slow, DefaultMaxReadsPerAddr)
		}
	}
	// GitHub, from another address, four deliveries at a time.
	github := clientFrom("127.0.0.2")
	var wg sync.WaitGroup
	var mu sync.Mutex
	refused := 0
	for s := range DefaultMaxReadsPerAddr {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 6 {
				if code := signedPing(t, github, addr, fmt.Sprintf("gh-%d-%d", s, i)); code != http.StatusOK {
					mu.Lock()
					refused++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if refused != 0 {
		t.Errorf("%d of %d signed deliveries refused while one address's slow clients hold reads", refused, 6*DefaultMaxReadsPerAddr)
	}
	free()
	// Each slow caller within the bound was read: its body ends (401, not
	// signed) or, when the deliveries took more than BodyGrace (a loaded
	// machine, the race detector), it was cut off for its rate (400).
	for range DefaultMaxReadsPerAddr {
		if c := <-codes; c != http.StatusUnauthorized && c != http.StatusBadRequest {
			t.Errorf("a slow caller within the bound finally got %d, want 401 (read) or 400 (cut off for its rate)", c)
		}
	}
}

// Behind a trusted proxy the client address is the one the proxy appended
// to X-Forwarded-For; anyone else's X-Forwarded-For is ignored.
func TestClientAddr(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(o *Options) {
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8")}
	})
	for _, tc := range []struct {
		peer string
		xff  []string
		want string
	}{
		{"192.0.2.1:5000", nil, "192.0.2.1"},
		{"192.0.2.1:5000", []string{"198.51.100.7"}, "192.0.2.1"}, // not a proxy: its header is the caller's
		{"127.0.0.1:5000", nil, "127.0.0.1"},
		{"127.0.0.1:5000", []string{"198.51.100.7"}, "198.51.100.7"},
		{"127.0.0.1:5000", []string{"6.6.6.6, 198.51.100.7"}, "198.51.100.7"}, // the first is the caller's
		{"127.0.0.1:5000", []string{"6.6.6.6", "198.51.100.7, 10.1.2.3"}, "198.51.100.7"},
		{"127.0.0.1:5000", []string{"10.1.2.3"}, "127.0.0.1"},
		{"127.0.0.1:5000", []string{"not-an-ip"}, "127.0.0.1"},
		{"[::ffff:127.0.0.1]:5000", []string{"2001:db8::1"}, "2001:db8::1"},
	} {
		r, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, "/webhook", nil)
		r.RemoteAddr = tc.peer
		for _, v := range tc.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := h.srv.clientAddr(r).String(); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: client %s, want %s", tc.peer, tc.xff, got, tc.want)
		}
	}
}

// FuzzClientAddr: X-Forwarded-For is any caller's text. Behind a trusted
// proxy the client is the peer or an address named in the header that is
// not a trusted proxy; from anyone else the header is never read.
func FuzzClientAddr(f *testing.F) {
	for _, seed := range [][2]string{
		{"127.0.0.1:80", "198.51.100.7"}, {"127.0.0.1:80", "6.6.6.6, 198.51.100.7, 10.0.0.1"},
		{"192.0.2.1:80", "198.51.100.7"}, {"[::1]:80", "2001:db8::1"}, {"127.0.0.1:80", ",,, "},
		{"not an address", "1.2.3.4"}, {"127.0.0.1:80", "fe80::1%eth0"},
	} {
		f.Add(seed[0], seed[1])
	}
	srv, err := New(Options{Secret: testSecret, MaxBodyBytes: 1, QueueSize: 1, Workers: 1,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128"),
			netip.MustParsePrefix("10.0.0.0/8")}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, peer, xff string) {
		r := &http.Request{RemoteAddr: peer, Header: http.Header{"X-Forwarded-For": {xff}}}
		got := srv.clientAddr(r)
		ap, _ := netip.ParseAddrPort(peer)
		p := ap.Addr().Unmap()
		if got == p {
			return
		}
		if !srv.trusted(p) {
			t.Fatalf("peer %q is no proxy, but the client is %v from X-Forwarded-For %q", peer, got, xff)
		}
		named := false
		for _, h := range strings.Split(xff, ",") {
			a, err := netip.ParseAddr(strings.TrimSpace(h))
			named = named || err == nil && a.Unmap() == got
		}
		if !named || srv.trusted(got) {
			t.Fatalf("client %v of X-Forwarded-For %q via %q: neither the peer nor an untrusted address it names", got, xff, peer)
		}
	})
}

// slowBodies runs one client from the loopback address from that sends a
// POST /webhook declaring a 1 000-byte body and sends it a byte every
// 200 ms, starting again as soon as it is answered or cut off, until stop
// is closed. It counts the bodies the server cut off before they were
// sent (answered 400, or closed).
func slowBodies(from, addr string, stop <-chan struct{}, cut *atomic.Int64) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		c, err := dialer(from).Dial("tcp", addr)
		if err != nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "POST /webhook HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\n"+
			"%s: ping\r\n%s: slow-%s\r\nContent-Length: 1000\r\n\r\n", HeaderEvent, HeaderDelivery, from)
		answered := make(chan struct{})
		go func() {
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				resp.Body.Close()
			}
			close(answered)
		}()
	send:
		for range 1000 {
			if _, err := c.Write([]byte{' '}); err != nil {
				break
			}
			select {
			case <-answered:
				break send
			case <-stop:
				break send
			case <-time.After(200 * time.Millisecond):
			}
		}
		c.Close()
		<-answered
		cut.Add(1)
		time.Sleep(20 * time.Millisecond)
	}
}

// slowClientsAmongDeliveries runs 100 slow-body clients from 100
// loopback addresses (slowBodies) against a server with the default
// limits and, after a second, 100 signed deliveries from 127.0.0.2 one
// every 50 ms; hookRanges lists 127.0.0.2 as GitHub's hook ranges. It
// returns how many deliveries were accepted, how many slow bodies ended
// (cut off or refused) and the heap in use before and during.
func slowClientsAmongDeliveries(t testing.TB, hookRanges bool) (accepted int, cut int64, before, during uint64) {
	h := newHarness(t, func(o *Options) {
		if hookRanges {
			o.HookRanges = []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}
		}
	})
	addr := serveLoopback(t, h.srv)
	runtime.GC()
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	before = mem.HeapInuse
	stop := make(chan struct{})
	var ended atomic.Int64
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() { slowBodies(fmt.Sprintf("127.1.%d.%d", 1+i/200, 1+i%200), addr, stop, &ended) })
	}
	time.Sleep(time.Second) // the slow clients hold every read slot
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: dialer("127.0.0.2").DialContext, DisableKeepAlives: true}}
	for i := range 100 {
		if signedPing(t, c, addr, fmt.Sprintf("among-slow-%d", i)) == http.StatusOK {
			accepted++
		}
		time.Sleep(50 * time.Millisecond)
	}
	runtime.ReadMemStats(&mem)
	close(stop)
	wg.Wait()
	return accepted, ended.Load(), before, mem.HeapInuse
}

// Issue 31, point 2: 40 slow-body clients from 40 addresses (1 byte every
// 0.5 s, reconnecting) made every one of 100 signed deliveries beside them
// answer 503. A body is judged by its rate now (BodyGrace, then
// MinBodyRate: a slow one is cut off) and reserves the memory it declares
// rather than one of 8 slots (readBudget: the slow clients' 1 000-byte
// bodies fit beside the deliveries); GitHub's hook ranges, when
// configured, read in slots of their own. With 100 slow clients from 100
// addresses, at least 95 of 100 signed deliveries are accepted, with the
// hook ranges configured and without (2 of 100 were, with 8 read slots),
// and the server's heap stays bounded.
func TestSlowClientsOfManyAddressesLeaveDeliveries(t *testing.T) {
	for _, hookRanges := range []bool{true, false} {
		t.Run(fmt.Sprintf("hook_ranges=%t", hookRanges), func(t *testing.T) {
			accepted, cut, before, during := slowClientsAmongDeliveries(t, hookRanges)
			if accepted < 95 {
				t.Errorf("%d of 100 signed deliveries accepted among 100 slow clients, want at least 95", accepted)
			}
			if cut < 100 {
				t.Errorf("%d slow bodies ended, want the slow clients cut off and starting again (at least 100)", cut)
			}
			if grew := int64(during) - int64(before); grew > 64<<20 {
				t.Errorf("the heap grew by %d MiB under the slow clients, want under 64 MiB", grew>>20)
			}
			t.Logf("%d of 100 signed deliveries accepted; %d slow bodies cut off; heap in use %d → %d MiB",
				accepted, cut, before>>20, during>>20)
		})
	}
}

// BenchmarkSlowClientsOfManyAddresses measures the slow clients of
// TestSlowClientsOfManyAddressesLeaveDeliveries with and without GitHub's
// hook ranges configured, reporting the signed deliveries accepted (of
// 100) and the heap in use while they were sent, in MiB:
//
//	go test ./internal/webhook -run '^$' -bench SlowClientsOfManyAddresses -benchtime 1x
func BenchmarkSlowClientsOfManyAddresses(b *testing.B) {
	for _, hookRanges := range []bool{true, false} {
		b.Run(fmt.Sprintf("hook_ranges=%t", hookRanges), func(b *testing.B) {
			for range b.N {
				accepted, _, _, during := slowClientsAmongDeliveries(b, hookRanges)
				b.ReportMetric(float64(accepted), "accepted/100")
				b.ReportMetric(float64(during)/(1<<20), "heap-MiB")
			}
		})
	}
}

// A body slower than MinBodyRate after BodyGrace is cut off well before
// BodyReadTimeout, freeing its read slot.
func TestSlowBodyIsCutOffByItsRate(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	addr := serveLoopback(t, h.srv)
	stop := make(chan struct{})
	var cut atomic.Int64
	start := time.Now()
	done := make(chan struct{})
	go func() { slowBodies("127.0.0.4", addr, stop, &cut); close(done) }()
	for cut.Load() == 0 && time.Since(start) < 10*time.Second {
		time.Sleep(10 * time.Millisecond)
	}
	took := time.Since(start)
	close(stop)
	<-done
	if cut.Load() == 0 || took >= BodyReadTimeout {
		t.Errorf("a body of 5 bytes a second was cut off after %v (cut: %d), want within BodyGrace and well before BodyReadTimeout (%v)", took, cut.Load(), BodyReadTimeout)
	}
}
