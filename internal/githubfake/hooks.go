package githubfake

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
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
// a new attempt of the same delivery (its GUID), answered with the status
// SetRedeliveryStatus set.
func redeliverHookDelivery(c *call) response {
	id, err := strconv.ParseInt(c.vars["delivery_id"], 10, 64)
	i := slices.IndexFunc(c.s.hookDeliveries, func(d HookDelivery) bool { return d.ID == id })
	if err != nil || i < 0 {
		return notFound()
	}
	d := c.s.hookDeliveries[i]
	d.ID, d.Redelivery, d.DeliveredAt, d.StatusCode = c.s.newID(), true, time.Now().UTC().Truncate(time.Second), c.s.redeliveryStatus
	c.s.hookDeliveries = append(c.s.hookDeliveries, d)
	return ok(http.StatusAccepted, map[string]any{})
}
