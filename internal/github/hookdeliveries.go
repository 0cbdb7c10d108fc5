package github

import (
	"context"
	"errors"
	"fmt"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
)

// ListHookDeliveries lists the App webhook's delivery attempts delivered
// at or after since, newest first (GET /app/hook/deliveries, following the
// cursor until a page reaches past since; a window of more than maxPages
// pages is an error, not the newest pages alone). It needs a Client built
// over an AppTransport.
func (c *Client) ListHookDeliveries(ctx context.Context, since time.Time) ([]ghmodel.HookDelivery, error) {
	opts := &gh.ListCursorOptions{PerPage: 100}
	var out []ghmodel.HookDelivery
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
			out = append(out, ghmodel.HookDelivery{
				ID: d.GetID(), GUID: d.GetGUID(), Event: d.GetEvent(), Action: d.GetAction(), DeliveredAt: at,
				StatusCode: d.GetStatusCode(), Status: d.GetStatus(), Redelivery: d.GetRedelivery(),
			})
		}
		if older || cursor == "" {
			return out, nil
		}
		opts.Cursor = cursor
	}
	return nil, fmt.Errorf("list webhook deliveries since %s: more than %d pages; give a shorter window", since.Format(time.RFC3339), maxPages)
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
