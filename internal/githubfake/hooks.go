package githubfake

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"
)

// HookDelivery is one delivery attempt of the App's webhook, as GET
// /app/hook/deliveries lists it.
type HookDelivery struct {
	ID          int64 // set by the fake
	GUID        string
	Event       string
	Action      string
	DeliveredAt time.Time
	// StatusCode is the bot's answer (0: no answer, e.g. the bot was
	// down).
	StatusCode int
	Redelivery bool
	// body is the payload Deliver sent, which a redelivery sends again.
	body []byte
}

// webhookTarget is the App's webhook: where the fake delivers and the
// secret it signs with.
type webhookTarget struct {
	url    string
	secret []byte
	sent   sync.WaitGroup // redeliveries under way
}

// SetWebhook makes the fake deliver to the App's webhook at url (its
// POST /webhook), signing with secret: Deliver sends a delivery, and a
// redelivery (POST /app/hook/deliveries/{id}/attempts) sends the stored
// one again, after its answer, as GitHub does, recording the answer the
// webhook gave. Without it, deliveries are only recorded (AddHookDelivery)
// and redeliveries answered SetRedeliveryStatus's status.
func (s *Server) SetWebhook(url, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = &webhookTarget{url: url, secret: []byte(secret)}
	s.t.Cleanup(s.hook.sent.Wait)
}

// Deliver sends a delivery of event and action, with the GUID guid and the
// payload body, to the webhook SetWebhook named, as GitHub does (signed
// with X-Hub-Signature-256, a 10 s timeout), records the attempt with the
// webhook's answer and returns it (0: no answer).
func (s *Server) Deliver(event, action, guid string, body []byte) int {
	s.t.Helper()
	s.mu.Lock()
	hook := s.hook
	s.mu.Unlock()
	if hook == nil {
		s.t.Fatal("githubfake: Deliver without SetWebhook")
	}
	return s.attempt(hook, HookDelivery{GUID: guid, Event: event, Action: action, body: body})
}

// attempt sends d to hook and records it with the answer, delivered at
// the wall clock's time; it returns the answer.
func (s *Server) attempt(hook *webhookTarget, d HookDelivery) int {
	d.DeliveredAt = time.Now().UTC().Truncate(time.Second)
	d.StatusCode = hook.post(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	d.ID = s.newID()
	s.hookDeliveries = append(s.hookDeliveries, d)
	return d.StatusCode
}

// post sends one attempt of d and returns the answer's status (0: none).
func (h *webhookTarget) post(d HookDelivery) int {
	req, err := http.NewRequest(http.MethodPost, h.url, bytes.NewReader(d.body))
	if err != nil {
		return 0
	}
	mac := hmac.New(sha256.New, h.secret)
	mac.Write(d.body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "GitHub-Hookshot/githubfake")
	req.Header.Set("X-GitHub-Event", d.Event)
	req.Header.Set("X-GitHub-Delivery", d.GUID)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// AddHookDelivery records a delivery attempt of the App's webhook and
// returns its id.
func (s *Server) AddHookDelivery(d HookDelivery) int64 {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	d.ID = s.newID()
	s.hookDeliveries = append(s.hookDeliveries, d)
	return d.ID
}

// HookDeliveries returns every delivery attempt, oldest first: those added
// and those the redeliveries asked for made.
func (s *Server) HookDeliveries() []HookDelivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.hookDeliveries)
}

// SetRedeliveryStatus sets the status code of the attempts redeliveries
// make from now on (default 202: the bot accepted the delivery; 0: no
// answer). A redelivery's attempt is delivered at the wall clock's time.
func (s *Server) SetRedeliveryStatus(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.redeliveryStatus = code
}

func hookDeliveryJSON(d HookDelivery) map[string]any {
	status := "OK"
	switch {
	case d.StatusCode == 0:
		status = "failed to connect"
	case d.StatusCode >= 400:
		status = "Invalid HTTP Response: " + strconv.Itoa(d.StatusCode)
	}
	return map[string]any{
		"id": d.ID, "guid": d.GUID, "delivered_at": ts(d.DeliveredAt), "redelivery": d.Redelivery,
		"duration": 0.05, "status": status, "status_code": d.StatusCode, "event": d.Event, "action": d.Action,
		"installation_id": nil, "repository_id": nil, "throttled_at": nil,
	}
}

// listHookDeliveries is GET /app/hook/deliveries: newest first, paginated
// by a cursor (the id of the next page's first delivery) in the Link
// header, as GitHub does; status=success|failure filters by status code
// (200-399, 400-599).
func listHookDeliveries(c *call) response {
	all := slices.Clone(c.s.hookDeliveries)
	slices.Reverse(all) // newest first
	var items []HookDelivery
	for _, d := range all {
		switch c.query.Get("status") {
		case "success":
			if d.StatusCode < 200 || d.StatusCode > 399 {
				continue
			}
		case "failure":
			if d.StatusCode < 400 || d.StatusCode > 599 {
				continue
			}
		}
		items = append(items, d)
	}
	perPage := 30
	if v, err := strconv.Atoi(c.query.Get("per_page")); err == nil && v > 0 {
		perPage = min(v, 100)
	}
	start := 0
	if cur := c.query.Get("cursor"); cur != "" {
		id, err := strconv.ParseInt(cur, 10, 64)
		start = slices.IndexFunc(items, func(d HookDelivery) bool { return d.ID == id })
		if err != nil || start < 0 {
			return errorResponse(http.StatusBadRequest, "Bad cursor")
		}
	}
	end := min(len(items), start+perPage)
	page := make([]any, 0, end-start)
	for _, d := range items[start:end] {
		page = append(page, hookDeliveryJSON(d))
	}
	resp := ok(http.StatusOK, page)
	if end < len(items) {
		q := url.Values{}
		for k, v := range c.query {
			q[k] = v
		}
		q.Set("per_page", strconv.Itoa(perPage))
		q.Set("cursor", strconv.FormatInt(items[end].ID, 10))
		resp.header = http.Header{"Link": {fmt.Sprintf(`<%s?%s>; rel="next"`, c.s.api("%s", c.path), q.Encode())}}
	}
	return resp
}

// redeliverHookDelivery is POST /app/hook/deliveries/{delivery_id}/attempts:
// a new attempt of the same delivery (its GUID), sent to the webhook
// after the answer when SetWebhook named one, else recorded with the
// status SetRedeliveryStatus set.
func redeliverHookDelivery(c *call) response {
	id, err := strconv.ParseInt(c.vars["delivery_id"], 10, 64)
	i := slices.IndexFunc(c.s.hookDeliveries, func(d HookDelivery) bool { return d.ID == id })
	if err != nil || i < 0 {
		return notFound()
	}
	d := c.s.hookDeliveries[i]
	if hook := c.s.hook; hook != nil && d.body != nil {
		d.Redelivery = true
		hook.sent.Go(func() { c.s.attempt(hook, d) })
		return ok(http.StatusAccepted, map[string]any{})
	}
	d.ID, d.Redelivery, d.DeliveredAt, d.StatusCode = c.s.newID(), true, time.Now().UTC().Truncate(time.Second), c.s.redeliveryStatus
	c.s.hookDeliveries = append(c.s.hookDeliveries, d)
	return ok(http.StatusAccepted, map[string]any{})
}
