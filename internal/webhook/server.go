// Package webhook is the bot's HTTP edge: it receives GitHub webhook
// deliveries on POST /webhook and answers GET /healthz (status only);
// Metrics are the operator's, served apart.
//
// The connections a listener wrapped by Limit hands over are bounded in
// total and per client address (the oldest idle one is closed to make
// room). A delivery is read only while its client address holds fewer
// than MaxReadsPerAddr reads, and within a read budget of MaxConcurrentReads
// bodies of MaxBodyBytes, each reserving the length it declares (a caller
// waits up to a second for room, the smallest reservation served first, then
// gets 503), with its body capped (MaxBodyBytes), its reading bounded
// (BodyReadTimeout) and judged by its rate (BodyGrace, MinBodyRate), and is looked
// at only after its X-Hub-Signature-256 is verified (HMAC-SHA256,
// constant-time; SHA-1 signatures are refused). Its event's Handler then
// decides, still on the request, whether it asks for any work: events,
// actions, repositories and workflows the bot does not act on are
// acknowledged (200 "ignored") without being queued, so that noise never
// takes the queue's room. Work is de-duplicated on the delivery id and on
// the signed body (a captured delivery replayed under a new id is a
// duplicate), queued on a bounded queue (503 when full) and acknowledged at
// once; workers run it, one job per Serial key at a time, each before its
// deadline (queued time plus HandleTimeout). A delivery is remembered only
// after its work succeeds, so a redelivery of a failed delivery runs again
// while a redelivery of a successful one changes nothing.
package webhook

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/inference-sim/accuracy-dashboard/internal/connlimit"
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

// Header names GitHub sends with every delivery.
const (
	HeaderSignature = "X-Hub-Signature-256"
	HeaderEvent     = "X-GitHub-Event"
	HeaderDelivery  = "X-GitHub-Delivery"
)

// Delivery is one verified webhook delivery.
type Delivery struct {
	// ID is X-GitHub-Delivery (the same on a redelivery).
	ID string
	// Event is X-GitHub-Event, e.g. "release".
	Event string
	// Body is the raw JSON payload, already verified.
	Body []byte
	// Installation and Repository are read from the payload for logging
	// (0 and "" when absent).
	Installation int64
	Repository   string
	// Log carries delivery, event, action, installation and repository.
	Log *slog.Logger
}

// Job is the work a delivery asks for.
type Job struct {
	// Serial names work that must not overlap other work of the same name
	// ("" for none): such a job waits in the queue, holding no worker,
	// while another of its name runs.
	Serial string
	// Run does the work; a nil error marks the delivery done.
	Run func(ctx context.Context) error
}

// Handler decides what the deliveries of one event ask for. Accept runs on
// the HTTP request, after the signature check, and must be quick: it decodes
// the payload and returns the Job to queue, or a nil Job and the reason the
// delivery is acknowledged without work (an action, repository or workflow
// the bot does not act on; an event that is only logged). An error is a
// payload that cannot be decoded (400).
type Handler interface {
	Accept(d Delivery) (*Job, string, error)
}

// Options configure a Server.
type Options struct {
	// Secret is the webhook secret; New refuses an empty one.
	Secret []byte
	// MaxBodyBytes caps a delivery's body (413 beyond it).
	MaxBodyBytes int64
	// MaxConcurrentReads sets the read budget, the memory the bodies being
	// read may take: MaxConcurrentReads bodies of MaxBodyBytes, each body
	// reserving the length it declares (readBudget); a request that finds
	// no room within ReadSlotWait is refused with 503 before its body is
	// read (DefaultMaxConcurrentReads if 0). It bounds the memory unsigned
	// callers can make the server hold.
	MaxConcurrentReads int
	// QueueSize bounds the jobs waiting for a worker (503 beyond it).
	QueueSize int
	// Workers is the number of jobs run concurrently.
	Workers int
	// Handlers maps an event name to its handler; other events are
	// acknowledged (204) and ignored.
	Handlers map[string]Handler
	// Logger receives the server's structured logs (slog.Default if nil).
	Logger *slog.Logger
	// Remember is how many successful deliveries are kept for dedup
	// (DefaultRemember if 0).
	Remember int
	// HandleTimeout bounds a job from the moment it is queued: waiting
	// for a worker or for its Serial key counts (DefaultHandleTimeout if 0).
	HandleTimeout time.Duration
	// Done, if set, is called after each queued job ends (tests, metrics).
	Done func(d Delivery, err error)
	// Clock is the time deadlines are kept by (the wall clock if nil).
	Clock Clock
	// MaxConns and MaxConnsPerAddr bound the connections a listener
	// wrapped by Limit hands over, in total and per client address
	// (connlimit.DefaultMax and connlimit.DefaultPerAddr if 0).
	MaxConns, MaxConnsPerAddr int
	// MaxReadsPerAddr bounds the bodies one client address is reading, or
	// waiting for room in the read budget to read, at once; beyond it a request is refused
	// (503) before its body is read (DefaultMaxReadsPerAddr if 0).
	MaxReadsPerAddr int
	// TrustedProxies are the proxies in front of the server: a connection
	// of theirs is not bounded per address, and a request they forward is
	// counted against the client address they append to X-Forwarded-For.
	TrustedProxies []netip.Prefix
	// HookRanges are GitHub's published webhook address ranges: a client
	// address in them (after TrustedProxies) reads its body in
	// MaxConcurrentReads read slots of its own, ahead of every other
	// caller, waiting for one at most ReadSlotWait, and is not bounded by
	// MaxReadsPerAddr. Nil: none.
	HookRanges []netip.Prefix
	// Metrics, if set, records the server's metrics.
	Metrics *Metrics
	// JournalDir, when set, is the directory where each accepted delivery
	// is kept from before it is acknowledged until its work ends (a
	// delivery that cannot be kept there is refused, 503), and from which
	// Recover queues again what a killed process left. "": none (a
	// delivery queued or running when the process dies is lost).
	JournalDir string
}

// Defaults and limits.
const (
	DefaultRemember           = 10000
	DefaultHandleTimeout      = 10 * time.Minute
	DefaultMaxConcurrentReads = 8
	// BodyReadTimeout bounds the reading of one body, and so how long a
	// slow caller holds a read slot.
	BodyReadTimeout = 5 * time.Second
	// BodyGrace and MinBodyRate judge a body by its transfer rate: a
	// delivery arrives at network speed (GitHub sends 8–20 KB at once),
	// so a body that, BodyGrace after its slot was taken, has not come at
	// MinBodyRate bytes a second since is dropped (400), freeing its slot
	// for the next caller; a fixed number of slots cannot otherwise tell
	// a slow attacker from a delivery.
	BodyGrace   = 500 * time.Millisecond
	MinBodyRate = 8 << 10
	// ReadSlotWait is how long a caller waits for a read slot, or for
	// room in the read budget (readBudget); then it is refused (503).
	ReadSlotWait = time.Second
	// MaxDeliveryIDBytes caps X-GitHub-Delivery; GitHub sends a GUID (36
	// characters).
	MaxDeliveryIDBytes = 64
)

// deliveryIDRe is what a delivery id may hold: GitHub's GUIDs, and the
// letters, digits, '-', '_' and '.' of test tools.
var deliveryIDRe = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// ErrExpired is the error of a job whose deadline passed before it started.
var ErrExpired = errors.New("deadline passed while the delivery waited in the queue")

// queued is a job waiting in the queue.
type queued struct {
	d        Delivery
	job      *Job
	digest   string // sha256 of the signed body
	deadline time.Time
}

// Server is the webhook HTTP server. Create it with New, start its workers
// with Start, stop them with Close.
type Server struct {
	opts Options
	log  *slog.Logger
	mux  *http.ServeMux
	// reads is the memory the bodies being read may take
	// (MaxConcurrentReads bodies of MaxBodyBytes).
	reads     *readBudget
	hookReads chan struct{} // read slots of HookRanges' addresses
	// addrReads counts the reads each client address holds or waits for.
	addrReads addrReads
	limiter   atomic.Pointer[connlimit.Listener]

	mu      sync.Mutex
	wake    *sync.Cond // signalled when a job is queued, a Serial key frees or the server closes
	queue   []queued
	serials map[string]bool // Serial keys running
	// inFlight and done hold delivery ids ("id:…") and body digests
	// ("body:…") of queued or running jobs and of successful ones.
	inFlight map[string]bool
	done     map[string]bool
	order    []string // done keys, oldest first, for eviction
	closed   bool
	stopped  bool // the workers' context ended
	// recording counts the deliveries being recorded in the journal,
	// whose places in the queue are held.
	recording int

	wg sync.WaitGroup
}

// ErrNoSecret is returned by New when the webhook secret is empty.
var ErrNoSecret = errors.New("webhook secret is empty")

// New returns a Server; it refuses an empty secret and non-positive limits.
func New(opts Options) (*Server, error) {
	if len(opts.Secret) == 0 {
		return nil, ErrNoSecret
	}
	for _, l := range []struct {
		name     string
		v, least int64
	}{{"MaxBodyBytes", opts.MaxBodyBytes, 1}, {"QueueSize", int64(opts.QueueSize), 1}, {"Workers", int64(opts.Workers), 1},
		{"MaxConcurrentReads", int64(opts.MaxConcurrentReads), 0}, {"MaxConns", int64(opts.MaxConns), 0},
		{"MaxConnsPerAddr", int64(opts.MaxConnsPerAddr), 0}, {"MaxReadsPerAddr", int64(opts.MaxReadsPerAddr), 0}} {
		if l.v < l.least {
			return nil, fmt.Errorf("webhook: %s is %d, must be at least %d", l.name, l.v, l.least)
		}
	}
	for _, d := range []struct {
		v   *int
		def int
	}{{&opts.MaxConcurrentReads, DefaultMaxConcurrentReads}, {&opts.MaxConns, connlimit.DefaultMax},
		{&opts.MaxConnsPerAddr, connlimit.DefaultPerAddr}, {&opts.MaxReadsPerAddr, DefaultMaxReadsPerAddr}} {
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if opts.Remember <= 0 {
		opts.Remember = DefaultRemember
	}
	if opts.HandleTimeout <= 0 {
		opts.HandleTimeout = DefaultHandleTimeout
	}
	if opts.Clock == nil {
		opts.Clock = systemClock{}
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Server{
		opts:      opts,
		log:       log,
		reads:     newReadBudget(int64(opts.MaxConcurrentReads) * opts.MaxBodyBytes),
		hookReads: make(chan struct{}, opts.MaxConcurrentReads),
		serials:   map[string]bool{},
		inFlight:  map[string]bool{},
		done:      map[string]bool{},
	}
	s.wake = sync.NewCond(&s.mu)
	opts.Metrics.setQueue(s.Queued)
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST /webhook", s.serveWebhook)
	s.mux.HandleFunc("GET /healthz", s.serveHealth)
	return s, nil
}

// ServeHTTP routes POST /webhook and GET /healthz.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.opts.Metrics == nil {
		s.mux.ServeHTTP(w, r)
		return
	}
	sw := &statusWriter{ResponseWriter: w}
	s.mux.ServeHTTP(sw, r)
	s.opts.Metrics.response(cmp.Or(sw.code, http.StatusOK))
}

// HTTPServer returns the http.Server the bot serves s with, on a listener
// wrapped by Limit: bounded headers (MaxHeaderBytes), timeouts that end
// slow and idle callers (connlimit.IdleTimeout), and the connection
// states Limit's bounds need.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{Handler: s, ReadHeaderTimeout: ReadHeaderTimeout, ReadTimeout: 30 * time.Second,
		WriteTimeout: 30 * time.Second, IdleTimeout: connlimit.IdleTimeout, MaxHeaderBytes: MaxHeaderBytes,
		ConnState: func(c net.Conn, st http.ConnState) {
			if l := s.limiter.Load(); l != nil {
				l.Track(c, st)
			}
		}}
}

// The http.Server's bounds.
const (
	// MaxHeaderBytes caps a request's headers (Go's default is 1 MiB).
	MaxHeaderBytes = 64 << 10
	// ReadHeaderTimeout bounds how long a connection may take to send a
	// request's headers (GitHub sends them at once).
	ReadHeaderTimeout = 5 * time.Second
)

// Start starts the workers. They stop when ctx is done or Close is called.
func (s *Server) Start(ctx context.Context) {
	for range s.opts.Workers {
		s.wg.Add(1)
		go s.work(ctx)
	}
	go func() {
		<-ctx.Done()
		s.mu.Lock()
		s.stopped = true
		s.wake.Broadcast()
		s.mu.Unlock()
	}()
}

// Close stops accepting deliveries, lets the workers finish the queued jobs
// and waits for them.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	s.wake.Broadcast()
	s.mu.Unlock()
	s.wg.Wait()
}

// Queued returns the number of jobs waiting for a worker.
func (s *Server) Queued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Verify checks a X-Hub-Signature-256 header ("sha256=" + hex HMAC-SHA256
// of body keyed by secret) in constant time. Any other form, including
// SHA-1 "sha1=" signatures, is refused.
func Verify(secret, body []byte, header string) error {
	hexSig, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return errors.New("signature header missing or not sha256")
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil || len(got) != sha256.Size {
		return errors.New("signature is not 64 hex digits")
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return errors.New("signature does not match")
	}
	return nil
}

// Sign returns the X-Hub-Signature-256 value of body under secret.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

func (s *Server) serveWebhook(w http.ResponseWriter, r *http.Request) {
	delivery := r.Header.Get(HeaderDelivery)
	event := r.Header.Get(HeaderEvent)
	client := s.clientAddr(r)
	log := s.log.With("delivery", textcut.Cut(delivery, MaxDeliveryIDBytes), "event", textcut.Cut(event, 64),
		"client", client.String())
	// The metrics' event label is set once the signature holds.
	metricEvent, outcome := "unverified", ""
	defer func() { s.opts.Metrics.delivery(metricEvent, outcome) }()
	if r.ContentLength > s.opts.MaxBodyBytes {
		log.Warn("webhook refused", "reason", "body too large", "content_length", r.ContentLength)
		outcome = outcomeTooLarge
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	body, outcome := s.readBody(w, r, client, log)
	if body == nil {
		return
	}
	// The signature comes before anything else is looked at.
	if err := Verify(s.opts.Secret, body, r.Header.Get(HeaderSignature)); err != nil {
		log.Warn("webhook refused", "reason", "bad signature", "err", err)
		outcome = outcomeBadSignature
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	h, subscribed := s.opts.Handlers[event]
	metricEvent, outcome = "other", outcomeBadRequest
	if subscribed {
		metricEvent = event
	}
	if delivery == "" || event == "" {
		log.Warn("webhook refused", "reason", "missing delivery or event header")
		http.Error(w, "missing "+HeaderDelivery+" or "+HeaderEvent, http.StatusBadRequest)
		return
	}
	if len(delivery) > MaxDeliveryIDBytes || !deliveryIDRe.MatchString(delivery) {
		log.Warn("webhook refused", "reason", "malformed delivery id", "length", len(delivery))
		http.Error(w, HeaderDelivery+" is not a delivery id", http.StatusBadRequest)
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		log.Warn("webhook refused", "reason", "content type", "content_type", textcut.Cut(r.Header.Get("Content-Type"), 64))
		http.Error(w, "content type must be application/json", http.StatusUnsupportedMediaType)
		return
	}
	if !subscribed {
		log.Info("webhook ignored", "reason", "no handler for event")
		outcome = outcomeUnsubscribed
		w.WriteHeader(http.StatusNoContent)
		return
	}
	d := s.delivery(delivery, event, body)
	job, reason, err := accept(h, d)
	switch {
	case err != nil:
		d.Log.Warn("webhook refused", "reason", "malformed payload", "err", err)
		http.Error(w, "malformed payload: "+err.Error(), http.StatusBadRequest)
		return
	case job == nil:
		d.Log.Info("webhook ignored", "reason", reason)
		outcome = outcomeIgnored
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ignored: "+reason+"\n")
		return
	}
	switch s.enqueue(queued{d: d, job: job, digest: sha256Hex(body),
		deadline: s.opts.Clock.Now().Add(s.opts.HandleTimeout)}) {
	case enqueued:
		outcome = outcomeQueued
		w.WriteHeader(http.StatusAccepted)
	case duplicate:
		d.Log.Info("webhook ignored", "reason", "duplicate delivery")
		outcome = outcomeDuplicate
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "duplicate delivery\n")
	case full:
		d.Log.Warn("webhook refused", "reason", "queue full")
		outcome = outcomeQueueFull
		w.Header().Set("Retry-After", "60")
		http.Error(w, "queue full", http.StatusServiceUnavailable)
	case closing:
		outcome = outcomeShutdown
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
	case unrecorded:
		outcome = outcomeUnrecorded
		w.Header().Set("Retry-After", "60")
		http.Error(w, "cannot record the delivery", http.StatusServiceUnavailable)
	}
}

// readBody reads a request's body within the bounds: at most
// MaxReadsPerAddr reads (or waits for a read slot) of one client address
// at once, then a read slot (see readSlot), then at most MaxBodyBytes
// within BodyReadTimeout. A request beyond a bound is answered here; body
// is nil then, and outcome says why.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, client netip.Addr, log *slog.Logger) (body []byte, outcome string) {
	busy := func(reason string) ([]byte, string) {
		log.Warn("webhook refused", "reason", reason)
		w.Header().Set("Retry-After", "10")
		w.Header().Set("Connection", "close")
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return nil, outcomeBusy
	}
	var done func() // releases the read slot or the reservation
	if s.fromHooks(client) {
		if !s.hookSlot() {
			return busy("too many deliveries from GitHub's hook ranges being read")
		}
		done = func() { <-s.hookReads }
	} else {
		if !s.addrReads.take(client, s.opts.MaxReadsPerAddr) {
			return busy("too many bodies being read from this address")
		}
		defer s.addrReads.release(client)
		n := s.reserve(r.ContentLength)
		if !s.takeReads(n) {
			return busy("too many bodies being read")
		}
		done = func() { s.reads.release(n) }
	}
	// A slot is held while the body comes at MinBodyRate after BodyGrace,
	// and at most BodyReadTimeout, however it comes (the recorder of a
	// test cannot set deadlines; that is no error).
	paced := &pacedBody{r: r.Body, rc: http.NewResponseController(w), start: time.Now()}
	paced.pace()
	body, err := io.ReadAll(http.MaxBytesReader(w, paced, s.opts.MaxBodyBytes))
	done()
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			log.Warn("webhook refused", "reason", "body too large")
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return nil, outcomeTooLarge
		}
		log.Warn("webhook refused", "reason", "reading body", "err", err)
		w.Header().Set("Connection", "close")
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return nil, outcomeBadRequest
	}
	return body, ""
}

// pacedBody is a body read at a minimum rate: before each read the
// connection's read deadline is moved to when the bytes read so far stop
// being enough (BodyGrace, then MinBodyRate since start), at most
// BodyReadTimeout after start. A read past it fails, and the body is
// refused.
type pacedBody struct {
	r     io.ReadCloser
	rc    *http.ResponseController
	start time.Time
	n     int64
}

// pace sets the read deadline for the bytes read so far.
func (p *pacedBody) pace() {
	owed := BodyGrace + time.Duration(p.n)*time.Second/MinBodyRate
	_ = p.rc.SetReadDeadline(p.start.Add(min(owed, BodyReadTimeout)))
}

func (p *pacedBody) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	p.pace()
	return n, err
}

func (p *pacedBody) Close() error { return p.r.Close() }

// fromHooks reports whether a is in GitHub's hook ranges (HookRanges).
func (s *Server) fromHooks(a netip.Addr) bool {
	for _, p := range s.opts.HookRanges {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// hookSlot takes a read slot of the hook ranges', waiting at most
// ReadSlotWait for one.
func (s *Server) hookSlot() bool {
	select {
	case s.hookReads <- struct{}{}:
		return true
	default:
		return s.waitSlot(s.hookReads)
	}
}

// reserve is what a body declaring length bytes (-1: unknown) reserves of
// the read budget: its length, at least MinReadReserve, at most
// MaxBodyBytes (a longer one is refused as too large before it is read).
func (s *Server) reserve(length int64) int64 {
	if length < 0 {
		return s.opts.MaxBodyBytes
	}
	return min(max(length, MinReadReserve), s.opts.MaxBodyBytes)
}

// takeReads reserves n bytes of the read budget, waiting for them at most
// ReadSlotWait (a burst of real deliveries is served, not refused); a
// caller waiting for less is served first.
func (s *Server) takeReads(n int64) bool {
	if s.reads.tryTake(n) {
		return true
	}
	w, cancel := s.reads.wait(n)
	waited := make(chan struct{})
	stop := s.opts.Clock.AfterFunc(ReadSlotWait, func() { close(waited) })
	defer stop()
	select {
	case <-w.ready:
		return true
	case <-waited:
		if cancel() {
			s.reads.release(n) // granted as the wait ended
		}
		return false
	}
}

// waitSlot takes a slot of slots, waiting at most ReadSlotWait for one.
func (s *Server) waitSlot(slots chan struct{}) bool {
	waited := make(chan struct{})
	stop := s.opts.Clock.AfterFunc(ReadSlotWait, func() { close(waited) })
	defer stop()
	select {
	case slots <- struct{}{}:
		return true
	case <-waited:
		return false
	}
}

// accept calls the handler, turning a panic into an error.
func accept(h Handler, d Delivery) (job *Job, reason string, err error) {
	defer func() {
		if p := recover(); p != nil {
			job, err = nil, fmt.Errorf("handler panic: %v", p)
		}
	}()
	return h.Accept(d)
}

// payloadHead is what the server reads from every payload, for logging.
type payloadHead struct {
	Action       string `json:"action"`
	Installation *struct {
		ID int64 `json:"id"`
	} `json:"installation"`
	Repository *struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
}

// delivery builds a Delivery with its logger; a payload that does not
// decode leaves the fields empty (it is the handler's to report).
func (s *Server) delivery(id, event string, body []byte) Delivery {
	d := Delivery{ID: id, Event: event, Body: body}
	var head payloadHead
	_ = json.Unmarshal(body, &head)
	if head.Installation != nil {
		d.Installation = head.Installation.ID
	}
	if head.Repository != nil {
		d.Repository = head.Repository.FullName
	}
	d.Log = s.log.With("delivery", d.ID, "event", d.Event, "action", head.Action,
		"installation", d.Installation, "repository", d.Repository)
	return d
}

type enqueueResult int

const (
	enqueued enqueueResult = iota
	duplicate
	full
	closing
	unrecorded // the journal could not keep it
)

func keys(q queued) [2]string { return [2]string{"id:" + q.d.ID, "body:" + q.digest} }

// sha256Hex is the hex SHA-256 of b (a signed body's dedup key).
func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// enqueue queues q unless it is a duplicate, the queue is full or the
// server is closing; with a journal, q is recorded there (outside the
// lock, its place in the queue held) before it is queued.
func (s *Server) enqueue(q queued) enqueueResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.stopped {
		return closing
	}
	for _, k := range keys(q) {
		if s.done[k] || s.inFlight[k] {
			return duplicate
		}
	}
	if len(s.queue)+s.recording >= s.opts.QueueSize {
		return full
	}
	for _, k := range keys(q) {
		s.inFlight[k] = true
	}
	s.recording++
	s.mu.Unlock()
	err := s.record(q, time.Time{}, 0)
	s.mu.Lock()
	s.recording--
	if err != nil {
		for _, k := range keys(q) {
			delete(s.inFlight, k)
		}
		q.d.Log.Error("webhook refused", "reason", "the delivery cannot be recorded in the journal", "err", err)
		return unrecorded
	}
	s.queue = append(s.queue, q)
	s.wake.Broadcast()
	return enqueued
}

// next takes the first queued job whose Serial key is free, waiting for
// one; ok is false when the server is closed and the queue drained, or the
// workers' context ended.
func (s *Server) next() (q queued, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.stopped {
			return queued{}, false
		}
		for i, c := range s.queue {
			if c.job.Serial != "" && s.serials[c.job.Serial] {
				continue
			}
			s.queue = append(s.queue[:i], s.queue[i+1:]...)
			if c.job.Serial != "" {
				s.serials[c.job.Serial] = true
			}
			return c, true
		}
		if s.closed && len(s.queue) == 0 {
			return queued{}, false
		}
		s.wake.Wait()
	}
}

func (s *Server) work(ctx context.Context) {
	defer s.wg.Done()
	for {
		q, ok := s.next()
		if !ok {
			return
		}
		s.handle(ctx, q)
	}
}

func (s *Server) handle(ctx context.Context, q queued) {
	clock := s.opts.Clock
	start := clock.Now()
	var err error
	if !start.Before(q.deadline) {
		err = ErrExpired
	} else {
		err = run(ctx, q, clock)
	}
	s.mu.Lock()
	if q.job.Serial != "" {
		delete(s.serials, q.job.Serial)
	}
	for _, k := range keys(q) {
		delete(s.inFlight, k)
		if err == nil {
			s.remember(k)
		}
	}
	s.wake.Broadcast()
	s.mu.Unlock()
	s.forget(q)
	took := clock.Now().Sub(start)
	s.opts.Metrics.job(q.d.Event, err, took)
	if err != nil {
		q.d.Log.Error("delivery failed", "err", err, "duration", took)
	} else {
		q.d.Log.Info("delivery handled", "duration", took)
	}
	if s.opts.Done != nil {
		s.opts.Done(q.d, err)
	}
}

// run runs a job before its deadline, turning a panic into an error. The
// job's context ends when the deadline passes by clock; it also carries the
// deadline (as the time left by clock from now), for the callees that
// measure their waits against it.
func run(ctx context.Context, q queued, clock Clock) (err error) {
	left := q.deadline.Sub(clock.Now())
	ctx, cancel := context.WithTimeout(ctx, left)
	defer cancel()
	stop := clock.AfterFunc(left, cancel)
	defer stop()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panic: %v", p)
		}
	}()
	return q.job.Run(ctx)
}

// remember records a successful delivery's key, forgetting the oldest
// beyond twice Options.Remember (each delivery has two keys). s.mu must be
// held.
func (s *Server) remember(k string) {
	if s.done[k] {
		return
	}
	s.done[k] = true
	s.order = append(s.order, k)
	if len(s.order) > 2*s.opts.Remember {
		delete(s.done, s.order[0])
		s.order = s.order[1:]
	}
}

// serveHealth answers that the server is up, and nothing more: whoever can
// reach the webhook can call it, and the version (which flaws to try) and
// the queue (how busy the bot is) are for the operator, on /metrics.
func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"status":"ok"}`+"\n")
}
