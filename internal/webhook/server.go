// Package webhook is the bot's HTTP edge: it receives GitHub webhook
// deliveries on POST /webhook and answers GET /healthz. A delivery is
// accepted only after its X-Hub-Signature-256 is verified (HMAC-SHA256,
// constant-time; SHA-1 signatures are refused) on a size-capped body; it is
// then queued on a bounded queue (503 when full) and acknowledged at once,
// and workers hand it to the one Handler registered for its event. A
// delivery id is remembered only after its handler succeeds, so a
// redelivery of a failed delivery runs again while a redelivery of a
// successful one changes nothing.
package webhook

import (
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
	"net/http"
	"strings"
	"sync"
	"time"
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
	// Log carries delivery, event, installation and repository.
	Log *slog.Logger
}

// Handler processes the deliveries of one event. Handle runs on a worker,
// never on the HTTP request; a nil error marks the delivery done.
type Handler interface {
	Handle(ctx context.Context, d Delivery) error
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, d Delivery) error

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, d Delivery) error { return f(ctx, d) }

// Options configure a Server.
type Options struct {
	// Secret is the webhook secret; New refuses an empty one.
	Secret []byte
	// Version is reported by GET /healthz.
	Version string
	// MaxBodyBytes caps a delivery's body (413 beyond it).
	MaxBodyBytes int64
	// QueueSize bounds the deliveries waiting for a worker (503 beyond it).
	QueueSize int
	// Workers is the number of deliveries handled concurrently.
	Workers int
	// Handlers maps an event name to its handler; other events are
	// acknowledged and ignored.
	Handlers map[string]Handler
	// Logger receives the server's structured logs (slog.Default if nil).
	Logger *slog.Logger
	// Remember is how many successful delivery ids are kept for dedup
	// (DefaultRemember if 0).
	Remember int
	// HandleTimeout bounds one handler run (DefaultHandleTimeout if 0).
	HandleTimeout time.Duration
	// Done, if set, is called after each handled delivery (tests, metrics).
	Done func(d Delivery, err error)
}

// Defaults.
const (
	DefaultRemember      = 10000
	DefaultHandleTimeout = 10 * time.Minute
)

// Server is the webhook HTTP server. Create it with New, start its workers
// with Start, stop them with Close.
type Server struct {
	opts  Options
	log   *slog.Logger
	queue chan Delivery
	mux   *http.ServeMux

	mu       sync.Mutex
	inFlight map[string]bool
	done     map[string]bool
	order    []string // done ids, oldest first, for eviction
	closed   bool

	wg sync.WaitGroup
}

// ErrNoSecret is returned by New when the webhook secret is empty.
var ErrNoSecret = errors.New("webhook secret is empty")

// New returns a Server; it refuses an empty secret and non-positive limits.
func New(opts Options) (*Server, error) {
	if len(opts.Secret) == 0 {
		return nil, ErrNoSecret
	}
	if opts.MaxBodyBytes <= 0 || opts.QueueSize <= 0 || opts.Workers <= 0 {
		return nil, errors.New("webhook: MaxBodyBytes, QueueSize and Workers must be positive")
	}
	if opts.Remember <= 0 {
		opts.Remember = DefaultRemember
	}
	if opts.HandleTimeout <= 0 {
		opts.HandleTimeout = DefaultHandleTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Server{
		opts:     opts,
		log:      log,
		queue:    make(chan Delivery, opts.QueueSize),
		inFlight: map[string]bool{},
		done:     map[string]bool{},
	}
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST /webhook", s.serveWebhook)
	s.mux.HandleFunc("GET /healthz", s.serveHealth)
	return s, nil
}

// ServeHTTP routes POST /webhook and GET /healthz.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Start starts the workers. They stop when ctx is done or Close is called.
func (s *Server) Start(ctx context.Context) {
	for range s.opts.Workers {
		s.wg.Add(1)
		go s.work(ctx)
	}
}

// Close stops accepting deliveries, lets the workers finish the queued ones
// and waits for them.
func (s *Server) Close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.queue)
	}
	s.mu.Unlock()
	s.wg.Wait()
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
	log := s.log.With("delivery", delivery, "event", event)
	if r.ContentLength > s.opts.MaxBodyBytes {
		log.Warn("webhook refused", "reason", "body too large", "content_length", r.ContentLength)
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			log.Warn("webhook refused", "reason", "body too large")
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		log.Warn("webhook refused", "reason", "reading body", "err", err)
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return
	}
	// The signature comes before anything else is looked at.
	if err := Verify(s.opts.Secret, body, r.Header.Get(HeaderSignature)); err != nil {
		log.Warn("webhook refused", "reason", "bad signature", "err", err)
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	if delivery == "" || event == "" {
		log.Warn("webhook refused", "reason", "missing delivery or event header")
		http.Error(w, "missing "+HeaderDelivery+" or "+HeaderEvent, http.StatusBadRequest)
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		log.Warn("webhook refused", "reason", "content type", "content_type", r.Header.Get("Content-Type"))
		http.Error(w, "content type must be application/json", http.StatusUnsupportedMediaType)
		return
	}
	if _, ok := s.opts.Handlers[event]; !ok {
		log.Info("webhook ignored", "reason", "no handler for event")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	d := Delivery{ID: delivery, Event: event, Body: body}
	switch s.enqueue(d) {
	case enqueued:
		w.WriteHeader(http.StatusAccepted)
	case duplicate:
		log.Info("webhook ignored", "reason", "duplicate delivery")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "duplicate delivery\n")
	case full:
		log.Warn("webhook refused", "reason", "queue full")
		w.Header().Set("Retry-After", "60")
		http.Error(w, "queue full", http.StatusServiceUnavailable)
	case closing:
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
	}
}

type enqueueResult int

const (
	enqueued enqueueResult = iota
	duplicate
	full
	closing
)

func (s *Server) enqueue(d Delivery) enqueueResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return closing
	case s.done[d.ID] || s.inFlight[d.ID]:
		return duplicate
	}
	select {
	case s.queue <- d:
		s.inFlight[d.ID] = true
		return enqueued
	default:
		return full
	}
}

func (s *Server) work(ctx context.Context) {
	defer s.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case d, ok := <-s.queue:
			if !ok {
				return
			}
			s.handle(ctx, d)
		}
	}
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

func (s *Server) handle(ctx context.Context, d Delivery) {
	var head payloadHead
	_ = json.Unmarshal(d.Body, &head) // a malformed body is the handler's to report
	if head.Installation != nil {
		d.Installation = head.Installation.ID
	}
	if head.Repository != nil {
		d.Repository = head.Repository.FullName
	}
	d.Log = s.log.With("delivery", d.ID, "event", d.Event, "action", head.Action,
		"installation", d.Installation, "repository", d.Repository)
	start := time.Now()
	err := s.run(ctx, d)
	s.mu.Lock()
	delete(s.inFlight, d.ID)
	if err == nil {
		s.remember(d.ID)
	}
	s.mu.Unlock()
	if err != nil {
		d.Log.Error("delivery failed", "err", err, "duration", time.Since(start))
	} else {
		d.Log.Info("delivery handled", "duration", time.Since(start))
	}
	if s.opts.Done != nil {
		s.opts.Done(d, err)
	}
}

// run calls the handler, turning a panic into an error.
func (s *Server) run(ctx context.Context, d Delivery) (err error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.HandleTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panic: %v", p)
		}
	}()
	return s.opts.Handlers[d.Event].Handle(ctx, d)
}

// remember records a successful delivery id, forgetting the oldest beyond
// Options.Remember. s.mu must be held.
func (s *Server) remember(id string) {
	if s.done[id] {
		return
	}
	s.done[id] = true
	s.order = append(s.order, id)
	if len(s.order) > s.opts.Remember {
		delete(s.done, s.order[0])
		s.order = s.order[1:]
	}
}

func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(struct {
		Status  string `json:"status"`
		Version string `json:"version"`
		Queued  int    `json:"queued"`
	}{"ok", s.opts.Version, len(s.queue)})
}
