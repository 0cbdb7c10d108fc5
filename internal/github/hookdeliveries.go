package github

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"
)

// HookDelivery is one delivery attempt of the App's webhook: GitHub keeps
// every attempt (the first and each redelivery) under the delivery's GUID,
// the X-GitHub-Delivery header the bot de-duplicates on.
type HookDelivery struct {
	ID          int64 // the attempt; redeliver by it
	GUID        string
	Event       string
	Action      string
	DeliveredAt time.Time
	// StatusCode is the bot's answer (0: none, e.g. it was down).
	StatusCode int
	Status     string
	Redelivery bool
}

// Succeeded reports whether the bot took the attempt (a 2xx answer).
func (d HookDelivery) Succeeded() bool { return d.StatusCode >= 200 && d.StatusCode < 300 }

// ListHookDeliveries lists the App webhook's delivery attempts delivered
// at or after since, newest first (GET /app/hook/deliveries, following the
// cursor until a page reaches past since, at most maxPages pages). It needs
// a Client built over an AppTransport.
func (c *Client) ListHookDeliveries(ctx context.Context, since time.Time) ([]HookDelivery, error) {
	opts := &gh.ListCursorOptions{PerPage: 100}
	var out []HookDelivery
	for range maxPages {
		var page []*gh.HookDelivery
		var cursor string
		err := c.do(ctx, func() (*gh.Response, error) {
			var resp *gh.Response
			var err error
			page, resp, err = c.gh.Apps.ListHookDeliveries(ctx, opts)
			if resp != nil {
				cursor = resp.Cursor
			}
			return resp, err
		})
		if err != nil {
			return nil, fmt.Errorf("list webhook deliveries: %w", err)
		}
		older := false
		for _, d := range page {
			at := d.GetDeliveredAt().Time
			if at.Before(since) {
				older = true
				continue
			}
			out = append(out, HookDelivery{
				ID: d.GetID(), GUID: d.GetGUID(), Event: d.GetEvent(), Action: d.GetAction(), DeliveredAt: at,
				StatusCode: d.GetStatusCode(), Status: d.GetStatus(), Redelivery: d.GetRedelivery(),
			})
		}
		if older || cursor == "" {
			return out, nil
		}
		opts.Cursor = cursor
	}
	return out, nil
}

// RedeliverHookDelivery asks GitHub to deliver attempt id's delivery again
// (POST /app/hook/deliveries/{id}/attempts; GitHub answers 202 and makes a
// new attempt under the same GUID). It needs a Client built over an
// AppTransport.
func (c *Client) RedeliverHookDelivery(ctx context.Context, id int64) error {
	err := c.do(ctx, func() (*gh.Response, error) {
		_, resp, err := c.gh.Apps.RedeliverHookDelivery(ctx, id)
		var accepted *gh.AcceptedError
		if errors.As(err, &accepted) {
			return resp, nil
		}
		return resp, err
	})
	if err != nil {
		return fmt.Errorf("redeliver webhook delivery %d: %w", id, err)
	}
	return nil
}

// FailedDeliveries picks, from a window of attempts (any order), the
// deliveries to redeliver: one attempt (the newest) of each GUID none of
// whose attempts in the window succeeded, oldest delivery first. A
// delivery the bot took once is never picked again, so asking for the
// picks again after they succeeded picks nothing; a redelivery of one the
// bot took meanwhile is dropped by its de-duplication on the GUID.
func FailedDeliveries(attempts []HookDelivery) []HookDelivery {
	newest := map[string]HookDelivery{}
	first := map[string]time.Time{}
	took := map[string]bool{}
	for _, d := range attempts {
		if d.Succeeded() {
			took[d.GUID] = true
		}
		if n, ok := newest[d.GUID]; !ok || d.DeliveredAt.After(n.DeliveredAt) || (d.DeliveredAt.Equal(n.DeliveredAt) && d.ID > n.ID) {
			newest[d.GUID] = d
		}
		if f, ok := first[d.GUID]; !ok || d.DeliveredAt.Before(f) {
			first[d.GUID] = d.DeliveredAt
		}
	}
	var out []HookDelivery
	for guid, d := range newest {
		if !took[guid] {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b HookDelivery) int {
		if c := first[a.GUID].Compare(first[b.GUID]); c != 0 {
			return c
		}
		return strings.Compare(a.GUID, b.GUID)
	})
	return out
}
