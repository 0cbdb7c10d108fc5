package sticky

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/inference-sim/accuracy-dashboard/internal/ghmodel"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	const marker = "<!-- m -->"
	body := marker + "\nnew"
	tests := []struct {
		name     string
		existing []ghmodel.Comment
		want     Decision
	}{
		{"none", nil, Decision{Op: OpCreate}},
		{"marker pasted by someone else", []ghmodel.Comment{{ID: 1, Author: "alice", Body: marker + " copy"}}, Decision{Op: OpCreate}},
		{"ours without marker", []ghmodel.Comment{{ID: 1, Author: "github-actions[bot]", Body: "hello"}}, Decision{Op: OpCreate}},
		{"ours", []ghmodel.Comment{{ID: 5, Author: "GitHub-Actions[bot]", Body: marker + "\nold", URL: "u5"}}, Decision{Op: OpUpdate, ID: 5, URL: "u5"}},
		{"unchanged", []ghmodel.Comment{{ID: 5, Author: "github-actions[bot]", Body: body, URL: "u5"}}, Decision{Op: OpKeep, ID: 5, URL: "u5"}},
		{"duplicates from a race", []ghmodel.Comment{
			{ID: 9, Author: "github-actions[bot]", Body: marker},
			{ID: 3, Author: "github-actions[bot]", Body: marker, URL: "u3"},
			{ID: 7, Author: "github-actions[bot]", Body: marker},
		}, Decision{Op: OpUpdate, ID: 3, URL: "u3", Duplicates: []int64{7, 9}}},
	}
	for _, tt := range tests {
		got := Decide(tt.existing, "github-actions[bot]", marker, body)
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}
