package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	gh "github.com/google/go-github/v60/github"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
)

// APIError is GitHub's answer to a failed request.
type APIError struct {
	StatusCode int
	Message    string
	// Err is the sentinel for StatusCode, or nil.
	Err error
	// RetryAt is, for ErrRateLimited, when GitHub said calls may resume
	// (zero when it did not say).
	RetryAt time.Time
}

func (e *APIError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("GitHub answered %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	}
	return fmt.Sprintf("GitHub answered %d: %s", e.StatusCode, e.Message)
}

// Unwrap returns the sentinel.
func (e *APIError) Unwrap() error { return e.Err }

func sentinelFor(status int) error {
	switch status {
	case http.StatusNotFound, http.StatusGone:
		return ghmodel.ErrNotFound
	case http.StatusForbidden:
		return ghmodel.ErrForbidden
	case http.StatusUnauthorized:
		return ghmodel.ErrUnauthorized
	case http.StatusConflict:
		return ghmodel.ErrConflict
	case http.StatusUnprocessableEntity:
		return ghmodel.ErrInvalid
	case http.StatusTooManyRequests:
		return ghmodel.ErrRateLimited
	}
	return nil
}

// rateLimited reports whether an answer is a rate limit rather than a
// refusal: a 429, or a 403 with Retry-After, with X-RateLimit-Remaining 0
// (the primary limit), or whose body (message and documentation URL) names
// a secondary rate limit. The retry layer and mapError both decide with it,
// so a limit the retries could not wait out is ErrRateLimited, never
// ErrForbidden.
func rateLimited(status int, h http.Header, body string) bool {
	switch {
	case status == http.StatusTooManyRequests:
		return true
	case status != http.StatusForbidden:
		return false
	case h.Get("Retry-After") != "", h.Get("X-RateLimit-Remaining") == "0":
		return true
	}
	s := strings.ToLower(body)
	return strings.Contains(s, "secondary rate limit") || strings.Contains(s, "secondary-rate-limits") ||
		strings.Contains(s, "abuse detection")
}

// mapError turns a go-github error into an *APIError (or returns it as is for
// transport and context errors).
func mapError(resp *gh.Response, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var rle *gh.RateLimitError
	if errors.As(err, &rle) {
		msg := rle.Message
		if !rle.Rate.Reset.Time.IsZero() {
			msg += fmt.Sprintf(" (resets %s)", rle.Rate.Reset.Time.UTC().Format(time.RFC3339))
		}
		return &APIError{StatusCode: statusOf(rle.Response, http.StatusForbidden), Message: msg, Err: ghmodel.ErrRateLimited,
			RetryAt: rle.Rate.Reset.Time}
	}
	var arle *gh.AbuseRateLimitError
	if errors.As(err, &arle) {
		ae := &APIError{StatusCode: statusOf(arle.Response, http.StatusForbidden), Message: arle.Message, Err: ghmodel.ErrRateLimited}
		if arle.RetryAfter != nil {
			ae.RetryAt = time.Now().Add(*arle.RetryAfter)
		}
		return ae
	}
	var er *gh.ErrorResponse
	if errors.As(err, &er) {
		status := statusOf(er.Response, 0)
		msg := er.Message
		for _, e := range er.Errors {
			if e.Message != "" {
				msg += "; " + e.Message
			} else if e.Code != "" {
				msg += fmt.Sprintf("; %s %s %s", e.Resource, e.Field, e.Code)
			}
		}
		ae := &APIError{StatusCode: status, Message: msg, Err: sentinelFor(status)}
		if er.Response != nil && rateLimited(status, er.Response.Header, er.Message+" "+er.DocumentationURL) {
			ae.Err = ghmodel.ErrRateLimited
			if wait, ok := limitWait(er.Response.Header, time.Now()); ok {
				ae.RetryAt = time.Now().Add(wait)
			}
		}
		return ae
	}
	var he *ghinstallation.HTTPError
	if errors.As(err, &he) && he.Response != nil {
		return fmt.Errorf("%w: %w", ghmodel.ErrInstallationToken,
			&APIError{StatusCode: he.Response.StatusCode, Message: he.Message, Err: sentinelFor(he.Response.StatusCode)})
	}
	if resp != nil && resp.Response != nil && resp.StatusCode >= 400 {
		return &APIError{StatusCode: resp.StatusCode, Message: err.Error(), Err: sentinelFor(resp.StatusCode)}
	}
	return err
}

func statusOf(r *http.Response, fallback int) int {
	if r == nil {
		return fallback
	}
	return r.StatusCode
}

// conflictOn422 reclassifies a 422 as ErrConflict, for ref operations.
func conflictOn422(err error) error {
	var ae *APIError
	if errors.As(err, &ae) && ae.StatusCode == http.StatusUnprocessableEntity {
		ae.Err = ghmodel.ErrConflict
	}
	return err
}

// do runs one go-github call and maps its error. go-github remembers an
// exhausted rate limit and then fails calls without sending them; when the
// reset is within the policy's MaxWait, do waits for it and tries once more,
// so a limit is honoured the same way whether the transport or go-github saw it.
func (c *Client) do(ctx context.Context, call func() (*gh.Response, error)) error {
	resp, err := call()
	var rle *gh.RateLimitError
	if errors.As(err, &rle) && !rle.Rate.Reset.Time.IsZero() {
		wait := rle.Rate.Reset.Time.Sub(c.retry.Now()) + time.Second
		if wait > 0 && c.retry.canWait(ctx, wait) {
			if serr := c.retry.Sleep(ctx, wait); serr != nil {
				return serr
			}
			resp, err = call()
		}
	}
	return mapError(resp, err)
}
