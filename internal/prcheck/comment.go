package prcheck

import (
	"slices"
	"strings"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
)

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

// Decision is the sticky-comment decision.
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

// DecideComment picks the comment to create or update. A comment is ours
// when its author is self (case-insensitive) AND its body contains marker: a
// marker alone could be pasted by anyone. The oldest of ours (lowest ID) is
// kept and updated; when its body already equals body it is kept as is.
func DecideComment(existing []ghmodel.Comment, self, marker, body string) Decision {
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
