// Package sticky is a pull request's sticky comment: one comment of one
// kind, found by its marker and the token's login, created once and edited
// in place after (Decide picks create, update or keep), cut to GitHub's
// limit with a note, degrading to no comment on a read-only (fork) token.
// Both pull-request flows post through it, prcheck's accuracy report
// (render.PRMarker) and the leaderboard's (internal/leaderboard/lbpr,
// lbview.Marker), each finding and editing only the comment of its own
// marker; GitHub is reached through the small Commenter declared here.
package sticky

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
	"github.com/inference-sim/accuracy-dashboard/internal/render"
	"github.com/inference-sim/accuracy-dashboard/internal/textcut"
)

// Commenter reaches the comments of pull requests of the repository at hand
// (a pull request's comments are its issue comments). Implementations
// wrap errors of a token that may not write (HTTP 403 "Resource not
// accessible by integration", as on a pull request from a fork) so that
// errors.Is(err, ghmodel.ErrForbidden) holds, and retry transient errors themselves.
type Commenter interface {
	// Self is the login the token acts as.
	Self(ctx context.Context) (string, error)
	// ListComments returns every comment of pull request number (all pages).
	ListComments(ctx context.Context, number int) ([]ghmodel.Comment, error)
	CreateComment(ctx context.Context, number int, body string) (ghmodel.Comment, error)
	UpdateComment(ctx context.Context, id int64, body string) (ghmodel.Comment, error)
	DeleteComment(ctx context.Context, id int64) error
}

// Log receives the notice of a read-only token and the warnings.
type Log interface {
	Notice(msg string)
	Warning(msg string)
}

// DefaultBotLogin is the identity assumed for a token that cannot read its
// own user: the GITHUB_TOKEN of a workflow run, whose comments are authored
// by github-actions[bot].
const DefaultBotLogin = "github-actions[bot]"

// Comment is one pull request's comment of one kind, found by its marker
// and the token's login, created once and edited in place after: one per
// kind of report (render.PRMarker for the accuracy report, lbview.Marker
// for the leaderboard's tables), each edited by its own mode only.
type Comment struct {
	Comments Commenter
	// Log receives the notice of a read-only token and the warnings.
	Log    Log
	Marker string
	// DetailsURL is where a cut comment's note points (the run's job
	// summary), "" for none.
	DetailsURL string
}

// Op is what to do with the sticky comment.
type Op int

// Ops.
const (
	// OpCreate adds a new comment.
	OpCreate Op = iota
	// OpUpdate edits comment ID in place.
	OpUpdate
	// OpKeep leaves comment ID alone: its body is already the new one.
	OpKeep
)

// Decision is what to do with the sticky comment (Decide).
type Decision struct {
	Op Op
	// ID is the comment to update or keep (0 for OpCreate).
	ID int64
	// URL is the kept or updated comment's address.
	URL string
	// Duplicates are other comments of ours with the marker (left by racing
	// runs); the caller may delete them.
	Duplicates []int64
}

// Decide picks the comment to create or update. A comment is ours
// when its author is self (case-insensitive) AND its body contains marker: a
// marker alone could be pasted by anyone. The oldest of ours (lowest ID) is
// kept and updated; when its body already equals body it is kept as is.
func Decide(existing []ghmodel.Comment, self, marker, body string) Decision {
	var ours []ghmodel.Comment
	for _, c := range existing {
		if strings.EqualFold(c.Author, self) && strings.Contains(c.Body, marker) {
			ours = append(ours, c)
		}
	}
	if len(ours) == 0 {
		return Decision{Op: OpCreate}
	}
	slices.SortFunc(ours, func(a, b ghmodel.Comment) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	d := Decision{Op: OpUpdate, ID: ours[0].ID, URL: ours[0].URL}
	if ours[0].Body == body {
		d.Op = OpKeep
	}
	for _, c := range ours[1:] {
		d.Duplicates = append(d.Duplicates, c.ID)
	}
	return d
}

// Post creates or updates the sticky comment of pull request number with
// markdown, cut to a comment's limit with a note pointing at the job
// summary. A read-only token is not an error: the report stays in the job
// summary and a notice says why.
func (s *Comment) Post(ctx context.Context, number int, markdown string) (url string, readOnly bool, err error) {
	return s.post(ctx, number, markdown, true)
}

// Refresh replaces the body of the pull request's existing comment, and
// creates none: a report that now has nothing to say (a pull request that
// no longer changes what the comment was about) must not leave an earlier,
// stale comment standing, nor open a new one. url is "" when there was no
// comment.
func (s *Comment) Refresh(ctx context.Context, number int, markdown string) (url string, readOnly bool, err error) {
	return s.post(ctx, number, markdown, false)
}

func (s *Comment) post(ctx context.Context, number int, markdown string, create bool) (url string, readOnly bool, err error) {
	body := render.Truncate(markdown, textcut.MaxGitHubBody, render.CommentCutNote(s.DetailsURL))
	degrade := func(err error) (string, bool, error) {
		if errors.Is(err, ghmodel.ErrForbidden) {
			s.Log.Notice("Not commenting: the token is read-only (a pull request from a fork?). The report is in the job summary. To comment on fork pull requests, use the pull_request + workflow_run pair (docs/ACTION.md).")
			return "", true, nil
		}
		return "", false, fmt.Errorf("comment: %w", err)
	}
	self, err := s.Comments.Self(ctx)
	if errors.Is(err, ghmodel.ErrForbidden) {
		self, err = DefaultBotLogin, nil
	}
	if err != nil {
		return degrade(err)
	}
	list, err := s.Comments.ListComments(ctx, number)
	if err != nil {
		return degrade(err)
	}
	d := Decide(list, self, s.Marker, body)
	if d.Op == OpCreate && !create {
		return "", false, nil
	}
	var c ghmodel.Comment
	switch d.Op {
	case OpKeep:
		c = ghmodel.Comment{ID: d.ID, URL: d.URL}
	case OpUpdate:
		c, err = s.Comments.UpdateComment(ctx, d.ID, body)
	default:
		c, err = s.Comments.CreateComment(ctx, number, body)
	}
	if err != nil {
		return degrade(err)
	}
	for _, id := range d.Duplicates {
		if err := s.Comments.DeleteComment(ctx, id); err != nil {
			s.Log.Warning(fmt.Sprintf("Could not delete duplicate report comment %d: %v", id, err))
		}
	}
	return c.URL, false, nil
}
